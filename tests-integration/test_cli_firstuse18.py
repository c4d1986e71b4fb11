"""What a new user's first ``robota chat`` showed (issue #18), through the real ``robota``
command: an MCP server nothing listens for is said in one readable line (at every start and
by ``robota mcp login``), and an MCP tool's card names its arguments while the model receives
its result once (a real stdio server written with FastMCP, whose int results come as both
text and ``structuredContent``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from replay_server import ReplayServer  # pyright: ignore[reportImplicitRelativeImport]
from test_cli_e2e import (  # pyright: ignore[reportImplicitRelativeImport]
    ROBOTA,
    Host,
    host_fixture,  # noqa: F401  # pyright: ignore[reportUnusedImport]
)
from test_cli_mcp import (  # pyright: ignore[reportImplicitRelativeImport]
    _provider,  # pyright: ignore[reportPrivateUsage]
    _tool_call,  # pyright: ignore[reportPrivateUsage]
)
from test_cli_newuser18 import (  # pyright: ignore[reportImplicitRelativeImport]
    _answer,  # pyright: ignore[reportPrivateUsage]
    _closed_port,  # pyright: ignore[reportPrivateUsage]
)

pytestmark = pytest.mark.integration

DEMO = Path(__file__).resolve().parent / "mcp_servers" / "demo_server.py"


def _robota(host: Host, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ROBOTA), *args],
        env=host.env,
        cwd=host.workspace,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _settings(host: Host) -> dict[str, Any]:
    return json.loads((host.home / "settings.json").read_text(encoding="utf-8"))


def test_a_server_nothing_listens_for_is_said_readably_at_start_and_by_login(
    host: Host,
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/mcp"
    assert _robota(host, "mcp", "add", "ghost", "--url", url).returncode == 0
    missing = str(host.workspace / "no-such-server")
    assert _robota(host, "mcp", "add", "gone", "--", missing, "--flag").returncode == 0
    with ReplayServer(interactions=[_answer("Hi.")]) as server:
        _provider(host, server.url + "/v1")
        run = _robota(host, "run", "--no-title", "hello")
    assert run.returncode == 0, run.stderr
    assert "Hi." in run.stdout
    said = sorted(line for line in run.stderr.splitlines() if "MCP server" in line)
    assert said == [
        f"robota: MCP server 'ghost' failed: cannot connect to {url}: connection refused; "
        "going on without it",
        f"robota: MCP server 'gone' failed: cannot start {missing} --flag: no such file or "
        "directory; going on without it",
    ]

    listed = _robota(host, "mcp", "list")
    assert listed.returncode == 0, listed.stderr
    rows = listed.stdout.splitlines()
    assert rows[1].split()[:4] == ["ghost", "user", "http", "failed"]
    assert rows[2] == f"    cannot connect to {url}: connection refused"
    assert rows[3].split()[:4] == ["gone", "user", "stdio", "failed"]
    assert rows[4] == f"    cannot start {missing} --flag: no such file or directory"

    login = _robota(host, "mcp", "login", "ghost", "--no-browser", "--timeout", "5")
    assert login.returncode == 3
    assert login.stderr.splitlines() == [
        f"robota: login to MCP server 'ghost' failed: cannot connect to {url}: connection refused"
    ]


def test_an_mcp_tool_card_names_its_arguments_and_the_model_gets_the_result_once(
    host: Host,
) -> None:
    added = _robota(host, "mcp", "add", "demo", "--", sys.executable, str(DEMO), "stdio")
    assert added.returncode == 0, added.stderr
    interactions = [_tool_call("mcp__demo__add", {"a": 2, "b": 3}), _answer("It is 5.")]
    with ReplayServer(interactions=interactions) as server:
        _provider(host, server.url + "/v1", permissions={"allow": ["mcp__demo__add"]})
        assert _settings(host)["mcp_servers"]["demo"]["args"] == [str(DEMO), "stdio"]
        run = _robota(host, "run", "--no-title", "add 2 and 3")
    assert run.returncode == 0, run.stderr
    assert "It is 5." in run.stdout
    [card] = [line for line in run.stderr.splitlines() if "⏺" in line]
    assert card.startswith("  ⏺ mcp__demo__add(a=2, b=3) ✓ "), card
    sent = server.received[1].json()["messages"][-1]
    assert sent["role"] == "tool"
    assert sent["content"] == "5"  # not "5" and then '{"result": 5}'
