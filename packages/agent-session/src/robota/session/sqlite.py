"""SQLite session store: the embedded default (stdlib ``sqlite3``).

The database file lives exactly where the host says. Before SQLite opens it, its folder must be
this account's and not writable by others (created 0700 when missing), a missing file is created 0600 with
``O_EXCL | O_NOFOLLOW``, and an existing file and its ``-wal``/``-shm``/``-journal`` side files
are verified: never a symbolic link (SQLite would follow it), a regular file, this account's,
no group/other bits (issue #12). A refusal raises
:class:`~robota.core.host.errors.UnsafeStoreEntryError` or
:class:`~robota.core.host.errors.InsecurePermissionsError`, naming the path and the fix. Each call runs in a worker thread; one
connection is shared under a lock. Optimistic revisions are enforced by the database itself
(the revision is checked and ``UPDATE … WHERE revision = ?`` written in one ``BEGIN IMMEDIATE``
transaction), so separate processes sharing the file are safe too. Leases live in the same file
(``leases`` table, expiry in seconds since the epoch from ``clock``), so they hold between
processes on one machine (the clock is the wall clock).

A save writes what changed, not the whole record: a session's older messages are rows of their
own and only the snapshot row (fields and the newest messages) is rewritten per turn
(:mod:`robota.session._sqlite_messages`; issue #20: one more turn of a 1,000-message session
wrote 738 KB before, a few KiB now). The file is in write-ahead-log mode (``journal_mode=WAL``,
``synchronous=FULL``: a save that returned survives a power loss); every process sharing it
must be on one machine (no network filesystem). A file from before this layout is migrated
on first use, in one transaction; its rows stay as they are. An older release may keep using
the file: a session it deletes loses its message rows too, and one it rewrites reads as it
wrote it (triggers the migration adds); it refuses a session with message rows as unreadable.
Message rows are chained to their session, position and predecessors, so rows edited, moved,
dropped or added by hand are a :class:`~robota.session.store.SessionCorruptError`.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from robota.session._sqlite import SQLiteFile
from robota.session._sqlite_messages import (
    MessageRow,
    encode_messages,
    open_connection,
    read_record,
    snapshot_body,
    store_messages,
    transaction,
)
from robota.session.record import SessionRecord, SessionSummary
from robota.session.store import (
    Lease,
    SessionConflictError,
    SessionLeaseHeldError,
    SessionLeaseLostError,
    SessionNotFoundError,
    SessionStore,
    SessionStoreError,
)

__all__ = ["SQLiteSessionStore"]

T = TypeVar("T")


class SQLiteSessionStore(SessionStore):
    """:class:`~robota.session.store.SessionStore` on one SQLite file.

    Args:
        path: The database file (created owner-only if missing), or ``":memory:"``. Its folder
            must be this account's and not writable by others (created 0700 if missing).
        clock: Seconds since the epoch, injectable for lease tests.

    Every method raises :class:`~robota.core.host.errors.OwnerOnlyError` (its
    ``UnsafeStoreEntryError`` / ``InsecurePermissionsError`` subclasses) when the first call
    opens the file and the file, a side file or the folder is unsafe; nothing is created at a
    link's target. The first call also migrates a file written before schema version 1
    (:mod:`robota.session._sqlite_messages`), and raises :class:`SessionStoreError` for a file
    a newer robota wrote, leaving that file byte for byte as it was.

    Example:
        >>> import anyio
        >>> async def demo() -> int:
        ...     async with SQLiteSessionStore(":memory:") as store:
        ...         rec = await store.create(SessionRecord(model="m"))
        ...         return (await store.get(rec.id)).revision
        >>> anyio.run(demo)
        1
    """

    def __init__(self, path: str | Path, *, clock: Callable[[], float] = time.time) -> None:
        self._db = SQLiteFile(
            path,
            schema="",
            pragmas=("busy_timeout = 5000",),
            error=SessionStoreError,
            prepare=open_connection,  # version check, then WAL mode, then migration
        )
        self._clock = clock

    async def _run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        return await self._db.run(fn)

    async def create(self, record: SessionRecord) -> SessionRecord:
        if record.revision != 0:
            raise SessionConflictError(f"session {record.id}: create needs revision 0")
        stored = _stamp(record, 1)

        def op(conn: sqlite3.Connection) -> None:
            rows = encode_messages(stored.messages)
            with transaction(conn):
                exists = conn.execute("SELECT 1 FROM sessions WHERE id=?", (stored.id,))
                if exists.fetchone() is not None:
                    raise SessionConflictError(f"session {record.id} already exists")
                try:
                    conn.execute(
                        "INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        _row(conn, stored, rows, keep=False),
                    )
                except sqlite3.IntegrityError as exc:
                    raise SessionConflictError(f"session {record.id} already exists") from exc

        await self._run(op)
        return stored

    async def get(self, session_id: str) -> SessionRecord:
        """The stored record. A snapshot that does not parse, has a field of the wrong type,
        names another session or disagrees with its row's revision, and a message row that is
        missing or damaged, make it unreadable (:class:`SessionCorruptError`): it is never
        returned as this session's record, nor with messages missing."""
        return await self._run(lambda conn: read_record(conn, session_id))

    async def save(self, record: SessionRecord) -> SessionRecord:
        """See :meth:`SessionStore.save`. Writes only what changed: message rows from the first
        message that differs from the stored ones (none for an appended turn until the tail
        passes :data:`~robota.session._sqlite_messages.SPILL_CHARS`) and the snapshot row."""
        stored = _stamp(record, record.revision + 1)

        def op(conn: sqlite3.Connection) -> None:
            rows = encode_messages(stored.messages)
            with transaction(conn):
                found = conn.execute(
                    "SELECT revision FROM sessions WHERE id=?", (stored.id,)
                ).fetchone()
                if found is None:
                    raise SessionNotFoundError(f"no session {stored.id!r}")
                if found[0] != record.revision:
                    raise SessionConflictError(
                        f"session {stored.id}: stored revision {found[0]} != {record.revision}"
                    )
                id_, rev, updated, title, model, parent, count, body = _row(
                    conn, stored, rows, keep=True
                )
                cursor = conn.execute(
                    "UPDATE sessions SET revision=?, updated_at=?, title=?, model=?, "
                    "parent_id=?, message_count=?, body=? WHERE id=? AND revision=?",
                    (rev, updated, title, model, parent, count, body, id_, record.revision),
                )
                if cursor.rowcount != 1:  # not reached under the write lock; kept as a guard
                    raise SessionConflictError(f"session {id_}: revision changed during save")

        await self._run(op)
        return stored

    async def overwrite(self, record: SessionRecord) -> SessionRecord:
        def op(conn: sqlite3.Connection) -> SessionRecord:
            rows = encode_messages(record.messages)
            with transaction(conn):
                row = conn.execute(
                    "SELECT revision FROM sessions WHERE id=?", (record.id,)
                ).fetchone()
                stored = _stamp(record, 1 if row is None else int(row[0]) + 1)
                # the delete (its trigger too) clears the old rows before the new are written
                conn.execute("DELETE FROM sessions WHERE id=?", (record.id,))
                conn.execute(
                    "INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    _row(conn, stored, rows, keep=False),
                )
            return stored

        return await self._run(op)

    async def list(self, *, limit: int = 50, offset: int = 0) -> Sequence[SessionSummary]:
        def op(conn: sqlite3.Connection) -> list[SessionSummary]:
            rows = conn.execute(
                "SELECT id, title, model, updated_at, message_count, parent_id FROM sessions "
                "ORDER BY updated_at DESC, id LIMIT ? OFFSET ?",
                (limit, offset),
            ).fetchall()
            return [
                SessionSummary(
                    id=r[0],
                    title=r[1],
                    model=r[2],
                    updated_at=datetime.fromisoformat(r[3]),
                    message_count=int(r[4]),
                    parent_id=r[5],
                )
                for r in rows
            ]

        return await self._run(op)

    async def delete(self, session_id: str) -> bool:
        def op(conn: sqlite3.Connection) -> bool:
            with transaction(conn):
                cursor = conn.execute("DELETE FROM sessions WHERE id=?", (session_id,))
                conn.execute("DELETE FROM messages WHERE session_id=?", (session_id,))
                conn.execute("DELETE FROM leases WHERE session_id=?", (session_id,))
            return cursor.rowcount == 1

        return await self._run(op)

    async def acquire_lease(self, session_id: str, owner: str, *, ttl: float = 3600.0) -> Lease:
        now = self._clock()

        def op(conn: sqlite3.Connection) -> None:
            conn.execute("BEGIN IMMEDIATE")
            try:
                row = conn.execute(
                    "SELECT owner, expires_at FROM leases WHERE session_id=?", (session_id,)
                ).fetchone()
                if row is not None and row[0] != owner and float(row[1]) > now:
                    raise SessionLeaseHeldError(
                        session_id=session_id, holder=str(row[0]), expires_at=_utc(float(row[1]))
                    )
                conn.execute(
                    "INSERT OR REPLACE INTO leases VALUES (?, ?, ?)", (session_id, owner, now + ttl)
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

        await self._run(op)
        return Lease(session_id=session_id, owner=owner, expires_at=_utc(now + ttl))

    async def renew_lease(self, session_id: str, owner: str, *, ttl: float = 3600.0) -> Lease:
        now = self._clock()

        def op(conn: sqlite3.Connection) -> None:
            cursor = conn.execute(
                "UPDATE leases SET expires_at=? WHERE session_id=? AND owner=?",
                (now + ttl, session_id, owner),
            )
            if cursor.rowcount == 1:
                return
            row = conn.execute(
                "SELECT owner FROM leases WHERE session_id=?", (session_id,)
            ).fetchone()
            holder = None if row is None else str(row[0])
            raise SessionLeaseLostError(session_id=session_id, owner=owner, holder=holder)

        await self._run(op)
        return Lease(session_id=session_id, owner=owner, expires_at=_utc(now + ttl))

    async def release_lease(self, session_id: str, owner: str) -> None:
        def op(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM leases WHERE session_id=? AND owner=?", (session_id, owner))

        await self._run(op)

    async def aclose(self) -> None:
        await self._db.aclose()


def _utc(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def _stamp(record: SessionRecord, revision: int) -> SessionRecord:
    from dataclasses import replace

    return replace(record, revision=revision, updated_at=datetime.now(UTC))


def _row(
    conn: sqlite3.Connection, record: SessionRecord, rows: list[MessageRow], *, keep: bool
) -> tuple[str, int, str, str | None, str | None, str | None, int, str]:
    """Store ``record``'s message rows (:func:`store_messages`) and return its ``sessions``
    row. Call inside a write transaction."""
    stored = store_messages(conn, record.id, rows, keep=keep)
    return (
        record.id,
        record.revision,
        record.updated_at.isoformat(),
        record.title,
        record.model,
        record.parent_id,
        len(record.messages),
        snapshot_body(record, stored),
    )
