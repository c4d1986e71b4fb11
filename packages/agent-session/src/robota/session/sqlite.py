"""SQLite session store: the embedded default (stdlib ``sqlite3``).

The database file lives exactly where the host says. Before SQLite opens it, its folder must be
this account's and not writable by others (created 0700 when missing), a missing file is created 0600 with
``O_EXCL | O_NOFOLLOW``, and an existing file and its ``-wal``/``-shm``/``-journal`` side files
are verified: never a symbolic link (SQLite would follow it), a regular file, this account's,
no group/other bits (issue #12). A refusal raises
:class:`~robota.core.host.errors.UnsafeStoreEntryError` or
:class:`~robota.core.host.errors.InsecurePermissionsError`, naming the path and the fix. Each call runs in a worker thread; one
connection is shared under a lock. Optimistic revisions are enforced by the database itself
(``UPDATE … WHERE revision = ?``), so separate processes sharing the file are safe too. Leases
live in the same file (``leases`` table, expiry in seconds since the epoch from ``clock``), so
they hold between processes on one machine (the clock is the wall clock).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from robota.session._sqlite import SQLiteFile
from robota.session.record import SessionRecord, SessionSummary
from robota.session.store import (
    Lease,
    SessionConflictError,
    SessionCorruptError,
    SessionLeaseHeldError,
    SessionLeaseLostError,
    SessionNotFoundError,
    SessionStore,
    SessionStoreError,
)

__all__ = ["SQLiteSessionStore"]

T = TypeVar("T")

_SCHEMA = """
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


class SQLiteSessionStore(SessionStore):
    """:class:`~robota.session.store.SessionStore` on one SQLite file.

    Args:
        path: The database file (created owner-only if missing), or ``":memory:"``. Its folder
            must be this account's and not writable by others (created 0700 if missing).
        clock: Seconds since the epoch, injectable for lease tests.

    Every method raises :class:`~robota.core.host.errors.OwnerOnlyError` (its
    ``UnsafeStoreEntryError`` / ``InsecurePermissionsError`` subclasses) when the first call
    opens the file and the file, a side file or the folder is unsafe; nothing is created at a
    link's target.

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
        self._db = SQLiteFile(path, schema=_SCHEMA, error=SessionStoreError)
        self._clock = clock

    async def _run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        return await self._db.run(fn)

    async def create(self, record: SessionRecord) -> SessionRecord:
        if record.revision != 0:
            raise SessionConflictError(f"session {record.id}: create needs revision 0")
        stored = _stamp(record, 1)

        def op(conn: sqlite3.Connection) -> None:
            try:
                conn.execute("INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?)", _row(stored))
            except sqlite3.IntegrityError as exc:
                raise SessionConflictError(f"session {record.id} already exists") from exc

        await self._run(op)
        return stored

    async def get(self, session_id: str) -> SessionRecord:
        """The stored record. A body that does not parse, has a field of the wrong type, names
        another session or disagrees with its row's revision is unreadable
        (:class:`SessionCorruptError`): it is never returned as this session's record."""

        def op(conn: sqlite3.Connection) -> tuple[str, object] | None:
            row = conn.execute(
                "SELECT body, revision FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
            return None if row is None else (str(row[0]), row[1])

        found = await self._run(op)
        if found is None:
            raise SessionNotFoundError(f"no session {session_id!r}")
        body, revision = found
        try:
            record = SessionRecord.from_json(body)
        except (ValueError, KeyError, TypeError) as exc:
            raise SessionCorruptError(
                f"session {session_id}: stored record is corrupt: {exc}"
            ) from exc
        if record.id != session_id:
            raise SessionCorruptError(
                f"session {session_id}: stored record is corrupt: it names session {record.id!r}"
            )
        if record.revision != revision:
            raise SessionCorruptError(
                f"session {session_id}: stored record is corrupt: revision {record.revision} "
                f"disagrees with the store's {revision!r}"
            )
        return record

    async def save(self, record: SessionRecord) -> SessionRecord:
        stored = _stamp(record, record.revision + 1)

        def op(conn: sqlite3.Connection) -> None:
            id_, rev, updated, title, model, parent, count, body = _row(stored)
            cursor = conn.execute(
                "UPDATE sessions SET revision=?, updated_at=?, title=?, model=?, parent_id=?, "
                "message_count=?, body=? WHERE id=? AND revision=?",
                (rev, updated, title, model, parent, count, body, id_, record.revision),
            )
            if cursor.rowcount == 1:
                return
            exists = conn.execute("SELECT revision FROM sessions WHERE id=?", (id_,)).fetchone()
            if exists is None:
                raise SessionNotFoundError(f"no session {id_!r}")
            raise SessionConflictError(
                f"session {id_}: stored revision {exists[0]} != {record.revision}"
            )

        await self._run(op)
        return stored

    async def overwrite(self, record: SessionRecord) -> SessionRecord:
        def op(conn: sqlite3.Connection) -> SessionRecord:
            conn.execute("BEGIN IMMEDIATE")
            try:
                row = conn.execute(
                    "SELECT revision FROM sessions WHERE id=?", (record.id,)
                ).fetchone()
                stored = _stamp(record, 1 if row is None else int(row[0]) + 1)
                conn.execute(
                    "INSERT OR REPLACE INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    _row(stored),
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
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
            cursor = conn.execute("DELETE FROM sessions WHERE id=?", (session_id,))
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
    record: SessionRecord,
) -> tuple[str, int, str, str | None, str | None, str | None, int, str]:
    return (
        record.id,
        record.revision,
        record.updated_at.isoformat(),
        record.title,
        record.model,
        record.parent_id,
        len(record.messages),
        record.to_json(),
    )
