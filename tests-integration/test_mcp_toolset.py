"""MCP toolsets against real MCP server processes (stdio and streamable HTTP) written with the
official ``mcp`` SDK (tests-integration/mcp_servers/demo_server.py)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from robota.core.events import Event
from robota.core.messages import MediaPart, TextPart
from robota.core.tools.base import RiskClass, Tool, ToolContext, ToolReturn
from robota.tools.mcp import (
    HttpServerConfig,
    McpServerConnected,
    McpServerFailed,
    McpToolset,
    StdioServerConfig,
)

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

SERVER = Path(__file__).resolve().parent / "mcp_servers" / "demo_server.py"
DEMO_TOOLS = ["echo", "add", "pixel", "fail", "pid", "slow"]


def _stdio(name: str = "demo", **kwargs: Any) -> StdioServerConfig:
    return StdioServerConfig(
        name=name, command=sys.executable, args=(str(SERVER), "stdio"), **kwargs
    )


def _ctx(name: str = "t") -> ToolContext[None]:
    return ToolContext(run_id="r", call_id="c", tool_call_id="t", tool_name=name, deps=None)


def _by_name(tools: list[Tool]) -> dict[str, Tool]:
    return {t.name: t for t in tools}


async def _call(tool: Tool, arguments: dict[str, Any]) -> ToolReturn:
    result = await tool.call(arguments, _ctx(tool.name))
    assert isinstance(result, ToolReturn)
    return result


def _texts(result: ToolReturn) -> list[str]:
    return [p.text for p in result.content if isinstance(p, TextPart)]


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # Still in the table: only acceptable if it is an unreaped zombie of someone else.
    status = Path(f"/proc/{pid}/status")
    return status.exists() and "State:\tZ" in status.read_text()


class _Events:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)


@pytest.fixture
def http_server() -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, str(SERVER), "http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the MCP HTTP server did not start") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


async def test_stdio_lists_all_pages_with_schemas_and_calls_tools() -> None:
    sink = _Events()
    async with McpToolset([_stdio(tool_risk={"echo": RiskClass.INSPECT})], sinks=[sink]) as ts:
        assert ts.servers == {"demo": "idle"}
        tools = _by_name(await ts.tools())
        assert list(tools) == [f"mcp__demo__{n}" for n in DEMO_TOOLS]
        add = tools["mcp__demo__add"]
        assert add.parameters["required"] == ["a", "b"]
        assert add.parameters["properties"]["a"]["type"] == "integer"
        assert add.risk is None
        assert tools["mcp__demo__echo"].risk is RiskClass.INSPECT

        echo = await _call(tools["mcp__demo__echo"], {"text": "hello"})
        assert not echo.is_error
        assert _texts(echo)[0] == "hello"

        pixel = await _call(tools["mcp__demo__pixel"], {})
        media = [p for p in pixel.content if isinstance(p, MediaPart)]
        assert [(m.media_kind, m.media_type) for m in media] == [("image", "image/png")]
        assert media[0].data is not None
        assert media[0].data.startswith(b"\x89PNG\r\n\x1a\n")

        failed = await _call(tools["mcp__demo__fail"], {"reason": "because"})
        assert failed.is_error
        assert _texts(failed) == ["Error executing tool fail"]
    assert ts.servers == {"demo": "closed"}
    connected = [e for e in sink.events if isinstance(e, McpServerConnected)]
    assert [(e.type, e.server, len(e.tool_names)) for e in connected] == [
        ("mcp.server_connected", "demo", 6)
    ]


async def test_enabled_and_disabled_filters() -> None:
    config = _stdio(enabled_tools=("echo", "add", "fail"), disabled_tools=("fail",))
    async with McpToolset([config]) as ts:
        assert [t.name for t in await ts.tools()] == ["mcp__demo__echo", "mcp__demo__add"]


async def test_streamable_http_server(http_server: str) -> None:
    config = HttpServerConfig(name="web", url=http_server, headers={"X-Test": "1"})
    async with McpToolset([config]) as ts:
        tools = _by_name(await ts.tools())
        assert list(tools) == [f"mcp__web__{n}" for n in DEMO_TOOLS]
        result = await _call(tools["mcp__web__add"], {"a": 2, "b": 40})
        assert _texts(result)[0] == "42"


async def test_two_servers_at_once_and_a_missing_command(http_server: str) -> None:
    sink = _Events()
    servers = [
        _stdio("one"),
        StdioServerConfig(name="ghost", command="robota-no-such-mcp-server-binary"),
        HttpServerConfig(name="two", url=http_server),
    ]
    async with McpToolset(servers, sinks=[sink]) as ts:
        await ts.warmup()
        await ts.warmup()  # idempotent
        tools = _by_name(await ts.tools())
        assert ts.servers == {"one": "ready", "ghost": "failed", "two": "ready"}
        assert [f.server for f in ts.failures] == ["ghost"]
        assert ts.failures[0].error.startswith(("FileNotFoundError", "OSError"))
        failed = [e for e in sink.events if isinstance(e, McpServerFailed)]
        assert [e.server for e in failed] == ["ghost"]
        results: dict[str, ToolReturn] = {}
        async with anyio.create_task_group() as group:

            async def run(name: str) -> None:
                results[name] = await _call(tools[name], {"text": name})

            group.start_soon(run, "mcp__one__echo")
            group.start_soon(run, "mcp__two__echo")
        assert {n: _texts(r)[0] for n, r in results.items()} == {
            "mcp__one__echo": "mcp__one__echo",
            "mcp__two__echo": "mcp__two__echo",
        }


async def test_toolset_must_be_entered_and_connects_nothing_before_first_use() -> None:
    toolset = McpToolset([_stdio()])
    with pytest.raises(RuntimeError, match="enter the McpToolset first"):
        await toolset.tools()
    async with toolset:
        assert toolset.servers == {"demo": "idle"}
    assert toolset.servers == {"demo": "closed"}


async def test_killed_server_mid_call_is_an_error_result(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    async with McpToolset([_stdio(call_timeout=30)]) as ts:
        tools = _by_name(await ts.tools())
        pid = int(_texts(await _call(tools["mcp__demo__pid"], {}))[0])
        results: list[ToolReturn] = []

        async def slow() -> None:
            results.append(await _call(tools["mcp__demo__slow"], {"marker": str(marker)}))

        async with anyio.create_task_group() as group:
            group.start_soon(slow)
            while not marker.exists():  # noqa: ASYNC110 (the marker is written by another process)
                await anyio.sleep(0.05)
            os.kill(pid, signal.SIGKILL)
        [result] = results
        assert result.is_error
        assert result.metadata == {"mcp_error": "connection_closed"}
        assert _texts(result) == ["MCP server 'demo' closed the connection during mcp__demo__slow"]
        again = await _call(tools["mcp__demo__echo"], {"text": "x"})
        assert again.is_error
        assert again.metadata == {"mcp_error": "not_connected"}


async def test_shutdown_leaves_no_child_process() -> None:
    async with McpToolset([_stdio("a"), _stdio("b")]) as ts:
        tools = _by_name(await ts.tools())
        pids = [int(_texts(await _call(tools[f"mcp__{s}__pid"], {}))[0]) for s in ("a", "b")]
        assert all(not _gone(pid) for pid in pids)
    assert all(_gone(pid) for pid in pids)
    assert ts.servers == {"a": "closed", "b": "closed"}
