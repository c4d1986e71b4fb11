"""Outsider attack on the incremental SQLite session store layout (issue #20).

Classes attacked: message sequences whose digests collide by position (repeats, swaps, middle
edits, shrink-then-regrow), the spill threshold at exactly ``SPILL_CHARS`` +/- 1, non-ASCII and
unencodable text, huge and binary messages, thousands of sessions, hand-edited rows (swapped,
copied, moved between sessions, trailing row dropped with its count, tail/rows overlap), an
older release sharing the file (reads, deletes, overwrites), a newer-version file, owner-only
side files. Each test says ``# HELD`` (the code resisted) or ``# HOLE`` (strict xfail).
"""

# ruff: noqa: RUF005  (histories read best as concatenations)
from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from robota.core.messages import (
    AssistantMessage,
    MediaPart,
    Message,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    ToolResultPart,
    UserMessage,
)
from robota.session import (
    SessionConflictError,
    SessionCorruptError,
    SessionNotFoundError,
    SessionRecord,
    SessionStore,
    SessionStoreError,
    SQLiteSessionStore,
)
from robota.session._sqlite_messages import SPILL_CHARS, encode_messages

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX modes")


# --- helpers ----------------------------------------------------------------------------------


def msg(i: int, salt: str = "") -> Message:
    text = f"m{i}{salt} " + "lorem ipsum " * 8
    if i % 2:
        return AssistantMessage(parts=(TextPart(text=text),), model="m")
    return UserMessage.of(text)


def talk(count: int, start: int = 0, salt: str = "") -> tuple[Message, ...]:
    return tuple(msg(i, salt) for i in range(start, start + count))


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
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        return conn.execute(statement, args).fetchall()
    finally:
        conn.close()


def script(db: Path, text: str) -> None:
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.executescript(text)
    finally:
        conn.close()


def body_chars(message: Message) -> int:
    return len(encode_messages([message])[0][1])


def sized(chars: int, salt: str = "x") -> Message:
    """A user message whose stored body is exactly ``chars`` characters."""
    overhead = body_chars(UserMessage.of(""))
    return UserMessage.of(salt * (chars - overhead))


def saves_in_sequence(db: Path, histories: Sequence[Sequence[Message]]) -> None:
    """Create then save each history in turn; after each save, a fresh connection's ``get``
    returns exactly it, ``list`` counts it and the row layout is a prefix of it."""

    async def main() -> None:
        async with SQLiteSessionStore(db) as store:
            rec = await store.create(SessionRecord(model="m", messages=tuple(histories[0])))
            for n, history in enumerate(histories):
                if n:
                    rec = await store.save(rec.with_messages(tuple(history)))
                async with SQLiteSessionStore(db) as fresh:
                    got = await fresh.get(rec.id)
                    assert got.messages == tuple(history), f"step {n}"
                    assert got.revision == rec.revision
                    [summary] = [s for s in await fresh.list(limit=10) if s.id == rec.id]
                    assert summary.message_count == len(history)
                stored = [
                    str(b)
                    for (b,) in sql(
                        db, "SELECT body FROM messages WHERE session_id=? ORDER BY seq", rec.id
                    )
                ]
                assert stored == [b for _, b in encode_messages(history)][: len(stored)]

    anyio.run(main)


# --- sequences that collide by position -------------------------------------------------------

SAME = UserMessage.of("same " * 40)
HEAD = talk(60)

SEQUENCES: dict[str, list[tuple[Message, ...]]] = {
    # HELD: one message 200 times, shortened, regrown
    "same message repeated": [(SAME,) * 200, (SAME,) * 150, (SAME,) * 210, (SAME,) * 3],
    # HELD: two head messages swapped
    "swapped in the head": [HEAD, (HEAD[1], HEAD[0], *HEAD[2:]), HEAD],
    # HELD: a message edited in the middle, then edited back
    "edited in the middle": [
        HEAD,
        (*HEAD[:30], UserMessage.of("edited"), *HEAD[31:]),
        HEAD,
    ],
    # HELD: shortened, then regrown to the same length with different content
    "shortened then regrown": [HEAD, HEAD[:20], HEAD[:20] + talk(40, 20, salt="b")],
    # HELD: everything dropped, then regrown
    "emptied then regrown": [HEAD, (), HEAD[:1], HEAD],
    # HELD: the head message removed (all positions shift by one)
    "head removed": [HEAD, HEAD[1:], HEAD[2:] + HEAD[:2]],
    # HELD: non-ASCII of every width, NUL, RTL, combining marks
    "non-ascii": [
        tuple(UserMessage.of(f"{i} é漢字😀\u202e\u0301\x00 " * 30) for i in range(40)),
        tuple(UserMessage.of(f"{i} é漢字😀\u202e\u0301\x00 " * 30) for i in range(41)),
    ],
    # HELD: a 3 MB single message in the middle, then removed
    "huge single message": [
        HEAD[:10] + (UserMessage.of("h" * 3_000_000),) + HEAD[10:],
        HEAD,
    ],
    # HELD: media (all 256 byte values), by url, tool call/result pairs
    "media and tools": [
        HEAD[:30]
        + (
            UserMessage(
                parts=(
                    TextPart(text="look"),
                    MediaPart(media_kind="image", media_type="image/png", data=bytes(range(256))),
                    MediaPart(media_kind="document", media_type="application/pdf", url="u://x"),
                )
            ),
            AssistantMessage(
                parts=(ToolCallPart(id="c1", name="t", arguments={"b": 1, "a": [1.5, None]}),)
            ),
            ToolResultMessage(
                results=(
                    ToolResultPart(
                        call_id="c1",
                        name="t",
                        content=(
                            MediaPart(media_kind="binary", media_type="x/y", data=b"\x00" * 5000),
                        ),
                    ),
                )
            ),
        )
        + HEAD[30:],
        HEAD,
    ],
}


@pytest.mark.parametrize("name", SEQUENCES, ids=SEQUENCES.keys())
def test_every_save_in_a_colliding_sequence_reads_back_exactly(tmp_path: Path, name: str) -> None:
    saves_in_sequence(database(tmp_path), SEQUENCES[name])


@pytest.mark.parametrize("delta", [-1, 0, 1])
@pytest.mark.parametrize("with_rows", [False, True])
def test_a_tail_at_the_spill_threshold(tmp_path: Path, delta: int, with_rows: bool) -> None:
    # HELD: <= SPILL_CHARS stays in the snapshot row, one more character spills to rows
    db = database(tmp_path)
    head = talk(100) if with_rows else ()
    tail = (sized(SPILL_CHARS // 2), sized(SPILL_CHARS - SPILL_CHARS // 2 + delta, "é"))
    assert sum(body_chars(m) for m in tail) == SPILL_CHARS + delta

    async def body(store: SessionStore) -> tuple[SessionRecord, int]:
        rec = await store.create(SessionRecord(messages=head))
        before = len(sql(db, "SELECT seq FROM messages"))
        rec = await store.save(rec.with_messages(head + tail))
        assert (await store.get(rec.id)).messages == head + tail
        return rec, before

    _, before = run(db, body)
    rows = len(sql(db, "SELECT seq FROM messages"))
    assert before == len(head)
    assert rows == before + (len(tail) if delta > 0 else 0)


def test_a_surrogate_in_a_title_fails_the_save_and_changes_nothing(tmp_path: Path) -> None:
    # HELD: the failed save rolls back the message rows it already rewrote
    db = database(tmp_path)

    async def body(store: SessionStore) -> None:
        rec = await store.create(SessionRecord(messages=talk(100)))
        before = sql(db, "SELECT seq, digest, body FROM messages ORDER BY seq")
        bad = rec.with_messages(talk(10) + talk(90, 10, salt="z"))
        with pytest.raises(UnicodeEncodeError):
            await store.save(replace(bad, title="\udc80"))
        assert sql(db, "SELECT seq, digest, body FROM messages ORDER BY seq") == before
        assert (await store.get(rec.id)).messages == talk(100)
        again = await store.save(rec.with_messages(talk(101)))
        assert (await store.get(rec.id)).messages == talk(101)
        assert again.revision == 2

    run(db, body)


def test_a_surrogate_in_a_message_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    # HELD: an unencodable message raises (as the old release did) and nothing changes
    db = database(tmp_path)

    async def body(store: SessionStore) -> None:
        rec = await store.create(SessionRecord(messages=talk(100)))
        with pytest.raises(ValueError, match="surrogates"):
            await store.save(rec.with_messages(talk(50) + (UserMessage.of("\ud83d"),)))
        assert (await store.get(rec.id)).messages == talk(100)
        assert (await store.get(rec.id)).revision == 1

    run(db, body)


def test_thousands_of_sessions_list_get_and_delete(tmp_path: Path) -> None:
    # HELD: 2,000 sessions of 1..60 messages; list counts, get exact, delete leaves no row
    db = database(tmp_path)

    async def body(store: SessionStore) -> None:
        ids: list[tuple[str, int]] = []
        for i in range(2000):
            n = 1 + (i * 37) % 60
            rec = await store.create(SessionRecord(model=f"m{i}", messages=talk(n, salt=str(i))))
            ids.append((rec.id, n))
        listed = {s.id: s.message_count for s in await store.list(limit=5000)}
        assert listed == dict(ids)
        for sid, n in ids[::97]:
            assert len((await store.get(sid)).messages) == n
        for sid, _ in ids[::2]:
            assert await store.delete(sid)
        gone = {sid for sid, _ in ids[::2]}
        left = {str(s) for (s,) in sql(db, "SELECT DISTINCT session_id FROM messages")}
        assert not (left & gone)
        assert len(await store.list(limit=5000)) == 1000

    run(db, body)


def test_a_stale_writer_rewriting_the_middle_changes_no_row(tmp_path: Path) -> None:
    # HELD: the conflict is raised before any row is deleted or inserted
    db = database(tmp_path)

    async def main() -> None:
        async with SQLiteSessionStore(db) as a, SQLiteSessionStore(db) as b:
            rec = await a.create(SessionRecord(messages=talk(300)))
            stale = await b.get(rec.id)
            await a.save(rec.with_messages(talk(301)))
            before = sql(db, "SELECT * FROM messages ORDER BY seq")
            snap = sql(db, "SELECT * FROM sessions")
            with pytest.raises(SessionConflictError):
                await b.save(stale.with_messages(talk(5)))
            with pytest.raises(SessionConflictError):
                await b.save(stale.with_messages(talk(150) + talk(300, 150, salt="q")))
            assert sql(db, "SELECT * FROM messages ORDER BY seq") == before
            assert sql(db, "SELECT * FROM sessions") == snap
            with pytest.raises(SessionNotFoundError):
                await b.save(SessionRecord(revision=1, messages=talk(300)))

    anyio.run(main)


def test_forks_are_independent_copies(tmp_path: Path) -> None:
    # HELD: a fork shares no row with its parent; deleting the parent keeps the fork whole
    db = database(tmp_path)

    async def body(store: SessionStore) -> None:
        parent = await store.create(SessionRecord(messages=talk(200)))
        child = await store.create(parent.fork())
        child = await store.save(child.with_messages(talk(100) + talk(5, 100, salt="c")))
        parent = await store.save(parent.with_messages(talk(210)))
        assert await store.delete(parent.id)
        got = await store.get(child.id)
        assert got.messages == talk(100) + talk(5, 100, salt="c")
        assert got.parent_id == parent.id
        [summary] = await store.list()
        assert summary.parent_id == parent.id
        assert summary.message_count == 105

    run(db, body)


def test_overwrite_after_orphan_rows_leaves_no_stale_row(tmp_path: Path) -> None:
    # HELD: rows left under an id (a hand delete of the sessions row) are cleared by
    # overwrite and by create of that id
    db = database(tmp_path)

    async def body(store: SessionStore) -> None:
        rec = await store.create(SessionRecord(messages=talk(300)))
        await store.aclose()
        sql(db, "DELETE FROM sessions")
        fresh = await store.overwrite(SessionRecord(id=rec.id, messages=talk(3, salt="o")))
        assert (await store.get(rec.id)).messages == talk(3, salt="o")
        assert fresh.revision == 1
        assert sql(db, "SELECT count(*) FROM messages") == [(0,)]

    run(db, body)


# --- hand-edited rows -------------------------------------------------------------------------


def _blake(body: str) -> bytes:
    return hashlib.blake2b(body.encode(), digest_size=16).digest()


def damaged(tmp_path: Path, edit: Callable[[Path, str, str], object]) -> None:
    """Create a 301-message session (300 rows, one in the snapshot; and a second one like
    it), apply ``edit``, expect a typed
    corrupt error from ``get`` (never a record with other messages), then overwrite repairs."""
    db = database(tmp_path)

    async def setup(store: SessionStore) -> tuple[SessionRecord, SessionRecord]:
        a = await store.create(SessionRecord(messages=talk(300)))
        a = await store.save(a.with_messages(a.messages + (UserMessage.of("tail"),)))
        b = await store.create(SessionRecord(messages=talk(300, salt="B")))
        b = await store.save(b.with_messages(b.messages + (UserMessage.of("tail"),)))
        return a, b

    a, b = run(db, setup)
    edit(db, a.id, b.id)

    async def check(store: SessionStore) -> None:
        try:
            got = await store.get(a.id)
        except SessionCorruptError:
            pass
        else:
            assert got.messages == a.messages, "get returned messages that were never saved"
        await store.overwrite(a)
        assert (await store.get(a.id)).messages == a.messages

    run(db, check)


def test_a_row_body_changed_to_other_valid_json_without_its_digest(tmp_path: Path) -> None:
    # HELD: digest mismatch is a typed corrupt error
    def edit(db: Path, a: str, _b: str) -> None:
        sql(db, "UPDATE messages SET body=(SELECT body FROM messages WHERE seq=9 AND session_id=?1)"
            " WHERE seq=8 AND session_id=?1", a)  # fmt: skip

    damaged(tmp_path, edit)


def test_rows_renumbered_from_one(tmp_path: Path) -> None:
    # HELD: a gap at seq 0 is a typed corrupt error
    damaged(tmp_path, lambda db, a, _b: sql(
        db, "UPDATE messages SET seq = seq + 1000 WHERE session_id=?", a))  # fmt: skip


def test_a_row_body_stored_as_a_blob(tmp_path: Path) -> None:
    # HELD: a BLOB body (same bytes) is refused
    damaged(tmp_path, lambda db, a, _b: sql(
        db, "UPDATE messages SET body = CAST(body AS BLOB) WHERE seq = 4 AND session_id=?", a))  # fmt: skip


# HELD (fixed): the digest covered the body only, not its position: two rows swapped read as a
# reordered history; now each row's digest chains its session, seq and the previous row's digest
def test_two_rows_swapped(tmp_path: Path) -> None:
    def edit(db: Path, a: str, _b: str) -> None:
        script(db, f"""
            UPDATE messages SET seq = -1 WHERE session_id='{a}' AND seq = 3;
            UPDATE messages SET seq = 3 WHERE session_id='{a}' AND seq = 4;
            UPDATE messages SET seq = 4 WHERE session_id='{a}' AND seq = -1;
        """)  # fmt: skip

    damaged(tmp_path, edit)


# HELD (fixed): a row copied over another (body and digest, one UPDATE) read as a duplicated
# message; now the copied digest is not the chain link of its position
def test_a_row_copied_over_another(tmp_path: Path) -> None:
    def edit(db: Path, a: str, _b: str) -> None:
        sql(db, "UPDATE messages SET (body, digest) = (SELECT body, digest FROM messages "
            "WHERE seq=0 AND session_id=?1) WHERE seq=2 AND session_id=?1", a)  # fmt: skip

    damaged(tmp_path, edit)


# HELD (fixed): rows were not bound to their session: another session's rows read as this one's;
# now the session id is part of every chain link
def test_rows_moved_from_another_session(tmp_path: Path) -> None:
    def edit(db: Path, a: str, b: str) -> None:
        script(db, f"""
            DELETE FROM messages WHERE session_id='{a}';
            UPDATE messages SET session_id='{a}' WHERE session_id='{b}';
        """)  # fmt: skip

    damaged(tmp_path, edit)


# HELD (fixed): the snapshot did not record how many rows it owns: the last row dropped with its
# message_count read as a session missing a message; now it names its row count and chain end
def test_the_last_row_dropped_with_its_count(tmp_path: Path) -> None:
    def edit(db: Path, a: str, _b: str) -> None:
        script(db, f"""
            DELETE FROM messages WHERE session_id='{a}' AND seq =
                (SELECT max(seq) FROM messages WHERE session_id='{a}');
            UPDATE sessions SET message_count = message_count - 1 WHERE id='{a}';
        """)  # fmt: skip

    damaged(tmp_path, edit)


# HELD (fixed): a row duplicating the first snapshot-tail message (tail and rows overlapping) with
# the count raised read as a session with that message twice; now the row count disagrees
def test_tail_and_rows_overlapping(tmp_path: Path) -> None:
    def edit(db: Path, a: str, _b: str) -> None:
        [(k,)] = sql(db, "SELECT count(*) FROM messages WHERE session_id=?", a)
        body = encode_messages([UserMessage.of("tail")])[0][1]
        sql(db, "INSERT INTO messages VALUES (?, ?, ?, ?)", a, k, _blake(body), body)
        sql(db, "UPDATE sessions SET message_count = message_count + 1 WHERE id=?", a)

    damaged(tmp_path, edit)


# --- an older release sharing the file (its SQL, exactly as HEAD's sqlite.py ran it) ----------

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


class OldRelease:
    """The pre-#20 store's statements, run synchronously on the same file."""

    def __init__(self, db: Path) -> None:
        self.conn = sqlite3.connect(str(db), isolation_level=None)
        self.conn.execute("PRAGMA busy_timeout = 5000")
        self.conn.executescript(OLD_SCHEMA)

    def close(self) -> None:
        self.conn.close()

    @staticmethod
    def row(r: SessionRecord) -> tuple[Any, ...]:
        return (r.id, r.revision, r.updated_at.isoformat(), r.title, r.model, r.parent_id,
                len(r.messages), r.to_json())  # fmt: skip

    def create(self, rec: SessionRecord) -> SessionRecord:
        stored = replace(rec, revision=1, updated_at=datetime.now(UTC))
        self.conn.execute("INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?)", self.row(stored))
        return stored

    def get(self, sid: str) -> SessionRecord:
        [(body, revision)] = self.conn.execute(
            "SELECT body, revision FROM sessions WHERE id = ?", (sid,)
        ).fetchall()
        rec = SessionRecord.from_json(str(body))  # ValueError: what the old get turned corrupt
        assert rec.revision == revision
        return rec

    def save(self, rec: SessionRecord) -> SessionRecord:
        stored = replace(rec, revision=rec.revision + 1, updated_at=datetime.now(UTC))
        id_, rev, updated, title, model, parent, count, body = self.row(stored)
        cur = self.conn.execute(
            "UPDATE sessions SET revision=?, updated_at=?, title=?, model=?, parent_id=?, "
            "message_count=?, body=? WHERE id=? AND revision=?",
            (rev, updated, title, model, parent, count, body, id_, rec.revision),
        )
        assert cur.rowcount == 1
        return stored

    def overwrite(self, rec: SessionRecord) -> None:
        self.conn.execute("BEGIN IMMEDIATE")
        [(revision,)] = self.conn.execute(
            "SELECT revision FROM sessions WHERE id=?", (rec.id,)
        ).fetchall()
        stored = replace(rec, revision=int(revision) + 1, updated_at=datetime.now(UTC))
        self.conn.execute(
            "INSERT OR REPLACE INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?)", self.row(stored)
        )
        self.conn.execute("COMMIT")

    def delete(self, sid: str) -> None:
        self.conn.execute("DELETE FROM sessions WHERE id=?", (sid,))
        self.conn.execute("DELETE FROM leases WHERE session_id=?", (sid,))


def test_an_old_file_opens_reads_and_saves_and_the_old_release_keeps_up(tmp_path: Path) -> None:
    # HELD: old file migrated; long sessions saved by the new code are refused by the old
    # release, short ones still read there
    db = database(tmp_path)
    os.close(os.open(db, os.O_CREAT | os.O_WRONLY, 0o600))
    old = OldRelease(db)
    long_ = old.create(SessionRecord(model="m", messages=talk(500), title="é long"))
    short = old.create(SessionRecord(model="m", messages=talk(2)))
    old.close()

    async def body(store: SessionStore) -> tuple[SessionRecord, SessionRecord]:
        got = await store.get(long_.id)
        assert got == long_
        a = await store.save(got.with_messages(talk(250) + talk(260, 250, salt="n")))
        b = await store.save((await store.get(short.id)).with_messages(talk(3)))
        assert (await store.get(a.id)).messages == talk(250) + talk(260, 250, salt="n")
        return a, b

    a, b = run(db, body)
    assert sql(db, "PRAGMA user_version") == [(1,)]
    old = OldRelease(db)
    try:
        with pytest.raises(ValueError, match="unsupported"):
            old.get(a.id)
        assert old.get(b.id).messages == talk(3)
        old.save(old.get(b.id).with_messages(talk(4)))
    finally:
        old.close()
    assert run(db, lambda store: store.get(b.id)).messages == talk(4)


# HELD (fixed): an older release sharing the file deletes only the sessions row: the message
# bodies stayed in the file forever; now a trigger the migration adds deletes them with the row
def test_a_session_deleted_by_an_older_release_leaves_no_message(tmp_path: Path) -> None:
    db = database(tmp_path)
    rec = run(db, lambda store: store.create(SessionRecord(messages=talk(300))))
    old = OldRelease(db)
    old.delete(rec.id)
    old.close()
    run(db, lambda store: store.list())
    assert sql(db, "SELECT count(*) FROM messages WHERE session_id=?", rec.id) == [(0,)]


# HELD (fixed): a complete record an older release overwrote (version-1 snapshot) was refused as
# corrupt because stale rows remained under it; now a trigger deletes the rows of a whole record
def test_a_session_an_older_release_overwrote_reads_as_written(tmp_path: Path) -> None:
    db = database(tmp_path)
    rec = run(db, lambda store: store.create(SessionRecord(messages=talk(300))))
    old = OldRelease(db)
    old.overwrite(rec.with_messages(talk(7, salt="old")))
    old.close()
    assert run(db, lambda store: store.get(rec.id)).messages == talk(7, salt="old")


def test_two_stores_migrating_one_old_file_at_once(tmp_path: Path) -> None:
    # HELD: both open the old file together; one migration, both read and save
    db = database(tmp_path)
    os.close(os.open(db, os.O_CREAT | os.O_WRONLY, 0o600))
    old = OldRelease(db)
    recs = [old.create(SessionRecord(messages=talk(40 + i))) for i in range(2)]
    old.close()

    async def main() -> None:
        async with SQLiteSessionStore(db) as a, SQLiteSessionStore(db) as b:

            async def touch(store: SessionStore, rec: SessionRecord) -> None:
                got = await store.get(rec.id)
                await store.save(got.with_messages(got.messages + talk(50, 100)))

            async with anyio.create_task_group() as tg:
                tg.start_soon(touch, a, recs[0])
                tg.start_soon(touch, b, recs[1])
        async with SQLiteSessionStore(db) as c:
            for i, rec in enumerate(recs):
                assert (await c.get(rec.id)).messages == talk(40 + i) + talk(50, 100)

    anyio.run(main)


# --- files: newer version, non-database, owner-only ------------------------------------------


# HELD (fixed): "refused and left alone" was not byte-true: PRAGMA journal_mode=WAL ran before the
# version check and converted the newer file to WAL; now the version is read first
def test_a_newer_version_file_is_byte_for_byte_untouched(tmp_path: Path) -> None:
    db = database(tmp_path)
    os.close(os.open(db, os.O_CREAT | os.O_WRONLY, 0o600))
    old = OldRelease(db)
    old.create(SessionRecord(messages=talk(3)))
    old.conn.execute("PRAGMA user_version = 7")
    old.close()
    before = db.read_bytes()
    with pytest.raises(SessionStoreError, match="newer"):
        run(db, lambda store: store.list())
    assert db.read_bytes() == before
    assert sql(db, "PRAGMA journal_mode") == [("delete",)]


def test_side_files_are_owner_only_and_a_planted_link_is_refused(tmp_path: Path) -> None:
    # HELD: after WAL writes every file is 0600; a -shm link is refused and its target unmade
    db = database(tmp_path)

    async def body(store: SessionStore) -> None:
        rec = await store.create(SessionRecord(messages=talk(300)))
        await store.save(rec.with_messages(talk(320)))
        for suffix in ("", "-wal", "-shm"):
            path = db.with_name(db.name + suffix)
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, suffix

    old_umask = os.umask(0)
    try:
        run(db, body)
    finally:
        os.umask(old_umask)
    for suffix in ("-wal", "-shm"):
        side = db.with_name(db.name + suffix)
        if side.exists():
            side.unlink()
    target = tmp_path / "elsewhere"
    db.with_name(db.name + "-shm").symlink_to(target)
    with pytest.raises(Exception, match=r"link|symbolic"):
        run(db, lambda store: store.list())
    assert not target.exists()


# --- measure (report only) --------------------------------------------------------------------


def test_measure_bytes_written_per_appended_turn_of_a_1000_message_session(
    tmp_path: Path,
) -> None:
    # MEASURE: WAL bytes one save appends, checkpointed (TRUNCATE) before each save
    db = database(tmp_path)
    wal = db.with_name(db.name + "-wal")

    async def body(store: SessionStore) -> tuple[list[int], int]:
        rec = await store.create(SessionRecord(model="m", messages=talk(1000)))
        grew: list[int] = []
        for n in range(1000, 1060, 2):
            sql(db, "PRAGMA wal_checkpoint(TRUNCATE)")
            before = wal.stat().st_size if wal.exists() else 0
            rec = await store.save(rec.with_messages(rec.messages + talk(2, n)))
            grew.append(wal.stat().st_size - before)
        assert (await store.get(rec.id)).messages == talk(1060)
        return grew, len(rec.to_json())

    grew, record = run(db, body)
    turn = sum(body_chars(m) for m in talk(2, 1000))
    print(
        f"\nMEASURE bytes/turn (1,000-message session, record {record} chars, turn {turn} "
        f"chars): median={sorted(grew)[len(grew) // 2]} max={max(grew)} min={min(grew)} "
        f"mean={sum(grew) // len(grew)} over {len(grew)} turns"
    )
