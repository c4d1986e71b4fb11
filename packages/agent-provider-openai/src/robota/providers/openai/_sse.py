r"""The event-stream decoder of a streamed call: :class:`robota.core.sse.SseDecoder` (the
WHATWG parsing rule every adapter shares), keeping the first :data:`HEAD_LIMIT` bytes of the
body so a body that was no event stream at all (a JSON error, an HTML page) can be reported
for what it was. What the events mean (``[DONE]``, error events) is :mod:`._stream`'s.

Example:
    >>> decoder = SseDecoder()
    >>> decoder.feed(b'data: {"a":') + decoder.feed(b" 1}\n\ndata: [DO")
    [SseEvent(event='', data='{"a": 1}', id='')]
    >>> decoder.feed(b"NE]\n"), decoder.end(), decoder.saw_data, bytes(decoder.head[:9])
    ([], [], True, b'data: {"a')
"""

from __future__ import annotations

from robota.core.sse import SseDecoder as _CoreDecoder
from robota.core.sse import SseEvent

__all__ = ["HEAD_LIMIT", "SseDecoder", "SseEvent"]

HEAD_LIMIT = 65_536
"""Most bytes of a body kept for describing a body that was not an event stream."""


class SseDecoder(_CoreDecoder):
    """:class:`robota.core.sse.SseDecoder` that also keeps the body's first bytes.

    Attributes:
        head: The first :data:`HEAD_LIMIT` bytes of the body, verbatim.
    """

    def __init__(self) -> None:
        super().__init__()
        self.head = bytearray()

    def feed(self, chunk: bytes) -> list[SseEvent]:
        """Consume the next bytes of the body; return the events they complete."""
        if len(self.head) < HEAD_LIMIT:
            self.head.extend(chunk[: HEAD_LIMIT - len(self.head)])
        return super().feed(chunk)

    def end(self) -> list[SseEvent]:
        """The body ended: the events that completes — none (an unterminated line and an event
        no blank line ended are discarded)."""
        return []
