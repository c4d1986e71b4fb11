"""SQLite and in-memory journals pass the journal conformance suite; writes survive reopening."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Literal

import anyio
import pytest
from robota.core.errors import JournalError
from robota.core.journal import Journal, MemoryJournal
from robota.session import SQLiteJournal
from robota.session.testing import JournalConformance


class TestSQLiteJournal(JournalConformance):
    async def make_journal(self) -> Journal:
        return SQLiteJournal(":memory:")


class TestMemoryJournal(JournalConformance):
    async def make_journal(self) -> Journal:
        return MemoryJournal()


class TestSQLiteFileJournal(JournalConformance):
    @pytest.fixture(autouse=True)
    def _folder(self, tmp_path: Path) -> None:
        self.folder = tmp_path

    async def make_journal(self) -> Journal:
        return SQLiteJournal(self.folder / "journal.db")


def test_records_survive_a_new_connection(tmp_path: Path) -> None:
    path = tmp_path / "j.db"

    async def write() -> None:
        journal = SQLiteJournal(path)
        await journal.start_run("r", {"p": 1})
        await journal.record_tool_start("r", "1:0", "t", {"a": 1})
        # no aclose: as if the process died here

    async def read() -> None:
        journal = SQLiteJournal(path)
        run = await journal.load_run("r")
        assert run is not None
        assert run.tools["1:0"].result is None
        await journal.aclose()

    anyio.run(write)
    anyio.run(read)


class TestSQLiteFileJournalSyncNormal(JournalConformance):
    """``synchronous="normal"`` keeps every journal behaviour (only power-loss safety differs)."""

    @pytest.fixture(autouse=True)
    def _folder(self, tmp_path: Path) -> None:
        self.folder = tmp_path

    async def make_journal(self) -> Journal:
        return SQLiteJournal(self.folder / "journal.db", synchronous="normal")


@pytest.mark.parametrize("synchronous", ["full", "normal"])
def test_the_journal_file_is_a_write_ahead_log_readable_by_another_process_after_a_crash(
    tmp_path: Path, synchronous: Literal["full", "normal"]
) -> None:
    """A WAL journal whose writer never closed (as if SIGKILLed) is read by a plain sqlite3
    connection (another process's view): the committed records are there."""
    path = tmp_path / "j.db"

    async def write() -> None:
        journal = SQLiteJournal(path, synchronous=synchronous)
        await journal.start_run("r", {"p": 1})
        await journal.record_response("r", 0, {"text": "hi"})

    anyio.run(write)
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert conn.execute("SELECT run_id, step FROM journal_responses").fetchall() == [("r", 0)]
    finally:
        conn.close()


def test_an_unknown_synchronous_setting_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="synchronous"):
        SQLiteJournal(tmp_path / "j.db", synchronous="off")  # pyright: ignore[reportArgumentType]


def test_a_journal_file_overwritten_with_garbage_is_refused_while_its_log_is_kept(
    tmp_path: Path,
) -> None:
    """In WAL mode SQLite reads pages still in the ``-wal`` file first, so a journal file
    overwritten with garbage while the first connection keeps the log open must still be
    refused by a new connection, not read as intact from the log."""
    path = tmp_path / "j.db"

    async def scenario() -> None:
        first = SQLiteJournal(path)
        await first.start_run("r", {"p": 1})
        size = path.stat().st_size
        path.write_bytes(b"\xfe" * max(size, 100))
        second = SQLiteJournal(path)
        with pytest.raises(JournalError, match="not a SQLite database"):
            await second.load_run("r")
        await first.aclose()

    anyio.run(scenario)
