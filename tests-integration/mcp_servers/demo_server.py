"""A real MCP server for the integration tests, written with the official ``mcp`` SDK
(``MCPServer``, formerly FastMCP). Its ``tools/list`` pages two tools at a time.

Usage: ``python demo_server.py stdio`` or ``python demo_server.py http <port>``.
"""

from __future__ import annotations

import base64
import os
import sys
import time
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Image, MCPServer
from mcp.types import ListToolsResult, PaginatedRequestParams

# A 1x1 transparent PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
PAGE_SIZE = 2


class PagingServer(MCPServer):
    """Lists its tools ``PAGE_SIZE`` at a time, cursor = index of the next tool."""

    async def _handle_list_tools(
        self, ctx: Any, params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        tools = await self.list_tools()
        start = int(params.cursor) if params is not None and params.cursor else 0
        end = start + PAGE_SIZE
        return ListToolsResult(
            tools=tools[start:end], next_cursor=str(end) if end < len(tools) else None
        )


server = PagingServer("demo")


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def pixel() -> Image:
    """Return a 1x1 PNG image."""
    return Image(data=PNG, format="png")


@server.tool()
def fail(reason: str) -> str:
    """Always raise with the given reason."""
    raise ValueError(f"failed on purpose: {reason}")


@server.tool()
def pid() -> int:
    """Return the server's process id."""
    return os.getpid()


@server.tool()
def slow(marker: str) -> str:
    """Write ``marker`` (a file path), then sleep for a minute."""
    Path(marker).write_text("started")
    time.sleep(60)
    return "done"


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
