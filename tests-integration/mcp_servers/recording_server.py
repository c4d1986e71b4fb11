"""A real stdio MCP server (official ``mcp`` SDK) that records what happens to it, so a test can
check effects: ``start <pid>`` is appended to the file named by ``$RECORD_FILE`` when the process
starts, and ``call <text>`` for every ``record`` call.

Tools: ``record(text)``, ``secret()`` (the value of ``$SECRET``), ``where()`` (the working
directory) and ``pid()``.

Usage: ``RECORD_FILE=/tmp/x python recording_server.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

from mcp.server.mcpserver import MCPServer

RECORD = Path(os.environ["RECORD_FILE"])
server = MCPServer("recording")


def _append(line: str) -> None:
    with RECORD.open("a", encoding="utf-8") as file:
        file.write(line + "\n")


@server.tool()
def record(text: str) -> str:
    """Append ``text`` to the record file."""
    _append(f"call {text}")
    return f"recorded {text}"


@server.tool()
def secret() -> str:
    """Return the SECRET environment variable (empty when unset)."""
    return os.environ.get("SECRET", "")


@server.tool()
def where() -> str:
    """Return the working directory."""
    return os.getcwd()


@server.tool()
def pid() -> int:
    """Return the server's process id."""
    return os.getpid()


if __name__ == "__main__":
    _append(f"start {os.getpid()}")
    server.run("stdio")
