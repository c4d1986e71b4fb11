"""Server-Sent Events bytes → events (WHATWG HTML, "Server-sent events", §9.2.6 "Interpreting an
event stream").

The decoder is fed the body in whatever chunks the transport delivers and returns the events
each chunk completes, so the outcome never depends on where the chunks were split. Lines end at
``\\r\\n``, ``\\n`` or ``\\r``; an event is dispatched at the blank line that ends it; ``data``
lines are joined with ``\\n``; lines starting with ``:`` are comments; fields other than
``event`` and ``data`` are ignored. At the end of the body a line that no terminator ended and
an event that no blank line ended are both discarded, as the standard says ("if the file ends in
the middle of an event, before the final empty line, the incomplete event is not dispatched") —
a body cut anywhere never yields half an event. One leading U+FEFF byte-order mark (``EF BB BF``,
possibly split across chunks) is removed before the first line, as the standard says ("one
leading U+FEFF BYTE ORDER MARK character must be ignored if any are present"); otherwise the
first line's field name would start with it and the first event would be lost.

The decoder also keeps the first :data:`HEAD_LIMIT` bytes and whether any ``data`` field was
seen, so a body that was not an event stream at all (a JSON error, an HTML page) can be
reported for what it was.

Example:
    >>> decoder = SseDecoder()
    >>> decoder.feed(b'event: ping\\ndata: {"a":') + decoder.feed(b' 1}\\n\\ndata: [DO')
    [SseEvent(event='ping', data='{"a": 1}')]
    >>> decoder.feed(b"NE]\\n"), decoder.end(), decoder.saw_data
    ([], [], True)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["HEAD_LIMIT", "SseDecoder", "SseEvent"]

HEAD_LIMIT = 65_536
"""Most bytes of a body kept for describing a body that was not an event stream."""

_LINE_END = re.compile(rb"\r\n|\r|\n")
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class SseEvent:
    """One dispatched event.

    Attributes:
        event: The ``event`` field, or ``""`` when the event named none.
        data: The ``data`` lines joined by ``\\n``.
    """

    event: str
    data: str


@dataclass(slots=True)
class SseDecoder:
    """Incremental event-stream decoder (see the module docstring for the rules)."""

    saw_data: bool = False
    """True once any ``data`` field arrived (the body is an event stream)."""
    head: bytearray = field(default_factory=bytearray)
    """The first :data:`HEAD_LIMIT` bytes of the body, verbatim."""
    _buffer: bytearray = field(default_factory=bytearray)
    _event: str = ""
    _data: list[str] = field(default_factory=lambda: [])
    _has_data: bool = False
    _started: bool = False

    def feed(self, chunk: bytes) -> list[SseEvent]:
        """Consume the next bytes of the body; return the events they complete."""
        if len(self.head) < HEAD_LIMIT:
            self.head.extend(chunk[: HEAD_LIMIT - len(self.head)])
        self._buffer.extend(chunk)
        if not self._started:
            if len(self._buffer) < len(_BOM) and _BOM.startswith(self._buffer):
                return []  # maybe the first bytes of a byte-order mark: wait for more
            self._started = True
            if self._buffer.startswith(_BOM):
                del self._buffer[: len(_BOM)]
        events: list[SseEvent] = []
        start = 0
        for match in _LINE_END.finditer(self._buffer):
            if match.group() == b"\r" and match.end() == len(self._buffer):
                break  # a "\r" at the end may be the first half of "\r\n": wait for more
            line = bytes(self._buffer[start : match.start()]).decode("utf-8", "replace")
            start = match.end()
            event = self._line(line)
            if event is not None:
                events.append(event)
        del self._buffer[:start]
        return events

    def end(self) -> list[SseEvent]:
        """The body ended: a final ``\r`` held back as a possible half of ``\r\n`` ends its
        line after all; an unterminated line and an undispatched event are discarded."""
        events: list[SseEvent] = []
        if self._buffer.endswith(b"\r"):
            event = self._line(bytes(self._buffer[:-1]).decode("utf-8", "replace"))
            if event is not None:
                events.append(event)
        self._buffer.clear()
        return events

    def _line(self, line: str) -> SseEvent | None:
        if line == "":
            if not self._has_data:
                self._event = ""
                return None
            event = SseEvent(event=self._event, data="\n".join(self._data))
            self._event, self._data, self._has_data = "", [], False
            return event
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            self._data.append(value)
            self._has_data = True
            self.saw_data = True
        elif name == "event":
            self._event = value
        return None
