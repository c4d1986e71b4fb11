"""MCP servers from settings in a real ``InteractiveSession`` (issue #18), against a real stdio
MCP server (``mcp_servers/recording_server.py``) that records its start and every call in a
file, so each test checks what happened to the server, not only what the session says."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from robota.core.events import Event
from robota.core.host.sandbox import NoSandbox
from robota.core.messages import ToolResultMessage
from robota.core.testing.scripted import ScriptedProvider, text, tool_call
from robota.core.tools.base import Tool
from robota.framework.interactive import InteractiveSession, SessionConfig
from robota.framework.mcp import McpApprovalRequest, McpApprovalStore
from robota.framework.settings import Settings, load_settings, merge_layers

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

SERVER = Path(__file__).resolve().parent / "mcp_servers" / "recording_server.py"
BEARER = Path(__file__).resolve().parent / "mcp_servers" / "bearer_server.py"


class _Events:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)

    def types(self) -> list[str]:
        return [e.type for e in self.events if e.type.startswith("mcp.")]


def _server(record: Path, **extra: Any) -> dict[str, Any]:
    env = {"RECORD_FILE": str(record), **extra.pop("env", {})}
    return {"command": sys.executable, "args": [str(SERVER)], "env": env, **extra}


def _config(
    tmp_path: Path,
    provider: ScriptedProvider,
    settings: Settings,
    *,
    sinks: Sequence[_Events] = (),
    **kwargs: Any,
) -> SessionConfig:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    return SessionConfig(
        provider=provider,
        model="m",
        workspace=workspace,
        settings=settings,
        title=False,
        sandbox=NoSandbox("test"),
        sinks=list(sinks),
        **kwargs,
    )


def _user(layer: dict[str, Any]) -> Settings:
    return merge_layers([Settings.model_validate(layer)])


def _lines(record: Path) -> list[str]:
    return record.read_text().splitlines() if record.exists() else []


def _results(session: InteractiveSession) -> list[ToolResultMessage]:
    return [m for m in session.messages if isinstance(m, ToolResultMessage)]


async def test_a_user_server_connects_at_the_first_turn_and_its_tool_runs(tmp_path: Path) -> None:
    record = tmp_path / "record.txt"
    settings = _user(
        {
            "mcp_servers": {"rec": _server(record, disabled_tools=["pid"])},
            "permissions": {"allow": ["mcp__rec__record"]},
        }
    )
    provider = ScriptedProvider(
        [[tool_call("c1", "mcp__rec__record", {"text": "hello"})], [text("done")]]
    )
    events = _Events()
    async with await InteractiveSession.start(
        _config(tmp_path, provider, settings, sinks=[events])
    ) as session:
        [before] = session.mcp_servers
        assert (before.state, before.scope, before.transport) == ("pending", "user", "stdio")
        assert _lines(record) == []  # lazily: nothing started before the first turn
        result = await session.submit("record hello")
        [status] = session.mcp_servers
    assert result.text == "done"
    assert [line.split()[0] for line in _lines(record)] == ["start", "call"]
    assert _lines(record)[1] == "call hello"
    assert status.state == "connected"
    assert status.tools == ("mcp__rec__record", "mcp__rec__secret", "mcp__rec__where")
    assert set(status.catalog) == {"record", "secret", "where", "pid"}
    offered = [t.name for t in provider.requests[0].tools if t.name.startswith("mcp__")]
    assert offered == ["mcp__rec__record", "mcp__rec__secret", "mcp__rec__where"]
    [results] = _results(session)
    assert results.results[0].text.splitlines()[0] == "recorded hello"
    assert events.types() == ["mcp.server_connected"]


async def test_a_deny_rule_on_the_server_prevents_the_call(tmp_path: Path) -> None:
    record = tmp_path / "record.txt"
    settings = _user(
        {"mcp_servers": {"rec": _server(record)}, "permissions": {"deny": ["mcp__rec__*"]}}
    )
    provider = ScriptedProvider(
        [[tool_call("c1", "mcp__rec__record", {"text": "nope"})], [text("ok")]]
    )
    async with await InteractiveSession.start(_config(tmp_path, provider, settings)) as session:
        await session.submit("record")
        [results] = _results(session)
    assert not any(t.name.startswith("mcp__rec__") for t in provider.requests[0].tools)
    assert results.results[0].is_error
    assert [line.split()[0] for line in _lines(record)] == ["start"]  # never called


async def test_a_deny_rule_on_an_argument_refuses_that_call_only(tmp_path: Path) -> None:
    record = tmp_path / "record.txt"
    settings = _user(
        {
            "mcp_servers": {"rec": _server(record)},
            "permissions": {
                "allow": ["mcp__rec__record"],
                "deny": ["mcp__rec__record(text:secret*)"],
            },
        }
    )
    provider = ScriptedProvider(
        [
            [
                tool_call("c1", "mcp__rec__record", {"text": "secret plans"}),
                tool_call("c2", "mcp__rec__record", {"text": "public"}),
            ],
            [text("ok")],
        ]
    )
    async with await InteractiveSession.start(_config(tmp_path, provider, settings)) as session:
        await session.submit("record")
        [results] = _results(session)
    denied, allowed = results.results
    assert denied.is_error
    assert "denied" in denied.text.lower()
    assert not allowed.is_error
    assert [line for line in _lines(record) if line.startswith("call")] == ["call public"]


async def test_a_pre_tool_use_hook_sees_the_mcp_call(tmp_path: Path) -> None:
    record = tmp_path / "record.txt"
    seen = tmp_path / "hook.json"
    settings = _user(
        {
            "mcp_servers": {"rec": _server(record)},
            "permissions": {"allow": ["mcp__rec__record"]},
            "hooks": {
                "PreToolUse": [
                    {
                        "id": "audit",
                        "matcher": "mcp__rec__record",
                        "type": "command",
                        "command": f"cat > {seen}",
                    }
                ]
            },
        }
    )
    provider = ScriptedProvider(
        [[tool_call("c1", "mcp__rec__record", {"text": "seen"})], [text("ok")]]
    )
    async with await InteractiveSession.start(_config(tmp_path, provider, settings)) as session:
        await session.submit("record")
    payload = json.loads(seen.read_text())
    assert payload["tool_name"] == "mcp__rec__record"
    assert payload["tool_input"] == {"text": "seen"}
    assert _lines(record)[-1] == "call seen"


async def test_a_failing_server_is_reported_and_the_session_goes_on(tmp_path: Path) -> None:
    record = tmp_path / "record.txt"
    settings = _user(
        {
            "mcp_servers": {
                "broken": {"command": str(tmp_path / "no-such-server")},
                "rec": _server(record),
            },
            "permissions": {"allow": ["mcp__rec__record"]},
        }
    )
    provider = ScriptedProvider(
        [[tool_call("c1", "mcp__rec__record", {"text": "still"})], [text("ok")]]
    )
    events = _Events()
    async with await InteractiveSession.start(
        _config(tmp_path, provider, settings, sinks=[events])
    ) as session:
        result = await session.submit("go")
        broken, rec = session.mcp_servers
    assert result.text == "ok"
    assert broken.state == "failed"
    assert broken.error is not None
    assert "no-such-server" in broken.error
    assert rec.state == "connected"
    assert _lines(record)[-1] == "call still"
    assert sorted(events.types()) == ["mcp.server_connected", "mcp.server_failed"]


async def test_warmup_connects_before_the_first_turn_and_shutdown_stops_the_server(
    tmp_path: Path,
) -> None:
    record = tmp_path / "record.txt"
    settings = _user({"mcp_servers": {"rec": _server(record)}})
    provider = ScriptedProvider([[text("hi")]])
    async with await InteractiveSession.start(_config(tmp_path, provider, settings)) as session:
        await session.warmup()
        await session.warmup()  # idempotent: one process
        assert session.mcp_servers[0].state == "connected"
        assert "mcp__rec__where" in {t.name for t in session.tools}
        await session.submit("hi")
    starts = [line for line in _lines(record) if line.startswith("start")]
    assert len(starts) == 1
    pid = int(starts[0].split()[1])
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert "mcp__rec__where" in {t.name for t in provider.requests[0].tools}


async def test_variables_expand_from_the_environment_and_stdio_runs_in_the_workspace(
    tmp_path: Path,
) -> None:
    record = tmp_path / "record.txt"
    settings = _user(
        {
            "mcp_servers": {"rec": _server(record, env={"SECRET": "${MY_SECRET}"})},
            "permissions": {"allow": ["mcp__rec__secret", "mcp__rec__where"]},
        }
    )
    provider = ScriptedProvider(
        [
            [tool_call("c1", "mcp__rec__secret", {}), tool_call("c2", "mcp__rec__where", {})],
            [text("ok")],
        ]
    )
    config = _config(tmp_path, provider, settings, mcp_env={"MY_SECRET": "s3cr3t"})
    async with await InteractiveSession.start(config) as session:
        await session.submit("go")
        [results] = _results(session)
    first_lines = [r.text.splitlines()[0] for r in results.results]
    assert first_lines == ["s3cr3t", str(config.workspace.resolve())]


async def test_the_runtime_filter_shapes_the_offered_tools(tmp_path: Path) -> None:
    record = tmp_path / "record.txt"
    settings = _user({"mcp_servers": {"rec": _server(record)}})
    provider = ScriptedProvider([[text("hi")]])
    seen: list[tuple[str, list[str]]] = []

    def only_where(server: str, tools: Sequence[Tool]) -> list[Tool]:
        seen.append((server, [t.name for t in tools]))
        return [t for t in tools if t.name.endswith("__where")]

    config = _config(tmp_path, provider, settings, mcp_tool_filter=only_where)
    async with await InteractiveSession.start(config) as session:
        await session.submit("hi")
        [status] = session.mcp_servers
    assert seen == [("rec", [f"mcp__rec__{n}" for n in ("record", "secret", "where", "pid")])]
    assert status.tools == ("mcp__rec__where",)
    assert [t.name for t in provider.requests[0].tools if t.name.startswith("mcp__")] == [
        "mcp__rec__where"
    ]


def _project(tmp_path: Path, record: Path, **extra: Any) -> Settings:
    workspace = tmp_path / "ws"
    (workspace / ".robota").mkdir(parents=True, exist_ok=True)
    (workspace / ".robota" / "settings.json").write_text(
        json.dumps({"mcp_servers": {"proj": _server(record, **extra)}})
    )
    return load_settings(project=workspace / ".robota" / "settings.json", trusted=True)


async def test_a_project_server_waits_for_approval_and_is_never_started_unapproved(
    tmp_path: Path,
) -> None:
    record = tmp_path / "record.txt"
    settings = _project(tmp_path, record)
    provider = ScriptedProvider([[text("hi")]])
    events = _Events()
    config = _config(tmp_path, provider, settings, sinks=[events], trusted=True)
    async with await InteractiveSession.start(config) as session:
        await session.submit("hi")
        [status] = session.mcp_servers
    assert (status.scope, status.state) == ("project", "awaiting-approval")
    assert not record.exists()  # the command never ran
    assert not any(t.name.startswith("mcp__") for t in provider.requests[0].tools)
    assert events.types() == ["mcp.server_skipped"]


async def test_a_project_server_is_asked_about_once_per_definition(tmp_path: Path) -> None:
    record = tmp_path / "record.txt"
    store = McpApprovalStore(path=tmp_path / "home" / "mcp-approvals.json")
    asked: list[McpApprovalRequest] = []
    answer = True

    async def person(request: McpApprovalRequest) -> bool:
        asked.append(request)
        return answer

    async def session_states(settings: Settings) -> list[str]:
        config = _config(
            tmp_path,
            ScriptedProvider([[text("hi")]]),
            settings,
            trusted=True,
            mcp_approvals=store,
            mcp_approver=person,
        )
        async with await InteractiveSession.start(config) as session:
            await session.submit("hi")
            return [s.state for s in session.mcp_servers]

    settings = _project(tmp_path, record, env={"TOKEN": "${GH_TOKEN:-none}"})
    assert await session_states(settings) == ["connected"]
    assert len(asked) == 1
    assert asked[0].server == "proj"
    assert asked[0].variables == ("GH_TOKEN",)
    assert asked[0].env == ("RECORD_FILE", "TOKEN")
    assert oct(store.path.stat().st_mode & 0o777) == "0o600"
    assert await session_states(settings) == ["connected"]  # remembered: not asked again
    assert len(asked) == 1

    changed = _project(tmp_path, record, args=[str(SERVER), "--changed"])
    answer = False
    assert await session_states(changed) == ["denied"]  # a new definition asks again
    assert len(asked) == 2
    assert await session_states(changed) == ["denied"]  # the denial is remembered
    assert len(asked) == 2
    starts = [line for line in _lines(record) if line.startswith("start")]
    assert len(starts) == 2  # only the two approved sessions started it


async def test_a_project_server_of_an_untrusted_session_stays_off(tmp_path: Path) -> None:
    record = tmp_path / "record.txt"
    settings = _project(tmp_path, record)  # as if merged while trusted
    asked: list[McpApprovalRequest] = []

    async def person(request: McpApprovalRequest) -> bool:
        asked.append(request)
        return True

    config = _config(
        tmp_path, ScriptedProvider([[text("hi")]]), settings, trusted=False, mcp_approver=person
    )
    async with await InteractiveSession.start(config) as session:
        await session.submit("hi")
        [status] = session.mcp_servers
    assert status.state == "untrusted"
    assert asked == []
    assert not record.exists()


async def test_sessions_close_in_any_order_and_from_any_task(tmp_path: Path) -> None:
    """The hub's connections live in a task of their own: a host may shut sessions down out of
    order, or from another task (``/resume`` in ``robota chat`` does)."""
    record = tmp_path / "record.txt"
    settings = _user({"mcp_servers": {"rec": _server(record)}})
    first = await InteractiveSession.start(
        _config(tmp_path, ScriptedProvider([[text("a")]]), settings)
    )
    second = await InteractiveSession.start(
        _config(tmp_path, ScriptedProvider([[text("b")]]), settings)
    )
    await first.warmup()
    await second.warmup()
    await first.shutdown()  # not the innermost one
    async with anyio.create_task_group() as group:
        group.start_soon(second.shutdown)  # another task
    pids = [int(line.split()[1]) for line in _lines(record) if line.startswith("start")]
    assert len(pids) == 2
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


@pytest.fixture
def bearer_url() -> Iterator[str]:
    """``http://127.0.0.1:PORT/mcp`` of a real MCP server wanting ``Bearer t0ken``."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, str(BEARER), str(port), "t0ken"],
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
                    raise RuntimeError("the bearer MCP server did not start") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


async def test_a_401_is_needs_login_and_the_header_from_a_variable_logs_in(
    tmp_path: Path, bearer_url: str
) -> None:
    settings = _user(
        {
            "mcp_servers": {
                "locked": {"url": bearer_url},
                "open": {"url": bearer_url, "headers": {"Authorization": "Bearer ${TOK}"}},
            },
            "permissions": {"allow": ["mcp__open__hello"]},
        }
    )
    provider = ScriptedProvider([[tool_call("c1", "mcp__open__hello", {})], [text("ok")]])
    events = _Events()
    config = _config(tmp_path, provider, settings, sinks=[events], mcp_env={"TOK": "t0ken"})
    async with await InteractiveSession.start(config) as session:
        await session.submit("hello")
        locked, opened = session.mcp_servers
        [results] = _results(session)
    assert locked.state == "needs-login"
    assert locked.error is not None
    assert "401 Unauthorized" in locked.error
    assert opened.state == "connected"
    assert opened.tools == ("mcp__open__hello",)
    assert results.results[0].text.splitlines()[0] == "hello"
    assert sorted(events.types()) == [
        "mcp.server_connected",
        "mcp.server_failed",
        "mcp.server_needs_login",
    ]
    [login] = [e for e in events.events if e.type == "mcp.server_needs_login"]
    assert getattr(login, "www_authenticate", None) == 'Bearer realm="test"'
