"""One session, one writer (issue #15): two real InteractiveSession hosts on one SQLite file and
one log folder, each with its own store object (as two processes would have), running the real
``write_file`` tool. A refused host runs nothing: no hook, no model call, no file."""

from __future__ import annotations

import os
import socket
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from robota.core import Event
from robota.core.host.sandbox import NoSandbox
from robota.core.messages import TextPart
from robota.core.permissions import PermissionMode
from robota.core.testing.scripted import ScriptedProvider, reached, text, tool_call, wait_for
from robota.framework.interactive import InteractiveSession, SessionConfig
from robota.framework.interactive.events import SessionLeaseLost, SessionReloaded
from robota.session import EventLog, SessionLeaseHeldError, SQLiteSessionStore

pytestmark = pytest.mark.anyio


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)


def said(messages: Any, kind: str | None = None) -> list[str]:
    """The text of each user/assistant message (of ``kind`` when given), in order."""
    out: list[str] = []
    for message in messages:
        if message.kind in ("user", "assistant") and kind in (None, message.kind):
            out.append("".join(p.text for p in message.parts if isinstance(p, TextPart)))
    return out


def host(tmp_path: Path, provider: ScriptedProvider, **more: Any) -> SessionConfig:
    """One host: its own store object and log object on the shared file and folder."""
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    base: dict[str, Any] = {
        "provider": provider,
        "model": "m",
        "workspace": workspace,
        "system_prompt": "Base prompt.",
        "store": SQLiteSessionStore(tmp_path / "state" / "sessions.db"),
        "event_log": EventLog(tmp_path / "state" / "logs"),
        "title": False,
        "auto_compact": None,
        "subagents": False,
        "background_dir": tmp_path / "bg",
        "sandbox": NoSandbox("tests"),
        "permission_mode": PermissionMode.ACCEPT_EDITS,  # write_file inside the workspace runs
    }
    base.update(more)
    return SessionConfig(**base)


def writes(path: str, content: str, answer: str) -> list[Any]:
    """A turn that writes ``path`` with the real write_file tool, then answers."""
    return [[tool_call(f"w_{path}", "write_file", {"path": path, "content": content})], [answer]]


async def test_a_second_host_is_refused_before_anything_runs(tmp_path: Path) -> None:
    a_provider = ScriptedProvider(writes("a.txt", "from A", "A wrote it"))
    b_provider = ScriptedProvider(writes("b.txt", "from B", "B wrote it"))
    a_cfg, b_cfg = host(tmp_path, a_provider), host(tmp_path, b_provider)
    workspace = a_cfg.workspace
    async with await InteractiveSession.start(a_cfg) as a:
        await a.submit("write a")
        with pytest.raises(SessionLeaseHeldError) as refused:
            await InteractiveSession.resume(b_cfg, a.id)
        holder = a.lease_owner
        session_id = a.id
    assert holder is not None
    assert refused.value.session_id == session_id
    assert refused.value.holder == holder
    assert holder.startswith(f"{socket.gethostname()}:{os.getpid()}:")
    assert refused.value.expires_at > datetime.now(UTC)
    assert b_provider.requests == []  # B never called its model
    assert not (workspace / "b.txt").exists()  # nor ran its tool
    assert (workspace / "a.txt").read_text() == "from A"

    async with await InteractiveSession.resume(b_cfg, session_id) as b:  # A shut down: free
        await b.submit("write b")
    assert (workspace / "b.txt").read_text() == "from B"
    assert b_cfg.store is not None
    stored = await b_cfg.store.get(session_id)
    assert [m.kind for m in stored.messages] == [
        "user",
        "assistant",
        "tool_results",
        "assistant",
    ] * 2
    for cfg in (a_cfg, b_cfg):
        assert cfg.store is not None
        await cfg.store.aclose()


async def test_an_idle_host_whose_lease_was_taken_is_refused_then_reloads(
    tmp_path: Path,
) -> None:
    a_provider = ScriptedProvider(
        [["one"], *writes("a.txt", "from A", "A wrote it"), *writes("a.txt", "A again", "ok")]
    )
    b_provider = ScriptedProvider([["two"]])
    a_sink = Recorder()
    a_cfg = host(tmp_path, a_provider, lease_ttl=0.2, sinks=(a_sink,))
    b_cfg = host(tmp_path, b_provider)
    workspace = a_cfg.workspace
    a = await InteractiveSession.start(a_cfg)
    await a.submit("first")
    await anyio.sleep(0.4)  # A idles past its lease TTL; nothing renews an idle session
    b = await InteractiveSession.resume(b_cfg, a.id)  # B takes the session over

    with pytest.raises(SessionLeaseHeldError) as refused:
        await a.submit("write a")
    assert refused.value.holder == b.lease_owner
    assert len(a_provider.requests) == 1  # the refused turn never called the model
    assert not (workspace / "a.txt").exists()
    assert [m.kind for m in a.messages] == ["user", "assistant"]

    await b.submit("second")
    await b.shutdown()
    result = await a.submit("write a")  # A takes the lease back and reloads B's turn first
    assert result.text == "A wrote it"
    assert (workspace / "a.txt").read_text() == "from A"
    assert any(isinstance(e, SessionReloaded) for e in a_sink.events)
    sent = a_provider.requests[1].messages
    assert said(sent, "user") == ["first", "second", "write a"]
    await a.submit("write again")
    await a.shutdown()
    assert a_cfg.store is not None
    stored = await a_cfg.store.get(a.id)
    assert said(stored.messages, "user") == ["first", "second", "write a", "write again"]
    for cfg in (a_cfg, b_cfg):
        assert cfg.store is not None
        await cfg.store.aclose()


async def test_a_running_turn_renews_its_lease_past_the_ttl(tmp_path: Path) -> None:
    hold = anyio.Event()
    writing = anyio.Event()
    a_provider = ScriptedProvider(
        [
            [tool_call("w1", "write_file", {"path": "a.txt", "content": "A"})],
            [reached(writing), wait_for(hold), text("done")],
        ]
    )
    b_provider = ScriptedProvider([["never"]])
    a_cfg = host(tmp_path, a_provider, lease_ttl=0.5)
    b_cfg = host(tmp_path, b_provider)
    async with await InteractiveSession.start(a_cfg) as a, anyio.create_task_group() as group:
        group.start_soon(a.submit, "write")
        with anyio.fail_after(10):
            await writing.wait()
        await anyio.sleep(1.2)  # more than two TTLs: only renewals keep the lease
        with pytest.raises(SessionLeaseHeldError) as refused:
            await InteractiveSession.resume(b_cfg, a.id)
        assert refused.value.holder == a.lease_owner
        hold.set()
    assert b_provider.requests == []
    for cfg in (a_cfg, b_cfg):
        assert cfg.store is not None
        await cfg.store.aclose()


async def test_a_dead_holder_blocks_only_until_its_lease_expires(tmp_path: Path) -> None:
    a_cfg = host(tmp_path, ScriptedProvider([["one"]]))
    async with await InteractiveSession.start(a_cfg) as a:
        await a.submit("first")
        session_id = a.id
    assert a_cfg.store is not None
    # a host that took the lease and died: nothing renews or releases it
    dead = "otherhost:4242:deadbeef"
    await a_cfg.store.acquire_lease(session_id, dead, ttl=0.3)
    b_provider = ScriptedProvider([["two"]])
    b_cfg = host(tmp_path, b_provider)
    with pytest.raises(SessionLeaseHeldError) as refused:
        await InteractiveSession.resume(b_cfg, session_id)
    assert refused.value.holder == dead
    await anyio.sleep(max(0.0, (refused.value.expires_at - datetime.now(UTC)).total_seconds()))
    await anyio.sleep(0.05)
    async with await InteractiveSession.resume(b_cfg, session_id) as b:
        assert (await b.submit("second")).text == "two"
    stored = await a_cfg.store.get(session_id)
    assert said(stored.messages) == ["first", "one", "second", "two"]
    for cfg in (a_cfg, b_cfg):
        assert cfg.store is not None
        await cfg.store.aclose()


async def test_shutdown_releases_and_fork_leases_the_child(tmp_path: Path) -> None:
    a_cfg = host(tmp_path, ScriptedProvider([["one"]]))
    async with await InteractiveSession.start(a_cfg) as a:
        await a.submit("first")
        child = await a.fork()
        with pytest.raises(SessionLeaseHeldError):
            await InteractiveSession.resume(host(tmp_path, ScriptedProvider([])), child.id)
        await child.shutdown()
        parent_id = a.id
    b_cfg = host(tmp_path, ScriptedProvider([]))
    async with await InteractiveSession.resume(b_cfg, parent_id) as b:
        assert said(b.messages) == ["first", "one"]
    async with await InteractiveSession.resume(b_cfg, child.id) as c:
        assert said(c.messages) == ["first", "one"]
    for cfg in (a_cfg, b_cfg):
        assert cfg.store is not None
        await cfg.store.aclose()


async def test_a_turn_whose_lease_is_taken_mid_run_is_cancelled(tmp_path: Path) -> None:
    writing = anyio.Event()
    a_provider = ScriptedProvider(
        [
            [tool_call("w1", "write_file", {"path": "a.txt", "content": "A"})],
            [reached(writing), wait_for(anyio.Event()), text("never")],
        ]
    )
    sink = Recorder()
    a_cfg = host(tmp_path, a_provider, lease_ttl=0.3, sinks=(sink,))
    assert a_cfg.store is not None
    async with await InteractiveSession.start(a_cfg) as a:
        with anyio.fail_after(10):
            async with anyio.create_task_group() as group:

                async def turn() -> None:
                    result = await a.submit("write")
                    assert result.interrupted

                group.start_soon(turn)
                await writing.wait()
                # this process stalled past the TTL and another host took the lease
                assert a.lease_owner is not None
                await a_cfg.store.release_lease(a.id, a.lease_owner)
                await a_cfg.store.acquire_lease(a.id, "thief:1:x", ttl=60.0)
        lost = [e for e in sink.events if isinstance(e, SessionLeaseLost)]
        assert [e.holder for e in lost] == ["thief:1:x"]
        stored = await a_cfg.store.get(a.id)  # the turn was still saved, nothing dropped
        assert [m.kind for m in stored.messages][:3] == ["user", "assistant", "tool_results"]
    await a_cfg.store.aclose()
