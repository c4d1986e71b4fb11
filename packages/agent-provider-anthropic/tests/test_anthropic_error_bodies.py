"""Error bodies and non-answers wherever a broken server can put them — an HTTP 200 with an error
object, an ``event: error`` after any event of a stream, an HTML page, an empty or non-JSON body
where JSON or SSE was due, a JSON object that is not a message — each becomes its typed error,
never an empty success or an untyped exception."""

from __future__ import annotations

import json
from typing import Any

import pytest
from _anthropic_fakes import (  # pyright: ignore[reportImplicitRelativeImport]
    REQUEST,
    Server,
    message,
    outcome,
    sse,
    valid_stream,
)
from robota.core.errors import (
    AuthenticationError,
    BadRequestError,
    ContextWindowExceededError,
    InternalServerError,
    MalformedResponseError,
    NotFoundError,
    OverloadedError,
    PermissionDeniedError,
    ProviderError,
    ProviderTimeoutError,
    QuotaExhaustedError,
    RateLimitError,
)

pytestmark = pytest.mark.anyio

BY_TYPE: dict[str, type[ProviderError]] = {
    "invalid_request_error": BadRequestError,
    "request_too_large": BadRequestError,
    "authentication_error": AuthenticationError,
    "billing_error": QuotaExhaustedError,
    "permission_error": PermissionDeniedError,
    "not_found_error": NotFoundError,
    "rate_limit_error": RateLimitError,
    "api_error": InternalServerError,
    "timeout_error": ProviderTimeoutError,
    "overloaded_error": OverloadedError,
    "some_future_error": ProviderError,
}


def _error(kind: str, text: str = "went wrong") -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": text}}


def _assert_typed(error: BaseException | None, cls: type[ProviderError], kind: str) -> None:
    assert type(error) is cls, repr(error)
    assert isinstance(error, ProviderError)
    assert error.vendor_type == kind
    assert error.status is None  # the HTTP status (200) said nothing about the failure
    assert error.request_id == "req_1"


@pytest.mark.parametrize(("kind", "cls"), BY_TYPE.items())
@pytest.mark.parametrize("stream", [False, True])
async def test_error_body_in_a_200_is_its_typed_error(
    kind: str, cls: type[ProviderError], stream: bool
) -> None:
    server = Server(body=json.dumps(_error(kind)).encode(), content_type="application/json")
    got = await outcome(server.provider(), stream=stream)
    _assert_typed(got.error, cls, kind)
    assert got.events == []


@pytest.mark.parametrize("stream", [False, True])
async def test_error_body_without_the_envelope_type_is_still_an_error(stream: bool) -> None:
    body = {"error": {"type": "overloaded_error", "message": "Overloaded"}}
    server = Server(body=json.dumps(body).encode(), content_type="application/json")
    got = await outcome(server.provider(), stream=stream)
    _assert_typed(got.error, OverloadedError, "overloaded_error")


@pytest.mark.parametrize("stream", [False, True])
async def test_prompt_too_long_in_a_200_is_context_window_exceeded(stream: bool) -> None:
    body = _error("invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum")
    server = Server(body=json.dumps(body).encode(), content_type="application/json")
    got = await outcome(server.provider(), stream=stream)
    assert isinstance(got.error, ContextWindowExceededError)
    assert isinstance(got.error.provider_error, BadRequestError)


@pytest.mark.parametrize(("kind", "cls"), BY_TYPE.items())
async def test_error_event_after_any_event_is_its_typed_error(
    kind: str, cls: type[ProviderError]
) -> None:
    events = valid_stream()
    for position in range(len(events)):  # message_stop ends the answer: errors before it
        server = Server(body=sse([*events[:position], _error(kind)]))
        got = await outcome(server.provider())
        _assert_typed(got.error, cls, kind)


async def test_error_event_with_data_that_is_no_object_is_still_a_provider_error() -> None:
    server = Server(body=b'event: error\ndata: "boom"\n\n')
    got = await outcome(server.provider())
    assert type(got.error) is ProviderError
    assert got.error.recoverable is False  # unplaced: not worth retrying or switching models


_NOT_JSON: list[bytes] = [
    b"",
    b"   \n",
    b"<html><body>502 Bad Gateway</body></html>",
    b"<!DOCTYPE html><html>maintenance</html>",
    b"upstream connect error",
    b'{"type": "message", "content": [',
    b"[1, 2]",
    b"null",
    b'"a string"',
    b"\xff\xfe\x00garbage",
]


@pytest.mark.parametrize("body", _NOT_JSON)
@pytest.mark.parametrize("content_type", ["application/json", "text/html", "text/plain", ""])
@pytest.mark.parametrize("stream", [False, True])
async def test_a_body_that_is_no_json_object_is_malformed(
    body: bytes, content_type: str, stream: bool
) -> None:
    server = Server(body=body, content_type=content_type)
    got = await outcome(server.provider(), stream=stream)
    assert isinstance(got.error, MalformedResponseError), repr(got.error)
    assert got.error.missing == "JSON object body"
    assert got.error.recoverable is True
    assert got.events == []


@pytest.mark.parametrize("body", _NOT_JSON)
async def test_no_events_where_sse_was_announced_is_malformed(body: bytes) -> None:
    got = await outcome(Server(body=body).provider())
    assert isinstance(got.error, MalformedResponseError), repr(got.error)
    assert got.error.missing in ("message_start event", "JSON event data")


async def test_sse_data_that_is_no_json_is_malformed() -> None:
    body = sse(valid_stream()[:3]) + b"event: content_block_delta\ndata: {not json\n\n"
    got = await outcome(Server(body=body).provider())
    assert isinstance(got.error, MalformedResponseError)
    assert got.error.missing == "JSON event data"


_TEXT = {"type": "text", "text": "hi"}
_NOT_A_MESSAGE: dict[str, dict[str, Any]] = {
    "no content": {k: v for k, v in message([_TEXT]).items() if k != "content"},
    "content not a list": {**message([]), "content": {"type": "text", "text": "hi"}},
    "no stop_reason": message([_TEXT], stop_reason=None),
    "another type": {**message([_TEXT]), "type": "completion"},
    "block not an object": message(["hi"]),  # pyright: ignore[reportArgumentType]
    "block without type": message([{"text": "hi"}]),
    "text not a string": message([{"type": "text", "text": 42}]),
    "tool call without id": message([{"type": "tool_use", "name": "f", "input": {}}]),
    "tool call input not an object": message(
        [{"type": "tool_use", "id": "t", "name": "f", "input": "[1]"}]
    ),
    "thinking without thinking": message([{"type": "thinking", "signature": "s"}]),
}


@pytest.mark.parametrize("body", _NOT_A_MESSAGE.values(), ids=list(_NOT_A_MESSAGE))
@pytest.mark.parametrize("stream", [False, True])
async def test_a_json_object_that_is_no_complete_message_is_malformed(
    body: dict[str, Any], stream: bool
) -> None:
    server = Server(body=json.dumps(body).encode(), content_type="application/json")
    got = await outcome(server.provider(), stream=stream)
    assert isinstance(got.error, MalformedResponseError), repr(got.error)
    assert got.error.missing
    assert got.events == []


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (400, BadRequestError),
        (429, RateLimitError),
        (500, InternalServerError),
        (502, InternalServerError),
        (503, OverloadedError),
        (504, ProviderTimeoutError),
        (529, OverloadedError),
        (599, InternalServerError),
    ],
)
@pytest.mark.parametrize("stream", [False, True])
async def test_an_error_status_with_an_html_page_is_classified_by_status(
    status: int, cls: type[ProviderError], stream: bool
) -> None:
    server = Server(body=b"<html>oops</html>", status=status, content_type="text/html")
    got = await outcome(server.provider(), stream=stream)
    assert type(got.error) is cls
    assert isinstance(got.error, ProviderError)
    assert got.error.status == status


@pytest.mark.parametrize(
    ("body", "cls"),
    [
        (b"<html>502</html>", MalformedResponseError),
        (b"", MalformedResponseError),
        (b'{"tokens": 3}', MalformedResponseError),
        (b'{"input_tokens": "3"}', MalformedResponseError),
        (json.dumps(_error("overloaded_error")).encode(), OverloadedError),
    ],
)
async def test_count_tokens_answers_or_raises_typed(body: bytes, cls: type[ProviderError]) -> None:
    server = Server(body=body, content_type="application/json")
    with pytest.raises(cls):
        await server.provider().count_tokens(REQUEST)


_DEEP = b'{"a": ' * 50_000 + b"1" + b"}" * 50_000


@pytest.mark.parametrize("stream", [False, True])
async def test_json_nested_too_deep_to_decode_is_malformed(stream: bool) -> None:
    got = await outcome(
        Server(body=_DEEP, content_type="application/json").provider(), stream=stream
    )
    assert isinstance(got.error, MalformedResponseError), repr(got.error)
    assert got.error.missing == "JSON object body"
    event = sse(valid_stream()[:2]) + b"event: ping\ndata: " + _DEEP + b"\n\n"
    got = await outcome(Server(body=event).provider(), stream=stream)
    assert isinstance(got.error, MalformedResponseError), repr(got.error)
    with pytest.raises(MalformedResponseError):
        await Server(body=_DEEP, content_type="application/json").provider().count_tokens(REQUEST)


async def test_tool_arguments_nested_too_deep_are_kept_raw() -> None:
    events = valid_stream()
    deep = '{"a": ' * 50_000 + "1" + "}" * 50_000
    for event in events:
        if event.get("delta", {}).get("type") == "input_json_delta":
            event["delta"]["partial_json"] = ""
    events[-5]["delta"]["partial_json"] = deep
    got = await outcome(Server(body=sse(events)).provider())
    assert got.response is not None, repr(got.error)
    (call,) = got.response.message.tool_calls
    assert (call.arguments, len(call.raw_arguments)) == (None, len(deep))
