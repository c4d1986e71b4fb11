"""The SDK call arguments, the buffered call, payload capture and buffered events shared by
both API surfaces (the streamed call is :mod:`._stream`, the client itself :mod:`._endpoint`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from robota.core.errors import MalformedResponseError
from robota.core.messages import TextPart, ThinkingPart, ToolCallPart
from robota.core.provider import (
    ModelResponse,
    PayloadCallback,
    PayloadEvent,
    ResponseCompleted,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from robota.core.wire import decode_json_object
from robota.providers.openai._endpoint import NO_AUTH
from robota.providers.openai._errors import classify_body, classify_error, error_object

import openai

__all__ = [
    "PayloadRecorder",
    "buffered_call",
    "buffered_events",
    "sdk_arguments",
]


_DIRECT = ("model", "messages", "input", "stream")
_CONTENT = ("messages", "input")


def sdk_arguments(
    body: dict[str, Any],
    headers: dict[str, str],
    timeout: float | None,
    *,
    send_key: bool = True,
) -> dict[str, Any]:
    """Keyword arguments for an SDK ``create`` call that put exactly ``body`` on the wire.

    ``model``, ``messages`` / ``input`` and ``stream`` go as keywords (the SDK requires them and
    picks its stream decoder from ``stream``), but ``messages`` / ``input`` only as an empty
    placeholder: their real value travels in ``extra_body`` like every other field, which the SDK
    merges over its own body key by key (``extra_body`` wins, the key keeps its place). The body
    is already in wire form, so the SDK's per-request recursive conversion of typed parameters
    (``maybe_transform``, a walk over every message part that was a large share of a call's
    client-side time) would change nothing but cost time; fields the SDK's signature does not
    know (compatible servers' own options, new vendor fields) reach the server unchanged.
    With ``send_key=False`` the request carries no ``Authorization`` header (unless ``headers``
    sets one).

    Example:
        >>> arguments = sdk_arguments({"model": "m", "messages": [{"role": "user"}], "n": 1}, {}, None)
        >>> arguments["messages"], arguments["extra_body"]
        ([], {'messages': [{'role': 'user'}], 'n': 1})
    """
    arguments: dict[str, Any] = {key: body[key] for key in _DIRECT if key in body}
    for key in _CONTENT:
        if key in arguments:
            arguments[key] = []
    arguments["extra_body"] = {k: v for k, v in body.items() if k not in _DIRECT or k in _CONTENT}
    extra: dict[str, Any] = dict(headers)
    if not send_key and not any(name.lower() == "authorization" for name in headers):
        extra.update(NO_AUTH)
    arguments["extra_headers"] = extra or None
    arguments["timeout"] = timeout
    return arguments


async def buffered_call(
    create: Callable[..., Awaitable[Any]],
    arguments: dict[str, Any],
    *,
    provider: str,
    api: str,
    record: PayloadRecorder,
) -> tuple[Mapping[str, Any], str | None]:
    """Run one buffered SDK call (``create`` is ``<resource>.with_raw_response.create``) and
    return its JSON body (recorded as the ``response`` payload) and the request id.

    Raises:
        ProviderError: classified SDK failures, and a 200 body that states an error (classified
            like the status / type / code it names).
        ContextWindowExceededError: a context overflow, wrapping the provider error.
        MalformedResponseError: the body is not a JSON object (empty, HTML, text, an array, or
            nested too deeply to decode).
    """
    try:
        raw = await create(**arguments)
    except openai.APIError as error:
        raise classify_error(error, provider=provider, api=api) from error
    request_id: str | None = raw.headers.get("x-request-id")
    try:
        document = decode_json_object(
            raw.content, provider=provider, api=api, status=raw.status_code, request_id=request_id
        )
    except RecursionError as error:  # JSON nested deeper than the decoder's recursion limit
        raise MalformedResponseError(
            f"{provider} {api}: the JSON body is nested too deeply to decode",
            provider=provider,
            api=api,
            missing="JSON object body",
            status=raw.status_code,
            request_id=request_id,
        ) from error
    record("response", dict(document))
    if error_object(document) is not None:
        raise classify_body(document, provider=provider, request_id=request_id)
    return document, request_id


class PayloadRecorder:
    """Numbers and forwards native payloads to ``ModelRequest.on_payload`` (never raises)."""

    def __init__(self, callback: PayloadCallback | None, *, provider: str, api: str) -> None:
        self._callback = callback
        self._provider = provider
        self._api = api
        self._order = 0

    def __call__(self, direction: str, payload: Any) -> None:
        if self._callback is None:
            return
        event = PayloadEvent(
            provider=self._provider,
            api=self._api,
            direction="request"
            if direction == "request"
            else ("stream" if direction == "stream" else "response"),
            payload=payload,
            order=self._order,
        )
        self._order += 1
        try:
            self._callback(event)
        except Exception:  # a capture callback must not break the call
            return


def buffered_events(response: ModelResponse) -> list[StreamEvent]:
    """The stream events of an already complete response (one delta per part), for providers
    running with ``streaming=False``."""
    events: list[StreamEvent] = []
    index = 0
    for part in response.message.parts:
        if isinstance(part, TextPart):
            events.append(TextDelta(text=part.text))
        elif isinstance(part, ThinkingPart) and part.text:
            events.append(ThinkingDelta(text=part.text))
        elif isinstance(part, ToolCallPart) and not part.hosted:
            events.append(
                ToolCallDelta(
                    index=index, id=part.id, name=part.name, arguments_delta=part.raw_arguments
                )
            )
            index += 1
    events.append(ResponseCompleted(response=response))
    return events
