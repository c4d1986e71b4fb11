"""MCP resources and prompts as message parts (MCP spec 2025-11-25, "Resources" and
"Prompts"): the paged listings, and ``resources/read`` / ``prompts/get`` results rendered into
:class:`TextPart` / :class:`MediaPart` for a user's turn (issue #18, "resources and prompts
usable as attachable context").

Rendering rules:

- a text resource becomes a text part headed ``[resource <uri>]``;
- a blob whose MIME type is ``image/png``, ``image/jpeg``, ``image/gif`` or ``image/webp``,
  whose first bytes are that format's signature (magic number) and whose decoded size is at
  most :data:`MAX_MEDIA_BYTES` becomes an image :class:`MediaPart` named by its URI; any other
  blob (an over-large image, or bytes that are not the declared image) is described in one text
  line and not attached;
- a prompt's text content becomes a text part, its images as above, its audio is described, an
  embedded resource is rendered as a resource and a resource link becomes a line naming it;
  every message that is not the user's is labelled with its role (``[assistant] ...``), and
  when a prompt mixes roles the user's messages are labelled ``[user]`` too;
- the text of one result is bounded like a tool result (:data:`~._render.MAX_RESULT_CHARS`
  characters): what is over is cut and a last part says how many characters were omitted.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from mcp.types import (
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    GetPromptResult,
    ImageContent,
    PaginatedRequestParams,
    ReadResourceResult,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from robota.core.media import image_media_type
from robota.core.messages import MediaPart, TextPart
from robota.tools.mcp._render import MAX_RESULT_CHARS, bound_parts, decode_base64

__all__ = [
    "ATTACHABLE_IMAGE_TYPES",
    "MAX_MEDIA_BYTES",
    "image_type",
    "list_pages",
    "render_prompt",
    "render_resource",
]

T = TypeVar("T")

MAX_MEDIA_BYTES = 5_000_000
"""Bytes of one image kept from a resource or prompt (5 MB: the smallest per-image limit of the
major providers, Anthropic's)."""

ATTACHABLE_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
"""Image types attached as media parts (the ones every image-capable provider accepts)."""

Part = TextPart | MediaPart


async def list_pages(
    fetch: Callable[[PaginatedRequestParams | None], Awaitable[tuple[list[T], str | None]]],
    *,
    what: str,
    max_pages: int,
) -> list[T]:
    """Every item of a paged MCP listing, following ``nextCursor``.

    Args:
        fetch: Sends one list request (``None``: the first page) and returns the page's items
            and its next cursor.
        what: The method, for errors (``resources/list``).
        max_pages: Bound on the pages followed.

    Raises:
        RuntimeError: when the server repeats a cursor or exceeds ``max_pages`` pages.
    """
    items: list[T] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(max_pages):
        page, cursor = await fetch(
            None if cursor is None else PaginatedRequestParams(cursor=cursor)
        )
        items.extend(page)
        if cursor is None:
            return items
        if cursor in seen:
            raise RuntimeError(f"server repeated the {what} cursor {cursor!r}")
        seen.add(cursor)
    raise RuntimeError(f"{what} did not finish within {max_pages} pages")


def image_type(head: bytes) -> str | None:
    """The image type the first bytes of a blob say (PNG, JPEG, GIF, WebP), else None:
    :func:`robota.core.media.image_media_type`, which the CLI's ``@path`` attachments use too.

    >>> image_type(b"\\x89PNG\\r\\n\\x1a\\n" + bytes(4)), image_type(b"<html>")
    ('image/png', None)
    """
    return image_media_type(head)


def _image(data: bytes | None, mime: str, *, name: str, label: str) -> Part:
    if data is None:
        return TextPart(text=f"[{label}: invalid base64, not attached]")
    if mime not in ATTACHABLE_IMAGE_TYPES:
        return TextPart(
            text=f"[{label}: {mime}, {len(data)} bytes, not attached "
            "(only text and PNG, JPEG, GIF or WebP images are)]"
        )
    if len(data) > MAX_MEDIA_BYTES:
        return TextPart(
            text=f"[{label}: {mime}, {len(data)} bytes, not attached "
            f"(over {MAX_MEDIA_BYTES} bytes)]"
        )
    if image_type(data[:12]) != mime:
        return TextPart(
            text=f"[{label}: {mime}, {len(data)} bytes, not attached "
            f"(its bytes are not a {mime.removeprefix('image/').upper()} image)]"
        )
    return MediaPart(media_kind="image", media_type=mime, data=data, name=name)


def _contents(contents: TextResourceContents | BlobResourceContents) -> Part:
    uri = str(contents.uri)
    if isinstance(contents, TextResourceContents):
        return TextPart(text=f"[resource {uri}]\n{contents.text}")
    mime = contents.mime_type or "application/octet-stream"
    return _image(decode_base64(contents.blob), mime, name=uri, label=f"resource {uri}")


def render_resource(result: ReadResourceResult, *, max_chars: int = MAX_RESULT_CHARS) -> list[Part]:
    """The parts of one ``resources/read`` result (see the module docstring).

    Args:
        result: The SDK's parsed result (one or more contents).
        max_chars: Characters of text kept over all text parts (> 0).

    Returns:
        One part per content, then the omission note when text was cut.
    """
    parts = [_contents(contents) for contents in result.contents]
    return bound_parts(parts, max_chars, what="MCP resource")


def _block(
    block: TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource,
) -> Part:
    if isinstance(block, TextContent):
        return TextPart(text=block.text)
    if isinstance(block, ImageContent):
        return _image(decode_base64(block.data), block.mime_type, name="image", label="image")
    if isinstance(block, AudioContent):
        return TextPart(text=f"[audio {block.mime_type}: not attached]")
    if isinstance(block, EmbeddedResource):
        return _contents(block.resource)
    description = f" - {block.description}" if block.description else ""
    return TextPart(text=f"[resource link {block.name}: {block.uri}]{description}")


def render_prompt(result: GetPromptResult, *, max_chars: int = MAX_RESULT_CHARS) -> list[Part]:
    """The parts of one ``prompts/get`` result (see the module docstring).

    Args:
        result: The SDK's parsed result (its messages in order).
        max_chars: Characters of text kept over all text parts (> 0).

    Returns:
        One part per message (a label part before a labelled non-text message), then the
        omission note when text was cut.
    """
    mixed = len({message.role for message in result.messages}) > 1
    parts: list[Part] = []
    for message in result.messages:
        part = _block(message.content)
        labelled = mixed or message.role != "user"  # never pass another role off as the user's
        if labelled and isinstance(part, TextPart):
            part = TextPart(text=f"[{message.role}] {part.text}")
        elif labelled:
            parts.append(TextPart(text=f"[{message.role}]"))
        parts.append(part)
    return bound_parts(parts, max_chars, what="MCP prompt")
