"""Behaviour of the Gemini provider on hand-written wire payloads (loopback MockTransport only)."""

from __future__ import annotations

import base64
import json
from decimal import Decimal
from typing import Any

import httpx
import pytest
from robota.core.capabilities import HostedTool
from robota.core.errors import (
    AuthenticationError,
    ContentFilterError,
    ContextWindowExceededError,
    InternalServerError,
    OverloadedError,
    QuotaExhaustedError,
    RateLimitError,
    RobotaError,
    UnsupportedCapabilityError,
)
from robota.core.messages import (
    AssistantMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultMessage,
    ToolResultPart,
    UserMessage,
)
from robota.core.provider import ModelRequest, ToolDefinition
from robota.core.settings import ModelSettings
from robota.providers.google import GoogleProvider, estimate_cost

OK_BODY = {"candidates": [{"content": {"parts": [{"text": "ok"}]}, "finishReason": "STOP"}]}
SIG_TEXT = base64.b64encode(b"text-signature-\xff\xfe").decode()
SIG_CALL = base64.b64encode(b"call-signature-\xfb\xff").decode()


def _provider(handler: Any, **kwargs: Any) -> GoogleProvider:
    return GoogleProvider(
        "k", http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)), **kwargs
    )


def _json(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Any:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json=body, headers=headers or {})

    return handler


def _request(model: str = "gemini-2.5-flash", **kwargs: Any) -> ModelRequest:
    return ModelRequest(model=model, messages=(UserMessage.of("hi"),), **kwargs)


def _error(code: int, status: str, details: list[Any] | None = None, message: str = "x") -> Any:
    return {"error": {"code": code, "status": status, "message": message, "details": details or []}}


RETRY_INFO = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "13s"}
PER_DAY = {
    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
    "violations": [{"quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier"}],
}


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("status", "body", "kind", "retry_after", "recoverable"),
    [
        (429, _error(429, "RESOURCE_EXHAUSTED", [RETRY_INFO]), RateLimitError, 13.0, True),
        (429, _error(429, "RESOURCE_EXHAUSTED", [PER_DAY]), QuotaExhaustedError, None, False),
        (503, _error(503, "UNAVAILABLE"), OverloadedError, None, True),
        (500, _error(500, "INTERNAL"), InternalServerError, None, True),
        (401, _error(401, "UNAUTHENTICATED"), AuthenticationError, None, False),
    ],
)
async def test_vendor_errors_are_classified_by_status(
    status: int, body: Any, kind: type[RobotaError], retry_after: float | None, recoverable: bool
) -> None:
    provider = _provider(_json(body, status))
    with pytest.raises(kind) as info:
        await provider.complete(_request())
    error: Any = info.value
    assert error.status == status
    assert error.vendor_type == body["error"]["status"]
    assert error.retry_after == retry_after
    assert error.recoverable is recoverable


@pytest.mark.anyio
async def test_retry_after_header_is_used_when_no_retry_info() -> None:
    provider = _provider(_json(_error(429, "RESOURCE_EXHAUSTED"), 429, {"retry-after": "7"}))
    with pytest.raises(RateLimitError) as info:
        await provider.complete(_request())
    assert info.value.retry_after == 7.0


@pytest.mark.anyio
async def test_over_long_prompt_is_a_context_window_error() -> None:
    message = (
        "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
    )
    provider = _provider(_json(_error(400, "INVALID_ARGUMENT", message=message), 400))
    with pytest.raises(ContextWindowExceededError) as info:
        await provider.complete(_request())
    assert info.value.provider_reported is True
    assert info.value.provider_error is not None
    assert info.value.provider_error.status == 400


@pytest.mark.anyio
async def test_blocked_prompt_raises_content_filter() -> None:
    provider = _provider(_json({"promptFeedback": {"blockReason": "SAFETY"}}))
    with pytest.raises(ContentFilterError) as info:
        await provider.complete(_request())
    assert info.value.vendor_type == "SAFETY"


@pytest.mark.anyio
async def test_unsupported_hosted_tool_fails_before_io() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("no request may be sent")

    provider = _provider(handler)
    with pytest.raises(UnsupportedCapabilityError):
        await provider.complete(
            _request("gemini-2.0-flash-lite", hosted_tools=frozenset({HostedTool.WEB_SEARCH}))
        )


RESPONSE = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [
                    {"text": "thinking about it", "thought": True},
                    {"text": "Let me check.", "thoughtSignature": SIG_TEXT},
                    {
                        "functionCall": {"name": "lookup", "args": {"q": "x"}},
                        "thoughtSignature": SIG_CALL,
                    },
                    {"functionCall": {"name": "now"}},
                ],
            },
            "finishReason": "STOP",
        }
    ],
    "usageMetadata": {
        "promptTokenCount": 100,
        "cachedContentTokenCount": 40,
        "candidatesTokenCount": 20,
        "thoughtsTokenCount": 30,
        "toolUsePromptTokenCount": 5,
    },
    "modelVersion": "gemini-2.5-flash",
    "responseId": "resp-1",
}


@pytest.mark.anyio
async def test_response_parts_usage_and_finish() -> None:
    response = await _provider(_json(RESPONSE)).complete(_request())
    parts = response.message.parts
    assert parts[0] == ThinkingPart(text="thinking about it", provider="google")
    assert parts[1] == ThinkingPart(signature=SIG_TEXT, provider="google")
    assert parts[2] == TextPart(text="Let me check.")
    lookup, now = response.message.tool_calls
    assert (lookup.name, lookup.arguments, lookup.signature) == ("lookup", {"q": "x"}, SIG_CALL)
    assert (now.name, now.arguments, now.raw_arguments) == ("now", {}, "")
    assert lookup.id != now.id
    assert response.finish_reason == "tool_calls"
    assert response.raw_finish_reason == "STOP"
    usage = response.usage
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (100, 50, 40)
    assert usage.reasoning_tokens == 30
    assert usage.details == {"tool_use_prompt_tokens": 5}
    assert response.message.response_id == "resp-1"


@pytest.mark.anyio
async def test_signatures_and_results_round_trip_on_the_wire() -> None:
    first = await _provider(_json(RESPONSE)).complete(_request())
    calls = first.message.tool_calls
    sent: list[Any] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return httpx.Response(200, json=OK_BODY)

    history = (
        UserMessage.of("hi"),
        first.message,
        ToolResultMessage(
            results=(
                ToolResultPart(call_id=calls[0].id, name="lookup", content=(TextPart(text="42"),)),
                ToolResultPart(
                    call_id=calls[1].id, name="now", content=(TextPart(text="bad"),), is_error=True
                ),
            )
        ),
    )
    await _provider(handler).complete(ModelRequest(model="gemini-2.5-flash", messages=history))
    model_turn, results = sent[0]["contents"][1], sent[0]["contents"][2]
    parts = model_turn["parts"]
    assert parts[0] == {"text": "thinking about it", "thought": True}
    assert parts[1]["text"] == "Let me check."
    assert base64.urlsafe_b64decode(parts[1]["thoughtSignature"]) == base64.b64decode(SIG_TEXT)
    assert parts[2]["functionCall"] == {"name": "lookup", "args": {"q": "x"}}
    assert base64.urlsafe_b64decode(parts[2]["thoughtSignature"]) == base64.b64decode(SIG_CALL)
    assert results["role"] == "user"
    assert [p["functionResponse"] for p in results["parts"]] == [
        {"name": "lookup", "response": {"output": "42"}},
        {"name": "now", "response": {"error": "bad"}},
    ]


@pytest.mark.anyio
async def test_vendor_call_ids_are_sent_back_verbatim() -> None:
    sent: list[Any] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return httpx.Response(200, json=OK_BODY)

    call = ToolCallPart(id="vendor-7", name="f", arguments={})
    history = (
        UserMessage.of("hi"),
        AssistantMessage(parts=(call,)),
        ToolResultMessage(results=(ToolResultPart(call_id="vendor-7", name="f"),)),
    )
    await _provider(handler).complete(ModelRequest(model="gemini-2.5-flash", messages=history))
    assert sent[0]["contents"][1]["parts"][0]["functionCall"]["id"] == "vendor-7"
    assert sent[0]["contents"][2]["parts"][0]["functionResponse"]["id"] == "vendor-7"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("model", "effort", "wire", "disposition"),
    [
        ("gemini-2.5-pro", "none", {"thinkingBudget": 128, "includeThoughts": True}, "clamped"),
        ("gemini-2.5-flash", "none", {"thinkingBudget": 0}, "applied"),
        ("gemini-2.5-flash", "max", {"thinkingBudget": 24576, "includeThoughts": True}, "applied"),
        ("gemini-2.5-pro", "low", {"thinkingBudget": 2048, "includeThoughts": True}, "applied"),
        (
            "gemini-3-pro-preview",
            "medium",
            {"thinkingLevel": "LOW", "includeThoughts": True},
            "clamped",
        ),
        (
            "gemini-3-flash-preview",
            "medium",
            {"thinkingLevel": "MEDIUM", "includeThoughts": True},
            "applied",
        ),
        ("gemini-2.0-flash", "high", None, "not_applied"),
    ],
)
async def test_reasoning_effort_reaches_the_wire(
    model: str, effort: Any, wire: dict[str, Any] | None, disposition: str
) -> None:
    sent: list[Any] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return httpx.Response(200, json=OK_BODY)

    response = await _provider(handler).complete(
        _request(model, settings=ModelSettings(reasoning_effort=effort))
    )
    sent_config = sent[0].get("generationConfig", {}).get("thinkingConfig")
    # The SDK forwards thinkingConfig with snake_case keys (both spellings are accepted by the
    # proto JSON parser); compare in camelCase.
    camel = {
        "".join(w.title() if i else w for i, w in enumerate(k.split("_"))): v
        for k, v in (sent_config or {}).items()
    }
    assert (camel or None) == wire
    assert response.effort is not None
    assert response.effort.disposition == disposition
    assert response.effort.native_control_sent is (wire is not None)


@pytest.mark.anyio
async def test_stream_keeps_parallel_calls_apart_and_text_before_them() -> None:
    chunks = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "Checking "}]}}]},
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "both."}]}}]},
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {"functionCall": {"name": "a", "args": {"x": 1}}},
                            {"functionCall": {"name": "b", "args": {}}},
                        ],
                    },
                    "finishReason": "STOP",
                }
            ],
            "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 4},
        },
    ]
    body = "".join(f"data: {json.dumps(c)}\r\n\r\n" for c in chunks)

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.params.get("alt") == "sse"
        return httpx.Response(200, text=body, headers={"content-type": "text/event-stream"})

    tool = ToolDefinition(name="a", description="", parameters={"type": "object"})
    events = [e async for e in _provider(handler).stream(_request(tools=(tool,)))]
    deltas = [(e.index, e.name, e.arguments_delta) for e in events if e.kind == "tool_call_delta"]
    assert deltas == [(0, "a", '{"x": 1}'), (1, "b", "")]
    final = events[-1]
    assert final.kind == "response_completed"
    assert final.response.message.text == "Checking both."
    assert [type(p).__name__ for p in final.response.message.parts] == [
        "TextPart",
        "ToolCallPart",
        "ToolCallPart",
    ]
    assert final.response.finish_reason == "tool_calls"
    assert final.response.usage.output_tokens == 4


def test_cost_from_genai_prices() -> None:
    from robota.core.provider import ModelResponse
    from robota.core.usage import Usage

    known = ModelResponse(
        message=AssistantMessage(),
        model="gemini-2.5-flash",
        usage=Usage(input_tokens=1_000_000, output_tokens=1_000_000),
    )
    # gemini-2.5-flash: $0.30 / M input, $2.50 / M output (genai-prices table).
    assert estimate_cost(known) == Decimal("2.8")
    assert estimate_cost(ModelResponse(message=AssistantMessage(), model="not-a-model")) is None


def test_model_metadata_and_unknown_models() -> None:
    provider = _provider(_json({}))
    info = provider.model_info("gemini-2.5-pro")
    assert info is not None
    assert (info.context_window, info.max_output_tokens) == (1_048_576, 65_536)
    assert info.source.startswith("https://ai.google.dev/")
    assert provider.model_info("gemini-99-ultra") is None
    assert provider.capabilities("gemini-99-ultra").thinking is None
