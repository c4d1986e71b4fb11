"""Red team for the owner-only stores: every store is handed a folder an attacker prepared, and
must refuse it with a typed error instead of using it.

Stores (found with ``grep -rn "ensure_private_dir|write_private_file|sqlite3.connect|.log|trust"
packages/*/src``): the SQLite session store and journal (``robota.session``), the JSONL event
log, background shell output files (``BackgroundShells(folder)``: ``<task_id>.log``), the trust
store (``robota.framework.trust``), the file credential store
(``robota.core.host.credentials``) and the checkpoint store (``robota.framework.checkpoints``).

Plants, each in a fresh folder, before the store's first call of a new instance:

* (a) wide modes: the store's file at 0644/0666/0777, its folder at 0755/0777 (after a clean
  first use), an empty folder pre-made at 0777;
* (b) a symlink at the file's path to a victim (with content, empty, or missing), and for
  SQLite at the ``-journal``/``-wal`` side files;
* (c) a symlink as the folder (to an empty owner-only victim directory), and for checkpoints as
  a turn folder;
* (d) a foreign owner (``chown 12345:12345``) on the file and on the folder;
* (e) the wrong type: a directory or a FIFO where the file belongs, a file where the folder
  belongs.

Verdicts, judged from outside the store (snapshots of the victims, inotify on the folder):

* **refused**: a typed error — a :class:`~robota.core.errors.RobotaError` subclass or an
  ``OSError`` subclass other than ``OSError`` itself — and the victims untouched;
* **unsafe_used**: a victim changed (content, mode, mtime, a new entry, a link target created),
  the call blocked on a FIFO, or no error while the planted entry (or the unsafe folder) was
  opened, read or written;
* **not_refused**: no error and the plant left alone (the store sidestepped it, e.g. with
  another file name) — the brief asks for a refusal, so this fails too, separately;
* **untyped**: refused, but with a bare ``OSError`` or a non-Robota exception.

Run: ``uv run --frozen pytest tests-integration/test_store_redteam.py``; the last test prints
``store redteam: tried=N unsafe_used=0 ...`` and the error type of every refusal.
"""

from __future__ import annotations

import os
import secrets
import stat
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import anyio
import anyio.to_thread
import pytest
from robota.core.errors import RobotaError
from robota.core.host.credentials import FileCredentialStore
from robota.framework.checkpoints import CheckpointStore
from robota.framework.trust import TrustStore
from robota.session import EventLog, SessionRecord, SQLiteJournal, SQLiteSessionStore
from robota.tools.builtin.background import BackgroundShells

sys.path.insert(0, str(Path(__file__).resolve().parent))  # for the fs_redteam helpers
from fs_redteam.kit import (  # pyright: ignore[reportImplicitRelativeImport]
    RELEASER,
    Entry,
    FsEvent,
    TreeWatch,
    diff,
    snapshot,
)

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.integration,
    pytest.mark.skipif(sys.platform != "linux", reason="inotify is Linux"),
]

FOREIGN = 12345
BLOCKED_AFTER = 3.0
"""Seconds after which a FIFO plant is freed; a call that took longer was stuck on it."""
Verdict = Literal["refused", "unsafe_used", "not_refused", "untyped"]


# --- the stores -------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, slots=True)
class Store:
    """One store: where its file lives in its folder, and one use of a new instance.

    ``use(folder, ws)`` builds a new instance on ``folder`` and reads and writes through it
    (``ws`` is a workspace directory for the stores that need one).
    """

    name: str
    file: str
    use: Callable[[Path, Path], Awaitable[None]]
    side_files: tuple[str, ...] = ()
    turns: bool = False
    fresh_names: bool = False
    """True for a store that never reuses a file name: it creates each file exclusively
    (``O_EXCL | O_NOFOLLOW``) and takes another name when one is taken, so a file plant is
    left alone rather than refused (background output: a stale ``shell_1.log`` of an earlier
    session is normal there). A plant on its FOLDER must still be refused."""


async def _use_sessions(folder: Path, _ws: Path) -> None:
    async with SQLiteSessionStore(folder / "sessions.db") as store:
        await store.create(SessionRecord(model="redteam"))
        await store.list()


async def _use_journal(folder: Path, _ws: Path) -> None:
    journal = SQLiteJournal(folder / "journal.db")
    try:
        run_id = secrets.token_hex(6)
        await journal.start_run(run_id, {"step": 1})
        await journal.load_run(run_id)
    finally:
        await journal.aclose()


async def _use_eventlog(folder: Path, _ws: Path) -> None:
    def use() -> None:
        log = EventLog(folder)
        log.append("s1", "redteam.probe", {"n": 1})
        log.read("s1")

    await anyio.to_thread.run_sync(use, abandon_on_cancel=True)


async def _use_background(folder: Path, ws: Path) -> None:
    async with BackgroundShells(folder) as shells:
        status = shells.start("echo redteam-output", cwd=ws)
        with anyio.fail_after(5):
            while shells.status(status.task_id).state == "running":  # noqa: ASYNC110 - polls a process
                await anyio.sleep(0.02)
        shells.read(status.task_id)


async def _use_trust(folder: Path, ws: Path) -> None:
    def use() -> None:
        store = TrustStore(path=folder / "trust.json")
        store.get(ws)
        store.set(ws, "trusted")

    await anyio.to_thread.run_sync(use, abandon_on_cancel=True)


async def _use_credentials(folder: Path, _ws: Path) -> None:
    def use() -> None:
        store = FileCredentialStore(folder / "credentials.json")
        store.get("robota.redteam", "default")
        store.set("robota.redteam", "default", "sk-redteam")

    await anyio.to_thread.run_sync(use, abandon_on_cancel=True)


async def _use_checkpoints(folder: Path, ws: Path) -> None:
    def use() -> None:
        store = CheckpointStore(folder)
        store.begin_turn(f"turn-{secrets.token_hex(4)}")
        store.snapshot(ws / "note.txt")
        store.list()

    await anyio.to_thread.run_sync(use, abandon_on_cancel=True)


SIDE = ("-journal", "-wal")
STORES = [
    Store(name="sqlite session store", file="sessions.db", use=_use_sessions, side_files=SIDE),
    Store(name="sqlite journal", file="journal.db", use=_use_journal, side_files=SIDE),
    Store(name="jsonl event log", file="s1.jsonl", use=_use_eventlog),
    Store(name="background output", file="shell_1.log", use=_use_background, fresh_names=True),
    Store(name="trust store", file="trust.json", use=_use_trust),
    Store(name="credential store", file="credentials.json", use=_use_credentials),
    Store(name="checkpoint store", file="000001/manifest.json", use=_use_checkpoints, turns=True),
]


# --- the plants -------------------------------------------------------------------------------


@dataclass(kw_only=True, slots=True)
class Scene:
    """One case's folders: ``base`` (0700) holds the store's ``folder``, a workspace ``ws``
    and ``victims`` (a file with content, an empty file, an empty owner-only directory, and
    the name of a file that must never come to exist)."""

    base: Path
    store: Store

    @property
    def folder(self) -> Path:
        return self.base / "store"

    @property
    def file(self) -> Path:
        return self.folder / self.store.file

    @property
    def ws(self) -> Path:
        return self.base / "ws"

    @property
    def victims(self) -> Path:
        return self.base / "victims"

    @property
    def victim(self) -> Path:
        return self.victims / "victim.txt"

    @property
    def empty_victim(self) -> Path:
        return self.victims / "empty.txt"

    @property
    def victim_dir(self) -> Path:
        return self.victims / "victim_dir"

    @property
    def never(self) -> Path:
        return self.victims / "must-not-exist"

    def build(self) -> None:
        self.base.mkdir(mode=0o700, parents=True)
        self.base.chmod(0o700)
        self.ws.mkdir(mode=0o700)
        (self.ws / "note.txt").write_text("workspace note\n")
        self.victims.mkdir(mode=0o700)
        self.victim.write_text(f"VICTIM {secrets.token_hex(8)}\n")
        self.victim.chmod(0o640)
        self.empty_victim.write_bytes(b"")
        self.empty_victim.chmod(0o640)
        self.victim_dir.mkdir(mode=0o700)

    def fresh_folder(self) -> None:
        """The store's folder (and, for checkpoints, the first turn folder) at 0700, empty."""
        self.file.parent.mkdir(mode=0o700, parents=True)
        for directory in {self.folder, self.file.parent}:
            directory.chmod(0o700)


@dataclass(frozen=True, kw_only=True, slots=True)
class Plant:
    """``plant(scene)`` prepares the attack; ``primed`` runs one clean use first; ``target``
    names the planted entry. ``level`` is ``"folder"`` when the plant is the store's folder
    itself (no error then means the store worked in it) and ``"file"`` for an entry in it (a
    file, a side file, a turn folder: no error is judged by whether the entry was used)."""

    name: str
    level: Literal["file", "folder"]
    primed: bool
    plant: Callable[[Scene], None]
    target: Callable[[Scene], Path]
    applies: Callable[[Store], bool] = lambda _store: True
    needs_root: bool = False


def _file(scene: Scene) -> Path:
    return scene.file


def _folder(scene: Scene) -> Path:
    return scene.folder


def _chmod_file(mode: int) -> Callable[[Scene], None]:
    return lambda scene: scene.file.chmod(mode)


def _chmod_folder(mode: int) -> Callable[[Scene], None]:
    return lambda scene: scene.folder.chmod(mode)


def _link_file(to: Callable[[Scene], Path]) -> Callable[[Scene], None]:
    def plant(scene: Scene) -> None:
        scene.fresh_folder()
        os.symlink(to(scene), scene.file)

    return plant


def _precreated_wide_folder(scene: Scene) -> None:
    scene.folder.mkdir()
    scene.folder.chmod(0o777)


def _link_folder(scene: Scene) -> None:
    os.symlink(scene.victim_dir, scene.folder)


def _file_is_directory(scene: Scene) -> None:
    scene.fresh_folder()
    scene.file.mkdir(mode=0o700)


def _file_is_fifo(scene: Scene) -> None:
    scene.fresh_folder()
    os.mkfifo(scene.file, 0o600)


def _folder_is_file(scene: Scene) -> None:
    scene.folder.write_text("not a folder\n")
    scene.folder.chmod(0o600)


def _chown(which: Callable[[Scene], Path]) -> Callable[[Scene], None]:
    return lambda scene: os.chown(which(scene), FOREIGN, FOREIGN)


def _side_link(suffix: str) -> Callable[[Scene], None]:
    def plant(scene: Scene) -> None:
        os.symlink(scene.victim, scene.file.with_name(scene.file.name + suffix))

    return plant


def _side_wide(suffix: str) -> Callable[[Scene], None]:
    def plant(scene: Scene) -> None:
        side = scene.file.with_name(scene.file.name + suffix)
        side.write_bytes(b"")
        side.chmod(0o666)

    return plant


def _side(suffix: str) -> Callable[[Scene], Path]:
    return lambda scene: scene.file.with_name(scene.file.name + suffix)


def _turn_link(scene: Scene) -> None:
    """The first turn folder is a link to a valid turn folder elsewhere (made by the store
    itself in ``victims/``), so a store that follows it loads without complaint."""
    source = CheckpointStore(scene.victims / "elsewhere")
    source.begin_turn("planted-turn")
    source.snapshot(scene.ws / "note.txt")
    scene.folder.mkdir(mode=0o700)
    os.symlink(scene.victims / "elsewhere" / "000001", scene.folder / "000001")


def _turn_folder(scene: Scene) -> Path:
    return scene.folder / "000001"


def _is_sqlite(store: Store) -> bool:
    return bool(store.side_files)


def _has_turns(store: Store) -> bool:
    return store.turns


PLANTS = [
    Plant(name="(a) file 0644", level="file", primed=True, plant=_chmod_file(0o644), target=_file),
    Plant(name="(a) file 0666", level="file", primed=True, plant=_chmod_file(0o666), target=_file),
    Plant(name="(a) file 0777", level="file", primed=True, plant=_chmod_file(0o777), target=_file),
    Plant(
        name="(a) folder 0755",
        level="folder",
        primed=True,
        plant=_chmod_folder(0o755),
        target=_folder,
    ),
    Plant(
        name="(a) folder 0777",
        level="folder",
        primed=True,
        plant=_chmod_folder(0o777),
        target=_folder,
    ),
    Plant(
        name="(a) empty folder pre-made 0777",
        level="folder",
        primed=False,
        plant=_precreated_wide_folder,
        target=_folder,
    ),
    Plant(
        name="(b) file -> victim with content",
        level="file",
        primed=False,
        plant=_link_file(lambda s: s.victim),
        target=_file,
    ),
    Plant(
        name="(b) file -> empty victim",
        level="file",
        primed=False,
        plant=_link_file(lambda s: s.empty_victim),
        target=_file,
    ),
    Plant(
        name="(b) file -> missing target",
        level="file",
        primed=False,
        plant=_link_file(lambda s: s.never),
        target=_file,
    ),
    Plant(
        name="(b) side file -journal -> victim",
        level="file",
        primed=True,
        plant=_side_link("-journal"),
        target=_side("-journal"),
        applies=_is_sqlite,
    ),
    Plant(
        name="(b) side file -wal -> victim",
        level="file",
        primed=True,
        plant=_side_link("-wal"),
        target=_side("-wal"),
        applies=_is_sqlite,
    ),
    Plant(
        name="(a) side file -journal 0666",
        level="file",
        primed=True,
        plant=_side_wide("-journal"),
        target=_side("-journal"),
        applies=_is_sqlite,
    ),
    Plant(
        name="(c) folder -> victim directory",
        level="folder",
        primed=False,
        plant=_link_folder,
        target=_folder,
    ),
    Plant(
        name="(c) turn folder 000001 -> a turn folder elsewhere",
        level="file",
        primed=False,
        plant=_turn_link,
        target=_turn_folder,
        applies=_has_turns,
    ),
    Plant(
        name="(a) turn folder 000001 0777",
        level="file",
        primed=True,
        plant=lambda scene: (scene.folder / "000001").chmod(0o777),
        target=_turn_folder,
        applies=_has_turns,
    ),
    Plant(
        name="(d) file owned by uid 12345",
        level="file",
        primed=True,
        plant=_chown(_file),
        target=_file,
        needs_root=True,
    ),
    Plant(
        name="(d) folder owned by uid 12345",
        level="folder",
        primed=True,
        plant=_chown(_folder),
        target=_folder,
        needs_root=True,
    ),
    Plant(
        name="(e) directory where the file belongs",
        level="file",
        primed=False,
        plant=_file_is_directory,
        target=_file,
    ),
    Plant(
        name="(e) FIFO where the file belongs",
        level="file",
        primed=False,
        plant=_file_is_fifo,
        target=_file,
    ),
    Plant(
        name="(e) regular file where the folder belongs",
        level="folder",
        primed=False,
        plant=_folder_is_file,
        target=_folder,
    ),
]


# --- judging ----------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, slots=True)
class Result:
    store: str
    plant: str
    verdict: Verdict
    detail: str

    def __str__(self) -> str:
        return f"[{self.verdict}] {self.store} / {self.plant}: {self.detail}"


@dataclass(kw_only=True, slots=True)
class Tally:
    results: list[Result] = field(default_factory=list[Result])

    def count(self, verdict: Verdict) -> int:
        return sum(1 for r in self.results if r.verdict == verdict)


TALLY = Tally()
"""Every case of this module adds to it; the last test prints it."""


def _typed(error: BaseException) -> bool:
    if isinstance(error, RobotaError):
        return True
    return isinstance(error, OSError) and type(error) is not OSError


def _error_name(error: BaseException) -> str:
    kinds = [
        base.__name__
        for base in (RobotaError, OSError)
        if isinstance(error, base) and type(error) is not base
    ]
    return f"{type(error).__name__}({'/'.join(kinds) or 'untyped'})"


def _touched(events: list[FsEvent], scene: Scene, planted: Path, folder_level: bool) -> list[str]:
    """Events showing the store went through the plant: anything in the victims' tree first
    (read through a link), then the planted entry, then (for a folder plant) anything in the
    folder. Paths are shown relative to the case folder."""
    victims: list[str] = []
    hits: list[str] = []
    for event in events:
        path = Path(event.path)
        shown = str(event).replace(f"{scene.base}/", "")
        if path == scene.victims or scene.victims in path.parents:
            victims.append(shown)
        elif (
            path == planted
            or planted in path.parents
            or (folder_level and (path == scene.folder or scene.folder in path.parents))
        ):
            hits.append(shown)
    return list(dict.fromkeys(victims + hits))


async def attack(store: Store, plant: Plant, base: Path) -> Result:
    """Build the scene, prime it, plant, use a new store instance, judge."""
    scene = Scene(base=base, store=store)
    scene.build()
    if plant.primed:  # a clean first use, in a folder the store makes itself
        await store.use(scene.folder, scene.ws)
        if store.name == "background output":
            assert scene.file.exists(), f"the first use made no {scene.file.name}"
    plant.plant(scene)
    planted = plant.target(scene)
    planted_before = _entry_of(planted)
    victims_before = snapshot(scene.victims)
    watch = TreeWatch(scene.base, skip=frozenset({scene.ws}))
    error: BaseException | None = None
    RELEASER.arm(planted, BLOCKED_AFTER)
    started = time.monotonic()
    try:
        with anyio.fail_after(15):
            await store.use(scene.folder, scene.ws)
    except TimeoutError:
        error = TimeoutError("no answer within 15 s")
    except Exception as raised:
        error = raised
    elapsed = time.monotonic() - started
    RELEASER.arm(planted, 0)
    events = watch.drain()
    watch.close()
    victims_changed = diff(victims_before, snapshot(scene.victims))
    if scene.never.exists() or scene.never.is_symlink():
        victims_changed.append(f"{scene.never.name} was created")
    touched = _touched(events, scene, planted, plant.level == "folder")
    if planted_before != _entry_of(planted) and plant.level == "file":
        touched.append(f"{planted.name} changed")

    def result(verdict: Verdict, detail: str) -> Result:
        return Result(store=store.name, plant=plant.name, verdict=verdict, detail=detail)

    if victims_changed:
        raised = f" (then raised {_error_name(error)})" if error else ""
        return result("unsafe_used", f"victim changed: {'; '.join(victims_changed[:4])}{raised}")
    if elapsed > BLOCKED_AFTER:
        return result("unsafe_used", f"blocked {elapsed:.1f} s on the plant ({error!r})")
    if error is not None:
        if _typed(error):
            return result("refused", f"{_error_name(error)}: {str(error)[:140]}")
        return result("untyped", f"{_error_name(error)}: {str(error)[:140]}")
    if plant.level == "folder":
        shown = "; ".join(touched[:3]) or "no error"
        return result("unsafe_used", f"used the unsafe folder: {shown}")
    if touched:
        return result("unsafe_used", f"no error; the plant was used: {'; '.join(touched[:3])}")
    return result("not_refused", "no error; the plant was left alone (sidestepped)")


def _entry_of(path: Path) -> Entry | None:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    kind = "link" if stat.S_ISLNK(info.st_mode) else "other"
    target = os.readlink(path) if kind == "link" else None
    mtime = 0 if stat.S_ISDIR(info.st_mode) or stat.S_ISFIFO(info.st_mode) else info.st_mtime_ns
    return (kind, stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid, 0, mtime, target)


@pytest.fixture
def cases_root(tmp_path: Path) -> Path:
    tmp_path.chmod(0o700)
    return tmp_path


# --- tests ------------------------------------------------------------------------------------


@pytest.mark.parametrize("store", STORES, ids=lambda s: s.name)
async def test_clean_use_creates_owner_only_files(store: Store, cases_root: Path) -> None:
    """Control: in a missing folder the store works and creates its folder 0700 and its file
    0600 (so a refusal below is a refusal, not a broken store)."""
    scene = Scene(base=cases_root / "clean", store=store)
    scene.build()
    await store.use(scene.folder, scene.ws)
    await store.use(scene.folder, scene.ws)  # and again, on what it made itself
    assert stat.S_IMODE(scene.folder.lstat().st_mode) == 0o700
    assert not scene.file.is_symlink()
    assert scene.file.is_file()
    assert stat.S_IMODE(scene.file.lstat().st_mode) == 0o600


@pytest.mark.parametrize("store", STORES, ids=lambda s: s.name)
async def test_planted_folders_are_refused(store: Store, cases_root: Path) -> None:
    """Every plant against one store; each must be refused with a typed error."""
    results: list[Result] = []
    for index, plant in enumerate(PLANTS):
        if not plant.applies(store) or (plant.needs_root and os.geteuid() != 0):
            continue
        results.append(await attack(store, plant, cases_root / f"case{index:02d}"))
    TALLY.results.extend(results)
    for outcome in results:
        print(f"  {outcome}")
    sidestep_ok = {plant.name for plant in PLANTS if store.fresh_names and plant.level == "file"}
    bad = [
        r
        for r in results
        if r.verdict != "refused" and not (r.verdict == "not_refused" and r.plant in sidestep_ok)
    ]
    if bad:
        pytest.fail(
            f"{len(bad)} of {len(results)} plants not refused ({store.name}):\n"
            + "\n".join(str(r) for r in bad),
            pytrace=False,
        )


def test_zz_store_redteam_summary() -> None:
    """Print the module's figures (the repo conftest collects lines starting
    ``store redteam``) and the error type each refusal raised."""
    print(
        f"store redteam: tried={len(TALLY.results)} "
        f"unsafe_used={TALLY.count('unsafe_used')} "
        f"not_refused={TALLY.count('not_refused')} untyped={TALLY.count('untyped')}"
    )
    kinds = Counter(
        r.detail.split(":", 1)[0] for r in TALLY.results if r.verdict in ("refused", "untyped")
    )
    for kind, count in kinds.most_common():
        print(f"  refused with {kind}: {count}")
    for outcome in TALLY.results:
        if outcome.verdict != "refused":
            print(f"  {outcome}")
