"""SQLite execution journal (issue: agent-session; seed 000, "Execution Journal and
Continuation").

Implements :class:`robota.core.journal.Journal` on one SQLite file. Every write is its own
committed transaction in write-ahead-log mode (``journal_mode=WAL``) with ``synchronous=FULL``
by default, so a record a method returned from survives a SIGKILL of the process and a power
loss (``synchronous="normal"``: a SIGKILL only). WAL
syncs once per commit (the log), where the rollback-journal default synced the journal, the
database and the folder: on this repository's benchmark machine a commit went from ~18 ms to
~4 ms (issue #20, ``python -m tools.bench``). WAL needs every process sharing the file to be on
one machine (no network filesystem). The file is created owner-only, where the host says; an existing file,
its side files and its folder are verified first exactly as for
:class:`~robota.session.sqlite.SQLiteSessionStore` (no link, owner-only, this account's).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Literal, TypeVar

from robota.core.errors import JournalError
from robota.core.journal import AlreadyRecordedError, Journal, JournalRun, ToolRecord
from robota.core.messages import JsonValue
from robota.session._sqlite import SQLiteFile

__all__ = ["SQLiteJournal"]

T = TypeVar("T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS journal_runs (
    run_id TEXT PRIMARY KEY, checkpoint TEXT NOT NULL, outcome TEXT
);
CREATE TABLE IF NOT EXISTS journal_responses (
    run_id TEXT NOT NULL, step INTEGER NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (run_id, step)
);
CREATE TABLE IF NOT EXISTS journal_tools (
    run_id TEXT NOT NULL, key TEXT NOT NULL, tool_name TEXT NOT NULL,
    arguments TEXT NOT NULL, result TEXT,
    PRIMARY KEY (run_id, key)
);
"""


class SQLiteJournal(Journal):
    """A durable journal on SQLite.

    Args:
        path: Database file (created owner-only if missing) or ``":memory:"``; its folder must
            be this account's and not writable by others (created 0700 if missing).
        synchronous: ``"full"`` (default): every commit is synced to disk before the method
            returns, so a record survives a power loss too. ``"normal"``: commits reach the
            operating system before the method returns but the log is synced only at
            checkpoints, so a record survives a SIGKILL of the process (what the journal's
            continuation needs) but the last commits may be lost in a power loss or kernel
            crash (SQLite, "PRAGMA synchronous", WAL mode). On the benchmark machine
            ``"normal"`` takes a journaled round from ~+20 ms to under +1 ms (issue #20).

    Raises:
        ValueError: ``synchronous`` is neither ``"full"`` nor ``"normal"``.
        JournalError: (from every method) when SQLite fails.
        OwnerOnlyError: (from the first call) when the file, a side file or the folder is a
            link, the wrong kind of entry, readable by others or another account's.
    """

    def __init__(
        self, path: str | Path, *, synchronous: Literal["full", "normal"] = "full"
    ) -> None:
        if synchronous not in ("full", "normal"):
            raise ValueError(f"synchronous must be 'full' or 'normal', not {synchronous!r}")
        self._db = SQLiteFile(
            path,
            schema=_SCHEMA,
            pragmas=(
                "busy_timeout = 5000",
                "journal_mode = WAL",
                f"synchronous = {synchronous.upper()}",
            ),
            error=lambda message: JournalError(f"journal {message}"),
        )

    async def _run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        return await self._db.run(fn)

    async def start_run(self, run_id: str, checkpoint: JsonValue) -> None:
        def op(conn: sqlite3.Connection) -> None:
            try:
                conn.execute(
                    "INSERT INTO journal_runs VALUES (?, ?, NULL)", (run_id, json.dumps(checkpoint))
                )
            except sqlite3.IntegrityError as exc:
                raise JournalError(f"run {run_id} already journaled") from exc

        await self._run(op)

    async def load_run(self, run_id: str) -> JournalRun | None:
        def op(conn: sqlite3.Connection) -> JournalRun | None:
            row = conn.execute(
                "SELECT checkpoint, outcome FROM journal_runs WHERE run_id=?", (run_id,)
            ).fetchone()
            if row is None:
                return None
            responses = {
                int(step): json.loads(body)
                for step, body in conn.execute(
                    "SELECT step, body FROM journal_responses WHERE run_id=?", (run_id,)
                )
            }
            tools = {
                key: ToolRecord(
                    key=key,
                    tool_name=name,
                    arguments=json.loads(args),
                    result=None if result is None else json.loads(result),
                )
                for key, name, args, result in conn.execute(
                    "SELECT key, tool_name, arguments, result FROM journal_tools WHERE run_id=?",
                    (run_id,),
                )
            }
            return JournalRun(
                run_id=run_id,
                checkpoint=json.loads(row[0]),
                responses=responses,
                tools=tools,
                outcome=row[1],
            )

        return await self._run(op)

    async def record_response(self, run_id: str, step: int, response: JsonValue) -> None:
        def op(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT OR REPLACE INTO journal_responses VALUES (?, ?, ?)",
                (run_id, step, json.dumps(response)),
            )

        await self._run(op)

    async def record_tool_start(
        self, run_id: str, key: str, tool_name: str, arguments: JsonValue
    ) -> None:
        def op(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT OR REPLACE INTO journal_tools VALUES (?, ?, ?, ?, NULL)",
                (run_id, key, tool_name, json.dumps(arguments)),
            )

        await self._run(op)

    async def record_tool_result(self, run_id: str, key: str, result: JsonValue) -> None:
        def op(conn: sqlite3.Connection) -> None:
            cursor = conn.execute(
                "UPDATE journal_tools SET result=? WHERE run_id=? AND key=?",
                (json.dumps(result), run_id, key),
            )
            if cursor.rowcount != 1:
                raise JournalError(f"run {run_id}: no started tool call {key}")

        await self._run(op)

    async def record_tool_result_once(self, run_id: str, key: str, result: JsonValue) -> None:
        """One conditional write (``UPDATE ... WHERE result IS NULL``): of two connections
        recording under one key at once, exactly one succeeds; the other gets
        :class:`~robota.core.journal.AlreadyRecordedError` and nothing is replaced."""

        def op(conn: sqlite3.Connection) -> None:
            cursor = conn.execute(
                "UPDATE journal_tools SET result=? WHERE run_id=? AND key=? AND result IS NULL",
                (json.dumps(result), run_id, key),
            )
            if cursor.rowcount == 1:
                return
            row = conn.execute(
                "SELECT 1 FROM journal_tools WHERE run_id=? AND key=?", (run_id, key)
            ).fetchone()
            if row is None:
                raise JournalError(f"run {run_id}: no started tool call {key}")
            raise AlreadyRecordedError(
                f"run {run_id}: {key} already has a recorded result; it is never replaced",
                run_id=run_id,
                key=key,
            )

        await self._run(op)

    async def finish_run(
        self, run_id: str, outcome: Literal["completed", "failed", "interrupted"]
    ) -> None:
        def op(conn: sqlite3.Connection) -> None:
            conn.execute("UPDATE journal_runs SET outcome=? WHERE run_id=?", (outcome, run_id))

        await self._run(op)

    async def aclose(self) -> None:
        await self._db.aclose()
