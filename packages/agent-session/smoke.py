"""Smoke program of robota-agent-session: an installed copy saves a session and resumes it.

An Agent's conversation is stored in a SQLite session store in a temporary directory, loaded
back, continued by a second Agent and saved as the next revision.
"""

import tempfile
from pathlib import Path

import anyio
from robota.core import Agent
from robota.core.testing.scripted import ScriptedProvider
from robota.session import SessionRecord, SQLiteSessionStore


async def main() -> None:
    path = Path(tempfile.mkdtemp()) / "sessions.db"
    async with SQLiteSessionStore(path) as store:
        first = Agent(ScriptedProvider(["Paris."]), system_prompt="Be brief.")
        result = await first.run("Capital of France?")
        record = await store.create(
            SessionRecord(
                model=first.model,
                provider=first.provider.name,
                system_prompt=first.system_prompt,
                messages=first.history[1:],  # the record keeps the system prompt apart
                usage=result.usage,
            )
        )
    async with SQLiteSessionStore(path) as reopened:  # a new connection reads it from disk
        loaded = await reopened.get(record.id)
        assert [m.kind for m in loaded.messages] == ["user", "assistant"], loaded
        later = Agent(ScriptedProvider(["Berlin."]), history=loaded.messages)
        await later.run("And of Germany?")
        saved = await reopened.save(loaded.with_messages(later.history))
        assert saved.revision == 2, saved
        assert later.history[-1] == saved.messages[-1], saved
        assert [m.kind for m in saved.messages] == ["user", "assistant"] * 2, saved


anyio.run(main)
print("smoke ok robota-agent-session")
