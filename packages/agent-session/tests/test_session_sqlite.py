"""SQLite session store: conformance suite, owner-only files, corrupt data, event log."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import anyio
import pytest
from robota.core.messages import AssistantMessage, TextPart, UserMessage
from robota.session import (
    EventLog,
    EventLogCorruptError,
    SessionRecord,
    SessionStore,
    SessionStoreError,
    SQLiteSessionStore,
)
from robota.session.testing import SessionStoreConformance


class TestSQLiteConformance(SessionStoreConformance):
    async def make_store(self) -> SessionStore:
        return SQLiteSessionStore(":memory:")


class TestSQLiteFileConformance(SessionStoreConformance):
    @pytest.fixture(autouse=True)
    def _folder(self, tmp_path: Path) -> None:
        self.folder = tmp_path

    async def make_store(self) -> SessionStore:
        return SQLiteSessionStore(self.folder / "state" / "sessions.db")


def test_database_and_folder_are_owner_only(tmp_path: Path) -> None:
    db = tmp_path / "new" / "sessions.db"
    old = os.umask(0)
    try:

        async def main() -> None:
            async with SQLiteSessionStore(db) as store:
                await store.create(SessionRecord())

        anyio.run(main)
    finally:
        os.umask(old)
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
    assert stat.S_IMODE(db.parent.stat().st_mode) == 0o700


def test_two_store_objects_on_one_file_cannot_both_save(tmp_path: Path) -> None:
    db = tmp_path / "s.db"

    async def main() -> None:
        async with SQLiteSessionStore(db) as a, SQLiteSessionStore(db) as b:
            rec = await a.create(SessionRecord())
            await a.save(rec.with_messages((UserMessage.of("a"),)))
            with pytest.raises(SessionStoreError):
                await b.save(rec.with_messages((UserMessage.of("b"),)))
            assert (await b.get(rec.id)).messages == (UserMessage.of("a"),)

    anyio.run(main)


def test_corrupt_stored_record_is_a_typed_error(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "s.db"

    async def create() -> str:
        async with SQLiteSessionStore(db) as store:
            return (await store.create(SessionRecord())).id

    session_id = anyio.run(create)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE sessions SET body = '{not json' WHERE id = ?", (session_id,))
    conn.commit()
    conn.close()

    async def load() -> None:
        async with SQLiteSessionStore(db) as store:
            await store.get(session_id)

    with pytest.raises(SessionStoreError, match="corrupt"):
        anyio.run(load)


def test_event_log_rebuilds_a_missing_snapshot(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "logs")
    log.append("ses_1", "session.created", {"model": "m", "system_prompt": "sp"})
    log.append_message("ses_1", UserMessage.of("hi"))
    log.append("ses_1", "model.text_delta", {"text": "hel"})
    log.append_message("ses_1", AssistantMessage(parts=(TextPart(text="hello"),)))
    rebuilt = log.rebuild("ses_1")
    assert rebuilt.system_prompt == "sp"
    assert rebuilt.messages == (
        UserMessage.of("hi"),
        AssistantMessage(parts=(TextPart(text="hello"),)),
    )
    assert [e.seq for e in log.read("ses_1")] == [1, 2, 3, 4]
    assert stat.S_IMODE(log.path("ses_1").stat().st_mode) == 0o600


def test_event_log_skips_a_torn_last_line_but_not_a_corrupt_middle(tmp_path: Path) -> None:
    log = EventLog(tmp_path)
    log.append("s", "session.created", {})
    with log.path("s").open("a") as handle:
        handle.write('{"seq": 2, "ts": "x", "ty')
    assert [e.type for e in log.read("s")] == ["session.created"]
    with log.path("s").open("a") as handle:
        handle.write("\n")
    log.append("s", "x", {})
    with pytest.raises(EventLogCorruptError, match=":2:"):
        log.read("s")


@pytest.mark.parametrize("bad", ["../x", "a/b", "", ".."])
def test_event_log_refuses_unsafe_ids(tmp_path: Path, bad: str) -> None:
    with pytest.raises(ValueError, match="unsafe"):
        EventLog(tmp_path).path(bad)
