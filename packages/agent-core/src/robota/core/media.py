"""Recognising media by its bytes, not by a name or a declared type: what a file, a tool
result or an MCP resource claims to be is checked against the formats' signatures before it
is sent to a model as an image."""

from __future__ import annotations

__all__ = ["IMAGE_SNIFF_BYTES", "image_media_type"]

IMAGE_SNIFF_BYTES = 12
"""How many leading bytes :func:`image_media_type` needs to tell every format (WebP: 12)."""

_IMAGE_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def image_media_type(head: bytes) -> str | None:
    """The IANA media type of an image whose first bytes are ``head`` — PNG, JPEG, GIF or WebP,
    from the formats' signatures — else None (an SVG, HTML, any other bytes).

    Args:
        head: The first bytes (at least :data:`IMAGE_SNIFF_BYTES` to recognise WebP).

    Example:
        >>> image_media_type(b"\\x89PNG\\r\\n\\x1a\\n" + bytes(4)), image_media_type(b"<svg>")
        ('image/png', None)
    """
    for signature, media_type in _IMAGE_SIGNATURES:
        if head.startswith(signature):
            return media_type
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None
