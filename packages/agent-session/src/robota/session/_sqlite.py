"""One owner-only SQLite connection used from worker threads: the shared plumbing of the SQLite
session store and the SQLite journal."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import anyio
import anyio.to_thread
from robota.core.errors import RobotaError
from robota.core.host.owner_only import (
    create_private_file,
    ensure_private_dir,
    verify_private_file,
)

__all__ = ["SIDE_FILE_SUFFIXES", "SQLiteFile", "create_owner_only"]

T = TypeVar("T")


SIDE_FILE_SUFFIXES = ("-journal", "-wal", "-shm")
"""The files SQLite keeps beside a database (rollback journal, write-ahead log, shared memory)."""


def create_owner_only(path: Path) -> None:
    """Prepare ``path`` for ``sqlite3.connect``: an owner-only file in an owner-only folder.

    The folder goes through :func:`~robota.core.host.owner_only.ensure_private_dir`: created
    0700 when missing; an existing one is refused when it is a link, another account's, or
    has any group/other bit (issue #12: an owner-only store's folder is owner-only too; anyone
    who can add entries there could plant a side file). A missing database file is
    created empty with :func:`~robota.core.host.owner_only.create_private_file` (``O_EXCL |
    O_NOFOLLOW``, 0600, verified) so SQLite never creates it itself; an existing one, and each
    of its ``-journal``/``-wal``/``-shm`` side files that exists, is verified with
    :func:`~robota.core.host.owner_only.verify_private_file`: not a link (SQLite would follow
    it and create or overwrite the target), a regular file, this account's, no group/other
    bits. SQLite gives side files it creates the database file's mode.

    Raises:
        UnsafeStoreEntryError: the folder, the database or a side file is a link or the wrong
            kind of entry.
        InsecurePermissionsError: one of them is readable by others or owned by another
            account; the error's ``fix`` names the command to run.
        ModeNotEnforcedError: a new file or folder does not keep its owner-only mode.
        OSError: other filesystem failures.
    """
    ensure_private_dir(path.parent)
    try:
        os.close(create_private_file(path))
    except FileExistsError:
        verify_private_file(path)
    for suffix in SIDE_FILE_SUFFIXES:
        try:
            verify_private_file(path.with_name(path.name + suffix))
        except FileNotFoundError:
            continue


_HEADER = b"SQLite format 3\x00"


def _refuse_non_database(path: Path, error: Callable[[str], RobotaError]) -> None:
    """Raise ``error`` when the file is neither empty (new) nor a SQLite database. In
    write-ahead-log mode SQLite reads pages still in the ``-wal`` file before the database
    file, so a database file overwritten with garbage while another connection kept the log
    would otherwise be read as if intact; refused here as SQLite refuses it without a log
    ("file is not a database")."""
    with path.open("rb") as handle:
        head = handle.read(len(_HEADER))
    if head and head != _HEADER:
        raise error(f"sqlite: {path} is not a SQLite database (file is not a database)")


class SQLiteFile:
    """A lazily opened SQLite connection; calls run one at a time in a worker thread.

    The database file and its folder are prepared by :func:`create_owner_only` before each
    connection opens; a refusal there is raised as the owner-only error itself (with its
    ``path`` and ``fix``), not turned into the ``error`` factory's error.

    Args:
        path: Database file (created owner-only if missing) or ``":memory:"``.
        schema: SQL run once when the connection opens.
        pragmas: ``PRAGMA`` statements run when the connection opens.
        error: Builds the error a ``sqlite3.Error`` is turned into.
        prepare: Called with each new connection after ``pragmas`` and before ``schema`` (a
            check that must come before anything writes, a migration). When it raises, the
            connection is closed and the error propagates (a ``sqlite3.Error`` as ``error``'s).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        schema: str,
        pragmas: tuple[str, ...] = ("busy_timeout = 5000",),
        error: Callable[[str], RobotaError],
        prepare: Callable[[sqlite3.Connection], None] | None = None,
    ) -> None:
        self.path = path
        self._prepare = prepare
        self._schema = schema
        self._pragmas = pragmas
        self._error = error
        self._conn: sqlite3.Connection | None = None
        self._lock = anyio.Lock()

    def _connect(self) -> sqlite3.Connection:
        if self._conn is None:
            if self.path != ":memory:":
                create_owner_only(Path(self.path))
                _refuse_non_database(Path(self.path), self._error)
            conn = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
            try:
                for pragma in self._pragmas:
                    conn.execute(f"PRAGMA {pragma}")
                if self._prepare is not None:
                    self._prepare(conn)
                conn.executescript(self._schema)
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    async def run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` with the connection in a worker thread (one call at a time).

        Raises:
            RobotaError: the ``error`` factory's error for any ``sqlite3.Error``; errors ``fn``
                raises itself pass through.
            OwnerOnlyError: (``UnsafeStoreEntryError``, ``InsecurePermissionsError``) when the
                connection opens and the database file, a side file or the folder is unsafe.
        """
        async with self._lock:

            def call() -> T:
                try:
                    return fn(self._connect())
                except sqlite3.Error as exc:
                    raise self._error(f"sqlite: {exc}") from exc

            return await anyio.to_thread.run_sync(call)

    async def aclose(self) -> None:
        """Close the connection (it reopens on the next call)."""
        async with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
