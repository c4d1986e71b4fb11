"""File helpers shared by the file tools: binary sniffing and image type detection.

Opening files is not done here: every file tool opens through the workspace's rooted handle
(:mod:`robota.tools.rooted`) and sniffs the bytes of the descriptor it opened.
"""

from __future__ import annotations

__all__ = ["SNIFF_BYTES", "image_media_type", "looks_binary"]

SNIFF_BYTES = 8192
"""How many leading bytes are inspected to call a file binary (git's heuristic uses 8000)."""

_IMAGE_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def image_media_type(head: bytes) -> str | None:
    """Return the image media type for a file starting with ``head``, from its magic bytes
    (PNG, JPEG, GIF, WebP), or None."""
    for signature, media_type in _IMAGE_SIGNATURES:
        if head.startswith(signature):
            return media_type
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


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
