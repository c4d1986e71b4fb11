"""SQLite session store layout (issue #20): a save writes what changed, not the whole record.

A session's older messages are rows of their own; one more turn rewrites only the snapshot row
(and, once the newest messages pass ``SPILL_CHARS``, inserts their rows). A history rewritten in
the middle replaces rows from the first changed message on. A file written by the layout
before (whole record in ``sessions.body``) is migrated on open and reads as before. A damaged
message row is a typed corrupt-record error, never a session with messages missing.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest
from robota.core.messages import (
    AssistantMessage,
    Message,
    TextPart,
    UserMessage,
    dump_messages,
)
from robota.core.usage import Usage
from robota.session import (
    SessionConflictError,
    SessionCorruptError,
    SessionLeaseHeldError,
    SessionRecord,
    SessionStore,
    SessionStoreError,
    SQLiteSessionStore,
)
from robota.session._sqlite_messages import SPILL_CHARS, SPLIT_VERSION, migrate

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX modes")

# The layout every release before schema version 1 wrote (sqlite.py's _SCHEMA then).
OLD_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    revision INTEGER NOT NULL,
    updated_at TEXT NOT NULL,
    title TEXT,
    model TEXT,
    parent_id TEXT,
    message_count INTEGER NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_updated ON sessions(updated_at DESC);
CREATE TABLE IF NOT EXISTS leases (
    session_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    expires_at REAL NOT NULL
);
"""

AUDIT = """
CREATE TABLE audit (op TEXT NOT NULL, seq INTEGER NOT NULL);
CREATE TRIGGER audit_insert AFTER INSERT ON messages
    BEGIN INSERT INTO audit VALUES ('insert', NEW.seq); END;
CREATE TRIGGER audit_delete AFTER DELETE ON messages
    BEGIN INSERT INTO audit VALUES ('delete', OLD.seq); END;
CREATE TRIGGER audit_update AFTER UPDATE ON messages
    BEGIN INSERT INTO audit VALUES ('update', NEW.seq); END;
"""


def talk(count: int, start: int = 0) -> tuple[Message, ...]:
    """``count`` alternating user/assistant messages (~120 characters of JSON each)."""
    out: list[Message] = []
    for i in range(start, start + count):
        text = f"message {i}: " + "lorem ipsum " * 6
        if i % 2:
            out.append(AssistantMessage(parts=(TextPart(text=text),), model="m"))
        else:
            out.append(UserMessage.of(text))
    return tuple(out)


def database(tmp_path: Path) -> Path:
    folder = tmp_path / "state"
    folder.mkdir(mode=0o700)
    return folder / "sessions.db"


def run(db: Path, body: Callable[[SessionStore], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with SQLiteSessionStore(db) as store:
            return await body(store)

    return anyio.run(main)


def sql(db: Path, statement: str, *args: object) -> list[Any]:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute(statement, args).fetchall()
        conn.commit()
        return rows
    finally:
        conn.close()


def audited(db: Path) -> list[tuple[str, int]]:
    rows = sql(db, "SELECT op, seq FROM audit ORDER BY rowid")
    sql(db, "DELETE FROM audit")
    return [(str(op), int(seq)) for op, seq in rows]


# --- one more turn ----------------------------------------------------------------------------


def test_one_more_turn_of_a_long_session_writes_a_few_kib_not_the_record(tmp_path: Path) -> None:
    db = database(tmp_path)
    turn = talk(4, start=1000)
    wal = db.with_name(db.name + "-wal")

    async def body(store: SessionStore) -> tuple[int, int]:
        rec = await store.create(SessionRecord(model="m", messages=talk(1000)))
        before = wal.stat().st_size
        rec = await store.save(rec.with_messages(rec.messages + turn))
        grew = wal.stat().st_size - before
        assert (await store.get(rec.id)).messages == talk(1000) + turn
        return grew, len(rec.to_json())

    grew, record_chars = run(db, body)
    assert record_chars > 100_000
    assert 0 < grew <= 2 * len(dump_messages(turn)) + 8192  # issue #20 target


def test_appended_turns_never_rewrite_a_stored_message_row(tmp_path: Path) -> None:
    db = database(tmp_path)
    rec = run(db, lambda store: store.create(SessionRecord(messages=talk(1000))))
    assert sql(db, "SELECT count(*), min(seq), max(seq) FROM messages") == [(1000, 0, 999)]
    conn = sqlite3.connect(db)
    conn.executescript(AUDIT)
    conn.close()

    async def turns(store: SessionStore) -> SessionRecord:
        current = rec
        for n in range(1000, 1040, 4):
            current = await store.save(current.with_messages(current.messages + talk(4, n)))
        return current

    final = run(db, turns)
    ops = audited(db)
    assert ops, "the newest messages moved to rows once they passed SPILL_CHARS"
    assert {op for op, _ in ops} == {"insert"}
    assert [seq for _, seq in ops] == list(range(1000, 1000 + len(ops)))
    assert len(ops) < 40  # the newest turns are still in the snapshot row
    assert run(db, lambda store: store.get(final.id)).messages == talk(1040)
    assert sql(db, "SELECT message_count FROM sessions") == [(1040,)]


def test_a_history_rewritten_in_the_middle_replaces_rows_from_there_on(tmp_path: Path) -> None:
    db = database(tmp_path)
    rec = run(db, lambda store: store.create(SessionRecord(messages=talk(1000))))
    conn = sqlite3.connect(db)
    conn.executescript(AUDIT)
    conn.close()
    edited = talk(500) + talk(60, start=5000)
    rec = run(db, lambda store: store.save(rec.with_messages(edited)))
    ops = audited(db)
    assert sorted(seq for op, seq in ops if op == "delete") == list(range(500, 1000))
    assert sorted(seq for op, seq in ops if op == "insert") == list(range(500, 560))
    assert run(db, lambda store: store.get(rec.id)).messages == edited

    compacted = (UserMessage.of("summary of the conversation so far"), *edited[-3:])
    rec = run(db, lambda store: store.save(rec.with_messages(compacted)))
    ops = audited(db)
    assert sorted(seq for op, seq in ops if op == "delete") == list(range(560))
    assert [op for op, _ in ops if op != "delete"] == []  # short: kept in the snapshot row
    got = run(db, lambda store: store.get(rec.id))
    assert got.messages == compacted
    assert got.revision == 3


def test_a_stale_writer_is_refused_and_changes_no_row(tmp_path: Path) -> None:
    db = database(tmp_path)

    async def main() -> None:
        async with SQLiteSessionStore(db) as a, SQLiteSessionStore(db) as b:
            rec = await a.create(SessionRecord(messages=talk(200)))
            stale = await b.get(rec.id)
            won = await a.save(rec.with_messages(rec.messages + talk(40, 200)))
            rows_before = sql(db, "SELECT seq, digest, body FROM messages ORDER BY seq")
            with pytest.raises(SessionConflictError):
                await b.save(stale.with_messages(talk(10, 900)))
            assert sql(db, "SELECT seq, digest, body FROM messages ORDER BY seq") == rows_before
            assert (await b.get(rec.id)).messages == won.messages

    anyio.run(main)


def test_delete_removes_the_message_rows_too(tmp_path: Path) -> None:
    db = database(tmp_path)

    async def body(store: SessionStore) -> None:
        keep = await store.create(SessionRecord(messages=talk(100)))
        gone = await store.create(SessionRecord(messages=talk(100)))
        assert await store.delete(gone.id)
        assert sql(db, "SELECT DISTINCT session_id FROM messages") == [(keep.id,)]
        assert (await store.get(keep.id)).messages == talk(100)

    run(db, body)


# --- damaged rows -----------------------------------------------------------------------------


def _digest_of(body: str) -> bytes:
    import hashlib

    return hashlib.blake2b(body.encode(), digest_size=16).digest()


BOGUS = '{"kind":"bogus","parts":[]}'

DAMAGE = {
    "a row is not JSON": ("UPDATE messages SET body = '{' WHERE seq = 3", ()),
    "a row is missing": ("DELETE FROM messages WHERE seq = 7", ()),
    "the last row is missing": (
        "DELETE FROM messages WHERE seq = (SELECT max(seq) FROM messages)",
        (),
    ),
    "a digest is damaged": ("UPDATE messages SET digest = zeroblob(16) WHERE seq = 0", ()),
    "a row with its digest holds no message": (
        "UPDATE messages SET body = ?, digest = ? WHERE seq = 5",
        (BOGUS, _digest_of(BOGUS)),
    ),
    "a row with its digest holds two messages": (
        "UPDATE messages SET body = ?, digest = ? WHERE seq = 5",
        (
            '{"kind":"user","parts":[]},{"kind":"user","parts":[]}',
            _digest_of('{"kind":"user","parts":[]},{"kind":"user","parts":[]}'),
        ),
    ),
    # Not what an older robota does (it writes whole records: see the older-release tests);
    # a trigger deletes the rows of a body that is not split, so the count disagrees.
    "the snapshot's version set to 1 by hand": (
        "UPDATE sessions SET body = json_set(body, '$.version', 1)",
        (),
    ),
    "the snapshot names fewer rows": (
        "UPDATE sessions SET body = replace(body, '\"rows\":300,', '\"rows\":299,')",
        (),
    ),
    "the message count disagrees": ("UPDATE sessions SET message_count = 999", ()),
    "the snapshot is not JSON": ("UPDATE sessions SET body = '{not json'", ()),
}


@pytest.mark.parametrize("damage", DAMAGE, ids=DAMAGE.keys())
def test_a_damaged_message_row_is_a_typed_error_and_overwrite_repairs_it(
    tmp_path: Path, damage: str
) -> None:
    db = database(tmp_path)
    rec = run(db, lambda store: store.create(SessionRecord(model="m", messages=talk(300))))
    assert sql(db, "SELECT count(*) FROM messages") == [(300,)]
    statement, args = DAMAGE[damage]
    sql(db, statement, *args)
    with pytest.raises(SessionCorruptError, match="corrupt"):
        run(db, lambda store: store.get(rec.id))
    repaired = run(db, lambda store: store.overwrite(rec))
    assert repaired.revision == 2
    assert run(db, lambda store: store.get(rec.id)).messages == talk(300)


# Hand edits that keep every row's body matching a digest of its own: the chain (session id,
# seq, previous digest) and the snapshot's row count and chain end refuse each of them.
HAND_EDITS = {
    "two rows swapped": """
        UPDATE messages SET seq = -1 WHERE session_id = :a AND seq = 3;
        UPDATE messages SET seq = 3 WHERE session_id = :a AND seq = 4;
        UPDATE messages SET seq = 4 WHERE session_id = :a AND seq = -1;""",
    "a row copied over another, digest and all": """
        UPDATE messages SET (body, digest) = (SELECT body, digest FROM messages
            WHERE session_id = :a AND seq = 0) WHERE session_id = :a AND seq = 2;""",
    "another session's rows moved in": """
        DELETE FROM messages WHERE session_id = :a;
        UPDATE messages SET session_id = :a WHERE session_id = :b;""",
    "the last row dropped with the count": """
        DELETE FROM messages WHERE session_id = :a AND seq = 299;
        UPDATE sessions SET message_count = 299 WHERE id = :a;""",
    "a row added with the count": """
        INSERT INTO messages SELECT session_id, 300, digest, body FROM messages
            WHERE session_id = :a AND seq = 299;
        UPDATE sessions SET message_count = 301 WHERE id = :a;""",
}


@pytest.mark.parametrize("edit", HAND_EDITS, ids=HAND_EDITS.keys())
def test_rows_edited_by_hand_with_matching_digests_are_refused(tmp_path: Path, edit: str) -> None:
    db = database(tmp_path)

    async def create(store: SessionStore) -> tuple[SessionRecord, SessionRecord]:
        a = await store.create(SessionRecord(messages=talk(300)))
        b = await store.create(SessionRecord(messages=talk(300, start=7)))
        return a, b

    a, b = run(db, create)
    conn = sqlite3.connect(db)
    try:
        for statement in HAND_EDITS[edit].split(";")[:-1]:
            conn.execute(statement, {"a": a.id, "b": b.id})
        conn.commit()
    finally:
        conn.close()
    with pytest.raises(SessionCorruptError, match="corrupt"):
        run(db, lambda store: store.get(a.id))
    run(db, lambda store: store.overwrite(a))
    assert run(db, lambda store: store.get(a.id)).messages == talk(300)


def test_an_older_robota_refuses_a_split_snapshot_instead_of_losing_messages(
    tmp_path: Path,
) -> None:
    db = database(tmp_path)
    rec = run(db, lambda store: store.create(SessionRecord(messages=talk(300))))
    body = sql(db, "SELECT body FROM sessions")[0][0]
    assert f'"version":"{SPLIT_VERSION}"' in body
    with pytest.raises(ValueError, match="unsupported session record"):
        SessionRecord.from_json(body)  # what an older release's get does with the row
    small = run(db, lambda store: store.create(SessionRecord(messages=talk(3))))
    assert SessionRecord.from_json(sql(db, "SELECT body FROM sessions WHERE id=?", small.id)[0][0])
    assert rec.id != small.id


# --- migration from the layout before -----------------------------------------------------------


def write_old_file(db: Path, records: list[SessionRecord]) -> None:
    """A file as a release before schema version 1 wrote it: whole records in ``body``."""
    conn = sqlite3.connect(db)
    conn.executescript(OLD_SCHEMA)
    for rec in records:
        conn.execute(
            "INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                rec.id,
                rec.revision,
                rec.updated_at.isoformat(),
                rec.title,
                rec.model,
                rec.parent_id,
                len(rec.messages),
                rec.to_json(),
            ),
        )
    conn.execute("INSERT INTO leases VALUES (?, ?, ?)", (records[0].id, "old-host", 4e9))
    conn.commit()
    conn.close()
    os.chmod(db, 0o600)


def test_a_file_written_by_the_old_layout_is_migrated_and_reads_as_before(
    tmp_path: Path,
) -> None:
    db = database(tmp_path)
    long = SessionRecord(
        model="m",
        system_prompt="You are terse.",
        messages=talk(400),
        usage=Usage(input_tokens=7, output_tokens=3, requests=2),
        revision=3,
        metadata={"k": "v"},
    )
    short = SessionRecord(title="a fork", parent_id=long.id, messages=talk(2), revision=1)
    write_old_file(db, [long, short])
    old_body = sql(db, "SELECT body FROM sessions WHERE id=?", long.id)[0][0]
    assert sql(db, "PRAGMA user_version") == [(0,)]

    async def body(store: SessionStore) -> SessionRecord:
        assert await store.get(long.id) == long
        assert await store.get(short.id) == short
        summaries = {s.id: s for s in await store.list()}
        assert summaries[long.id].message_count == 400
        assert summaries[short.id].title == "a fork"
        assert summaries[short.id].parent_id == long.id
        with pytest.raises(SessionLeaseHeldError):
            await store.acquire_lease(long.id, "new-host")
        return await store.save(long.with_messages(long.messages + talk(4, 400)))

    saved = run(db, body)
    assert sql(db, "PRAGMA user_version") == [(1,)]
    assert sql(db, "SELECT body FROM sessions WHERE id=?", short.id)[0][0] == short.to_json()
    assert old_body != sql(db, "SELECT body FROM sessions WHERE id=?", long.id)[0][0]
    got = run(db, lambda store: store.get(long.id))  # a second open: nothing left to migrate
    assert got.messages == talk(404)
    assert got.revision == saved.revision == 4
    conn = sqlite3.connect(db)
    try:
        migrate(conn)  # idempotent
        migrate(conn)
        assert conn.execute("PRAGMA user_version").fetchone() == (1,)
    finally:
        conn.close()


def test_an_older_robota_writing_a_whole_record_replaces_the_rows(tmp_path: Path) -> None:
    # An older release's save (UPDATE), overwrite (INSERT OR REPLACE: its implicit delete runs
    # no trigger) and delete, as its sqlite.py ran them: the session then reads as it wrote it
    # and none of its message rows is left.
    db = database(tmp_path)
    long = run(db, lambda store: store.create(SessionRecord(model="m", messages=talk(300))))
    other = run(db, lambda store: store.create(SessionRecord(model="m", messages=talk(200))))
    saved = long.with_messages(talk(5, start=900))
    saved = replace(saved, revision=2, title="saved by an older robota")
    sql(
        db,
        "UPDATE sessions SET revision=?, updated_at=?, title=?, model=?, parent_id=?, "
        "message_count=?, body=? WHERE id=? AND revision=?",
        *_old_row(saved)[1:],
        saved.id,
        1,
    )
    assert sql(db, "SELECT count(*) FROM messages WHERE session_id=?", long.id) == [(0,)]
    assert run(db, lambda store: store.get(long.id)) == saved
    replaced = replace(other.with_messages(talk(2, start=800)), revision=2)
    sql(db, "INSERT OR REPLACE INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?)", *_old_row(replaced))
    assert sql(db, "SELECT count(*) FROM messages WHERE session_id=?", other.id) == [(0,)]
    assert run(db, lambda store: store.get(other.id)) == replaced
    grown = run(db, lambda store: store.save(replaced.with_messages(talk(300))))
    assert sql(db, "SELECT count(*) FROM messages WHERE session_id=?", other.id) == [(300,)]
    sql(db, "DELETE FROM sessions WHERE id=?", grown.id)
    assert sql(db, "SELECT count(*) FROM messages") == [(0,)]
    assert [s.id for s in run(db, lambda store: store.list())] == [long.id]


def _old_row(rec: SessionRecord) -> tuple[object, ...]:
    return (rec.id, rec.revision, rec.updated_at.isoformat(), rec.title, rec.model,
            rec.parent_id, len(rec.messages), rec.to_json())  # fmt: skip


def test_a_file_from_a_newer_robota_is_refused_and_left_alone(tmp_path: Path) -> None:
    db = database(tmp_path)
    rec = SessionRecord(messages=talk(2))
    write_old_file(db, [rec])
    sql(db, "PRAGMA user_version = 2")
    with pytest.raises(SessionStoreError, match="newer"):
        run(db, lambda store: store.get(rec.id))
    assert sql(db, "SELECT name FROM sqlite_master WHERE name = 'messages'") == []
    assert sql(db, "PRAGMA user_version") == [(2,)]


def test_the_spill_threshold_keeps_short_sessions_in_one_row(tmp_path: Path) -> None:
    db = database(tmp_path)
    few = talk(4)
    assert len(dump_messages(few)) < SPILL_CHARS
    rec = run(db, lambda store: store.create(SessionRecord(messages=few)))
    assert sql(db, "SELECT count(*) FROM messages") == [(0,)]
    assert SessionRecord.from_json(sql(db, "SELECT body FROM sessions")[0][0]) == rec


def test_a_garbage_database_file_is_refused_even_while_its_log_holds_the_pages(
    tmp_path: Path,
) -> None:
    db = database(tmp_path)

    async def main() -> None:
        async with SQLiteSessionStore(db) as writer:
            rec = await writer.create(SessionRecord(messages=talk(10)))
            assert db.with_name(db.name + "-wal").stat().st_size > 0  # pages still in the log
            db.write_bytes(b"\x00garbage" * 512)
            async with SQLiteSessionStore(db) as reader:
                with pytest.raises(SessionStoreError, match="not a SQLite database"):
                    await reader.get(rec.id)

    anyio.run(main)
