"""Red-team helper process: call the file tools on device nodes, isolated from the test runner.

Usage: ``python device_probe.py ROOT MEMORY_LIMIT_BYTES`` with a JSON list of
``[tool_name, arguments]`` on stdin. A tool that reads ``/dev/zero`` to its end would exhaust
the runner's memory; here the address space is capped (``RLIMIT_AS``) and every call gets
``anyio.fail_after(5)``. One JSON line per call goes to stdout as it finishes:
``{"index", "outcome": "result"|"timeout"|"raised", "is_error", "text", "seconds"}``.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from typing import Any

import anyio
from robota.core.messages import MediaPart, TextPart
from robota.core.tools.base import Tool, ToolContext, ToolReturn
from robota.tools import (
    EditFileTool,
    GlobTool,
    GrepTool,
    ListDirTool,
    ReadFileTool,
    Workspace,
    WriteFileTool,
)


def _tools(root: str) -> dict[str, Tool]:
    workspace = Workspace.at(root)
    tools: list[Tool] = [
        ReadFileTool(workspace),
        WriteFileTool(workspace),
        EditFileTool(workspace),
        ListDirTool(workspace),
        GlobTool(workspace),
        GrepTool(workspace),
    ]
    return {tool.name: tool for tool in tools}


def _text(output: str | ToolReturn) -> tuple[bool, str]:
    if isinstance(output, str):
        return False, output
    parts: list[str] = []
    for part in output.content:
        if isinstance(part, TextPart):
            parts.append(part.text)
        elif isinstance(part, MediaPart) and part.data is not None:
            parts.append(part.data.decode("latin-1"))
    return output.is_error, "\n".join(parts)


async def _main(root: str, attempts: list[tuple[str, dict[str, Any]]]) -> None:
    tools = _tools(root)
    for index, (name, arguments) in enumerate(attempts):
        ctx: ToolContext[Any] = ToolContext(
            run_id="probe", call_id=f"c{index}", tool_call_id=f"t{index}", tool_name=name, deps=None
        )
        started = time.monotonic()
        line: dict[str, Any] = {"index": index}
        try:
            with anyio.fail_after(5):
                output = await tools[name].call(arguments, ctx)
        except TimeoutError:
            line |= {"outcome": "timeout"}
        except Exception as error:
            line |= {"outcome": "raised", "text": f"{type(error).__name__}: {error}"[:4000]}
        else:
            is_error, text = _text(output)
            line |= {"outcome": "result", "is_error": is_error, "text": text[:20000]}
        line["seconds"] = round(time.monotonic() - started, 3)
        sys.stdout.write(json.dumps(line) + "\n")
        sys.stdout.flush()


def main() -> int:
    root, limit = sys.argv[1], int(sys.argv[2])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    attempts = [(str(name), dict(arguments)) for name, arguments in json.load(sys.stdin)]
    anyio.run(_main, root, attempts)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
