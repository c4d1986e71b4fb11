"""Every session store verifies what already exists (issue #12).

The SQLite session store, the SQLite journal and the JSONL event log each meet a pre-planted
entry at their own paths: (a) wide modes, (b) a symbolic link to a victim, (c) another
account's entry, (d) the wrong kind of entry. Each is refused with its typed error naming the
path and the fix, before SQLite or the log writer touches anything: the victim keeps its
content and mode and no database appears at a link's target. A clean path still works.
"""

from __future__ import annotations

import os
import signal
import stat
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from types import FrameType

import anyio
import pytest
from robota.core.host.errors import InsecurePermissionsError, UnsafeStoreEntryError
from robota.session import EventLog, SessionRecord, SQLiteJournal, SQLiteSessionStore

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX modes")

needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs chown (run as root)"
)

FOREIGN = 12345
SQLITE_HEADER = b"SQLite format 3\x00"


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture(autouse=True)
def no_hang() -> Iterator[None]:
    """A FIFO opened by mistake would block forever; fail the test instead."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError("blocked (a FIFO was opened?)")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(10)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    target = folder / "victim.txt"
    target.write_bytes(b"precious")
    os.chmod(target, 0o644)
    return target


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir(mode=0o700)
    return folder


def _victim_untouched(victim: Path) -> None:
    assert victim.read_bytes() == b"precious"
    assert _mode(victim) == 0o644


# --- the two SQLite stores ----------------------------------------------------------------

Use = Callable[[Path], Awaitable[None]]


async def _use_sessions(path: Path) -> None:
    async with SQLiteSessionStore(path) as store:
        record = await store.create(SessionRecord(model="m"))
        assert (await store.get(record.id)).revision == 1


async def _use_journal(path: Path) -> None:
    journal = SQLiteJournal(path)
    run_id = f"run_{uuid.uuid4().hex}"
    try:
        await journal.start_run(run_id, {"step": 0})
        assert await journal.load_run(run_id) is not None
    finally:
        await journal.aclose()


STORES: dict[str, Use] = {"sessions": _use_sessions, "journal": _use_journal}


def _run(use: Use, path: Path) -> None:
    anyio.run(use, path)


@pytest.mark.parametrize("use", STORES.values(), ids=STORES.keys())
def test_a_clean_database_is_created_owner_only_and_reopens(home: Path, use: Use) -> None:
    db = home / "state" / "sessions.db"
    _run(use, db)
    assert _mode(db) == 0o600
    assert _mode(db.parent) == 0o700
    for suffix in ("-wal", "-shm", "-journal"):
        side = db.with_name(db.name + suffix)
        if side.exists():
            assert _mode(side) & 0o077 == 0
    _run(use, db)  # an existing, clean database is used again


@pytest.mark.parametrize("use", STORES.values(), ids=STORES.keys())
@pytest.mark.parametrize("mode", [0o644, 0o666, 0o640])
def test_a_wide_database_is_refused_naming_the_fix(home: Path, use: Use, mode: int) -> None:
    db = home / "sessions.db"
    db.write_bytes(b"")
    os.chmod(db, mode)
    with pytest.raises(InsecurePermissionsError) as caught:
        _run(use, db)
    assert caught.value.path == str(db)
    assert caught.value.fix == f"chmod 600 {db}"
    assert _mode(db) == mode
    assert db.read_bytes() == b""  # SQLite never opened it


@pytest.mark.parametrize("use", STORES.values(), ids=STORES.keys())
def test_a_database_symlink_is_refused_and_the_victim_untouched(
    home: Path, victim: Path, use: Use
) -> None:
    db = home / "sessions.db"
    db.symlink_to(victim)
    with pytest.raises(UnsafeStoreEntryError) as caught:
        _run(use, db)
    assert caught.value.problem == "symlink"
    assert caught.value.fix == f"remove the symlink (rm {db})"
    _victim_untouched(victim)
    assert sorted(p.name for p in victim.parent.iterdir()) == ["victim.txt"]


@pytest.mark.parametrize("use", STORES.values(), ids=STORES.keys())
def test_a_dangling_database_symlink_creates_nothing_at_its_target(
    home: Path, tmp_path: Path, use: Use
) -> None:
    target = tmp_path / "planted.db"
    (home / "sessions.db").symlink_to(target)
    with pytest.raises(UnsafeStoreEntryError):
        _run(use, home / "sessions.db")
    assert not target.exists()


@pytest.mark.parametrize("use", STORES.values(), ids=STORES.keys())
@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_a_side_file_symlink_is_refused_before_sqlite_opens(
    home: Path, victim: Path, use: Use, suffix: str
) -> None:
    db = home / "sessions.db"
    _run(use, db)  # a real database first
    side = db.with_name(db.name + suffix)
    side.unlink(missing_ok=True)
    side.symlink_to(victim)
    with pytest.raises(UnsafeStoreEntryError) as caught:
        _run(use, db)
    assert caught.value.path == str(side)
    _victim_untouched(victim)


@pytest.mark.parametrize("use", STORES.values(), ids=STORES.keys())
def test_a_wide_side_file_is_refused(home: Path, use: Use) -> None:
    db = home / "sessions.db"
    _run(use, db)
    side = db.with_name(db.name + "-journal")
    side.write_bytes(b"")
    os.chmod(side, 0o644)
    with pytest.raises(InsecurePermissionsError) as caught:
        _run(use, db)
    assert caught.value.fix == f"chmod 600 {side}"


@needs_root
@pytest.mark.parametrize("use", STORES.values(), ids=STORES.keys())
def test_a_foreign_database_is_refused(home: Path, use: Use) -> None:
    db = home / "sessions.db"
    _run(use, db)
    before = db.read_bytes()
    os.chown(db, FOREIGN, FOREIGN)
    with pytest.raises(InsecurePermissionsError) as caught:
        _run(use, db)
    assert caught.value.uid == FOREIGN
    assert db.read_bytes() == before


@needs_root
@pytest.mark.parametrize("use", STORES.values(), ids=STORES.keys())
def test_a_foreign_side_file_is_refused(home: Path, use: Use) -> None:
    db = home / "sessions.db"
    _run(use, db)
    side = db.with_name(db.name + "-wal")
    side.write_bytes(b"")
    os.chmod(side, 0o600)
    os.chown(side, FOREIGN, FOREIGN)
    with pytest.raises(InsecurePermissionsError):
        _run(use, db)


@pytest.mark.parametrize("use", STORES.values(), ids=STORES.keys())
def test_a_directory_or_fifo_at_the_database_path_is_refused(home: Path, use: Use) -> None:
    (home / "dir.db").mkdir(mode=0o700)
    os.mkfifo(home / "fifo.db", 0o600)
    for name, found in (("dir.db", "directory"), ("fifo.db", "FIFO")):
        with pytest.raises(UnsafeStoreEntryError) as caught:
            _run(use, home / name)
        assert caught.value.problem == "wrong_type"
        assert caught.value.found == found


@pytest.mark.parametrize("use", STORES.values(), ids=STORES.keys())
@pytest.mark.parametrize("mode", [0o777, 0o775, 0o757, 0o1777, 0o755, 0o750, 0o701])
def test_a_database_folder_others_can_reach_is_refused(tmp_path: Path, use: Use, mode: int) -> None:
    folder = tmp_path / "home"
    folder.mkdir()
    os.chmod(folder, mode)
    with pytest.raises(InsecurePermissionsError) as caught:
        _run(use, folder / "sessions.db")
    assert caught.value.fix is not None
    assert str(folder) in caught.value.fix
    assert list(folder.iterdir()) == []
    assert _mode(folder) == mode


@pytest.mark.parametrize("use", STORES.values(), ids=STORES.keys())
def test_a_symlinked_database_folder_is_refused(tmp_path: Path, use: Use) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    (tmp_path / "home").symlink_to(real)
    with pytest.raises(UnsafeStoreEntryError):
        _run(use, tmp_path / "home" / "sessions.db")
    assert list(real.iterdir()) == []


@needs_root
@pytest.mark.parametrize("use", STORES.values(), ids=STORES.keys())
def test_a_foreign_database_folder_is_refused(tmp_path: Path, use: Use) -> None:
    folder = tmp_path / "home"
    folder.mkdir(mode=0o700)
    os.chown(folder, FOREIGN, FOREIGN)
    with pytest.raises(InsecurePermissionsError):
        _run(use, folder / "sessions.db")
    assert list(folder.iterdir()) == []


def test_an_existing_clean_database_keeps_its_sessions(home: Path) -> None:
    db = home / "sessions.db"

    async def scenario() -> None:
        async with SQLiteSessionStore(db) as store:
            record = await store.create(SessionRecord(model="m", title="kept"))
        async with SQLiteSessionStore(db) as store:
            assert (await store.get(record.id)).title == "kept"

    anyio.run(scenario)
    assert db.read_bytes().startswith(SQLITE_HEADER)


# --- the JSONL event log ------------------------------------------------------------------


def test_a_clean_log_folder_and_file_work(home: Path) -> None:
    log = EventLog(home / "logs")
    log.append("ses_1", "session.created", {"model": "m"})
    log.append("ses_1", "model.text_delta", {"text": "hi"})
    assert [entry.seq for entry in EventLog(home / "logs").read("ses_1")] == [1, 2]
    assert _mode(home / "logs") == 0o700
    assert _mode(home / "logs" / "ses_1.jsonl") == 0o600
    EventLog(home / "logs").append("ses_1", "x", {})  # an existing clean file is appended to
    assert len(log.read("ses_1")) == 3


def test_reading_a_missing_log_or_folder_is_empty(home: Path) -> None:
    assert EventLog(home / "absent").read("ses_1") == []
    assert not (home / "absent").exists()


@pytest.mark.parametrize("mode", [0o755, 0o777])
def test_a_wide_log_folder_is_refused(home: Path, mode: int) -> None:
    logs = home / "logs"
    logs.mkdir()
    os.chmod(logs, mode)
    for act in (
        lambda: EventLog(logs).append("ses_1", "x", {}),
        lambda: EventLog(logs).read("ses_1"),
    ):
        with pytest.raises(InsecurePermissionsError) as caught:
            act()
        assert caught.value.fix == f"chmod 700 {logs}"
    assert list(logs.iterdir()) == []
    assert _mode(logs) == mode


def test_a_symlinked_log_folder_is_refused(home: Path, tmp_path: Path) -> None:
    real = tmp_path / "elsewhere-logs"
    real.mkdir(mode=0o700)
    (home / "logs").symlink_to(real)
    with pytest.raises(UnsafeStoreEntryError):
        EventLog(home / "logs").append("ses_1", "x", {})
    assert list(real.iterdir()) == []


@pytest.mark.parametrize("mode", [0o644, 0o666])
def test_a_wide_log_file_is_refused(home: Path, mode: int) -> None:
    log = EventLog(home / "logs")
    log.append("ses_1", "x", {})
    path = log.path("ses_1")
    os.chmod(path, mode)
    before = path.read_bytes()
    for act in (
        lambda: EventLog(home / "logs").append("ses_1", "y", {}),
        lambda: EventLog(home / "logs").read("ses_1"),
    ):
        with pytest.raises(InsecurePermissionsError) as caught:
            act()
        assert caught.value.fix == f"chmod 600 {path}"
    assert path.read_bytes() == before


def test_a_log_file_symlink_is_never_read_or_written_through(home: Path, victim: Path) -> None:
    logs = home / "logs"
    logs.mkdir(mode=0o700)
    (logs / "ses_1.jsonl").symlink_to(victim)
    for act in (
        lambda: EventLog(logs).append("ses_1", "x", {}),
        lambda: EventLog(logs).read("ses_1"),
    ):
        with pytest.raises(UnsafeStoreEntryError) as caught:
            act()
        assert caught.value.problem == "symlink"
    _victim_untouched(victim)


def test_a_dangling_log_symlink_creates_nothing_at_its_target(home: Path, tmp_path: Path) -> None:
    logs = home / "logs"
    logs.mkdir(mode=0o700)
    target = tmp_path / "planted.jsonl"
    (logs / "ses_1.jsonl").symlink_to(target)
    with pytest.raises(UnsafeStoreEntryError):
        EventLog(logs).append("ses_1", "x", {})
    assert not target.exists()


@needs_root
def test_a_foreign_log_file_and_folder_are_refused(home: Path) -> None:
    logs = home / "logs"
    EventLog(logs).append("ses_1", "x", {})
    os.chown(logs / "ses_1.jsonl", FOREIGN, FOREIGN)
    with pytest.raises(InsecurePermissionsError):
        EventLog(logs).append("ses_1", "y", {})
    os.chown(logs, FOREIGN, FOREIGN)
    with pytest.raises(InsecurePermissionsError) as caught:
        EventLog(logs).read("ses_2")
    assert caught.value.path == str(logs)


@pytest.mark.parametrize("found", ["directory", "FIFO"])
@pytest.mark.parametrize("action", ["append", "read"])
def test_a_directory_or_fifo_at_the_log_path_is_refused(
    home: Path, found: str, action: str
) -> None:
    logs = home / "logs"
    logs.mkdir(mode=0o700)
    log = EventLog(logs)
    if found == "directory":
        log.path("ses_1").mkdir(mode=0o700)
    else:
        os.mkfifo(log.path("ses_1"), 0o600)
    act = (
        (lambda: log.append("ses_1", "x", {}))
        if action == "append"
        else (lambda: log.read("ses_1"))
    )
    with pytest.raises(UnsafeStoreEntryError) as caught:
        act()
    assert caught.value.found == found


# --- outsider red team: hard links, a folder swapped after the check, parents ---------------


def _plain_victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"")
    victim.chmod(0o600)
    return victim


@pytest.mark.parametrize("name", ["sessions.db", "sessions.db-journal"])
def test_sqlite_store_refuses_a_hard_linked_file(tmp_path: Path, name: str) -> None:
    tmp_path.chmod(0o700)
    folder = tmp_path / "store"
    folder.mkdir(mode=0o700)
    victim = _plain_victim(tmp_path)
    os.link(victim, folder / name)
    with pytest.raises(UnsafeStoreEntryError) as caught:
        anyio.run(_use_sessions, folder / "sessions.db")
    assert caught.value.problem == "hard_link"
    assert caught.value.path == str(folder / name)
    assert victim.read_bytes() == b""


def test_sqlite_journal_refuses_a_hard_linked_database(tmp_path: Path) -> None:
    tmp_path.chmod(0o700)
    (tmp_path / "store").mkdir(mode=0o700)
    victim = _plain_victim(tmp_path)
    os.link(victim, tmp_path / "store" / "journal.db")
    with pytest.raises(UnsafeStoreEntryError) as caught:
        anyio.run(_use_journal, tmp_path / "store" / "journal.db")
    assert caught.value.problem == "hard_link"
    assert victim.read_bytes() == b""


def test_event_log_refuses_a_hard_linked_log(tmp_path: Path) -> None:
    tmp_path.chmod(0o700)
    folder = tmp_path / "logs"
    folder.mkdir(mode=0o700)
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"SECRET\n")
    victim.chmod(0o600)
    os.link(victim, folder / "s1.jsonl")
    log = EventLog(folder)
    for use in (lambda: log.append("s1", "probe", {}), lambda: log.read("s1")):
        with pytest.raises(UnsafeStoreEntryError) as caught:
            use()
        assert caught.value.problem == "hard_link"
    assert victim.read_bytes() == b"SECRET\n"


def test_event_log_refuses_its_folder_swapped_for_a_link(tmp_path: Path) -> None:
    tmp_path.chmod(0o700)
    folder = tmp_path / "logs"
    victims = tmp_path / "victims"
    victims.mkdir(mode=0o700)
    log = EventLog(folder)
    log.append("s1", "probe", {"n": 1})
    os.rename(folder, tmp_path / "moved")
    os.symlink(victims, folder)
    for use in (
        lambda: log.append("s1", "probe", {"n": 2}),
        lambda: log.append("s2", "probe", {"n": 1}),
        lambda: log.read("s1"),
    ):
        with pytest.raises(UnsafeStoreEntryError) as caught:
            use()
        assert caught.value.problem == "symlink"
    assert os.listdir(victims) == []


def test_event_log_refuses_a_folder_under_a_writable_parent(tmp_path: Path) -> None:
    tmp_path.chmod(0o700)
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(InsecurePermissionsError) as caught:
        EventLog(shared / "logs").append("s1", "probe", {})
    assert caught.value.path == str(shared)
    assert not (shared / "logs").exists()
