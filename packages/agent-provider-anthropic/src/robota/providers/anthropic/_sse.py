"""Server-Sent Events → ``(event name, JSON data)`` pairs (WHATWG HTML, "Server-sent events",
§9.2.6 "Interpreting an event stream").

An event stream is always UTF-8 (§9.2.6: "Event streams are always decoded as UTF-8"; a declared
``charset`` is ignored, a leading byte-order mark is skipped, and bytes that are not UTF-8 become
U+FFFD). Lines end at CRLF, CR or LF — a CR at the end of one network chunk and the LF opening
the next are one line end.

An event is dispatched at the blank line that ends it. At the end of the body a pending event
that no blank line ended is discarded, as the standard says ("if the file ends in the middle of
an event, before the final empty line, the incomplete event is not dispatched") — a body cut in
the middle of an event never yields half of it. Lines starting with ``:`` are comments; fields
other than ``event`` and ``data`` are ignored.

:func:`read_events` reads a body as it arrives and, given a timeout, bounds the wait for each
next *meaningful* event: comments (``: keep-alive``) and ``ping`` events keep a connection open
but say nothing, so they never extend the wait (a stalled stream ends with
:class:`~robota.core.errors.ProviderTimeoutError`, however many keep-alives it sends).
"""

from __future__ import annotations

import codecs
import json
import math
import re
from collections import deque
from collections.abc import AsyncIterable, AsyncIterator, Mapping
from typing import Any, cast

import anyio
from robota.core.errors import MalformedResponseError, ProviderTimeoutError
from robota.core.wire import describe_body

__all__ = ["EventParser", "LineDecoder", "is_ping", "read_events"]

_LINE_END = re.compile(r"\r\n|\r|\n")

Event = tuple[str, Any]


class LineDecoder:
    """Incremental bytes → lines of an event stream (UTF-8 whatever the declared charset; a
    leading BOM skipped; invalid bytes → U+FFFD; CRLF, CR or LF end a line — a line ending in
    CR is complete at once, and an LF right after it, even in the next chunk, is skipped).

    Example:
        >>> d = LineDecoder()
        >>> d.feed(b"\\xef\\xbb\\xbfdata: \\xc3"), d.feed(b"\\xa9\\r"), d.feed(b"\\nx"), d.flush()
        ([], ['data: é'], [], ['x'])
    """

    def __init__(self) -> None:
        self._utf8 = codecs.getincrementaldecoder("utf-8-sig")("replace")
        self._pending: list[str] = []  # the current line's text so far
        self._skip_lf = False

    def feed(self, chunk: bytes) -> list[str]:
        """The lines ``chunk`` completes."""
        return self._split(self._utf8.decode(chunk))

    def flush(self) -> list[str]:
        """The lines left at the end of the body (the last one when no line end closed it)."""
        lines = self._split(self._utf8.decode(b"", final=True))
        rest, self._pending = "".join(self._pending), []
        return [*lines, rest] if rest else lines

    def _split(self, text: str) -> list[str]:
        if not text:
            return []
        if self._skip_lf:
            self._skip_lf = False
            text = text.removeprefix("\n")
        if not text:
            return []
        parts = _LINE_END.split(text)
        tail = parts.pop()
        if parts:  # a line ended: the text so far opens it
            parts[0] = "".join(self._pending) + parts[0]
            self._pending = []
        if tail:
            self._pending.append(tail)  # a 5 MB line in 4 KB chunks is joined once, not 1000 times
        self._skip_lf = text.endswith("\r")
        return parts


class EventParser:
    """Lines (without terminators) → dispatched events, one line at a time.

    Args:
        provider: Provider name for errors.
        api: API surface for errors.
        request_id: Vendor request id for errors.
    """

    def __init__(self, *, provider: str, api: str, request_id: str | None = None) -> None:
        self.provider = provider
        self.api = api
        self.request_id = request_id
        self._event = ""
        self._data: list[str] = []

    def line(self, line: str) -> Event | None:
        """Consume one line; return the event it dispatches, if any.

        Raises:
            MalformedResponseError: when a dispatched event's ``data`` is not JSON.
        """
        if line == "":
            event, data = self._event, self._data
            self._event, self._data = "", []
            if not data:
                return None
            payload = "\n".join(data)
            try:
                decoded = json.loads(payload)
            except (ValueError, RecursionError) as exc:  # RecursionError: absurdly deep
                raise MalformedResponseError(
                    f"{self.provider} {self.api} stream: event data is not JSON: "
                    f"{describe_body(payload)}",
                    provider=self.provider,
                    api=self.api,
                    missing="JSON event data",
                    request_id=self.request_id,
                ) from exc
            return event or "message", decoded
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        return None


def is_ping(event: Event) -> bool:
    """True for a keep-alive ``ping`` event (by name or by its data's ``type``)."""
    name, data = event
    if name == "ping":
        return True
    return isinstance(data, Mapping) and cast(Mapping[str, Any], data).get("type") == "ping"


async def read_events(
    chunks: AsyncIterable[bytes],
    *,
    provider: str,
    api: str,
    request_id: str | None = None,
    event_timeout: float | None = None,
) -> AsyncIterator[Event]:
    """The events of an event-stream body read as it arrives (see the module doc).

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
        ...     yield b": keep-alive\\n\\nevent: ping\\ndata: {}\\n\\nda"
        ...     yield b'ta: {"type": "message_stop"}\\n\\n'
        >>> async def collect():
        ...     return [e async for e in read_events(body(), provider="p", api="a", event_timeout=1)]
        >>> asyncio.run(collect())
        [('ping', {}), ('message', {'type': 'message_stop'})]
    """
    source = aiter(chunks)
    decoder = LineDecoder()
    parser = EventParser(provider=provider, api=api, request_id=request_id)
    lines: deque[str] = deque()
    ended = False

    async def next_event() -> Event | None:
        """The next dispatched event (parsed only when asked for), None at the end."""
        nonlocal ended
        while True:
            while lines:
                event = parser.line(lines.popleft())
                if event is not None:
                    return event
            if ended:
                return None
            try:
                chunk = await anext(source)
            except StopAsyncIteration:
                ended = True
                lines.extend(decoder.flush())
            else:
                lines.extend(decoder.feed(chunk))

    def restart() -> float:
        return math.inf if event_timeout is None else anyio.current_time() + event_timeout

    deadline = restart()
    while True:
        event: Event | None = None
        with anyio.CancelScope(deadline=deadline) as scope:
            event = await next_event()
        if scope.cancelled_caught:
            raise ProviderTimeoutError(
                f"{provider} {api} stream: no event within {event_timeout:g} s "
                "(keep-alive comments and pings do not count)",
                provider=provider,
                request_id=request_id,
            )
        if event is None:
            return
        if not is_ping(event):
            deadline = restart()
        yield event
