"""MCP servers through the real ``robota`` command (issue #18): ``robota mcp add|list|remove|
approve|deny`` edit and read the settings files, ``robota run`` calls a configured stdio
server's tool (the server records the call), a project's server waits for approval (asked at a
real terminal in ``robota chat``) and ``/mcp`` shows the status table."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from robota.core.testing.cassette import Interaction

sys.path.insert(0, str(Path(__file__).resolve().parent))
from replay_server import ReplayServer  # pyright: ignore[reportImplicitRelativeImport]
from test_cli_e2e import (  # pyright: ignore[reportImplicitRelativeImport]
    ROBOTA,
    Host,
    host_fixture,  # noqa: F401  # pyright: ignore[reportUnusedImport]
)
from test_cli_newuser18 import (  # pyright: ignore[reportImplicitRelativeImport]
    Terminal,
    _answer,  # pyright: ignore[reportPrivateUsage]
)

pytestmark = pytest.mark.integration

SERVER = Path(__file__).resolve().parent / "mcp_servers" / "recording_server.py"


def _robota(host: Host, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ROBOTA), *args],
        env=host.env,
        cwd=host.workspace,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _lines(record: Path) -> list[str]:
    return record.read_text().splitlines() if record.exists() else []


def _add_recording(host: Host, name: str, record: Path, *extra: str) -> None:
    added = _robota(
        host,
        "mcp",
        "add",
        name,
        *extra,
        "--env",
        f"RECORD_FILE={record}",
        "--",
        sys.executable,
        str(SERVER),
    )
    assert added.returncode == 0, added.stderr


def _tool_call(name: str, arguments: dict[str, Any]) -> Interaction:
    """A Chat Completions streamed answer calling one tool."""
    chunks = [
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_1",
                                "type": "function",
                                "function": {"name": name, "arguments": json.dumps(arguments)},
                            }
                        ],
                    },
                }
            ]
        },
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    body = "".join(
        "data: "
        + json.dumps({"id": "c1", "object": "chat.completion.chunk", "model": "m", **chunk})
        + "\n\n"
        for chunk in chunks
    )
    return Interaction(
        method="POST",
        uri="http://127.0.0.1/v1/chat/completions",
        request_body=None,
        status=200,
        headers={"content-type": "text/event-stream"},
        body=(body + "data: [DONE]\n\n").encode(),
    )


def _provider(host: Host, base_url: str, **extra: Any) -> None:
    """Point the user's settings at the replay server, keeping what ``mcp add`` wrote."""
    path = host.home / "settings.json"
    settings = _json(path) if path.exists() else {}
    profile = {"type": "openai-chat", "base_url": base_url, "api_key": "t", "model": "m"}
    settings.update(providers={"rec": profile}, provider="rec", **extra)
    path.write_text(json.dumps(settings), encoding="utf-8")


def test_add_list_remove_edit_the_user_settings_owner_only(host: Host, tmp_path: Path) -> None:
    record = tmp_path / "record.txt"
    (host.home / "settings.json").write_text(json.dumps({"model": "kept"}), encoding="utf-8")
    _add_recording(host, "rec", record)
    web = _robota(
        host, "mcp", "add", "web", "--url", "http://127.0.0.1:9/mcp", "--header", "X-Key=${KEY}"
    )
    assert web.returncode == 0, web.stderr
    settings_file = host.home / "settings.json"
    assert _mode(settings_file) == 0o600
    assert _json(settings_file) == {
        "model": "kept",
        "mcp_servers": {
            "rec": {
                "type": "stdio",
                "command": sys.executable,
                "args": [str(SERVER)],
                "env": {"RECORD_FILE": str(record)},
            },
            "web": {
                "type": "http",
                "url": "http://127.0.0.1:9/mcp",
                "headers": {"X-Key": "${KEY}"},
            },
        },
    }

    listed = _robota(host, "mcp", "list")
    assert listed.returncode == 0, listed.stderr
    rows = {line.split()[0]: line.split() for line in listed.stdout.splitlines()}
    assert rows["rec"][1:5] == ["user", "stdio", "connected", "4"]
    assert rows["web"][1:4] == ["user", "http", "failed"]
    assert "the environment variable KEY is not set" in listed.stdout
    assert _lines(record)[0].startswith("start")  # list really started it
    assert not any(line.startswith("start") for line in _lines(record)[1:])

    again = _robota(host, "mcp", "add", "rec", "--", "other")
    assert again.returncode == 3
    assert "already defines MCP server 'rec'" in again.stderr
    assert _robota(host, "mcp", "add", "a__b", "--", "x").returncode == 2
    assert _robota(host, "mcp", "add", "x", "--url", "http://h/mcp", "--", "y").returncode == 2

    removed = _robota(host, "mcp", "remove", "web")
    assert removed.returncode == 0, removed.stderr
    assert list(_json(settings_file)["mcp_servers"]) == ["rec"]
    missing = _robota(host, "mcp", "remove", "web")
    assert missing.returncode == 3
    assert "no MCP server 'web'" in missing.stderr


def test_run_calls_the_configured_server_tool(host: Host, tmp_path: Path) -> None:
    record = tmp_path / "record.txt"
    _add_recording(host, "rec", record)
    interactions = [_tool_call("mcp__rec__record", {"text": "from the model"}), _answer("Done.")]
    with ReplayServer(interactions=interactions) as server:
        _provider(host, server.url + "/v1", permissions={"allow": ["mcp__rec__record"]})
        run = _robota(host, "run", "--no-title", "record it")
    assert run.returncode == 0, run.stderr
    assert "Done." in run.stdout
    assert _lines(record)[1:] == ["call from the model"]
    offered = [t["function"]["name"] for t in server.received[0].json()["tools"]]
    assert {"mcp__rec__record", "mcp__rec__secret", "mcp__rec__where", "mcp__rec__pid"} <= set(
        offered
    )
    result = server.received[1].json()["messages"][-1]
    assert result["role"] == "tool"
    assert result["content"].startswith("recorded from the model")


def test_a_project_server_is_not_started_until_approved(host: Host, tmp_path: Path) -> None:
    record = tmp_path / "record.txt"
    project = host.workspace / ".robota" / "settings.json"
    project.parent.mkdir()
    entry = {"command": sys.executable, "args": [str(SERVER)], "env": {"RECORD_FILE": str(record)}}
    project.write_text(json.dumps({"mcp_servers": {"proj": entry}}), encoding="utf-8")
    with ReplayServer(interactions=[_answer("Hi.")]) as server:
        _provider(host, server.url + "/v1")
        run = _robota(host, "run", "--no-title", "--trust", "hi")
    assert run.returncode == 0, run.stderr
    assert "MCP server 'proj' (project) is awaiting-approval" in run.stderr
    assert "robota mcp approve proj" in run.stderr
    assert not record.exists()  # never started
    assert not any(
        t["function"]["name"].startswith("mcp__")
        for t in server.received[0].json().get("tools", [])
    )

    untrusted = _robota(host, "mcp", "list")
    assert "proj" not in untrusted.stdout.split()
    assert "is not trusted" in untrusted.stdout
    waiting = _robota(host, "mcp", "list", "--trust")
    assert "awaiting-approval" in waiting.stdout
    assert not record.exists()

    assert _robota(host, "mcp", "approve", "proj", "--yes").returncode == 0
    assert _mode(host.home / "mcp-approvals.json") == 0o600
    approved = _robota(host, "mcp", "list", "--trust")
    assert "connected" in approved.stdout.split()
    assert len(_lines(record)) == 1

    assert _robota(host, "mcp", "deny", "proj").returncode == 0
    denied = _robota(host, "mcp", "list", "--trust")
    assert "denied" in denied.stdout.split()
    assert len(_lines(record)) == 1  # not started again

    entry["args"] = [str(SERVER), "--changed"]
    project.write_text(json.dumps({"mcp_servers": {"proj": entry}}), encoding="utf-8")
    changed = _robota(host, "mcp", "list", "--trust")
    assert "awaiting-approval" in changed.stdout.split()  # a new definition asks again


def test_add_to_a_project_writes_its_file_and_approves_it(host: Host, tmp_path: Path) -> None:
    record = tmp_path / "record.txt"
    _add_recording(host, "proj", record, "--scope", "project")
    project = host.workspace / ".robota" / "settings.json"
    assert _mode(project) == 0o644
    assert list(_json(project)["mcp_servers"]) == ["proj"]
    assert not (host.home / "settings.json").exists()
    listed = _robota(host, "mcp", "list", "--trust")
    assert listed.stdout.split()[6:10] == ["proj", "project", "stdio", "connected"]
    assert _robota(host, "mcp", "remove", "proj", "--scope", "user").returncode == 3
    assert _robota(host, "mcp", "remove", "proj").returncode == 0
    assert _json(project) == {}


def test_chat_asks_about_a_project_server_at_the_terminal_and_mcp_shows_it(
    host: Host, tmp_path: Path
) -> None:
    record = tmp_path / "record.txt"
    project = host.workspace / ".robota" / "settings.json"
    project.parent.mkdir()
    entry = {
        "command": sys.executable,
        "args": [str(SERVER)],
        "env": {"RECORD_FILE": str(record), "SECRET": "${MY_TOKEN:-none}"},
    }
    project.write_text(json.dumps({"mcp_servers": {"proj": entry}}), encoding="utf-8")
    with ReplayServer(interactions=[]) as server:
        _provider(host, server.url + "/v1")
        chat = Terminal(host, "chat", "--no-title", "--trust")
        chat.expect("want to run MCP server 'proj'")
        chat.expect("passing it your $MY_TOKEN")
        chat.expect("[y/N]")
        chat.type(b"y\r")
        chat.expect("> ")
        chat.type(b"/mcp\r")
        chat.expect("connected")
        chat.expect("> ")
        chat.type(b"\x04")
        assert chat.wait() == 0, chat.screen
    assert "Traceback" not in chat.screen
    assert [line.split()[0] for line in _lines(record)] == ["start"]
    approvals = _json(host.home / "mcp-approvals.json")
    [answers] = approvals.values()
    assert answers["proj"]["decision"] == "approved"


def test_mcp_in_a_piped_chat_prints_the_table(host: Host, tmp_path: Path) -> None:
    record = tmp_path / "record.txt"
    _add_recording(host, "rec", record)
    with ReplayServer(interactions=[]) as server:
        _provider(host, server.url + "/v1")
        chat = _robota(host, "chat", "--no-title", stdin="/mcp\n")
    assert chat.returncode == 0, chat.stderr
    [row] = [line for line in chat.stderr.splitlines() if line.startswith("rec ")]
    assert row.split()[1:5] == ["user", "stdio", "connected", "4"]
