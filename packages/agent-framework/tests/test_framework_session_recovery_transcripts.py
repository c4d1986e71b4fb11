"""Subagent transcripts go to their own owner-only JSONL logs next to the session's log, named
by the subagent's run id (seed 003; issue #15)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from robota.core.host.sandbox import NoSandbox
from robota.core.permissions import PermissionMode
from robota.core.testing.scripted import ScriptedProvider, text, tool_call
from robota.framework.interactive import InteractiveSession, SessionConfig
from robota.session import EventLog, SQLiteSessionStore

pytestmark = pytest.mark.anyio


async def test_a_subagent_transcript_has_its_own_log(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    provider = ScriptedProvider(
        [
            [tool_call("p1", "agent", {"subagent_type": "general-purpose", "prompt": "Count."})],
            [text("child "), text("says three")],
            [text("The child says three.")],
        ]
    )
    logs = tmp_path / "state" / "logs"
    config = SessionConfig(
        provider=provider,
        model="m",
        workspace=workspace,
        store=SQLiteSessionStore(tmp_path / "state" / "sessions.db"),
        event_log=EventLog(logs),
        title=False,
        auto_compact=None,
        sandbox=NoSandbox("tests"),
        permission_mode=PermissionMode.BYPASS,
        background_dir=tmp_path / "bg",
    )
    async with await InteractiveSession.start(config) as session:
        result = await session.submit("Ask a helper to count.")
        session_id = session.id
    assert result.text == "The child says three."
    log = EventLog(logs)
    parent = log.read(session_id)
    started = next(e for e in parent if e.type == "subagent.started")
    child_id = started.data["child_id"]
    assert child_id.startswith("sub_")
    transcript_id = started.data["transcript"]
    assert transcript_id == f"{session_id}.{child_id}"
    transcript_file = logs / f"{transcript_id}.jsonl"
    assert transcript_file.exists()
    assert stat.S_IMODE(transcript_file.stat().st_mode) == 0o600
    entries = log.read(transcript_id)
    types = [e.type for e in entries]
    assert types[0] == "subagent.started"
    assert types[-1] == "subagent.finished"
    assert entries[-1].data["state"] == "completed"
    assert [e.data["text"] for e in entries if e.type == "model.text_delta"] == [
        "child ",
        "says three",
    ]
    committed = [e.data["message"]["kind"] for e in entries if e.type == "message.committed"]
    assert committed == ["user", "assistant"]
    # the child's messages stay out of the session's own log and snapshot
    parent_deltas = [e.data["text"] for e in parent if e.type == "model.text_delta"]
    assert parent_deltas == ["The child says three."]
    assert [e.type for e in parent].count("subagent.finished") == 1
    assert config.store is not None
    stored = await config.store.get(session_id)
    assert [m.kind for m in stored.messages] == ["user", "assistant", "tool_results", "assistant"]
    await config.store.aclose()
