"""MCP resources and prompts rendered as message parts (issue #18): which blobs are attached as
images and which are only described, prompt messages and their roles, the text bound, and the
paged listing's cursor guard. Against a real server: tests-integration/
test_mcp_resources_prompts.py."""

from __future__ import annotations

import base64

import pytest
from mcp.types import (
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    GetPromptResult,
    ImageContent,
    PaginatedRequestParams,
    PromptMessage,
    ReadResourceResult,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from robota.core.messages import MediaPart, TextPart
from robota.tools.mcp import MAX_MEDIA_BYTES, render_prompt, render_resource
from robota.tools.mcp._context import list_pages

PNG = b"\x89PNG\r\n\x1a\nrest"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _blob(uri: str, data: bytes, mime: str) -> BlobResourceContents:
    return BlobResourceContents(uri=uri, blob=_b64(data), mime_type=mime)


def test_text_is_headed_by_its_uri_and_images_are_attached() -> None:
    result = ReadResourceResult(
        contents=[
            TextResourceContents(uri="notes://a", text="alpha", mime_type="text/plain"),
            _blob("img://p", PNG, "image/png"),
        ]
    )
    assert render_resource(result) == [
        TextPart(text="[resource notes://a]\nalpha"),
        MediaPart(media_kind="image", media_type="image/png", data=PNG, name="img://p"),
    ]


def test_other_blobs_and_oversized_images_are_described_not_attached() -> None:
    big = b"\x89PNG" + bytes(MAX_MEDIA_BYTES)
    result = ReadResourceResult(
        contents=[
            _blob("svg://x", b"<svg/>", "image/svg+xml"),
            _blob("pdf://x", b"%PDF-1.7", "application/pdf"),
            _blob("big://x", big, "image/png"),
            BlobResourceContents(uri="bad://x", blob="!!not base64!!", mime_type="image/png"),
        ]
    )
    assert render_resource(result) == [
        TextPart(
            text="[resource svg://x: image/svg+xml, 6 bytes, not attached "
            "(only text and PNG, JPEG, GIF or WebP images are)]"
        ),
        TextPart(
            text="[resource pdf://x: application/pdf, 8 bytes, not attached "
            "(only text and PNG, JPEG, GIF or WebP images are)]"
        ),
        TextPart(
            text=f"[resource big://x: image/png, {len(big)} bytes, not attached "
            f"(over {MAX_MEDIA_BYTES} bytes)]"
        ),
        TextPart(text="[resource bad://x: invalid base64, not attached]"),
    ]


def test_text_over_the_bound_is_cut_and_counted() -> None:
    result = ReadResourceResult(
        contents=[
            TextResourceContents(uri="a://1", text="x" * 40),
            _blob("img://p", PNG, "image/png"),
            TextResourceContents(uri="a://2", text="y" * 40),
        ]
    )
    parts = render_resource(result, max_chars=50)
    first, image, note = parts  # 2 x 57 characters of text: the second text is dropped
    assert first == TextPart(text="[resource a://1]\n" + "x" * 33)
    assert isinstance(image, MediaPart)
    assert note == TextPart(text="[64 characters omitted: the MCP resource was over 50 characters]")


def test_prompt_messages_become_parts_labelled_when_roles_mix() -> None:
    user_only = GetPromptResult(
        messages=[
            PromptMessage(role="user", content=TextContent(text="look:")),
            PromptMessage(role="user", content=ImageContent(data=_b64(PNG), mime_type="image/png")),
            PromptMessage(
                role="user", content=AudioContent(data=_b64(b"RIFF"), mime_type="audio/wav")
            ),
            PromptMessage(
                role="user",
                content=EmbeddedResource(
                    resource=TextResourceContents(uri="notes://n", text="embedded")
                ),
            ),
            PromptMessage(
                role="user",
                content=ResourceLink(name="spec", uri="file:///spec.md", description="the spec"),
            ),
        ]
    )
    assert render_prompt(user_only) == [
        TextPart(text="look:"),
        MediaPart(media_kind="image", media_type="image/png", data=PNG, name="image"),
        TextPart(text="[audio audio/wav: not attached]"),
        TextPart(text="[resource notes://n]\nembedded"),
        TextPart(text="[resource link spec: file:///spec.md] - the spec"),
    ]
    mixed = GetPromptResult(
        messages=[
            PromptMessage(role="user", content=TextContent(text="hi")),
            PromptMessage(
                role="assistant", content=ImageContent(data=_b64(PNG), mime_type="image/png")
            ),
        ]
    )
    assert render_prompt(mixed) == [
        TextPart(text="[user] hi"),
        TextPart(text="[assistant]"),
        MediaPart(media_kind="image", media_type="image/png", data=PNG, name="image"),
    ]


@pytest.mark.anyio
async def test_listing_follows_cursors_and_refuses_a_loop() -> None:
    pages = {None: (["a", "b"], "1"), "1": (["c"], None)}
    asked: list[str | None] = []

    async def fetch(params: PaginatedRequestParams | None) -> tuple[list[str], str | None]:
        cursor = None if params is None else params.cursor
        asked.append(cursor)
        return pages[cursor]

    assert await list_pages(fetch, what="resources/list", max_pages=10) == ["a", "b", "c"]
    assert asked == [None, "1"]

    async def loop(params: PaginatedRequestParams | None) -> tuple[list[str], str | None]:
        return ["x"], "same"

    with pytest.raises(RuntimeError, match="repeated the prompts/list cursor 'same'"):
        await list_pages(loop, what="prompts/list", max_pages=10)

    async def endless(params: PaginatedRequestParams | None) -> tuple[list[str], str | None]:
        n = 0 if params is None or params.cursor is None else int(params.cursor)
        return ["x"], str(n + 1)

    with pytest.raises(RuntimeError, match="did not finish within 3 pages"):
        await list_pages(endless, what="resources/list", max_pages=3)
