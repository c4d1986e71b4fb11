"""Outsider red team for the owner-only stores: attack classes ``test_store_redteam.py`` does
not try. That suite plants an unsafe entry *before* a fresh store instance opens; this one
plants what the existing checks cannot see, or plants it *after* the check:

* **H, hard links** (``nlink > 1``): the store's file, a SQLite side file, a background output
  file or a checkpoint blob replaced by a hard link to a victim file of the same account
  (0600, so owner and mode checks pass). A store that appends, writes or trusts what it
  reads through it has used an unsafe entry;
* **S, folder swapped after the check** (TOCTOU between verify and use, same instance): the
  store's folder renamed away and replaced by a symlink to a victim directory mid-session;
* **T, file swapped after the check**: the database, the log or the trust file replaced by a
  symlink while the store is open, a ``-journal`` symlink planted between transactions;
* **P, parents**: the store folder inside a world-writable folder of another account, and a
  symlink among the folder's parent components;
* **M, odd mode bits**: setgid/sticky folders, a setuid file (harmless: judged safe when used).

Verdicts: ``unsafe_used`` (a victim changed, was read back to the caller, or the victim
folder was written), ``refused`` (a typed error, victims untouched), ``safe`` (no error and
the plant had no effect), ``design_gap`` (a P case: ``ensure_private_dir`` documents that
existing parents are left alone, so a link or a foreign writable folder among them is
reported, not failed — a host whose ``~`` is a link must keep working). Every ``unsafe_used`` fails its test.

Run: ``uv run --frozen pytest tests-integration/test_store_redteam_outsider.py``; the last test
prints ``store redteam(outsider): tried=N unsafe_used=U ...``.
"""

from __future__ import annotations

import os
import secrets
import shutil
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeVar

import anyio
import anyio.to_thread
import pytest
from robota.core.errors import RobotaError
from robota.core.host.credentials import FileCredentialStore
from robota.framework.checkpoints import CheckpointStore
from robota.framework.trust import TrustStore
from robota.session import EventLog, SessionRecord, SQLiteJournal, SQLiteSessionStore
from robota.tools import Workspace
from robota.tools.builtin.background import BackgroundShells

sys.path.insert(0, str(Path(__file__).resolve().parent))  # for the fs_redteam helpers
from fs_redteam.kit import (  # pyright: ignore[reportImplicitRelativeImport]
    Entry,
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
Verdict = Literal["refused", "unsafe_used", "safe", "design_gap", "untyped"]


@dataclass(kw_only=True, slots=True)
class Scene:
    """``base`` (0700) holds the store ``folder``, a workspace ``ws`` and ``victims`` (0700,
    a file with content, an empty file, a directory)."""

    base: Path
    secret: str = field(default_factory=lambda: f"VICTIM-{secrets.token_hex(8)}")
    watch: TreeWatch | None = None
    before: dict[str, Entry] = field(default_factory=dict[str, Entry])

    def seal(self) -> None:
        """(Again) take the victims' baseline: what an attack's own setup did to them is not
        judged, only what follows."""
        if self.watch is None:
            self.watch = TreeWatch(self.victims, skip=frozenset())
        self.watch.drain()
        self.before = snapshot(self.victims)

    @property
    def folder(self) -> Path:
        return self.base / "store"

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

    def build(self) -> None:
        self.base.mkdir(mode=0o700, parents=True)
        self.base.chmod(0o700)
        self.ws.mkdir(mode=0o700)
        (self.ws / "note.txt").write_text("workspace note\n")
        self.victims.mkdir(mode=0o700)
        self.victim.write_text(f"{self.secret}\n")
        self.victim.chmod(0o600)
        self.empty_victim.write_bytes(b"")
        self.empty_victim.chmod(0o600)
        self.victim_dir.mkdir(mode=0o700)

    def hard_link(self, victim: Path, at: Path) -> None:
        """Replace ``at`` by a hard link to ``victim`` (same account, 0600: passes every mode
        and owner check)."""
        if at.exists():
            at.unlink()
        os.link(victim, at)

    def swap_folder(self, to: Path) -> None:
        """Rename the store folder away and put a symlink to ``to`` in its place."""
        os.rename(self.folder, self.base / "store.moved")
        os.symlink(to, self.folder)


@dataclass(frozen=True, kw_only=True, slots=True)
class Result:
    case: str
    verdict: Verdict
    detail: str

    def __str__(self) -> str:
        return f"[{self.verdict}] {self.case}: {self.detail}"


RESULTS: list[Result] = []


def _typed(error: BaseException) -> bool:
    if isinstance(error, RobotaError):
        return True
    return isinstance(error, OSError) and type(error) is not OSError


Attack = Callable[[Scene], Awaitable[str | None]]
"""Sets up, plants and uses the store; returns what the store handed back (for secret leaks)
or None."""


async def judge(case: str, base: Path, attack: Attack) -> Result:
    scene = Scene(base=base)
    scene.build()
    scene.seal()
    error: BaseException | None = None
    returned: str | None = None
    try:
        with anyio.fail_after(15):
            returned = await attack(scene)
    except Exception as raised:
        error = raised
    assert scene.watch is not None
    events = [e for e in scene.watch.drain() if e.is_write]
    scene.watch.close()
    changes = diff(scene.before, snapshot(scene.victims))
    if changes or events:
        seen = [*changes[:3], *(str(e).replace(f"{base}/", "") for e in events[:3])]
        then = f" (then raised {type(error).__name__})" if error else ""
        return Result(case=case, verdict="unsafe_used", detail=f"victim side: {seen}{then}")
    if returned is not None and scene.secret in returned:
        return Result(
            case=case, verdict="unsafe_used", detail=f"victim content returned: {returned[:80]!r}"
        )
    if error is not None:
        kind = "refused" if _typed(error) else "untyped"
        return Result(case=case, verdict=kind, detail=f"{type(error).__name__}: {error}"[:200])
    return Result(case=case, verdict="safe", detail=f"no error, no effect ({returned!r:.60})")


T = TypeVar("T")


async def _thread(fn: Callable[[], T]) -> T:
    return await anyio.to_thread.run_sync(fn)


# --- H: hard links ----------------------------------------------------------------------------


async def h_sqlite_db(scene: Scene) -> str | None:
    scene.folder.mkdir(mode=0o700)
    scene.seal()
    scene.hard_link(scene.empty_victim, scene.folder / "sessions.db")
    async with SQLiteSessionStore(scene.folder / "sessions.db") as store:
        await store.create(SessionRecord(model="redteam"))
    return None


async def h_journal_db(scene: Scene) -> str | None:
    scene.folder.mkdir(mode=0o700)
    scene.seal()
    scene.hard_link(scene.empty_victim, scene.folder / "journal.db")
    journal = SQLiteJournal(scene.folder / "journal.db")
    try:
        await journal.start_run("r1", {"step": 1})
    finally:
        await journal.aclose()
    return None


async def h_sqlite_side_journal(scene: Scene) -> str | None:
    db = scene.folder / "sessions.db"
    async with SQLiteSessionStore(db) as store:
        await store.create(SessionRecord(model="prime"))
    scene.seal()
    scene.hard_link(scene.empty_victim, db.with_name("sessions.db-journal"))
    async with SQLiteSessionStore(db) as store:
        await store.create(SessionRecord(model="redteam"))
    return None


async def h_event_log(scene: Scene) -> str | None:
    def use() -> str:
        scene.folder.mkdir(mode=0o700)
        scene.seal()
        scene.hard_link(scene.victim, scene.folder / "s1.jsonl")
        log = EventLog(scene.folder)
        log.append("s1", "redteam.probe", {"n": 1})
        return str([e.data for e in log.read("s1")])

    return await _thread(use)


async def h_trust(scene: Scene) -> str | None:
    def use() -> str:
        TrustStore(path=scene.victims / "trust.json").set(scene.ws, "trusted")
        (scene.victims / "trust.json").write_text(
            (scene.victims / "trust.json")
            .read_text()
            .replace("}", f', "{scene.secret}": "trusted"}}')
        )
        store = TrustStore(path=scene.folder / "trust.json")
        store.set(scene.ws, "restricted")
        scene.seal()
        scene.hard_link(scene.victims / "trust.json", scene.folder / "trust.json")
        return f"{TrustStore(path=scene.folder / 'trust.json')._read()}"  # pyright: ignore[reportPrivateUsage]

    return await _thread(use)


async def h_credentials(scene: Scene) -> str | None:
    def use() -> str | None:
        FileCredentialStore(scene.victims / "credentials.json").set("svc", "acct", scene.secret)
        FileCredentialStore(scene.folder / "credentials.json").set("svc", "acct", "mine")
        scene.seal()
        scene.hard_link(scene.victims / "credentials.json", scene.folder / "credentials.json")
        return FileCredentialStore(scene.folder / "credentials.json").get("svc", "acct")

    return await _thread(use)


async def _finished(shells: BackgroundShells, task_id: str) -> None:
    with anyio.fail_after(5):
        while shells.status(task_id).state == "running":  # noqa: ASYNC110 - polls a process
            await anyio.sleep(0.02)


async def h_background(scene: Scene) -> str | None:
    async with BackgroundShells(scene.folder) as shells:
        status = shells.start("echo redteam-output", cwd=scene.ws)
        await _finished(shells, status.task_id)
        scene.seal()
        scene.hard_link(scene.victim, status.output_path)
        return shells.read(status.task_id, from_start=True).text


async def h_checkpoint_blob(scene: Scene) -> str | None:
    def use() -> str:
        workspace = Workspace.at(scene.ws)
        try:
            store = CheckpointStore(scene.folder, workspace=workspace)
            store.begin_turn("t1")
            store.snapshot(workspace.root / "note.txt")
            scene.seal()
            scene.hard_link(scene.victim, scene.folder / "000001" / "0.bin")
            CheckpointStore(scene.folder, workspace=workspace).restore("t1")
            return (scene.ws / "note.txt").read_text()
        finally:
            workspace.close()

    return await _thread(use)


# --- S: the folder swapped for a link after the check -----------------------------------------


async def s_event_log(scene: Scene) -> str | None:
    def use() -> None:
        log = EventLog(scene.folder)
        log.append("s1", "redteam.probe", {"n": 1})
        scene.seal()
        scene.swap_folder(scene.victim_dir)
        log.append("s1", "redteam.probe", {"n": 2})
        log.append("s2", "redteam.probe", {"n": 1})

    await _thread(use)
    return None


async def s_checkpoints(scene: Scene) -> str | None:
    def use() -> None:
        workspace = Workspace.at(scene.ws)
        try:
            store = CheckpointStore(scene.folder, workspace=workspace)
            store.begin_turn("t1")
            (scene.victim_dir / "000001").mkdir(mode=0o700)
            (scene.victim_dir / "000001" / "keep.txt").write_text("victim keeps this\n")
            scene.seal()
            scene.swap_folder(scene.victim_dir)
            store.discard("t1")  # rmtree(folder / 000001): through the link
            store.begin_turn("t2")
            store.snapshot(workspace.root / "note.txt")
        finally:
            workspace.close()

    await _thread(use)
    return None


async def s_background(scene: Scene) -> str | None:
    async with BackgroundShells(scene.folder) as shells:
        status = shells.start("echo redteam-output", cwd=scene.ws)
        await _finished(shells, status.task_id)
        planted = scene.victim_dir / status.output_path.name
        planted.write_text(f"{scene.secret}\n")
        planted.chmod(0o600)
        scene.seal()
        scene.swap_folder(scene.victim_dir)
        return shells.read(status.task_id, from_start=True).text


async def s_trust(scene: Scene) -> str | None:
    def use() -> str:
        store = TrustStore(path=scene.folder / "trust.json")
        store.set(scene.ws, "restricted")
        TrustStore(path=scene.victim_dir / "trust.json").set(scene.ws, "trusted")
        path = scene.victim_dir / "trust.json"
        path.write_text(path.read_text().replace("}", f', "{scene.secret}": "trusted"}}'))
        scene.seal()
        scene.swap_folder(scene.victim_dir)
        return f"{store.get(scene.ws)} {store._read()}"  # pyright: ignore[reportPrivateUsage]

    return await _thread(use)


async def s_credentials(scene: Scene) -> str | None:
    def use() -> str | None:
        store = FileCredentialStore(scene.folder / "credentials.json")
        store.set("svc", "acct", "mine")
        FileCredentialStore(scene.victim_dir / "credentials.json").set("svc", "acct", scene.secret)
        scene.seal()
        scene.swap_folder(scene.victim_dir)
        return store.get("svc", "acct")

    return await _thread(use)


async def s_sqlite(scene: Scene) -> str | None:
    async with SQLiteSessionStore(scene.folder / "sessions.db") as store:
        await store.create(SessionRecord(model="prime"))
        scene.swap_folder(scene.victim_dir)
        await store.create(SessionRecord(model="redteam"))  # -journal made by path
    return None


# --- T: the file swapped for a link after the check -------------------------------------------


async def t_sqlite_db(scene: Scene) -> str | None:
    db = scene.folder / "sessions.db"
    async with SQLiteSessionStore(db) as store:
        await store.create(SessionRecord(model="prime"))
        os.rename(db, db.with_name("moved.db"))
        os.symlink(scene.empty_victim, db)
        await store.create(SessionRecord(model="redteam"))
    return None


async def t_journal_link(scene: Scene) -> str | None:
    db = scene.folder / "sessions.db"
    async with SQLiteSessionStore(db) as store:
        await store.create(SessionRecord(model="prime"))
        os.symlink(scene.victim, db.with_name("sessions.db-journal"))
        await store.create(SessionRecord(model="redteam"))
    return None


async def t_event_log(scene: Scene) -> str | None:
    def use() -> None:
        log = EventLog(scene.folder)
        log.append("s1", "redteam.probe", {"n": 1})
        (scene.folder / "s1.jsonl").unlink()
        os.symlink(scene.victim, scene.folder / "s1.jsonl")
        log.append("s1", "redteam.probe", {"n": 2})

    await _thread(use)
    return None


async def t_trust(scene: Scene) -> str | None:
    def use() -> str | None:
        store = TrustStore(path=scene.folder / "trust.json")
        store.set(scene.ws, "restricted")
        (scene.folder / "trust.json").unlink()
        os.symlink(scene.victim, scene.folder / "trust.json")
        return store.get(scene.ws)

    return await _thread(use)


# --- P: parents of the folder -----------------------------------------------------------------


async def p_foreign_wide_parent(scene: Scene) -> str | None:
    """The folder (0700, ours) sits in a 0777 non-sticky folder owned by another account, who
    can rename ours away at any time. Accepting it is reported as a design gap (the S cases
    show what the swap does)."""
    shared = scene.base / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    os.chown(shared, FOREIGN, FOREIGN)

    def use() -> str:
        EventLog(shared / "logs").append("s1", "redteam.probe", {"n": 1})
        TrustStore(path=shared / "trust" / "trust.json").set(scene.ws, "trusted")
        return "accepted"

    return await _thread(use)


async def p_link_among_parents(scene: Scene) -> str | None:
    """``base/hop`` is a link to the victims' folder; the store folder is ``base/hop/store``."""
    os.symlink(scene.victims, scene.base / "hop")

    def use() -> None:
        EventLog(scene.base / "hop" / "store").append("s1", "redteam.probe", {"n": 1})

    await _thread(use)
    return None


# --- M: odd mode bits -------------------------------------------------------------------------


async def m_setgid_sticky_folder(scene: Scene) -> str | None:
    def use() -> None:
        log = EventLog(scene.folder)
        log.append("s1", "redteam.probe", {"n": 1})
        scene.folder.chmod(0o3700)
        (scene.folder / "s1.jsonl").chmod(0o4600)
        EventLog(scene.folder).append("s1", "redteam.probe", {"n": 2})

    await _thread(use)
    return None


CASES: list[tuple[str, str, Attack, bool]] = [
    # (class, case, attack, a design gap when accepted without harm)
    ("H", "sessions.db is a hard link to an empty victim", h_sqlite_db, False),
    ("H", "journal.db is a hard link to an empty victim", h_journal_db, False),
    ("H", "sessions.db-journal is a hard link to a victim", h_sqlite_side_journal, False),
    ("H", "event log s1.jsonl is a hard link to a victim", h_event_log, False),
    ("H", "trust.json is a hard link to another trust file", h_trust, False),
    ("H", "credentials.json is a hard link to another credentials file", h_credentials, False),
    ("H", "background output replaced by a hard link after the task ran", h_background, False),
    ("H", "checkpoint blob 0.bin replaced by a hard link, then restore", h_checkpoint_blob, False),
    ("S", "event log folder swapped for a link mid-session", s_event_log, False),
    ("S", "checkpoint folder swapped for a link (discard, new turn)", s_checkpoints, False),
    ("S", "background folder swapped for a link before read", s_background, False),
    ("S", "trust folder swapped for a link before get", s_trust, False),
    ("S", "credentials folder swapped for a link before get", s_credentials, False),
    ("S", "sqlite folder swapped for a link between transactions", s_sqlite, False),
    ("T", "sessions.db swapped for a link while open", t_sqlite_db, False),
    ("T", "-journal link planted between transactions", t_journal_link, False),
    ("T", "event log swapped for a link between appends", t_event_log, False),
    ("T", "trust.json swapped for a link between calls", t_trust, False),
    ("P", "folder inside a 0777 folder of another account", p_foreign_wide_parent, True),
    ("P", "a symlink among the folder's parents", p_link_among_parents, True),
    ("M", "setgid+sticky folder, setuid log file", m_setgid_sticky_folder, False),
]


@pytest.fixture
def cases_root(tmp_path: Path) -> Path:
    tmp_path.chmod(0o700)
    return tmp_path


@pytest.mark.parametrize("cls", ["H", "S", "T", "P", "M"])
async def test_outsider_store_attacks(cls: str, cases_root: Path) -> None:
    """Every case of one class, each in a fresh folder; an ``unsafe_used`` verdict fails."""
    results: list[Result] = []
    for index, (case_cls, case, attack, gap) in enumerate(CASES):
        if case_cls != cls:
            continue
        if attack is p_foreign_wide_parent and os.geteuid() != 0:
            continue
        result = await judge(f"{cls} {case}", cases_root / f"case{index:02d}", attack)
        if gap and result.verdict in ("safe", "unsafe_used"):
            result = Result(case=result.case, verdict="design_gap", detail=result.detail)
        results.append(result)
    shutil.rmtree(cases_root, ignore_errors=True)
    RESULTS.extend(results)
    for outcome in results:
        print(f"  {outcome}")
    bad = [r for r in results if r.verdict in ("unsafe_used", "untyped")]
    if bad:
        pytest.fail(
            f"{len(bad)} of {len(results)} attacks used an unsafe entry ({cls}):\n"
            + "\n".join(str(r) for r in bad),
            pytrace=False,
        )


def test_zz_store_redteam_outsider_summary() -> None:
    """Print the module's figures (the repo conftest collects lines starting
    ``store redteam``)."""
    counts = {v: sum(1 for r in RESULTS if r.verdict == v) for v in ("refused", "safe")}
    print(
        f"store redteam(outsider): tried={len(RESULTS)} "
        f"unsafe_used={sum(1 for r in RESULTS if r.verdict == 'unsafe_used')} "
        f"untyped={sum(1 for r in RESULTS if r.verdict == 'untyped')} "
        f"design_gap={sum(1 for r in RESULTS if r.verdict == 'design_gap')} "
        f"refused={counts['refused']} safe={counts['safe']}"
    )
    for outcome in RESULTS:
        if outcome.verdict not in ("refused", "safe"):
            print(f"  {outcome}")
