"""SQLite and in-memory journals pass the journal conformance suite; writes survive reopening."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
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
