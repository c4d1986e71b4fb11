"""A host killed mid-turn (SIGKILL) while holding a session's lease: a new host is refused
until the lease expires, then takes over and no message is lost — the turn the dead host had
not saved comes back from the JSONL log (issue #15)."""

from __future__ import annotations

import signal
import sys
import textwrap
from datetime import UTC, datetime
from pathlib import Path

import anyio
import pytest
from robota.core import Event
from robota.core.host.sandbox import NoSandbox
from robota.core.messages import AssistantMessage, TextPart, ToolResultMessage
from robota.core.permissions import PermissionMode
from robota.core.testing.scripted import ScriptedProvider
from robota.framework.interactive import InteractiveSession, SessionConfig
from robota.framework.interactive.events import SessionRecovered
from robota.session import EventLog, SessionLeaseHeldError, SQLiteSessionStore

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX"),
]

HOLDER = textwrap.dedent(
    """
    import sys
    from pathlib import Path

    import anyio
    from robota.core.host.sandbox import NoSandbox
    from robota.core.permissions import PermissionMode
    from robota.core.testing.scripted import ScriptedProvider, text, tool_call, wait_for
    from robota.framework.interactive import InteractiveSession, SessionConfig
    from robota.session import EventLog, SQLiteSessionStore

    async def main(root: Path) -> None:
        provider = ScriptedProvider([
            [text("one")],
            [tool_call("w1", "write_file", {"path": "k.txt", "content": "killed"})],
            [wait_for(anyio.Event())],  # the turn hangs here until the process is killed
        ])
        config = SessionConfig(
            provider=provider, model="m", workspace=root / "ws", title=False,
            auto_compact=None, subagents=False, sandbox=NoSandbox("tests"),
            permission_mode=PermissionMode.ACCEPT_EDITS, background_dir=root / "bg",
            store=SQLiteSessionStore(root / "state" / "sessions.db"),
            event_log=EventLog(root / "state" / "logs"), lease_ttl=2.0,
        )
        session = await InteractiveSession.start(config)
        await session.submit("first")
        (root / "id.txt").write_text(session.id)
        await session.submit("second")

    anyio.run(main, Path(sys.argv[1]))
    """
)


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)


async def _wait_for_tool_result(log: EventLog, root: Path) -> str:
    """The holder's session id, once its second turn's tool result is in the log."""
    with anyio.fail_after(30):
        while True:
            if (root / "id.txt").exists():
                session_id = (root / "id.txt").read_text()
                kinds = [
                    e.data["message"]["kind"]
                    for e in log.read(session_id)
                    if e.type == "message.committed"
                ]
                if kinds.count("tool_results") == 1:
                    return session_id
            await anyio.sleep(0.05)


async def test_a_killed_holder_is_taken_over_after_expiry_and_nothing_is_lost(
    tmp_path: Path,
) -> None:
    (tmp_path / "ws").mkdir()
    script = tmp_path / "holder.py"
    script.write_text(HOLDER)
    child = await anyio.open_process([sys.executable, str(script), str(tmp_path)])
    try:
        log = EventLog(tmp_path / "state" / "logs")
        session_id = await _wait_for_tool_result(log, tmp_path)
        assert (tmp_path / "ws" / "k.txt").read_text() == "killed"
    finally:
        child.send_signal(signal.SIGKILL)
        await child.wait()
    assert child.returncode == -signal.SIGKILL

    provider = ScriptedProvider([["three"]])
    sink = Recorder()
    config = SessionConfig(
        provider=provider,
        model="m",
        workspace=tmp_path / "ws",
        title=False,
        auto_compact=None,
        subagents=False,
        sandbox=NoSandbox("tests"),
        permission_mode=PermissionMode.ACCEPT_EDITS,
        background_dir=tmp_path / "bg",
        store=SQLiteSessionStore(tmp_path / "state" / "sessions.db"),
        event_log=EventLog(tmp_path / "state" / "logs"),
        sinks=(sink,),
    )
    with pytest.raises(SessionLeaseHeldError) as refused:  # the dead host's lease still runs
        await InteractiveSession.resume(config, session_id)
    assert f":{child.pid}:" in refused.value.holder
    wait = (refused.value.expires_at - datetime.now(UTC)).total_seconds()
    assert 0 < wait <= 2.0
    await anyio.sleep(wait + 0.05)

    async with await InteractiveSession.resume(config, session_id) as session:
        assert session.recovered_from == "snapshot+event_log"
        kinds = [m.kind for m in session.messages]
        assert kinds == ["user", "assistant", "user", "assistant", "tool_results"]
        call = session.messages[3]
        assert isinstance(call, AssistantMessage)
        assert [c.name for c in call.tool_calls] == ["write_file"]
        result = session.messages[4]
        assert isinstance(result, ToolResultMessage)
        assert "k.txt" in result.results[0].text
        assert (await session.submit("third")).text == "three"
    assert any(isinstance(e, SessionRecovered) for e in sink.events)
    assert config.store is not None
    stored = await config.store.get(session_id)
    texts = [
        "".join(p.text for p in m.parts if isinstance(p, TextPart))
        for m in stored.messages
        if m.kind == "user"
    ]
    assert texts == ["first", "second", "third"]
    assert [m.kind for m in stored.messages] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "tool_results",
        "user",
        "assistant",
    ]
    await config.store.aclose()
