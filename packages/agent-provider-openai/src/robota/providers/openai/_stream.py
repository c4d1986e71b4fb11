"""One streamed SDK call, read to its end by the surface's own completion rule (issue #14: a
stream is an answer only when it completed; anything else is a typed error).

The SDK sends the request and classifies HTTP error statuses; the body of a successful status is
read here, as raw Server-Sent Events (:mod:`robota.core.sse`, through :mod:`._sse`), because the SDK's stream reader hides the
two facts completion depends on — whether ``data: [DONE]`` arrived and whether the body was an
event stream at all. What can come back:

- an event whose ``data`` is ``[DONE]``: the stream ended (nothing after it is read);
- an event stating an error (``{"error": {...}}``, a Responses ``error`` event, vLLM's
  ``{"object": "error"}``): the error it states, classified like the status / type / code it
  names (:func:`._errors.classify_body`), after the deltas that came before it;
- an event whose ``data`` is not a JSON object: :class:`~robota.core.errors.MalformedResponseError`;
- a body with no event at all (an empty 200, an HTML page, a JSON body): the error a JSON body
  states, else :class:`~robota.core.errors.MalformedResponseError` naming the missing event
  stream;
- a transport failure while reading: ``ProviderConnectionError`` / ``ProviderTimeoutError``
  (a body that cannot be decoded, e.g. a broken ``Content-Encoding``: ``MalformedResponseError``);
- no event within the call's ``timeout`` (``ModelSettings.timeout``) of waiting since the
  previous one (or the response headers): ``ProviderTimeoutError``. The wait is measured per *event*, by
  :func:`robota.core.sse.with_idle_timeout`, not per socket read: a server that sends only
  ``: keep-alive`` comments, or nothing at all, ends the call instead of holding it open (the
  HTTP client's read timeout restarts at every comment, and an injected client may have none);
- the end of the body: the assembler decides whether the surface's completion rule was met
  (``finish``), else it raises :class:`~robota.core.errors.MalformedResponseError` naming what
  was missing.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import aclosing
from typing import Any, Protocol, cast

import httpx
from robota.core.errors import (
    MalformedResponseError,
    ProviderConnectionError,
    ProviderTimeoutError,
    RobotaError,
)
from robota.core.provider import EffortResolution, ModelResponse, ResponseCompleted, StreamEvent
from robota.core.sse import iter_events, with_idle_timeout
from robota.core.wire import describe_body, malformed
from robota.providers.openai._client import PayloadRecorder
from robota.providers.openai._common import decoding
from robota.providers.openai._errors import classify_body, classify_error, error_object
from robota.providers.openai._sse import SseDecoder

import openai

__all__ = ["StreamAssembler", "not_a_stream", "stream_call"]


class StreamAssembler(Protocol):
    """What :func:`stream_call` feeds: the chat and Responses stream assemblers."""

    @property
    def ended(self) -> bool:
        """True once the surface's final event arrived (nothing after it is read)."""
        ...

    def feed(self, data: Mapping[str, Any], /) -> Iterable[StreamEvent]:
        """Consume one event's JSON object; return the deltas it carries."""
        ...

    def finish(
        self, *, request_id: str | None, effort: EffortResolution | None, done: bool
    ) -> ModelResponse:
        """The answer, when the stream completed by the surface's rule (``done``: whether
        ``data: [DONE]`` arrived).

        Raises:
            MalformedResponseError: naming what the stream lacked.
        """
        ...


def _transport_error(error: Exception, provider: str, api: str) -> RobotaError | None:
    """The Robota error for a failure while reading the body, else None (the SDK's own client
    uses ``httpx2``, an injected client ``httpx``; both are recognized): a timeout →
    ``ProviderTimeoutError``; a body that cannot be decoded (broken ``Content-Encoding``) →
    ``MalformedResponseError``; any other transport failure → ``ProviderConnectionError``."""
    modules: list[Any] = [httpx]
    other = sys.modules.get("httpx2")
    if other is not None:
        modules.append(other)
    text = f"{type(error).__name__}: {error}"
    for module in modules:
        if isinstance(error, module.TimeoutException):
            return ProviderTimeoutError(text, provider=provider)
        if isinstance(error, module.DecodingError):
            return MalformedResponseError(
                f"{provider} {api}: the body could not be decoded ({text})",
                provider=provider,
                api=api,
            )
        if isinstance(error, module.RequestError | module.StreamError):
            return ProviderConnectionError(text, provider=provider)
    return None


def _event_object(data: str, *, provider: str, api: str, request_id: str | None) -> dict[str, Any]:
    try:
        value: object = json.loads(data)
    except (ValueError, RecursionError) as error:  # RecursionError: absurdly deep JSON
        raise MalformedResponseError(
            f"{provider} {api}: stream event data is not JSON: {describe_body(data)}",
            provider=provider,
            api=api,
            missing="JSON event data",
            request_id=request_id,
        ) from error
    if not isinstance(value, dict):
        raise MalformedResponseError(
            f"{provider} {api}: stream event data is a JSON {type(value).__name__}, not an object",
            provider=provider,
            api=api,
            missing="JSON object event data",
            request_id=request_id,
        )
    return cast(dict[str, Any], value)


def not_a_stream(head: bytes, *, provider: str, api: str, request_id: str | None) -> RobotaError:
    """The error for a streamed call whose body held no event: the error a JSON body states
    (classified by the status / type / code it names), else a malformed response naming the
    missing event stream (an empty body, an HTML page, a JSON answer to a streamed call)."""
    try:
        value: object = json.loads(head) if head.strip() else None
    except (ValueError, RecursionError):
        value = None
    if error_object(value) is not None:
        return classify_body(value, provider=provider, request_id=request_id)
    what = "a JSON body" if isinstance(value, dict) else describe_body(head)
    return malformed(
        provider,
        api,
        "a Server-Sent Events stream",
        detail=f"a streamed call was answered with {what}",
        request_id=request_id,
    )


def _stalled(provider: str, api: str, limit: float | None) -> ProviderTimeoutError:
    return ProviderTimeoutError(
        f"{provider} {api}: no stream event within {limit}s (the call's timeout)",
        provider=provider,
    )


async def _body(
    response: Any, provider: str, api: str, limit: float | None
) -> AsyncGenerator[bytes]:
    """The body's bytes as they arrive, a transport failure classified."""
    async with aclosing(response.aiter_bytes()) as chunks:
        while True:
            try:
                chunk = cast(bytes, await anext(chunks))
            except StopAsyncIteration:
                return
            except TimeoutError as error:  # a transport's own timeout, not an httpx one
                raise _stalled(provider, api, limit) from error
            except Exception as error:
                mapped = _transport_error(error, provider, api)
                if mapped is None:
                    raise
                raise mapped from error
            yield chunk


async def stream_call(
    create: Callable[..., Awaitable[Any]],
    arguments: dict[str, Any],
    *,
    provider: str,
    api: str,
    record: PayloadRecorder,
    assembler: StreamAssembler,
    effort: EffortResolution | None,
    event_timeout: float | None = None,
) -> AsyncIterator[StreamEvent]:
    """Run one streamed call (``create`` is ``<resource>.with_raw_response.create``) and yield
    the assembler's deltas, then the final :class:`ResponseCompleted` (module docstring for the
    outcomes; ``event_timeout``, the call's ``ModelSettings.timeout``, bounds the wait for each
    event).

    Raises:
        ProviderError: classified failures (HTTP status, error events, transport).
        ContextWindowExceededError: a context overflow, wrapping the provider error.
        MalformedResponseError: a stream that did not complete, or was not one.
    """
    try:
        raw = await create(**arguments)
    except openai.APIError as error:
        raise classify_error(error, provider=provider, api=api) from error
    request_id: str | None = raw.headers.get("x-request-id")
    response: Any = raw.http_response
    decoder = SseDecoder()
    done = False
    limit = event_timeout if event_timeout is not None and event_timeout > 0 else None
    events = with_idle_timeout(
        iter_events(_body(response, provider, api, limit), decoder=decoder),
        idle_timeout=limit,
        on_timeout=lambda: _stalled(provider, api, limit),
    )
    try:
        async with aclosing(events):
            async for event in events:
                if event.data == "[DONE]":
                    done = True
                    break
                data = _event_object(event.data, provider=provider, api=api, request_id=request_id)
                record("stream", data)
                if error_object(data) is not None:
                    raise classify_body(data, provider=provider, request_id=request_id)
                with decoding(provider, api, request_id):
                    deltas = list(assembler.feed(data))
                for out in deltas:
                    yield out
                if assembler.ended:
                    break
    finally:
        await response.aclose()
    if not decoder.saw_data:
        raise not_a_stream(bytes(decoder.head), provider=provider, api=api, request_id=request_id)
    with decoding(provider, api, request_id):
        final = assembler.finish(request_id=request_id, effort=effort, done=done)
    yield ResponseCompleted(response=final)
