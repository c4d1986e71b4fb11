"""File helpers shared by the file tools: binary sniffing, image type detection, and reading a
file's lines with bounded memory (:func:`iter_lines`).

Opening files is not done here: every file tool opens through the workspace's rooted handle
(:mod:`robota.tools.rooted`) and sniffs the bytes of the descriptor it opened.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from robota.core.media import image_media_type

__all__ = [
    "MAX_LINE_BYTES",
    "READ_CHUNK_BYTES",
    "SNIFF_BYTES",
    "image_media_type",
    "iter_lines",
    "looks_binary",
]

MAX_LINE_BYTES = 1 << 20
"""Longest line (bytes) :func:`iter_lines` holds in memory; a longer line ends the reading
(a sparse or endless file is one "line" of gigabytes)."""
READ_CHUNK_BYTES = 1 << 16
"""Bytes read per system call by :func:`iter_lines`."""

SNIFF_BYTES = 8192
"""How many leading bytes are inspected to call a file binary (git's heuristic uses 8000)."""


def looks_binary(head: bytes) -> bool:
    """True when ``head`` (a file's first bytes) holds a NUL byte or is not UTF-8 text.

    An incomplete multi-byte sequence at the very end of ``head`` is not held against it.
    """
    if b"\x00" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        return not (error.reason == "unexpected end of data" and error.start >= len(head) - 3)
    return False


def iter_lines(
    fd: int, *, max_line_bytes: int = MAX_LINE_BYTES, chunk_bytes: int = READ_CHUNK_BYTES
) -> Iterator[tuple[bytes, bool]]:
    r"""Yield the lines of the file open as ``fd`` (read with ``pread`` from its start), as
    ``(line, complete)`` without the line ending.

    Line endings are those of Python's universal newlines (``\n``, ``\r\n``, ``\r``); a last
    line without an ending is yielded too. Memory stays bounded: a line longer than
    ``max_line_bytes`` is yielded cut to that length with ``complete=False``, and nothing after
    it is read (the iteration ends).

    Example:
        >>> import tempfile
        >>> with tempfile.TemporaryFile() as f:
        ...     _ = f.write(b"a\r\nbb\rc\n" + b"x" * 10 + b"\nnot read")
        ...     _ = f.flush()
        ...     list(iter_lines(f.fileno(), max_line_bytes=5, chunk_bytes=4))
        [(b'a', True), (b'bb', True), (b'c', True), (b'xxxxx', False)]
    """
    offset = 0
    pending = b""
    while True:
        chunk = os.pread(fd, chunk_bytes, offset)
        if not chunk:
            break
        offset += len(chunk)
        pieces = chunk.split(b"\n")
        pieces[0] = pending + pieces[0]
        pending = pieces.pop()
        for piece in pieces:
            if len(piece) > max_line_bytes:
                yield piece[:max_line_bytes], False
                return
            for line in _universal(piece):
                yield line, True
        if len(pending) > max_line_bytes:
            yield pending[:max_line_bytes], False
            return
    if pending:
        for line in _universal(pending):
            yield line, True


def _universal(piece: bytes) -> list[bytes]:
    """Split a ``\n``-free piece at ``\r`` (a trailing ``\r`` ends the last line)."""
    if b"\r" not in piece:
        return [piece]
    lines = piece.split(b"\r")
    if lines[-1] == b"":
        lines.pop()
    return lines
