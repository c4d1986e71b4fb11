"""Building the ``openai.AsyncOpenAI`` client from host-given values only."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from typing import Any, Protocol, cast

import httpx
from robota.core.errors import MalformedResponseError
from robota.core.messages import TextPart, ThinkingPart, ToolCallPart
from robota.core.provider import (
    EffortResolution,
    ModelResponse,
    PayloadCallback,
    PayloadEvent,
    ResponseCompleted,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from robota.providers.openai._errors import classify_error

import openai

__all__ = [
    "OPENAI_BASE_URL",
    "PayloadRecorder",
    "buffered_events",
    "make_client",
    "malformed_stream",
    "sdk_arguments",
    "stream_document",
    "stream_events",
]

OPENAI_BASE_URL = "https://api.openai.com/v1"
"""OpenAI's public API base URL."""


def make_client(
    *,
    api_key: str | None,
    base_url: str,
    http_client: httpx.AsyncClient | None,
    organization: str | None,
    project: str | None,
) -> openai.AsyncOpenAI:
    """An SDK client with retries off (``max_retries=0``: retries belong to
    ``robota.core.retry.RetryingProvider``).

    The host's values are the only configuration: ``base_url`` is always passed, and the
    organization / project the SDK would otherwise read from ``OPENAI_ORG_ID`` /
    ``OPENAI_PROJECT_ID`` are reset to the host's values. A missing key is sent as the
    placeholder bearer ``unused`` (local servers need none, and the SDK refuses to send a
    request without an authentication method). Known gap: the SDK itself still merges
    ``OPENAI_CUSTOM_HEADERS`` from the environment into its default headers; there is no public
    switch to turn that off.
    """
    client = openai.AsyncOpenAI(
        api_key=api_key or "unused",
        base_url=base_url,
        http_client=cast(Any, http_client),
        max_retries=0,
        organization=organization or "",
        project=project or "",
        webhook_secret="",
    )
    client.organization = organization
    client.project = project
    return client


_DIRECT = ("model", "messages", "input", "stream")
_CONTENT = ("messages", "input")


def sdk_arguments(
    body: dict[str, Any], headers: dict[str, str], timeout: float | None
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
    arguments["extra_headers"] = headers or None
    arguments["timeout"] = timeout
    return arguments


def stream_events(raw: Any) -> openai.AsyncStream[object]:
    """The SDK event stream of a streamed call, yielding each event's JSON as parsed.

    ``raw`` is what ``<resource>.with_raw_response.create(..., stream=True)`` returned. The SDK
    still decodes the Server-Sent Events (``data:`` lines joined, ``[DONE]`` ends the stream, a
    ``data`` object with an ``error`` key raises ``openai.APIError``, transport failures raise
    ``openai.APIConnectionError`` / ``APITimeoutError``, a ``data`` line that is not JSON raises
    ``json.JSONDecodeError``), but hands over each event's parsed JSON instead of building the
    SDK's typed chunk that would only be dumped back to a dict (``AsyncStream[object]`` is the
    SDK's own "no model" cast). The caller iterates and closes it.
    """
    return raw.parse(to=openai.AsyncStream[object])


def stream_document(data: object, *, provider: str, request_id: str | None) -> dict[str, Any]:
    """One streamed event's JSON as a dict (the assembler's and ``on_payload``'s shape).

    Raises:
        MalformedResponseError: when the event's JSON is not an object.
    """
    if not isinstance(data, dict):
        raise MalformedResponseError(
            f"stream event data is a JSON {type(data).__name__}, not an object",
            provider=provider,
            request_id=request_id,
        )
    return cast(dict[str, Any], data)


def malformed_stream(
    error: ValueError, *, provider: str, request_id: str | None
) -> MalformedResponseError:
    """The error for a streamed event whose ``data`` is not JSON (``error`` is the decoder's)."""
    return MalformedResponseError(
        f"stream event data is not JSON: {error}", provider=provider, request_id=request_id
    )


class StreamAssembler(Protocol):
    """What :func:`stream_call` feeds: the chat and Responses stream assemblers."""

    def feed(self, data: Any, /) -> Iterable[StreamEvent]: ...

    def finish(
        self, *, request_id: str | None, effort: EffortResolution | None
    ) -> ModelResponse: ...


async def stream_call(
    create: Callable[..., Awaitable[Any]],
    arguments: dict[str, Any],
    *,
    provider: str,
    record: PayloadRecorder,
    assembler: StreamAssembler,
    effort: EffortResolution | None,
) -> AsyncIterator[StreamEvent]:
    """Run one streamed SDK call (``create`` is ``<resource>.with_raw_response.create``) and
    yield the assembler's events, then the final :class:`ResponseCompleted`.

    Raises:
        ProviderError: classified SDK failures (before or during the stream).
        MalformedResponseError: an event whose data is not a JSON object.
    """
    try:
        raw = await create(**arguments)
    except openai.APIError as error:
        raise classify_error(error, provider=provider) from error
    request_id = raw.headers.get("x-request-id")
    events = stream_events(raw)
    try:
        async for parsed in events:
            data = stream_document(parsed, provider=provider, request_id=request_id)
            record("stream", data)
            for event in assembler.feed(data):
                yield event
    except openai.APIError as error:
        raise classify_error(error, provider=provider) from error
    except json.JSONDecodeError as error:
        raise malformed_stream(error, provider=provider, request_id=request_id) from error
    finally:
        await events.close()
    yield ResponseCompleted(response=assembler.finish(request_id=request_id, effort=effort))


async def buffered_call(
    create: Callable[..., Awaitable[Any]],
    arguments: dict[str, Any],
    *,
    provider: str,
    record: PayloadRecorder,
    what: str,
) -> tuple[Mapping[str, Any], str | None]:
    """Run one buffered SDK call (``create`` is ``<resource>.with_raw_response.create``) and
    return its JSON body (recorded as the ``response`` payload) and the request id.

    Raises:
        ProviderError: classified SDK failures.
        MalformedResponseError: the body is not a JSON object (``what`` names the body).
    """
    try:
        raw = await create(**arguments)
    except openai.APIError as error:
        raise classify_error(error, provider=provider) from error
    request_id = raw.headers.get("x-request-id")
    try:
        data: object = json.loads(raw.text)
    except ValueError as error:
        raise MalformedResponseError(
            f"{what} is not JSON", provider=provider, request_id=request_id
        ) from error
    if not isinstance(data, Mapping):
        raise MalformedResponseError(
            f"{what} is not an object", provider=provider, request_id=request_id
        )
    document = cast(Mapping[str, Any], data)
    record("response", dict(document))
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
