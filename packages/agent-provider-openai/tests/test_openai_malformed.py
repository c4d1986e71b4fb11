"""What a broken or unusual server sends, by class, fed to the real adapters: every body is an
answer only when it completed, and otherwise a typed error — never an empty success, never a
``JSONDecodeError`` / ``KeyError`` / ``AttributeError`` escaping."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from _openai_wire import (  # pyright: ignore[reportImplicitRelativeImport]
    JSON,
    SSE,
    Api,
    Server,
    chunk,
    completion,
    event,
    response_object,
    run,
    sse,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from robota.core.errors import (
    BadRequestError,
    ContextWindowExceededError,
    InternalServerError,
    MalformedResponseError,
    ProviderConnectionError,
    ProviderError,
    ProviderTimeoutError,
    QuotaExhaustedError,
    RateLimitError,
    RobotaError,
)
from robota.core.provider import TextDelta

HTML = b"<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
NOT_ANSWERS: list[tuple[str, bytes]] = [
    ("empty", b""),
    ("whitespace", b"  \r\n\n"),
    ("html", HTML),
    ("text", b"upstream connect error or disconnect/reset before headers"),
    ("json array", b"[1, 2]"),
    ("json string", b'"ok"'),
    ("json null", b"null"),
    ("empty object", b"{}"),
    ("truncated json", b'{"id": "c1", "choices": [{"index": 0'),
    ("json nested too deep", b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
]


@pytest.mark.anyio
@pytest.mark.parametrize("api", ["chat", "responses"])
@pytest.mark.parametrize("stream", [True, False])
@pytest.mark.parametrize("content_type", ["text/event-stream", "application/json", "text/html"])
@pytest.mark.parametrize(("name", "body"), NOT_ANSWERS, ids=[n for n, _ in NOT_ANSWERS])
async def test_a_200_that_is_no_answer_is_a_malformed_response(
    api: Api, stream: bool, content_type: str, name: str, body: bytes
) -> None:
    server = Server(headers={"content-type": content_type}, body=body)
    outcome = await run(server.provider(api), stream=stream)
    assert isinstance(outcome.error, MalformedResponseError), (name, outcome)
    assert outcome.error.missing
    assert outcome.error.recoverable is True


@pytest.mark.anyio
@pytest.mark.parametrize("api", ["chat", "responses"])
async def test_a_json_answer_to_a_streamed_call_is_refused(api: Api) -> None:
    document = completion() if api == "chat" else response_object()
    server = Server(headers=JSON, body=json.dumps(document).encode())
    outcome = await run(server.provider(api), stream=True)
    assert isinstance(outcome.error, MalformedResponseError)
    assert outcome.error.missing == "a Server-Sent Events stream"
    # The same body answers the buffered call.
    buffered = await run(server.provider(api), stream=False)
    assert buffered.response is not None
    assert buffered.response.message.text == "ok"


CUT_CHAT: list[tuple[str, bytes, str]] = [
    ("cut before finish", sse(chunk("Hel")), "a finish_reason and data: [DONE]"),
    ("finish, no [DONE]", sse(chunk("Hel"), chunk(None, "stop")), "data: [DONE]"),
    ("[DONE], no finish", sse(chunk("Hel"), done=True), "a finish_reason"),
    ("[DONE] only", b"data: [DONE]\n\n", "a finish_reason"),
    ("no choices", sse({"id": "c1", "object": "chat.completion.chunk"}, done=True), "a finish"),
    ("empty choices", sse({"id": "c1", "choices": []}, done=True), "a finish_reason"),
    ("choice 1 only", sse({"choices": [{"index": 1, "finish_reason": "stop"}]}, done=True), "a"),
    ("[DONE] cut", sse(chunk("Hel", "stop")) + b"data: [DONE]", "data: [DONE]"),
    ("keep-alive only", b": ping\n\n: ping\n\n", "a Server-Sent Events stream"),
]


@pytest.mark.anyio
@pytest.mark.parametrize(("name", "body", "missing"), CUT_CHAT, ids=[c[0] for c in CUT_CHAT])
async def test_a_chat_stream_that_did_not_complete_is_refused(
    name: str, body: bytes, missing: str
) -> None:
    outcome = await run(Server(body=body).provider("chat"), stream=True)
    assert isinstance(outcome.error, MalformedResponseError), name
    assert outcome.error.missing is not None
    assert outcome.error.missing.startswith(missing)
    # Deltas that arrived were delivered, but no answer was.
    assert outcome.response is None


@pytest.mark.anyio
async def test_the_testers_cut_stream_is_not_the_answer_hel() -> None:
    outcome = await run(Server(body=sse(chunk("Hel"))).provider("chat"), stream=True)
    assert [e.text for e in outcome.events if isinstance(e, TextDelta)] == ["Hel"]
    assert isinstance(outcome.error, MalformedResponseError)
    assert outcome.error.missing == "a finish_reason and data: [DONE]"


CREATED = event("response.created", response={**response_object("in_progress"), "output": []})
TEXT = event("response.output_text.delta", delta="Hel", output_index=0, item_id="msg_1")
CUT_RESPONSES: list[tuple[str, bytes]] = [
    ("created only", sse(CREATED)),
    ("deltas, no completed", sse(CREATED, TEXT)),
    ("deltas and [DONE]", sse(CREATED, TEXT, done=True)),
    ("completed cut", sse(CREATED, TEXT) + b'data: {"type":"response.completed","resp'),
    ("completed without response", sse(CREATED, event("response.completed"))),
    ("in_progress status", sse(event("response.completed", response=response_object("queued")))),
]


@pytest.mark.anyio
@pytest.mark.parametrize(("name", "body"), CUT_RESPONSES, ids=[c[0] for c in CUT_RESPONSES])
async def test_a_responses_stream_that_did_not_complete_is_refused(name: str, body: bytes) -> None:
    outcome = await run(Server(body=body).provider("responses"), stream=True)
    assert isinstance(outcome.error, MalformedResponseError), name
    assert outcome.response is None


@pytest.mark.anyio
@pytest.mark.parametrize("status", ["queued", "in_progress", "cancelled", None, 7])
async def test_a_buffered_response_that_is_not_completed_is_refused(status: Any) -> None:
    server = Server(headers=JSON, body=json.dumps(response_object(status)).encode())
    outcome = await run(server.provider("responses"), stream=False)
    assert isinstance(outcome.error, MalformedResponseError)
    assert outcome.error.missing == "a completed status"


@pytest.mark.anyio
@pytest.mark.parametrize(
    "body",
    [
        completion(finish=None),
        {"choices": [{"index": 0, "finish_reason": "stop"}]},
        {"choices": [{"index": 0, "finish_reason": "stop", "message": "hi"}]},
        {"choices": "none"},
        {"choices": [None]},
    ],
)
async def test_a_buffered_chat_body_without_a_finished_message_is_refused(
    body: dict[str, Any],
) -> None:
    server = Server(headers=JSON, body=json.dumps(body).encode())
    outcome = await run(server.provider("chat"), stream=False)
    assert isinstance(outcome.error, MalformedResponseError)


# Error objects servers state in-band (a 200 body, or a stream event), and what they mean.
STATED: list[tuple[str, dict[str, Any], type[RobotaError], int | None]] = [
    (
        "openai server_error",
        {"error": {"type": "server_error", "message": "m"}},
        InternalServerError,
        None,
    ),
    (
        "openai rate limit",
        {"error": {"type": "requests", "code": "rate_limit_exceeded", "message": "m"}},
        RateLimitError,
        None,
    ),
    (
        "openai context",
        {"error": {"type": "invalid_request_error", "code": "context_length_exceeded"}},
        ContextWindowExceededError,
        None,
    ),
    (
        "openai quota",
        {"error": {"type": "insufficient_quota", "code": "insufficient_quota"}},
        QuotaExhaustedError,
        None,
    ),
    ("openrouter 502", {"error": {"code": 502, "message": "upstream"}}, InternalServerError, 502),
    ("openrouter 429", {"error": {"code": 429, "message": "slow down"}}, RateLimitError, 429),
    (
        "llama.cpp overflow",
        {
            "error": {
                "code": 400,
                "type": "exceed_context_size_error",
                "message": "the request exceeds the available context size, try increasing it",
                "n_prompt_tokens": 5000,
                "n_ctx": 4096,
            }
        },
        ContextWindowExceededError,
        400,
    ),
    (
        "vllm overflow",
        {
            "object": "error",
            "type": "BadRequestError",
            "code": 400,
            "message": "This model's maximum context length is 4096 tokens. However, you "
            "requested 5000 tokens in the messages, Please reduce the length of the messages.",
        },
        ContextWindowExceededError,
        400,
    ),
    (
        "ollama overflow",
        {"error": "prompt too long; exceeded max context length by 12 tokens"},
        ContextWindowExceededError,
        None,
    ),
    (
        "vllm bad request",
        {"object": "error", "type": "BadRequestError", "code": 400, "message": "m"},
        BadRequestError,
        400,
    ),
    ("unplaced", {"error": {"message": "something odd"}}, ProviderError, None),
]


def _check_stated(error: RobotaError | None, want: type[RobotaError], status: int | None) -> None:
    assert isinstance(error, want)
    if want is ProviderError:
        assert type(error) is ProviderError
    inner = error.provider_error if isinstance(error, ContextWindowExceededError) else error
    assert isinstance(inner, ProviderError)
    assert inner.status == status


@pytest.mark.anyio
@pytest.mark.parametrize("api", ["chat", "responses"])
@pytest.mark.parametrize(("name", "body", "want", "status"), STATED, ids=[s[0] for s in STATED])
async def test_a_200_body_stating_an_error_raises_that_error(
    api: Api, name: str, body: dict[str, Any], want: type[RobotaError], status: int | None
) -> None:
    server = Server(headers=JSON, body=json.dumps(body).encode())
    buffered = await run(server.provider(api), stream=False)
    _check_stated(buffered.error, want, status)
    streamed = await run(server.provider(api), stream=True)
    _check_stated(streamed.error, want, status)


@pytest.mark.anyio
@pytest.mark.parametrize("api", ["chat", "responses"])
@pytest.mark.parametrize(("name", "body", "want", "status"), STATED, ids=[s[0] for s in STATED])
async def test_an_error_event_mid_stream_raises_that_error_after_the_text(
    api: Api, name: str, body: dict[str, Any], want: type[RobotaError], status: int | None
) -> None:
    first = chunk("par") if api == "chat" else TEXT
    server = Server(body=sse(first, body, done=True))
    outcome = await run(server.provider(api), stream=True)
    assert [e.text for e in outcome.events if isinstance(e, TextDelta)] == [
        "par" if api == "chat" else "Hel"
    ]
    _check_stated(outcome.error, want, status)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("failed", "want"),
    [
        ({"code": "server_error", "message": "m"}, InternalServerError),
        ({"code": "rate_limit_exceeded", "message": "m"}, RateLimitError),
        ({"code": "invalid_prompt", "message": "m"}, BadRequestError),
        ({"code": "vector_store_timeout", "message": "m"}, ProviderError),
    ],
)
async def test_a_failed_response_raises_its_error(failed: dict[str, Any], want: type) -> None:
    failed_response = {**response_object("failed"), "error": failed}
    streamed = Server(body=sse(CREATED, TEXT, event("response.failed", response=failed_response)))
    outcome = await run(streamed.provider("responses"), stream=True)
    assert isinstance(outcome.error, want)
    buffered = Server(headers=JSON, body=json.dumps(failed_response).encode())
    assert isinstance((await run(buffered.provider("responses"), stream=False)).error, want)


OVERFLOW_STATUS: list[tuple[str, int, Any]] = [
    (
        "llama.cpp",
        400,
        {
            "error": {
                "code": 400,
                "message": "the request exceeds the available context size, try increasing it",
                "type": "exceed_context_size_error",
            }
        },
    ),
    (
        "vllm",
        400,
        {
            "object": "error",
            "message": "This model's maximum context length is 2048 tokens. However, you "
            "requested 2100 tokens (2000 in the messages, 100 in the completion).",
            "type": "BadRequestError",
            "param": None,
            "code": 400,
        },
    ),
    (
        "ollama",
        400,
        {"error": {"message": "prompt too long; exceeded max context length by 8 tokens"}},
    ),
    (
        "openai",
        400,
        {"error": {"code": "context_length_exceeded", "type": "invalid_request_error"}},
    ),
    ("any 413", 413, {"error": {"message": "payload too large"}}),
]


@pytest.mark.anyio
@pytest.mark.parametrize("api", ["chat", "responses"])
@pytest.mark.parametrize(
    ("name", "status", "body"), OVERFLOW_STATUS, ids=[o[0] for o in OVERFLOW_STATUS]
)
async def test_context_overflow_of_every_server_is_context_window_exceeded(
    api: Api, name: str, status: int, body: Any
) -> None:
    for stream in (True, False):
        server = Server(status=status, headers=JSON, body=json.dumps(body).encode())
        error = (await run(server.provider(api), stream=stream)).error
        assert isinstance(error, ContextWindowExceededError), (name, stream, error)
        assert error.provider_error is not None
        assert error.provider_error.status == status


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("status", "body", "want"),
    [
        (
            400,
            {"error": {"message": "temperature must be <= 2", "type": "invalid_request_error"}},
            BadRequestError,
        ),
        (
            429,
            {"error": {"message": "too many tokens per minute", "type": "tokens"}},
            RateLimitError,
        ),
        (502, HTML.decode(), InternalServerError),
    ],
)
async def test_other_errors_are_not_mistaken_for_an_overflow(
    status: int, body: Any, want: type[RobotaError]
) -> None:
    raw = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    server = Server(status=status, headers=JSON if isinstance(body, dict) else {}, body=raw)
    error = (await run(server.provider("chat"), stream=False)).error
    assert type(error) is want
    assert isinstance(error, ProviderError)
    assert error.status == status


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=20,
)
shaped = st.fixed_dictionaries(
    {},
    optional={
        "choices": json_values,
        "object": st.sampled_from(["response", "error", "chat.completion"]) | json_values,
        "status": st.sampled_from(["completed", "incomplete", "failed"]) | json_values,
        "output": json_values,
        "error": json_values,
        "type": st.sampled_from(["response.completed", "error", "response.failed"]) | json_values,
        "response": json_values,
        "usage": json_values,
        "incomplete_details": json_values,
    },
)


@pytest.mark.anyio
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    document=shaped | json_values, api=st.sampled_from(["chat", "responses"]), stream=st.booleans()
)
async def test_any_json_from_a_server_is_an_answer_or_a_typed_error(
    document: Any, api: Api, stream: bool
) -> None:
    body = sse(document, done=True) if stream else json.dumps(document).encode()
    server = Server(headers=SSE if stream else JSON, body=body)
    outcome = await run(server.provider(api), stream=stream)  # anything else fails here
    assert (outcome.response is None) != (outcome.error is None)


@pytest.mark.anyio
@pytest.mark.parametrize("api", ["chat", "responses"])
@pytest.mark.parametrize(
    ("error", "want"),
    [
        (httpx.ReadError("connection reset by peer"), ProviderConnectionError),
        (httpx.RemoteProtocolError("peer closed connection"), ProviderConnectionError),
        (httpx.ReadTimeout("read timed out"), ProviderTimeoutError),
        (httpx.DecodingError("invalid gzip"), MalformedResponseError),
    ],
    ids=["read", "protocol", "timeout", "decoding"],
)
async def test_a_transport_failure_mid_stream_is_typed_after_the_text(
    api: Api, error: Exception, want: type[RobotaError]
) -> None:
    server = Server(pieces=[sse(chunk("par") if api == "chat" else TEXT)], breaks=error)
    outcome = await run(server.provider(api), stream=True)
    assert len([e for e in outcome.events if isinstance(e, TextDelta)]) == 1
    assert type(outcome.error) is want
