"""Bounding tool output: at most so many lines, characters per line and bytes, with a note
saying what was cut (seed 000, "Tool Output Bounds": a tool result must never flood the
context window).

:func:`bound_text` bounds a finished text. :class:`HeadTailBuffer` collects a stream of bytes
(a shell's output) keeping its head and its tail within a byte budget, so memory stays bounded
however much a command prints.

Example:
    >>> bounded = bound_text("a\\nb\\nc\\n", OutputBounds(max_lines=2))
    >>> print(bounded.text)
    a
    b
    [output truncated: showed 2 of 3 lines]
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

__all__ = [
    "DEFAULT_BOUNDS",
    "BoundedText",
    "HeadTailBuffer",
    "OutputBounds",
    "bound_text",
    "cut_utf8",
    "head_tail_lines",
]


@dataclass(frozen=True, kw_only=True, slots=True)
class OutputBounds:
    """Limits on one tool result's text.

    Attributes:
        max_bytes: Bytes of UTF-8 text kept (the note comes on top), default 50 000.
        max_lines: Lines kept, default 2 000.
        max_line_chars: Characters kept per line; a longer line ends in a marker saying how
            many characters were cut. Default 2 000.
    """

    max_bytes: int = 50_000
    max_lines: int = 2_000
    max_line_chars: int = 2_000


DEFAULT_BOUNDS = OutputBounds()
"""The bounds the built-in tools use unless a host passes others."""


@dataclass(frozen=True, kw_only=True, slots=True)
class BoundedText:
    """The result of :func:`bound_text`.

    Attributes:
        text: The kept text, followed by the note when something was cut.
        truncated: True when lines, characters or bytes were cut.
        shown_lines: How many lines of the input are (at least partly) in ``text``.
        total_lines: Lines in the input.
    """

    text: str
    truncated: bool
    shown_lines: int
    total_lines: int


def cut_utf8(data: bytes, limit: int) -> bytes:
    """Return at most ``limit`` bytes of ``data``, not ending inside a UTF-8 sequence.

    Only an incomplete sequence at the very end is dropped (at most 3 bytes); invalid bytes
    elsewhere are kept as they are.
    """
    cut = data[:limit]
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    decoder.decode(cut, final=False)
    pending, _flag = decoder.getstate()
    return cut[: len(cut) - len(pending)]


def bound_text(text: str, bounds: OutputBounds = DEFAULT_BOUNDS, *, hint: str = "") -> BoundedText:
    """Cut ``text`` to ``bounds`` and append a note naming what was cut.

    Args:
        text: The full text.
        bounds: The limits.
        hint: Extra advice appended to the note when something was cut (e.g. "use offset=").

    Returns:
        A :class:`BoundedText`; ``text`` ends with ``[output truncated: ...]`` when cut.
    """
    lines = text.splitlines()
    total = len(lines)
    kept: list[str] = []
    used = 0
    long_lines = 0
    bytes_cut = False
    for line in lines[: bounds.max_lines]:
        if len(line) > bounds.max_line_chars:
            long_lines += 1
            line = (
                line[: bounds.max_line_chars]
                + f"... [{len(line) - bounds.max_line_chars} more characters on this line]"
            )
        size = len(line.encode()) + 1
        if used + size > bounds.max_bytes:
            room = bounds.max_bytes - used
            if room > 0:
                kept.append(cut_utf8(line.encode(), room).decode())
            bytes_cut = True
            break
        kept.append(line)
        used += size
    shown = len(kept)
    parts: list[str] = []
    if shown < total:
        parts.append(f"showed {shown} of {total} lines")
    if bytes_cut:
        parts.append(f"stopped at the {bounds.max_bytes}-byte limit")
    if long_lines:
        parts.append(f"{long_lines} long line(s) cut at {bounds.max_line_chars} characters")
    if not parts:
        return BoundedText(text=text, truncated=False, shown_lines=shown, total_lines=total)
    note = f"[output truncated: {'; '.join(parts)}{'; ' + hint if hint else ''}]"
    return BoundedText(
        text="\n".join([*kept, note]), truncated=True, shown_lines=shown, total_lines=total
    )


def head_tail_lines(text: str, max_lines: int) -> str:
    """Keep the first and last ``max_lines // 2`` lines of ``text``, with a marker line saying
    how many lines were dropped between them (for command output, whose end matters)."""
    lines = text.splitlines()
    if len(lines) <= max_lines:
        return text
    half = max(1, max_lines // 2)
    dropped = len(lines) - 2 * half
    return "\n".join([*lines[:half], f"[... {dropped} lines omitted ...]", *lines[-half:]])


class HeadTailBuffer:
    """Collects a byte stream keeping the first and last ``limit // 2`` bytes.

    Args:
        limit: Total bytes kept (head plus tail), at least 2.
    """

    def __init__(self, limit: int) -> None:
        self._half = max(1, limit // 2)
        self._head = bytearray()
        self._tail = bytearray()
        self.total = 0
        """Bytes received so far."""

    def write(self, data: bytes) -> None:
        """Add ``data`` to the stream."""
        self.total += len(data)
        room = self._half - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if data:
            self._tail += data
            if len(self._tail) > self._half:
                del self._tail[: len(self._tail) - self._half]

    @property
    def dropped(self) -> int:
        """Bytes received but not kept (from the middle of the stream)."""
        return self.total - len(self._head) - len(self._tail)

    def text(self) -> str:
        """The kept bytes as text (invalid UTF-8 replaced), with a marker where the middle was
        dropped."""
        head = self._head.decode(errors="replace")
        if not self.dropped:
            return head + self._tail.decode(errors="replace")
        tail = self._tail.decode(errors="replace")
        return f"{head}\n[... {self.dropped} bytes of output omitted ...]\n{tail}"
