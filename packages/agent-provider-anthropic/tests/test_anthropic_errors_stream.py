"""Error classification and streaming edge cases over a loopback httpx.MockTransport."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from robota.core.errors import (
    AuthenticationError,
    ContextWindowExceededError,
    MalformedResponseError,
    OverloadedError,
    ProviderConnectionError,
    QuotaExhaustedError,
    RateLimitError,
)
from robota.core.messages import UserMessage
from robota.core.provider import (
    ModelRequest,
    PayloadEvent,
    ResponseCompleted,
    TextDelta,
    ToolCallDelta,
)
from robota.providers.anthropic import AnthropicProvider
from robota.providers.anthropic._errors import retry_after_seconds

_REQUEST = ModelRequest(model="claude-sonnet-4-6", messages=(UserMessage.of("hi"),))


def _provider(handler: Any) -> AnthropicProvider:
    return AnthropicProvider(
        api_key="k", http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler))
    )


def _error(status: int, kind: str, message: str, headers: dict[str, str] | None = None) -> Any:
    def handler(request: httpx.Request) -> httpx.Response:
        body = {"type": "error", "error": {"type": kind, "message": message}}
        return httpx.Response(status, json=body, headers={"request-id": "req_9", **(headers or {})})

    return handler


@pytest.mark.anyio
async def test_overloaded_529_keeps_request_id_and_retry_after() -> None:
    provider = _provider(_error(529, "overloaded_error", "Overloaded", {"retry-after": "7"}))
    with pytest.raises(OverloadedError) as info:
        await provider.complete(_REQUEST)
    assert info.value.status == 529
    assert info.value.vendor_type == "overloaded_error"
    assert info.value.request_id == "req_9"
    assert info.value.retry_after == 7.0
    assert info.value.recoverable is True


@pytest.mark.anyio
async def test_rate_limit_reads_retry_after_ms() -> None:
    provider = _provider(_error(429, "rate_limit_error", "slow down", {"retry-after-ms": "1500"}))
    with pytest.raises(RateLimitError) as info:
        await provider.complete(_REQUEST)
    assert info.value.retry_after == 1.5


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("status", "kind", "cls"),
    [
        (401, "authentication_error", AuthenticationError),
        (402, "billing_error", QuotaExhaustedError),
    ],
)
async def test_status_errors_classify_by_vendor_type(status: int, kind: str, cls: type) -> None:
    with pytest.raises(cls):
        await _provider(_error(status, kind, "no")).complete(_REQUEST)


@pytest.mark.anyio
async def test_prompt_too_long_becomes_context_window_exceeded() -> None:
    handler = _error(
        400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"
    )
    with pytest.raises(ContextWindowExceededError) as info:
        await _provider(handler).complete(_REQUEST)
    assert info.value.provider_reported is True
    assert info.value.provider_error is not None
    assert info.value.provider_error.status == 400


@pytest.mark.anyio
async def test_connection_failure_is_a_provider_connection_error() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    with pytest.raises(ProviderConnectionError):
        await _provider(handler).complete(_REQUEST)


def _sse(events: list[dict[str, Any]]) -> bytes:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


def _stream_handler(events: list[dict[str, Any]]) -> Any:
    def handler(request: httpx.Request) -> httpx.Response:
        assert json.loads(request.content)["stream"] is True
        return httpx.Response(
            200, content=_sse(events), headers={"content-type": "text/event-stream"}
        )

    return handler


def _start(usage: dict[str, int]) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {"id": "msg_1", "model": "claude-sonnet-4-6", "content": [], "usage": usage},
    }


@pytest.mark.anyio
async def test_stream_keeps_parallel_calls_apart_and_survives_bad_arguments() -> None:
    events = [
        _start({"input_tokens": 10, "cache_read_input_tokens": 5, "output_tokens": 1}),
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "Let me check."},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "t1", "name": "now", "input": {}},
        },
        {"type": "content_block_stop", "index": 1},
        {
            "type": "content_block_start",
            "index": 2,
            "content_block": {"type": "tool_use", "id": "t2", "name": "add", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 2,
            "delta": {"type": "input_json_delta", "partial_json": '{"a": 1,'},
        },
        {
            "type": "content_block_delta",
            "index": 2,
            "delta": {"type": "input_json_delta", "partial_json": ' "b"'},
        },
        {"type": "content_block_stop", "index": 2},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 42},
        },
        {"type": "message_stop"},
    ]
    seen: list[PayloadEvent] = []
    request = ModelRequest(
        model="claude-sonnet-4-6", messages=(UserMessage.of("hi"),), on_payload=seen.append
    )
    out = [e async for e in _provider(_stream_handler(events)).stream(request)]
    deltas = [e for e in out if isinstance(e, ToolCallDelta)]
    assert [(d.index, d.id, d.name, d.arguments_delta) for d in deltas] == [
        (0, "t1", "now", ""),
        (1, "t2", "add", ""),
        (1, None, None, '{"a": 1,'),
        (1, None, None, ' "b"'),
    ]
    assert [e.text for e in out if isinstance(e, TextDelta)] == ["Let me check."]
    final = out[-1]
    assert isinstance(final, ResponseCompleted)
    calls = final.response.message.tool_calls
    assert [(c.name, c.arguments, c.raw_arguments) for c in calls] == [
        ("now", {}, ""),
        ("add", None, '{"a": 1, "b"'),
    ]
    assert final.response.finish_reason == "tool_calls"
    assert final.response.usage.input_tokens == 15
    assert final.response.usage.cache_read_tokens == 5
    assert final.response.usage.output_tokens == 42
    assert [(p.direction, p.order) for p in seen][:2] == [("request", 0), ("stream", 1)]
    assert len(seen) == 1 + len(events)


@pytest.mark.anyio
async def test_error_event_mid_stream_is_classified() -> None:
    events = [
        _start({"input_tokens": 1, "output_tokens": 1}),
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    ]
    with pytest.raises(OverloadedError) as info:
        async for _ in _provider(_stream_handler(events)).stream(_REQUEST):
            pass
    assert info.value.status is None


@pytest.mark.anyio
async def test_stream_cut_before_message_stop_is_reported() -> None:
    events = [_start({"input_tokens": 1, "output_tokens": 1})]
    with pytest.raises(MalformedResponseError, match="message_stop event"):
        async for _ in _provider(_stream_handler(events)).stream(_REQUEST):
            pass


@given(st.integers(min_value=0, max_value=10**6))
def test_retry_after_seconds_and_ms_agree(seconds: int) -> None:
    assert retry_after_seconds({"Retry-After": str(seconds)}) == float(seconds)
    assert retry_after_seconds({"retry-after-ms": str(seconds * 1000)}) == float(seconds)


def test_retry_after_http_date() -> None:
    headers = {"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}
    assert retry_after_seconds(headers, now=1445412470.0) == 10.0
    assert retry_after_seconds({"retry-after": "soon"}) is None
