"""No turn that ran is lost (issue #15): a save that conflicts is merged, and resume rebuilds
from the real JSONL log when the real SQLite snapshot is gone or unreadable."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from robota.core import Event
from robota.core.host.sandbox import NoSandbox
from robota.core.messages import TextPart
from robota.core.permissions import PermissionMode
from robota.core.testing.scripted import ScriptedProvider, tool_call
from robota.framework.interactive import InteractiveSession, SessionConfig
from robota.framework.interactive.events import SessionMerged, SessionRecovered
from robota.session import (
    EventLog,
    Lease,
    SessionNotFoundError,
    SessionUnrecoverableError,
    SQLiteSessionStore,
)

pytestmark = pytest.mark.anyio


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)


class UnleasedStore(SQLiteSessionStore):
    """A writer that ignores leases (an older host, a script): every lease is granted."""

    async def acquire_lease(self, session_id: str, owner: str, *, ttl: float = 3600.0) -> Lease:
        from datetime import UTC, datetime

        return Lease(session_id=session_id, owner=owner, expires_at=datetime.now(UTC))

    async def renew_lease(self, session_id: str, owner: str, *, ttl: float = 3600.0) -> Lease:
        return await self.acquire_lease(session_id, owner, ttl=ttl)

    async def release_lease(self, session_id: str, owner: str) -> None:
        return None


def said(messages: Any) -> list[str]:
    return [
        "".join(p.text for p in m.parts if isinstance(p, TextPart))
        for m in messages
        if m.kind in ("user", "assistant")
    ]


def host(tmp_path: Path, provider: ScriptedProvider, **more: Any) -> SessionConfig:
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
        "permission_mode": PermissionMode.ACCEPT_EDITS,
    }
    base.update(more)
    return SessionConfig(**base)


async def close(*configs: SessionConfig) -> None:
    for cfg in configs:
        assert cfg.store is not None
        await cfg.store.aclose()


async def test_a_conflicting_save_appends_the_turn_and_later_turns_persist(
    tmp_path: Path,
) -> None:
    a_provider = ScriptedProvider(
        [
            ["a1"],
            [tool_call("w", "write_file", {"path": "a2.txt", "content": "A2"})],
            ["a2 done"],
            ["a3"],
        ]
    )
    sink = Recorder()
    a_cfg = host(tmp_path, a_provider, sinks=(sink,))
    b_cfg = host(
        tmp_path,
        ScriptedProvider([["b1"]]),
        store=UnleasedStore(tmp_path / "state" / "sessions.db"),
    )
    a = await InteractiveSession.start(a_cfg)
    await a.submit("A one")
    b = await InteractiveSession.resume(b_cfg, a.id)  # writes outside the lease
    await b.submit("B one")
    assert a_cfg.store is not None

    result = await a.submit("A two")  # its save conflicts with B's
    assert result.text == "a2 done"
    assert (a_cfg.workspace / "a2.txt").read_text() == "A2"
    merged = [e for e in sink.events if isinstance(e, SessionMerged)]
    assert [(e.appended, e.revision) for e in merged] == [(4, 3)]
    stored = await a_cfg.store.get(a.id)
    assert said(stored.messages) == ["A one", "a1", "B one", "b1", "A two", "", "a2 done"]
    assert [m.kind for m in stored.messages][4:] == [
        "user",
        "assistant",
        "tool_results",
        "assistant",
    ]
    assert said(a.messages) == said(stored.messages)  # A goes on from both

    await a.submit("A three")  # and keeps persisting
    await a.shutdown()
    await b.shutdown()
    stored = await a_cfg.store.get(a.id)
    assert said(stored.messages)[-2:] == ["A three", "a3"]
    assert stored.revision == 4
    await close(a_cfg, b_cfg)


async def _one_session(tmp_path: Path) -> tuple[str, list[str]]:
    cfg = host(
        tmp_path,
        ScriptedProvider(
            [[tool_call("w", "write_file", {"path": "n.txt", "content": "x"})], ["wrote"], ["2"]]
        ),
    )
    async with await InteractiveSession.start(cfg) as session:
        await session.submit("write n")
        await session.submit("again")
        session_id = session.id
        before = said(session.messages)
    await close(cfg)
    return session_id, before


def _sql(tmp_path: Path, statement: str, *args: object) -> None:
    conn = sqlite3.connect(tmp_path / "state" / "sessions.db")
    conn.execute(statement, args)
    conn.commit()
    conn.close()


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        ("DELETE FROM sessions WHERE id = ?", "no snapshot"),
        ("UPDATE sessions SET body = '{not json' WHERE id = ?", "unreadable"),
        ("UPDATE sessions SET body = substr(body, 1, 40) WHERE id = ?", "unreadable"),
        (
            "UPDATE sessions SET body = json_set(body, '$.version', 99) WHERE id = ?",
            "unreadable",
        ),
        (
            "UPDATE sessions SET body = json_set(body, '$.messages', 'x') WHERE id = ?",
            "unreadable",
        ),
    ],
    ids=["deleted", "corrupt-json", "truncated", "wrong-version", "wrong-shape"],
)
async def test_resume_rebuilds_from_the_log_when_the_snapshot_is_gone(
    tmp_path: Path, damage: str, problem: str
) -> None:
    session_id, before = await _one_session(tmp_path)
    _sql(tmp_path, damage, session_id)
    sink = Recorder()
    cfg = host(tmp_path, ScriptedProvider([["3"]]), sinks=(sink,))
    async with await InteractiveSession.resume(cfg, session_id) as session:
        assert session.recovered_from == "event_log"
        assert said(session.messages) == before
        [warning] = [e for e in sink.events if isinstance(e, SessionRecovered)]
        assert warning.source == "event_log"
        assert warning.snapshot_problem is not None
        assert problem in warning.snapshot_problem
        await session.submit("after")
    assert cfg.store is not None
    stored = await cfg.store.get(session_id)  # the store is whole again and goes on
    assert said(stored.messages) == [*before, "after", "3"]
    await close(cfg)


async def test_a_torn_last_log_line_is_skipped(tmp_path: Path) -> None:
    session_id, before = await _one_session(tmp_path)
    log_file = tmp_path / "state" / "logs" / f"{session_id}.jsonl"
    with log_file.open("a") as handle:
        handle.write('{"seq": 99, "ts": "2026-01-01T00:00:00+00:00", "type": "message.comm')
    _sql(tmp_path, "DELETE FROM sessions WHERE id = ?", session_id)
    cfg = host(tmp_path, ScriptedProvider([["3"]]))
    async with await InteractiveSession.resume(cfg, session_id) as session:
        assert session.recovered_from == "event_log"
        assert said(session.messages) == before
        await session.submit("after")  # appends after the torn line: still readable
    assert cfg.event_log is not None
    types = [e.type for e in cfg.event_log.read(session_id)]
    assert "log.torn_line" in types
    await close(cfg)


async def test_both_unusable_is_a_typed_error_naming_both(tmp_path: Path) -> None:
    session_id, _ = await _one_session(tmp_path)
    _sql(tmp_path, "UPDATE sessions SET body = '{' WHERE id = ?", session_id)
    log_file = tmp_path / "state" / "logs" / f"{session_id}.jsonl"
    lines = log_file.read_text().splitlines(keepends=True)
    lines[1] = "garbage\n"
    log_file.write_text("".join(lines))
    cfg = host(tmp_path, ScriptedProvider([]))
    with pytest.raises(SessionUnrecoverableError) as failed:
        await InteractiveSession.resume(cfg, session_id)
    assert "unreadable" in failed.value.snapshot_problem
    assert ":2: malformed log line" in failed.value.log_problem
    assert "snapshot:" in str(failed.value)
    assert "event log:" in str(failed.value)
    # the refusal released the lease: once the log is repaired, resume works
    lines[1] = ""
    log_file.write_text("".join(lines))
    async with await InteractiveSession.resume(cfg, session_id) as session:
        assert session.recovered_from == "event_log"
    with pytest.raises(SessionNotFoundError):
        await InteractiveSession.resume(cfg, "ses_00000000000000000000")
    await close(cfg)


async def test_a_plain_resume_is_not_a_recovery(tmp_path: Path) -> None:
    session_id, before = await _one_session(tmp_path)
    sink = Recorder()
    cfg = host(tmp_path, ScriptedProvider([]), sinks=(sink,))
    async with await InteractiveSession.resume(cfg, session_id) as session:
        assert session.recovered_from is None
        assert said(session.messages) == before
    assert not any(isinstance(e, SessionRecovered) for e in sink.events)
    await close(cfg)


async def test_a_compacted_or_forked_session_rebuilds_to_its_current_history(
    tmp_path: Path,
) -> None:
    cfg = host(tmp_path, ScriptedProvider([["1"], ["2"], ["3"], ["SUMMARY"]]))
    async with await InteractiveSession.start(cfg) as session:
        for prompt in ("a", "b", "c"):
            await session.submit(prompt)
        await session.compact(keep_last_turns=1)
        compacted = said(session.messages)
        child = await session.fork()
        await child.shutdown()
        session_id = session.id
    for rebuilt in (session_id, child.id):
        _sql(tmp_path, "DELETE FROM sessions WHERE id = ?", rebuilt)
        async with await InteractiveSession.resume(cfg, rebuilt) as again:
            assert again.recovered_from == "event_log"
            assert said(again.messages) == compacted
    # the log is JSON lines, one object each
    log_file = tmp_path / "state" / "logs" / f"{session_id}.jsonl"
    assert all(json.loads(line)["type"] for line in log_file.read_text().splitlines())
    await close(cfg)
