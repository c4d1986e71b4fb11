"""One streamed SDK call, read to its end by the surface's own completion rule (issue #14: a
stream is an answer only when it completed; anything else is a typed error).

The SDK sends the request and classifies HTTP error statuses; the body of a successful status is
read here, as raw Server-Sent Events (:mod:`robota.core.sse`, through :mod:`._sse`), because the SDK's stream reader hides the
two facts completion depends on — whether ``data: [DONE]`` arrived and whether the body was an
event stream at all. What can come back:

- an event whose ``data`` is ``[DONE]``: the stream ended (nothing after it is interpreted);
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

Once the answer is complete (``[DONE]``, or the surface's final event), the rest of the body —
normally only the end of its framing, e.g. the last chunk of ``Transfer-Encoding: chunked`` — is
read and discarded, at most :data:`DRAIN_BYTES` bytes within :data:`DRAIN_SECONDS`, as soon as
the chunk completing the answer arrived (before that chunk's deltas are yielded; deltas keep
their order): an HTTP/1.1 client puts a connection back in its keep-alive pool only after
the whole body was read, and otherwise opens a new connection (a TCP, and a TLS, handshake) for
every call. A body that goes on longer, or fails while draining, only costs that connection: the
answer stands.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import aclosing
from typing import Any, Protocol, cast

import anyio
from robota.core.errors import (
    MalformedResponseError,
    ProviderConnectionError,
    ProviderTimeoutError,
    RobotaError,
)
from robota.core.provider import EffortResolution, ModelResponse, ResponseCompleted, StreamEvent
from robota.core.sse import with_idle_timeout
from robota.core.wire import describe_body, malformed
from robota.providers.openai._client import PayloadRecorder
from robota.providers.openai._common import decoding
from robota.providers.openai._errors import classify_body, classify_error, error_object
from robota.providers.openai._sse import SseDecoder, SseEvent

import openai

__all__ = ["DRAIN_BYTES", "DRAIN_SECONDS", "StreamAssembler", "not_a_stream", "stream_call"]

DRAIN_BYTES = 65_536
"""Most bytes of a completed stream's remaining body read so its connection can be reused."""

DRAIN_SECONDS = 0.25
"""Longest wait (seconds) for the rest of a completed stream's body before closing it."""


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
    # Only a library already imported can have raised it (httpx is imported on demand).
    modules: list[Any] = [m for m in map(sys.modules.get, ("httpx", "httpx2")) if m is not None]
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


class _Body:
    """The body's bytes as they arrive, a transport failure classified; after the answer
    completed, :meth:`drain` reads what is left so the connection can be reused.

    Not an async generator on purpose: the iterator reading it is closed once the answer is
    complete, and the drain comes after that.
    """

    def __init__(self, response: Any, provider: str, api: str, limit: float | None) -> None:
        self._chunks: Any = response.aiter_bytes()
        self._provider = provider
        self._api = api
        self._limit = limit

    def __aiter__(self) -> _Body:
        return self

    async def __anext__(self) -> bytes:
        try:
            return cast(bytes, await anext(self._chunks))
        except StopAsyncIteration:
            raise
        except TimeoutError as error:  # a transport's own timeout, not an httpx one
            raise _stalled(self._provider, self._api, self._limit) from error
        except Exception as error:
            mapped = _transport_error(error, self._provider, self._api)
            if mapped is None:
                raise
            raise mapped from error

    async def drain(self) -> None:
        """Read and discard the rest of the body: at most :data:`DRAIN_BYTES` bytes within
        :data:`DRAIN_SECONDS`; a transport failure ends the drain quietly (cancellation of
        the caller still propagates)."""
        left = DRAIN_BYTES
        with anyio.move_on_after(DRAIN_SECONDS):
            try:
                async for chunk in self._chunks:
                    left -= len(cast(bytes, chunk))
                    if left < 0:
                        return
            except Exception:  # the answer is complete: only the connection is lost
                return

    async def aclose(self) -> None:
        """Close the byte iterator (the response itself is closed by the caller)."""
        close = getattr(self._chunks, "aclose", None)
        if close is not None:
            await close()


async def _event_batches(body: _Body, decoder: SseDecoder) -> AsyncIterator[list[SseEvent]]:
    """The events each chunk of the body completes (an empty list for a chunk completing none:
    a comment, or part of an event)."""
    async for chunk in body:
        yield decoder.feed(chunk)


def _no_event(batch: list[SseEvent]) -> bool:
    return not batch


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
    body = _Body(response, provider, api, limit)
    feed = assembler.feed
    batches = with_idle_timeout(
        _event_batches(body, decoder),
        idle_timeout=limit,
        on_timeout=lambda: _stalled(provider, api, limit),
        keeps_alive=_no_event,
    )
    try:
        async with aclosing(batches):
            async for batch in batches:
                # one chunk's events are read before its deltas are yielded: when the chunk
                # completes the answer, the body is drained first and the connection goes back
                # to the pool at once, not after the consumer went through every delta
                deltas: list[StreamEvent] = []
                failure: Exception | None = None
                try:
                    # one decoding guard per chunk, not per event (it only maps a decoder's
                    # KeyError / TypeError / ...; the errors raised here are Robota's own)
                    with decoding(provider, api, request_id):
                        for event in batch:
                            if event.data == "[DONE]":
                                done = True
                                break
                            data = _event_object(
                                event.data, provider=provider, api=api, request_id=request_id
                            )
                            record("stream", data)
                            if error_object(data) is not None:
                                raise classify_body(data, provider=provider, request_id=request_id)
                            deltas.extend(feed(data))
                            if assembler.ended:
                                break
                except Exception as error:  # raised after the deltas before it
                    failure = error
                complete = failure is None and (done or assembler.ended)
                if complete:
                    await body.drain()
                for out in deltas:
                    yield out
                if failure is not None:
                    raise failure
                if complete:
                    break
    finally:
        try:
            await body.aclose()
        finally:
            await response.aclose()
    if not decoder.saw_data:
        raise not_a_stream(bytes(decoder.head), provider=provider, api=api, request_id=request_id)
    with decoding(provider, api, request_id):
        final = assembler.finish(request_id=request_id, effort=effort, done=done)
    yield ResponseCompleted(response=final)
