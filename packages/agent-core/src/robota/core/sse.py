r"""Server-Sent Events: a body's bytes → its events, and a bound on the wait for each next one
(WHATWG HTML, "Server-sent events", §9.2.6 "Interpreting an event stream").

The parsing rule every provider adapter shares lives here; what an event *means* — which event
names matter, ``[DONE]``, ``ping``, JSON in ``data``, what ends a stream — stays in each adapter.

- An event stream is always UTF-8 (§9.2.6: "Event streams are always decoded as UTF-8"): a
  declared ``charset`` is ignored, bytes that are not UTF-8 become U+FFFD, and one leading
  U+FEFF byte-order mark is skipped, even split across chunks (a second one is part of the
  first field name).
- Lines end at CRLF, LF or CR; a CR ending one chunk and an LF opening the next are one line end.
  A line ending in CR is complete at once: an event is never held back to see whether an LF
  follows.
- A line starting with ``:`` is a comment. Otherwise the field name is the text before the first
  ``:`` (the whole line when there is none) and its value the text after it, one leading space
  removed. ``data`` adds a line to the event's data (lines joined with ``\n``), ``event`` names
  the event, ``id`` sets the last event id (unless it holds U+0000); other fields — ``retry``
  too: nothing here reconnects — are ignored.
- A blank line dispatches the event when it has data (after none it only clears the name). At
  the end of the body an unterminated line and an event no blank line ended are discarded ("if
  the file ends in the middle of an event, before the final empty line, the incomplete event is
  not dispatched"): a body cut anywhere never yields half an event.

However the body is split into chunks, the events are the same.

:func:`with_idle_timeout` bounds the time spent waiting for each next *meaningful* item of an
async iterator — the events of :func:`iter_events`, or what an adapter made of them. Comments
never reach it (they are no events); what else only keeps a connection open (a vendor's ``ping``)
the adapter names with ``keeps_alive``. So a stalled stream ends with the adapter's error
(its :class:`~robota.core.errors.ProviderTimeoutError`), however many keep-alives it sends.

Example:
    >>> import asyncio
    >>> from robota.core.errors import ProviderTimeoutError
    >>> async def body():
    ...     yield b"\xef\xbb"  # a byte-order mark, split
    ...     yield b"\xbf: keep-alive\r\nevent: delta\r\ndata: {\"a\":\r"
    ...     yield b"\ndata:1}\r\n\r\ndata: [DONE]\n\ndata: cut off"
    >>> async def read():
    ...     events = with_idle_timeout(
    ...         iter_events(body()),
    ...         idle_timeout=5.0,
    ...         on_timeout=lambda: ProviderTimeoutError("no event within 5 s", provider="p"),
    ...     )
    ...     return [e async for e in events]
    >>> for event in asyncio.run(read()):
    ...     print(event)
    SseEvent(event='delta', data='{"a":\n1}', id='')
    SseEvent(event='', data='[DONE]', id='')
"""

from __future__ import annotations

import codecs
import re
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Callable
from dataclasses import dataclass
from typing import TypeVar

import anyio

__all__ = ["SseDecoder", "SseEvent", "SseLineDecoder", "iter_events", "with_idle_timeout"]

_LINE_END = re.compile(r"\r\n|\r|\n")

T = TypeVar("T")


@dataclass(frozen=True, kw_only=True, slots=True)
class SseEvent:
    r"""One dispatched event.

    Attributes:
        event: The ``event`` field, or ``""`` when the event named none (a browser dispatches
            such an event as ``message``).
        data: The event's ``data`` lines joined by ``\n`` (``""`` for one empty ``data`` line).
        id: The last event id the stream set before this event was dispatched (an ``id`` field
            holds for the events after it too), ``""`` when none.
    """

    event: str = ""
    data: str
    id: str = ""


class SseLineDecoder:
    r"""Incremental bytes → lines of an event stream (the module doc's first two rules).

    Example:
        >>> d = SseLineDecoder()
        >>> d.feed(b"\xef\xbb\xbfdata: \xc3"), d.feed(b"\xa9\r"), d.feed(b"\nx"), d.flush()
        ([], ['data: é'], [], ['x'])
    """

    def __init__(self) -> None:
        self._utf8 = codecs.getincrementaldecoder("utf-8-sig")("replace")
        self._pending: list[str] = []  # the current line's text so far
        self._skip_lf = False

    def feed(self, chunk: bytes) -> list[str]:
        """The lines ``chunk`` completes, without their line ends."""
        return self._split(self._utf8.decode(chunk))

    def flush(self) -> list[str]:
        """At the end of the body: its last line when no line end closed it (``[]`` otherwise).

        By the standard that text is no line (:class:`SseDecoder` discards it); a reader that
        passes on text that is no event stream at all may want it.
        """
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


class SseDecoder:
    r"""Incremental bytes → events of an event stream (the rules of the module doc).

    The end of the body needs no call: what it leaves (an unterminated line, an event no blank
    line ended) is discarded.

    Attributes:
        saw_data: True once any ``data`` field was read, dispatched or not — a body without one
            was no event stream (an empty body, a JSON error, an HTML page).

    Example:
        >>> d = SseDecoder()
        >>> d.feed(b'event: ping\ndata: {"a":') + d.feed(b" 1}\n\nid: 7\ndata: [DO")
        [SseEvent(event='ping', data='{"a": 1}', id='')]
        >>> d.feed(b"NE]\r"), d.feed(b"\r\n"), d.saw_data
        ([], [SseEvent(event='', data='[DONE]', id='7')], True)
    """

    def __init__(self) -> None:
        self._lines = SseLineDecoder()
        self._event = ""
        self._data: list[str] = []
        self._id = ""
        self.saw_data = False

    def feed(self, chunk: bytes) -> list[SseEvent]:
        """Consume the next bytes of the body; return the events they complete."""
        events: list[SseEvent] = []
        for line in self._lines.feed(chunk):
            if line.startswith("data:"):  # the usual line, read here (as _line reads it)
                value = line[5:]
                self._data.append(value[1:] if value.startswith(" ") else value)
                self.saw_data = True
                continue
            event = self._line(line)
            if event is not None:
                events.append(event)
        return events

    def _line(self, line: str) -> SseEvent | None:
        if not line:
            if not self._data:
                self._event = ""
                return None
            event = SseEvent(event=self._event, data="\n".join(self._data), id=self._id)
            self._event, self._data = "", []
            return event
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            self._data.append(value)
            self.saw_data = True
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._id = value
        return None


async def _close(source: AsyncIterator[object]) -> None:
    if isinstance(source, AsyncGenerator):
        await source.aclose()


async def iter_events(
    chunks: AsyncIterable[bytes], *, decoder: SseDecoder | None = None
) -> AsyncGenerator[SseEvent]:
    """The events of an event-stream body, each as soon as its bytes arrived.

    Args:
        chunks: The body's bytes (content-encoding already undone), in any chunks. The
            iterator taken from it is closed (when it is an async generator) once the events
            end or this iterator is closed.
        decoder: The decoder to feed — pass one to read its ``saw_data`` afterwards; a new one
            by default.

    Raises:
        Exception: whatever reading ``chunks`` raises, unchanged.
    """
    decoder = SseDecoder() if decoder is None else decoder
    source = aiter(chunks)
    try:
        async for chunk in source:
            for event in decoder.feed(chunk):
                yield event
    finally:
        await _close(source)


async def with_idle_timeout(
    items: AsyncIterable[T],
    *,
    idle_timeout: float | None,
    on_timeout: Callable[[], Exception],
    keeps_alive: Callable[[T], bool] | None = None,
) -> AsyncGenerator[T]:
    """``items``, with the time spent waiting for each next meaningful one bounded.

    Only time spent waiting inside this iterator counts (not the time its reader spends on an
    item); it restarts at every item for which ``keeps_alive`` is false, and runs on across
    the ones for which it is true — those are still yielded.

    Args:
        items: Any async iterable (e.g. :func:`iter_events`); the iterator taken from it is
            closed (when it is an async generator) once this one ends or is closed.
        idle_timeout: Seconds of waiting allowed between meaningful items (and before the
            first one); None: no bound.
        on_timeout: Builds the error raised when the wait ran out (the adapter's
            :class:`~robota.core.errors.ProviderTimeoutError`, or what its SDK expects).
        keeps_alive: True for an item that only keeps the connection open (a vendor's
            ``ping``); None: every item is meaningful.

    Raises:
        Exception: ``on_timeout()`` when no meaningful item arrived within ``idle_timeout``;
            whatever reading ``items`` raises, unchanged.
    """
    source = aiter(items)
    try:
        if idle_timeout is None:
            async for item in source:
                yield item
            return
        remaining = idle_timeout
        while True:
            started = anyio.current_time()
            got: list[T] = []
            with anyio.CancelScope(deadline=started + remaining) as scope:
                try:
                    got.append(await anext(source))
                except StopAsyncIteration:
                    return
            if scope.cancelled_caught or not got:
                raise on_timeout()
            item = got[0]
            if keeps_alive is not None and keeps_alive(item):
                remaining -= anyio.current_time() - started
            else:
                remaining = idle_timeout
            yield item
    finally:
        await _close(source)
