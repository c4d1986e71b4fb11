"""A real MCP server over streamable HTTP (official ``mcp`` SDK) that answers 401 Unauthorized
unless the request carries ``Authorization: Bearer <token>``, like a server that needs a login.

Tool: ``hello()``.

Usage: ``python bearer_server.py PORT TOKEN``.
"""

from __future__ import annotations

import sys
from typing import Any

import uvicorn
from mcp.server.mcpserver import MCPServer

server = MCPServer("bearer")


@server.tool()
def hello() -> str:
    """Say hello."""
    return "hello"


def guarded(app: Any, token: str) -> Any:
    """``app`` behind a bearer-token check (401 with a ``WWW-Authenticate`` header)."""
    wanted = f"Bearer {token}".encode()

    async def asgi(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != wanted:
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"www-authenticate", b'Bearer realm="test"'),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": b'{"error": "unauthorized"}'})
            return
        await app(scope, receive, send)

    return asgi


if __name__ == "__main__":
    port, token = int(sys.argv[1]), sys.argv[2]
    uvicorn.run(
        guarded(server.streamable_http_app(), token),
        host="127.0.0.1",
        port=port,
        log_level="error",
        lifespan="on",
    )
