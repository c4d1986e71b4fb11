"""One owner-only SQLite connection used from worker threads: the shared plumbing of the SQLite
session store and the SQLite journal."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import anyio
import anyio.to_thread
from robota.core.errors import RobotaError

__all__ = ["SQLiteFile", "create_owner_only"]

T = TypeVar("T")


def create_owner_only(path: Path) -> None:
    """Create ``path`` (and a missing parent folder) with owner-only modes from the start.

    Raises:
        OSError: the file cannot be created.
        RobotaError: it was created wider than 0600 (a filesystem that ignores modes).
    """
    parent = path.parent
    if not parent.exists():
        parent.mkdir(mode=0o700, parents=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    os.close(fd)
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise RobotaError(f"{path}: created with mode {mode:o}, expected 600")


class SQLiteFile:
    """A lazily opened SQLite connection; calls run one at a time in a worker thread.

    Args:
        path: Database file (created owner-only if missing) or ``":memory:"``.
        schema: SQL run once when the connection opens.
        pragmas: ``PRAGMA`` statements run when the connection opens.
        error: Builds the error a ``sqlite3.Error`` is turned into.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        schema: str,
        pragmas: tuple[str, ...] = ("busy_timeout = 5000",),
        error: Callable[[str], RobotaError],
    ) -> None:
        self.path = path
        self._schema = schema
        self._pragmas = pragmas
        self._error = error
        self._conn: sqlite3.Connection | None = None
        self._lock = anyio.Lock()

    def _connect(self) -> sqlite3.Connection:
        if self._conn is None:
            if self.path != ":memory:":
                create_owner_only(Path(self.path))
            conn = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
            for pragma in self._pragmas:
                conn.execute(f"PRAGMA {pragma}")
            conn.executescript(self._schema)
            self._conn = conn
        return self._conn

    async def run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` with the connection in a worker thread (one call at a time).

        Raises:
            RobotaError: the ``error`` factory's error for any ``sqlite3.Error``; errors ``fn``
                raises itself pass through.
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
