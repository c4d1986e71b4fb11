"""A hand-written stdio MCP server (JSON-RPC lines, standard library only) that misbehaves on
purpose, for the outsider tests of issue #18.

It appends ``start <pid>`` to ``$RECORD_FILE`` when it starts and ``call <tool>`` for every
``tools/call``. Tools:

- ``huge``: a text result of ``$HUGE_CHARS`` characters (default 8,000,000);
- ``bogus``: a result whose content block has an unknown type (malformed for the client);
- ``notalist``: a result whose ``content`` is a string (malformed);
- ``dup.name`` and ``dup_name``: two tools whose namespaced names collide.

Usage: ``RECORD_FILE=/tmp/x python outsider18_raw_server.py``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

RECORD = Path(os.environ["RECORD_FILE"])
TOOLS = ["huge", "bogus", "notalist", "dup.name", "dup_name"]


def _append(line: str) -> None:
    with RECORD.open("a", encoding="utf-8") as file:
        file.write(line + "\n")


def _send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _result(name: str) -> dict[str, Any]:
    if name == "huge":
        size = int(os.environ.get("HUGE_CHARS", "8000000"))
        return {"content": [{"type": "text", "text": "x" * size}], "isError": False}
    if name == "bogus":
        return {"content": [{"type": "bogus", "payload": 1}], "isError": False}
    if name == "notalist":
        return {"content": "not a list", "isError": False}
    return {"content": [{"type": "text", "text": f"this is {name}"}], "isError": False}


def main() -> None:
    _append(f"start {os.getpid()}")
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        method = request.get("method")
        ident = request.get("id")
        if ident is None:  # a notification
            continue
        if method == "initialize":
            version = request.get("params", {}).get("protocolVersion", "2025-06-18")
            result: dict[str, Any] = {
                "protocolVersion": version,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "raw", "version": "1"},
            }
        elif method == "tools/list":
            result = {
                "tools": [
                    {"name": n, "description": n, "inputSchema": {"type": "object"}} for n in TOOLS
                ]
            }
        elif method == "tools/call":
            name = str(request.get("params", {}).get("name"))
            _append(f"call {name}")
            result = _result(name)
        else:
            result = {}
        _send({"jsonrpc": "2.0", "id": ident, "result": result})


if __name__ == "__main__":
    main()
