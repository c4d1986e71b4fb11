"""Outsider attacks on issue #20's WAL journal (``SQLiteJournal(path, synchronous=...)``):
owner-only side files, durability across a real SIGKILL, typed refusal of a bad
``synchronous``, and two processes appending to one file."""

from __future__ import annotations

import os
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import anyio
import pytest
from robota.core.host.errors import OwnerOnlyError
from robota.session import SQLiteJournal

CHILD = textwrap.dedent(
    """
    import os, sys, anyio
    from robota.session import SQLiteJournal

    path, mode, run, count, umask = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
    os.umask(int(umask, 8))

    async def main() -> None:
        journal = SQLiteJournal(path, synchronous=mode)
        await journal.start_run(run, {"p": run})
        print("started", flush=True)
        for step in range(count):
            await journal.record_response(run, step, {"text": "x" * 200, "step": step})
            await journal.record_tool_start(run, f"{step}:0", "t", {"a": step})
            await journal.record_tool_result(run, f"{step}:0", {"r": step})
            print(step, flush=True)
        print("end", flush=True)

    anyio.run(main)
    """
)


def child(path: Path, mode: str, run: str, count: int, umask: str = "022") -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), mode, run, str(count), umask],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def load(path: Path, run: str) -> Any:
    async def go() -> Any:
        journal = SQLiteJournal(path)
        try:
            return await journal.load_run(run)
        finally:
            await journal.aclose()

    return anyio.run(go)


def mode_of(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


# ---------------------------------------------------------------------------------------------
# durability across SIGKILL


@pytest.mark.parametrize("mode", ["full", "normal"])
@pytest.mark.parametrize("after", [1, 7, 40])
def test_acknowledged_records_survive_sigkill_mid_stream(
    tmp_path: Path, mode: str, after: int
) -> None:
    # HELD
    path = tmp_path / "db" / "j.db"
    proc = child(path, mode, "r", 100_000)
    assert proc.stdout is not None
    acked = -1
    try:
        line = proc.stdout.readline()
        assert line.strip() == "started", proc.stderr.read() if proc.stderr else ""
        while acked < after:
            acked = int(proc.stdout.readline())
        # the child keeps writing: the kill lands in the middle of some commit
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    # the side files the killed process left are owner-only
    for suffix in ("", "-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            assert mode_of(side) == 0o600, (suffix, oct(mode_of(side)))
    run = load(path, "r")
    assert run is not None
    assert run.checkpoint == {"p": "r"}
    for step in range(acked + 1):
        assert run.responses[step]["step"] == step
        assert run.tools[f"{step}:0"].result == {"r": step}
    con = sqlite3.connect(path)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        con.close()


# ---------------------------------------------------------------------------------------------
# two processes appending to one journal


@pytest.mark.parametrize("mode", ["full", "normal"])
def test_two_processes_appending_lose_nothing(tmp_path: Path, mode: str) -> None:
    # HELD
    path = tmp_path / "db" / "j.db"
    count = 60
    procs = [child(path, mode, f"run{i}", count) for i in range(3)]
    outputs = [p.communicate(timeout=300) for p in procs]
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
        assert out.splitlines()[-1] == "end"
    for i in range(3):
        run = load(path, f"run{i}")
        assert run is not None
        assert sorted(run.responses) == list(range(count))
        assert all(run.tools[f"{s}:0"].result == {"r": s} for s in range(count))


# ---------------------------------------------------------------------------------------------
# owner-only side files


@pytest.mark.parametrize("umask", ["000", "022"])
def test_side_files_are_owner_only_whatever_the_umask(tmp_path: Path, umask: str) -> None:
    # HELD
    path = tmp_path / "db" / "j.db"
    proc = child(path, "full", "r", 3, umask=umask)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "started"
    assert proc.stdout.readline().strip() == "0"
    os.kill(proc.pid, signal.SIGKILL)  # keep -wal / -shm on disk
    proc.wait(timeout=30)
    seen = [s for s in ("-wal", "-shm") if path.with_name(path.name + s).exists()]
    assert seen, "WAL mode should leave side files after a kill"
    for suffix in ("", *seen):
        assert mode_of(path.with_name(path.name + suffix)) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
@pytest.mark.parametrize("kind", ["symlink", "group-readable", "world-readable", "fifo", "dir"])
def test_planted_side_file_is_refused_and_not_followed(
    tmp_path: Path, suffix: str, kind: str
) -> None:
    # HELD
    folder = tmp_path / "db"
    folder.mkdir(mode=0o700)
    path = folder / "j.db"
    side = folder / ("j.db" + suffix)
    target = tmp_path / "target"
    target.write_bytes(b"precious")
    target.chmod(0o600)
    if kind == "symlink":
        side.symlink_to(target)
    elif kind == "fifo":
        os.mkfifo(side, 0o600)
    elif kind == "dir":
        side.mkdir(mode=0o700)
    else:
        side.write_bytes(b"")
        side.chmod(0o640 if kind == "group-readable" else 0o604)

    async def go() -> None:
        journal = SQLiteJournal(path)
        try:
            with anyio.fail_after(20):
                await journal.start_run("r", {"p": 1})
        finally:
            await journal.aclose()

    with pytest.raises(OwnerOnlyError):
        anyio.run(go)
    assert target.read_bytes() == b"precious"
    if kind == "symlink":
        assert side.is_symlink()


def test_planted_side_file_after_open_is_refused_on_reopen(tmp_path: Path) -> None:
    # HELD
    folder = tmp_path / "db"
    path = folder / "j.db"

    async def first() -> None:
        journal = SQLiteJournal(path)
        await journal.start_run("r", {"p": 1})
        await journal.aclose()

    anyio.run(first)
    for s in ("-wal", "-shm"):
        p = path.with_name(path.name + s)
        if p.exists():
            p.unlink()
    target = tmp_path / "elsewhere"
    (folder / "j.db-wal").symlink_to(target)

    async def second() -> None:
        journal = SQLiteJournal(path)
        try:
            await journal.load_run("r")
        finally:
            await journal.aclose()

    with pytest.raises(OwnerOnlyError):
        anyio.run(second)
    assert not target.exists()


# ---------------------------------------------------------------------------------------------
# the synchronous option


@pytest.mark.parametrize("bad", ["FULL", "Normal", "off", "extra", "", " full", "0", "2"])
def test_invalid_synchronous_strings_are_refused_at_construction(tmp_path: Path, bad: str) -> None:
    # HELD
    with pytest.raises(ValueError, match="synchronous"):
        SQLiteJournal(tmp_path / "j.db", synchronous=bad)  # pyright: ignore[reportArgumentType]
    assert not (tmp_path / "j.db").exists()


@pytest.mark.parametrize("bad", [None, 1, 2, True, b"full", ["full"]])
def test_invalid_synchronous_objects_are_refused(tmp_path: Path, bad: object) -> None:
    # HELD
    with pytest.raises(ValueError, match="synchronous"):
        SQLiteJournal(tmp_path / "j.db", synchronous=bad)  # pyright: ignore[reportArgumentType]


def test_synchronous_is_a_keyword_only_option(tmp_path: Path) -> None:
    # HELD
    with pytest.raises(TypeError):
        SQLiteJournal(tmp_path / "j.db", "normal")  # type: ignore[misc]  # pyright: ignore[reportCallIssue]


@pytest.mark.parametrize(("mode", "level"), [("full", 2), ("normal", 1)])
def test_synchronous_level_is_applied_on_the_connection(
    tmp_path: Path, mode: str, level: int
) -> None:
    # HELD
    path = tmp_path / "db" / "j.db"

    async def go() -> tuple[int, str]:
        journal = SQLiteJournal(path, synchronous=mode)  # pyright: ignore[reportArgumentType]
        try:
            db: Any = getattr(journal, "_db")  # noqa: B009 - a private handle, read only

            def read(conn: sqlite3.Connection) -> tuple[int, str]:
                return (
                    conn.execute("PRAGMA synchronous").fetchone()[0],
                    conn.execute("PRAGMA journal_mode").fetchone()[0],
                )

            result: tuple[int, str] = await db.run(read)
            return result
        finally:
            await journal.aclose()

    assert anyio.run(go) == (level, "wal")
