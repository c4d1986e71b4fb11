r"""Server-Sent Events → ``(event name, JSON data)`` pairs: the Messages API's reading of an
event stream.

The bytes → events rule (WHATWG HTML §9.2.6: always UTF-8, CR / LF / CRLF, comments, an
incomplete last event discarded) is :mod:`robota.core.sse`'s. What is this vendor's:

- every event's ``data`` is JSON (anything else is
  :class:`~robota.core.errors.MalformedResponseError`), parsed only when the event is read;
- an event that names no type is a ``message`` event (the standard's default);
- ``ping`` events (by name, or by their data's ``type``) keep a connection open but say nothing,
  so — like comments — they never extend the wait for the next event: a stalled stream ends with
  :class:`~robota.core.errors.ProviderTimeoutError`, however many keep-alives it sends.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Mapping
from contextlib import aclosing
from typing import Any, cast

from robota.core.errors import MalformedResponseError, ProviderTimeoutError
from robota.core.sse import SseEvent, iter_events, with_idle_timeout
from robota.core.sse import SseLineDecoder as LineDecoder
from robota.core.wire import describe_body

__all__ = ["LineDecoder", "is_ping", "read_events"]

Event = tuple[str, Any]


def is_ping(event: Event) -> bool:
    """True for a keep-alive ``ping`` event (by name or by its data's ``type``)."""
    name, data = event
    if name == "ping":
        return True
    return isinstance(data, Mapping) and cast(Mapping[str, Any], data).get("type") == "ping"


async def _decoded(
    events: AsyncGenerator[SseEvent], *, provider: str, api: str, request_id: str | None
) -> AsyncGenerator[Event]:
    """Each event with its ``data`` parsed as JSON, when it is read."""
    async with aclosing(events):
        async for event in events:
            try:
                decoded = json.loads(event.data)
            except (ValueError, RecursionError) as exc:  # RecursionError: absurdly deep
                raise MalformedResponseError(
                    f"{provider} {api} stream: event data is not JSON: {describe_body(event.data)}",
                    provider=provider,
                    api=api,
                    missing="JSON event data",
                    request_id=request_id,
                ) from exc
            yield event.event or "message", decoded


async def read_events(
    chunks: AsyncIterable[bytes],
    *,
    provider: str,
    api: str,
    request_id: str | None = None,
    event_timeout: float | None = None,
) -> AsyncIterator[Event]:
    r"""The events of an event-stream body read as it arrives (see the module doc).

    Args:
        chunks: The body's bytes (content-encoding already undone).
        provider: Provider name for errors.
        api: API surface for errors.
        request_id: Vendor request id for errors.
        event_timeout: Seconds to wait for each next meaningful event (not a comment, not a
            ``ping``); None waits as long as the connection does.

    Raises:
        MalformedResponseError: when an event's ``data`` is not JSON.
        ProviderTimeoutError: when no meaningful event arrived within ``event_timeout``.

    Example:
        >>> import asyncio
        >>> async def body():
        ...     yield b": keep-alive\n\nevent: ping\ndata: {}\n\nda"
        ...     yield b'ta: {"type": "message_stop"}\n\n'
        >>> async def collect():
        ...     return [e async for e in read_events(body(), provider="p", api="a", event_timeout=1)]
        >>> asyncio.run(collect())
        [('ping', {}), ('message', {'type': 'message_stop'})]
    """

    def stalled() -> ProviderTimeoutError:
        return ProviderTimeoutError(
            f"{provider} {api} stream: no event within {event_timeout:g} s "
            "(keep-alive comments and pings do not count)",
            provider=provider,
            request_id=request_id,
        )

    events = with_idle_timeout(
        _decoded(iter_events(chunks), provider=provider, api=api, request_id=request_id),
        idle_timeout=event_timeout,
        on_timeout=stalled,
        keeps_alive=is_ping,
    )
    async with aclosing(events):
        async for event in events:
            yield event
