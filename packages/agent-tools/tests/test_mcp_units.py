"""MCP toolset units: result rendering, list pagination, tool names, configuration."""

from __future__ import annotations

import base64
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp.types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ListToolsResult,
    PaginatedRequestParams,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from mcp.types import Tool as McpToolInfo
from pydantic import ValidationError
from robota.core.messages import MediaPart, TextPart
from robota.tools.mcp import namespaced_name, parse_server_configs, render_result
from robota.tools.mcp._connection import list_all_tools

PNG = b"\x89PNG\r\n\x1a\nrest"


def test_text_image_audio_and_error_flag() -> None:
    result = render_result(
        CallToolResult(
            content=[
                TextContent(text="hi"),
                ImageContent(data=base64.b64encode(PNG).decode(), mime_type="image/png"),
                AudioContent(data=base64.b64encode(b"RIFF").decode(), mime_type="audio/wav"),
            ],
            is_error=True,
        )
    )
    assert result.is_error
    assert result.content == (
        TextPart(text="hi"),
        MediaPart(media_kind="image", media_type="image/png", data=PNG),
        MediaPart(media_kind="audio", media_type="audio/wav", data=b"RIFF"),
    )


def test_embedded_resources_and_links() -> None:
    result = render_result(
        CallToolResult(
            content=[
                EmbeddedResource(resource=TextResourceContents(uri="file:///a.txt", text="body")),
                EmbeddedResource(
                    resource=BlobResourceContents(
                        uri="file:///b.pdf",
                        mime_type="application/pdf",
                        blob=base64.b64encode(b"%PDF").decode(),
                    )
                ),
                ResourceLink(name="c", uri="file:///c.md", description="notes"),
            ]
        )
    )
    assert result.content == (
        TextPart(text="[resource file:///a.txt]\nbody"),
        MediaPart(
            media_kind="document", media_type="application/pdf", data=b"%PDF", name="file:///b.pdf"
        ),
        TextPart(text="[resource link c: file:///c.md] - notes"),
    )


def test_structured_content_added_only_without_text_content() -> None:
    only = render_result(CallToolResult(content=[], structured_content={"n": 1}))
    assert only.content == (TextPart(text='{"n": 1}'),)
    mirrored = render_result(
        CallToolResult(content=[TextContent(text='{"n":1}')], structured_content={"n": 1})
    )
    assert mirrored.content == (TextPart(text='{"n":1}'),)
    # FastMCP's int result: the text says the value, the structure wraps it ({"result": 5})
    wrapped = render_result(
        CallToolResult(content=[TextContent(text="5")], structured_content={"result": 5})
    )
    assert wrapped.content == (TextPart(text="5"),)


def test_invalid_base64_becomes_a_note() -> None:
    result = render_result(
        CallToolResult(content=[ImageContent(data="***", mime_type="image/png")])
    )
    assert result.content == (TextPart(text="[image with invalid base64 data omitted]"),)


class _PagedSession:
    def __init__(self, pages: dict[str | None, tuple[list[str], str | None]]) -> None:
        self.pages = pages
        self.cursors: list[str | None] = []

    async def list_tools(self, *, params: PaginatedRequestParams | None = None) -> ListToolsResult:
        cursor = None if params is None else params.cursor
        self.cursors.append(cursor)
        names, next_cursor = self.pages[cursor]
        tools = [McpToolInfo(name=n, input_schema={"type": "object"}) for n in names]
        return ListToolsResult(tools=tools, next_cursor=next_cursor)


@pytest.mark.anyio
async def test_list_follows_next_cursor() -> None:
    session = _PagedSession({None: (["a", "b"], "p2"), "p2": (["c"], "p3"), "p3": (["d"], None)})
    tools = await list_all_tools(session)
    assert [t.name for t in tools] == ["a", "b", "c", "d"]
    assert session.cursors == [None, "p2", "p3"]


@pytest.mark.anyio
async def test_list_refuses_a_cursor_loop() -> None:
    session = _PagedSession({None: (["a"], "x"), "x": (["b"], "x")})
    with pytest.raises(RuntimeError, match="repeated the tools/list cursor 'x'"):
        await list_all_tools(session)


@given(st.from_regex(r"[a-z0-9-]{1,20}", fullmatch=True), st.text(min_size=1, max_size=120))
def test_namespaced_names_are_always_provider_safe(server: str, tool: str) -> None:
    name = namespaced_name(server, tool)
    assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", name)
    assert name.startswith(f"mcp__{server}__"[:64])


def test_namespaced_name_keeps_safe_names() -> None:
    assert namespaced_name("github", "create_issue") == "mcp__github__create_issue"


def test_config_parsing_and_filters() -> None:
    stdio, http = parse_server_configs(
        [
            {"name": "fs", "command": "srv", "enabled_tools": ["read", "write"]},
            {"name": "web", "transport": "http", "url": "http://127.0.0.1:1/mcp",
             "disabled_tools": ["delete"], "tool_risk": {"get": "inspect"}},
        ]
    )  # fmt: skip
    assert stdio.transport == "stdio"
    assert (stdio.offers("read"), stdio.offers("delete")) == (True, False)
    assert http.transport == "http"
    assert (http.offers("get"), http.offers("delete")) == (True, False)
    assert http.tool_risk["get"].value == "inspect"


@pytest.mark.parametrize("name", ["a__b", "has space", "", "dot.name"])
def test_bad_server_names_are_refused(name: str) -> None:
    with pytest.raises(ValidationError, match="server name"):
        parse_server_configs([{"name": name, "command": "x"}])


def test_unknown_keys_are_refused() -> None:
    data: list[dict[str, Any]] = [{"name": "a", "command": "x", "comand": "typo"}]
    with pytest.raises(ValidationError):
        parse_server_configs(data)


def test_docstring_examples_run() -> None:
    import doctest

    import robota.tools.mcp.config as config_module
    import robota.tools.mcp.tool as tool_module

    for module in (config_module, tool_module):
        result = doctest.testmod(module)
        assert result.attempted > 0
        assert result.failed == 0
