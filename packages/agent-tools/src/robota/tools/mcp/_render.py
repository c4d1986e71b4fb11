"""MCP ``tools/call`` results as Robota tool results (MCP spec 2025-11-25, "Tool Result").

Text content becomes a :class:`TextPart`; image and audio content a :class:`MediaPart` with the
decoded bytes; an embedded text resource a text part headed by its URI; an embedded blob a media
part (kind from its MIME type); a resource link a text line naming it. ``structuredContent`` is
added as JSON text only when the result has no text content: a server that returns structured
content SHOULD also return it serialized in a text block (the spec's "Structured Content",
for backwards compatibility), and the text is what it chose to say (FastMCP's ``5`` for
``{"result": 5}``), so sending both would give the model the same value twice.
``isError`` sets ``ToolReturn.is_error``.

The text of one result is bounded (:data:`MAX_RESULT_CHARS` characters over all its text parts,
the same order as the built-in tools' 50 000-byte output bound): what is over is cut and a last
part says ``[N characters omitted ...]``, so a server cannot flood the context window.
"""

from __future__ import annotations

import base64
import binascii
import json

from mcp.types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from robota.core.messages import MediaKind, MediaPart, TextPart
from robota.core.tools.base import ToolReturn

__all__ = ["MAX_RESULT_CHARS", "bound_parts", "decode_base64", "render_result"]

MAX_RESULT_CHARS = 100_000
"""Characters of text kept from one MCP tool result (over all its text parts)."""


def _media_kind(mime_type: str | None) -> MediaKind:
    major = (mime_type or "").split("/", 1)[0]
    if major == "image":
        return "image"
    if major == "audio":
        return "audio"
    if mime_type in ("application/pdf", "text/plain", "text/html", "text/markdown"):
        return "document"
    return "binary"


def decode_base64(data: str) -> bytes | None:
    """The bytes ``data`` (base64) encodes, or None when it is not valid base64."""
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None


def bound_parts(
    parts: list[TextPart | MediaPart], max_chars: int, *, what: str = "MCP result"
) -> list[TextPart | MediaPart]:
    """``parts`` with at most ``max_chars`` characters of text, then a note saying how many
    were omitted (``[N characters omitted: the <what> was over M characters]``; media parts
    are kept)."""
    kept: list[TextPart | MediaPart] = []
    left = max_chars
    omitted = 0
    for part in parts:
        if not isinstance(part, TextPart):
            kept.append(part)
            continue
        if len(part.text) <= left:
            kept.append(part)
            left -= len(part.text)
            continue
        if left > 0:
            kept.append(TextPart(text=part.text[:left]))
        omitted += len(part.text) - left
        left = 0
    if omitted:
        note = f"[{omitted} characters omitted: the {what} was over {max_chars} characters]"
        kept.append(TextPart(text=note))
    return kept


def render_result(result: CallToolResult, *, max_chars: int = MAX_RESULT_CHARS) -> ToolReturn:
    """Convert one MCP tool result.

    Args:
        result: The SDK's parsed ``CallToolResult``.
        max_chars: Characters of text kept over all text parts (> 0); the rest is cut and a
            last text part says how many characters were omitted.

    Returns:
        A :class:`ToolReturn` with one part per content block (base64 that does not decode
        becomes a text part saying so), plus the structured content as JSON text when present
        and the result has no text content, bounded to ``max_chars`` characters of text; ``is_error`` copied from
        ``isError``.
    """
    parts: list[TextPart | MediaPart] = []
    for block in result.content:
        if isinstance(block, TextContent):
            parts.append(TextPart(text=block.text))
        elif isinstance(block, ImageContent | AudioContent):
            data = decode_base64(block.data)
            kind: MediaKind = "image" if isinstance(block, ImageContent) else "audio"
            if data is None:
                parts.append(TextPart(text=f"[{kind} with invalid base64 data omitted]"))
            else:
                parts.append(MediaPart(media_kind=kind, media_type=block.mime_type, data=data))
        elif isinstance(block, EmbeddedResource):
            resource = block.resource
            if isinstance(resource, TextResourceContents):
                parts.append(TextPart(text=f"[resource {resource.uri}]\n{resource.text}"))
            elif isinstance(resource, BlobResourceContents):
                data = decode_base64(resource.blob)
                mime = resource.mime_type or "application/octet-stream"
                if data is None:
                    parts.append(TextPart(text=f"[resource {resource.uri}: invalid base64]"))
                else:
                    parts.append(
                        MediaPart(
                            media_kind=_media_kind(mime),
                            media_type=mime,
                            data=data,
                            name=str(resource.uri),
                        )
                    )
        elif isinstance(block, ResourceLink):
            description = f" - {block.description}" if block.description else ""
            parts.append(TextPart(text=f"[resource link {block.name}: {block.uri}]{description}"))
    structured = result.structured_content
    if structured is not None and not any(isinstance(b, TextContent) for b in result.content):
        parts.append(TextPart(text=json.dumps(structured, ensure_ascii=False, default=str)))
    return ToolReturn(content=tuple(bound_parts(parts, max_chars)), is_error=result.is_error)
