"""Smoke program of robota-agent-framework: an installed copy runs an interactive session.

A scripted model edits a file in a temporary workspace under ``accept_edits``; the turn is
stored in a SQLite session store and rewinding it restores the file.
"""

import tempfile
from pathlib import Path

import anyio
from robota.core.permissions import PermissionMode
from robota.core.testing.scripted import ScriptedProvider, tool_call
from robota.framework import InteractiveSession, SessionConfig
from robota.session import SQLiteSessionStore


async def main() -> None:
    scratch = Path(tempfile.mkdtemp())
    workspace = scratch / "project"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("old\n")
    provider = ScriptedProvider(
        [[tool_call("c1", "write_file", {"path": "notes.txt", "content": "new\n"})], "Done."]
    )
    async with SQLiteSessionStore(scratch / "sessions.db") as store:
        config = SessionConfig(
            provider=provider,
            model="scripted-model",
            workspace=workspace,
            store=store,
            permission_mode=PermissionMode.ACCEPT_EDITS,
            title=False,
        )
        async with await InteractiveSession.start(config) as session:
            result = await session.submit("Replace the notes with 'new'")
            assert result.text == "Done."
            assert (workspace / "notes.txt").read_text() == "new\n"
            session.rewind()  # undo the last turn's file edits
            assert (workspace / "notes.txt").read_text() == "old\n"
        stored = await store.get(session.id)
        assert [m.kind for m in stored.messages][-1] == "assistant", stored


anyio.run(main)
print("smoke ok robota-agent-framework")
