"""A session saved to SQLite, closed, and resumed later, offline.

Shows: ``InteractiveSession`` (``robota.framework``) persists every turn to a session store
(``SQLiteSessionStore`` from ``robota.session``); a later host — here simulated by a second
``InteractiveSession.resume`` with a fresh provider — continues the same conversation under the
same id, and the model sees the earlier turns. The CLI does the same with
``robota run --resume ID``.

Run: ``uv run python examples/session_resume.py``
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import anyio
from robota.core.testing.scripted import ScriptedProvider
from robota.framework import InteractiveSession, SessionConfig
from robota.session import SessionStore, SQLiteSessionStore


def config_for(provider: ScriptedProvider, workspace: Path, store: SessionStore) -> SessionConfig:
    return SessionConfig(
        provider=provider, model="scripted-model", workspace=workspace, store=store, title=False
    )


async def main() -> None:
    root = Path(tempfile.mkdtemp())
    workspace = root / "project"
    workspace.mkdir()
    database = root / "sessions.db"

    # First host: one turn, then the session is closed (its record stays in the store).
    async with SQLiteSessionStore(database) as store:
        first = ScriptedProvider(["Noted: the release is on Tuesday."])
        async with await InteractiveSession.start(config_for(first, workspace, store)) as session:
            await session.submit("Remember: the release is on Tuesday.")
            session_id = session.id
    print("saved session", session_id)

    # Later, another host opens the same database and resumes by id.
    async with SQLiteSessionStore(database) as store:
        second = ScriptedProvider(["You told me Tuesday."])
        config = config_for(second, workspace, store)
        async with await InteractiveSession.resume(config, session_id) as session:
            assert session.id == session_id
            result = await session.submit("When is the release?")
        record = await store.get(session_id)

    print("answer after resume:", result.text)
    seen = second.requests[0].messages
    print("the model saw", len(seen), "messages, starting with the first session's turn")
    assert result.text == "You told me Tuesday."
    assert [m.kind for m in record.messages] == ["user", "assistant", "user", "assistant"]


if __name__ == "__main__":
    anyio.run(main)
