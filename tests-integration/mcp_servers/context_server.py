"""A real stdio MCP server (official ``mcp`` SDK) offering resources and prompts, for the tests
of MCP resources and prompts as attachable context (issue #18). ``resources/list`` and
``prompts/list`` page two items at a time.

Resources: ``notes://readme`` (markdown text), ``image://pixel`` (a 1x1 PNG blob),
``data://archive`` (an ``application/zip`` blob) and ``notes://big`` (``$BIG_CHARS`` characters
of text, default 150 000). Prompts: ``review(code, language="python")`` (one user message),
``hello()`` (no arguments), ``debate(topic)`` (a user then an assistant message) and
``picture()`` (a user message with the PNG).

Usage: ``python context_server.py``.
"""

from __future__ import annotations

import base64
import os
from typing import Any

from mcp.server.mcpserver import AssistantMessage, Image, MCPServer, UserMessage
from mcp.types import ListPromptsResult, ListResourcesResult, PaginatedRequestParams

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
PAGE_SIZE = 2


def _page(params: PaginatedRequestParams | None, total: int) -> tuple[int, int, str | None]:
    start = int(params.cursor) if params is not None and params.cursor else 0
    end = start + PAGE_SIZE
    return start, end, str(end) if end < total else None


class PagingServer(MCPServer):
    """Lists resources and prompts ``PAGE_SIZE`` at a time (cursor = index of the next one)."""

    async def _handle_list_resources(
        self, ctx: Any, params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        resources = await self.list_resources()
        start, end, cursor = _page(params, len(resources))
        return ListResourcesResult(resources=resources[start:end], next_cursor=cursor)

    async def _handle_list_prompts(
        self, ctx: Any, params: PaginatedRequestParams | None
    ) -> ListPromptsResult:
        prompts = await self.list_prompts()
        start, end, cursor = _page(params, len(prompts))
        return ListPromptsResult(prompts=prompts[start:end], next_cursor=cursor)


server = PagingServer("context")


@server.resource("notes://readme", name="readme", mime_type="text/markdown")
def readme() -> str:
    """The project notes."""
    return "# Notes\nThe launch code word is MARMALADE."


@server.resource("image://pixel", name="pixel", mime_type="image/png")
def pixel() -> bytes:
    """A 1x1 transparent PNG."""
    return PNG


@server.resource("data://archive", name="archive", mime_type="application/zip")
def archive() -> bytes:
    """Some bytes that are not an image."""
    return b"PK\x03\x04" + bytes(60)


@server.resource("notes://big", name="big", mime_type="text/plain")
def big() -> str:
    """A long text."""
    return "y" * int(os.environ.get("BIG_CHARS", "150000"))


@server.prompt()
def review(code: str, language: str = "python") -> str:
    """Ask for a code review."""
    return f"Please review this {language} code:\n{code}"


@server.prompt()
def hello() -> str:
    """Say hello."""
    return "Say hello in the voice of a pirate."


@server.prompt()
def debate(topic: str) -> list[UserMessage | AssistantMessage]:
    """Open a debate."""
    return [
        UserMessage(f"Argue for {topic}."),
        AssistantMessage(f"I will argue for {topic}."),
    ]


@server.prompt()
def picture() -> list[UserMessage]:
    """Describe a picture."""
    return [UserMessage("Describe this picture:"), UserMessage(Image(data=PNG, format="png"))]


if __name__ == "__main__":
    server.run("stdio")
