"""Red team for the file tools (``read_file``, ``write_file``, ``edit_file``, ``list_dir``,
``glob``, ``grep``): every way out of the workspace an attacker can try from inside it — a
helper process swapping directories and files for symlinks while the tools run, symlinks of
every shape, hard links, FIFOs, sockets, device nodes, hostile path strings — through the public
tool classes, called by an :class:`~robota.core.agent.Agent` (scripted provider) or directly.

Escapes are judged from the kernel's side, never from the tools' answers:

* **outside read**: the outside secret (random per test), an outside-only file name, or a
  system file's content appears in a result; or inotify on the outside tree reports an
  ``open``/``read`` while the call runs (so opening without showing counts too).
* **outside write**: inotify reports a change in the outside tree during the call, or a
  byte-exact snapshot of it (content, mode, owner, mtime, new or removed entries) differs.
* **other**: a hang, an exception out of ``Tool.call``, a special file or root path not refused
  with an error result, an allowed operation (a link that stays inside) refused.

Reads through a hard link are the same file and are not counted; writes through one are.

Run: ``uv run --frozen pytest tests-integration/test_fs_redteam.py``. ``RT_RACE_SECONDS``
(default 3) sets each race's length. The last test prints ``fs redteam: tried=N ...``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import signal
import socket
import stat
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import anyio
import pytest
from robota.core.agent import Agent
from robota.core.messages import JsonValue, MediaPart, TextPart, ToolResultMessage
from robota.core.testing.scripted import ScriptedProvider, tool_call
from robota.core.tools.base import Tool, ToolContext, ToolReturn
from robota.core.tools.function import tool as function_tool
from robota.tools import (
    EditFileTool,
    GlobTool,
    GrepTool,
    ListDirTool,
    ReadFileTool,
    Workspace,
    WriteFileTool,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))  # for the fs_redteam helpers
from fs_redteam.kit import (  # pyright: ignore[reportImplicitRelativeImport]
    RELEASER,
    Entry,
    FsEvent,
    TreeWatch,
    diff,
    restore,
    snapshot,
)

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.integration,
    pytest.mark.skipif(sys.platform != "linux", reason="inotify, renameat2 and /proc are Linux"),
]

RACE_SECONDS = float(os.environ.get("RT_RACE_SECONDS", "3"))
HELPERS = Path(__file__).resolve().parent / "fs_redteam"
SWAPPER = HELPERS / "swapper.py"
DEVICE_PROBE = HELPERS / "device_probe.py"
INSIDE = "inside placeholder EDITME\n"
PWN = "PWNED by the red team\n"
Kind = Literal["outside_read", "outside_write", "other"]
Args = dict[str, JsonValue]
_SYSTEM_LISTING = re.compile(r"(?m)^(?:etc|usr|proc|sys)/?(?:\s|$)")


@dataclass(frozen=True, kw_only=True, slots=True)
class Escape:
    kind: Kind
    cls: str
    case: str
    detail: str

    def __str__(self) -> str:
        return f"[{self.kind}] {self.cls} / {self.case}: {self.detail}"


@dataclass(kw_only=True, slots=True)
class Tally:
    tried: Counter[str] = field(default_factory=Counter[str])
    escapes: list[Escape] = field(default_factory=list[Escape])

    def count(self, kind: Kind) -> int:
        return sum(1 for e in self.escapes if e.kind == kind)


TALLY = Tally()
"""Every test of this module adds to it; the last test prints it."""


def _tools(workspace: Workspace) -> dict[str, Tool]:
    tools: list[Tool] = [
        ReadFileTool(workspace),
        WriteFileTool(workspace),
        EditFileTool(workspace),
        ListDirTool(workspace),
        GlobTool(workspace),
        GrepTool(workspace),
    ]
    return {tool.name: tool for tool in tools}


def _content_text(content: tuple[TextPart | MediaPart, ...]) -> str:
    texts: list[str] = []
    for part in content:
        if isinstance(part, TextPart):
            texts.append(part.text)
        elif part.data is not None:
            texts.append(part.data.decode("latin-1"))
    return "\n".join(texts)


def _show(args: Args) -> str:
    text = json.dumps(args)
    return text if len(text) <= 140 else f"{text[:100]}...{text[-30:]} ({len(text)} chars)"


class Arena:
    """``<tmp>/arena/ws`` (the workspace) next to ``<tmp>/arena/outside`` (secrets, victims).

    The outside tree holds ``secret.txt``, ``victim.txt`` (mode 0640), ``lexi.txt`` and a file
    named ``hidden-<token>.txt`` at its top and in ``q/``; each holds the test's secret. The
    workspace mirrors those names with harmless content (``d/``, ``d/q/``, ``q/``, top level)
    so a path means an inside file until something swaps a component for a link.
    """

    def __init__(self, tmp_path: Path) -> None:
        self.top = tmp_path / "arena"
        self.outside = self.top / "outside"
        ws = self.top / "ws"
        self.secret = secrets.token_hex(16)
        self.name_token = secrets.token_hex(8)
        for sub in ("", "q"):
            base = self.outside / sub
            base.mkdir(parents=True, exist_ok=True)
            (base / "secret.txt").write_text(f"outside secret S3CR3T-{self.secret}\n")
            (base / "victim.txt").write_text(f"victim EDITME S3CR3T-{self.secret}\n")
            (base / "victim.txt").chmod(0o640)
            (base / "lexi.txt").write_text(f"outside lexi S3CR3T-{self.secret}\n")
            (base / f"hidden-{self.name_token}.txt").write_text(f"S3CR3T-{self.secret}\n")
        for name in (
            "inside.txt",
            "lexi.txt",
            "secret.txt",
            "victim.txt",
            "q/secret.txt",
            "q/victim.txt",
            "d/secret.txt",
            "d/victim.txt",
            "d/lexi.txt",
            "d/q/secret.txt",
            "d/q/victim.txt",
            "f.txt",
            "g.txt",
        ):
            path = ws / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(INSIDE)
        self.workspace = Workspace.at(ws)
        self.root = self.workspace.root
        self.tools = _tools(self.workspace)
        self.ignore: frozenset[str] = frozenset({"ws"})
        self.cls = "unsealed"
        self.watch: TreeWatch | None = None
        self.pristine: dict[str, Entry] = {}
        self.escapes: list[Escape] = []
        self.tried = 0
        self.noise: set[str] = set()

    # --- setup -----------------------------------------------------------------------------

    def link(self, name: str, target: str | Path) -> str:
        """Make ``ws/<name>`` a symlink to ``target`` (parents created); return ``name``."""
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink() or path.is_file():
            path.unlink()
        os.symlink(target, path)
        return name

    def seal(
        self, cls: str, *, ignore: frozenset[str] = frozenset(), watch_top: bool = True
    ) -> None:
        """Setup is over: take the pristine snapshot and start watching the outside (and the
        arena folder itself unless ``watch_top`` is False: a race renaming the workspace root
        there would flood the queue; the final snapshot still covers it)."""
        self.cls = cls
        self.ignore = self.ignore | ignore
        self.pristine = self.snap()
        if watch_top:
            self.watch = TreeWatch(self.top, ignore=self.ignore, skip=self._skip())
        else:
            self.watch = TreeWatch(self.outside, skip=frozenset())

    def _skip(self) -> frozenset[Path]:
        return frozenset(self.top / name for name in self.ignore)

    def snap(self) -> dict[str, Entry]:
        return snapshot(self.top, skip=self._skip())

    def drain(self) -> list[FsEvent]:
        assert self.watch is not None, "seal() the arena first"
        return [e for e in self.watch.drain() if e.path not in self.noise]

    def close(self) -> None:
        if self.watch is not None:
            self.watch.close()
        self.workspace.close()

    # --- judging ---------------------------------------------------------------------------

    def flag(self, kind: Kind, case: str, detail: str) -> None:
        self.escapes.append(Escape(kind=kind, cls=self.cls, case=case, detail=detail))

    def leaked(self, text: str) -> str | None:
        """What of the outside shows in ``text``, or None."""
        if self.secret in text:
            return "outside secret in the result"
        if self.name_token in text:
            return "outside-only file name in the result"
        if "root:x:0:0" in text:
            return "/etc/passwd content in the result"
        if len(_SYSTEM_LISTING.findall(text)) >= 2:
            return "a listing of / in the result"
        return None

    def judge(
        self, case: str, label: str, text: str, events: list[FsEvent], changes: list[str]
    ) -> None:
        leak = self.leaked(text)
        reads = [e for e in events if e.is_read]
        writes = [e for e in events if e.is_write]
        if any(e.is_overflow for e in events):
            self.flag("other", case, f"{label}: inotify queue overflowed (inconclusive)")
        if leak or reads:
            seen = "; ".join(str(e) for e in reads[:3])
            self.flag("outside_read", case, f"{label}: {leak or 'opened outside: ' + seen}")
        if writes or changes:
            seen = "; ".join([*(str(e) for e in writes[:3]), *changes[:3]])
            self.flag("outside_write", case, f"{label}: {seen}")

    async def _agent_call(self, tool: str, args: Args) -> tuple[bool, str]:
        provider = ScriptedProvider([[tool_call("c1", tool, args)], "done"])
        agent = Agent(provider, tools=list(self.tools.values()))
        await agent.run("attack")
        results = [r for m in agent.history if isinstance(m, ToolResultMessage) for r in m.results]
        assert results, "the agent ran no tool call"
        return results[0].is_error, _content_text(results[0].content)

    async def _direct_call(self, tool: str, args: Args) -> tuple[bool, str]:
        ctx: ToolContext[Any] = ToolContext(
            run_id="redteam", call_id="c", tool_call_id="t", tool_name=tool, deps=None
        )
        output = await self.tools[tool].call(dict(args), ctx)
        if isinstance(output, ToolReturn):
            return output.is_error, _content_text(output.content)
        return False, output

    async def attempt(
        self,
        case: str,
        tool: str,
        args: Args,
        *,
        direct: bool = False,
        expect: Literal["error", "ok"] | None = None,
        must_contain: str | None = None,
        limit: float = 10.0,
        fifos: tuple[Path, ...] = (),
    ) -> tuple[bool | None, str]:
        """One call, judged: leaks, outside events, snapshot changes, expectation, hangs.

        ``limit`` is the time allowed, in seconds. ``fifos`` are freed by :data:`RELEASER` one
        second after ``limit`` (so a tool stuck
        on one costs seconds) and stay armed when the call was not prompt.
        """
        self.tried += 1
        label = f"{tool} {_show(args)}"
        before = self.snap()
        self.drain()
        for fifo in fifos:
            RELEASER.arm(fifo, limit + 1.0)
        started = time.monotonic()
        is_error: bool | None = None
        text = ""
        problem: str | None = None
        try:
            with anyio.fail_after(limit):
                call = self._direct_call if direct else self._agent_call
                is_error, text = await call(tool, args)
        except TimeoutError:
            problem = f"no answer within {limit:.0f} s"
        except Exception as error:
            problem = f"raised {type(error).__name__}: {error}"
        elapsed = time.monotonic() - started
        if problem is None and elapsed > limit:
            problem = f"answered only after {elapsed:.1f} s (blocked the event loop)"
        for fifo in fifos:
            if problem is None:
                RELEASER.disarm(fifo)
            else:
                RELEASER.arm(fifo, 0)
                self.noise.add(str(fifo.resolve()))
        events = self.drain()
        after = self.snap()
        changes = diff(before, after)
        self.judge(case, label, text, events, changes)
        if problem is not None:
            self.flag("other", case, f"{label}: {problem}")
        elif expect == "error" and not is_error:
            self.flag("other", case, f"{label}: expected an error result, got {text[:160]!r}")
        elif expect == "ok" and is_error:
            self.flag("other", case, f"{label}: allowed call refused: {text[:160]!r}")
        elif must_contain is not None and must_contain not in text:
            self.flag("other", case, f"{label}: {must_contain!r} missing from {text[:160]!r}")
        if changes:
            restore(self.top, self.pristine, skip=self._skip())
            self.drain()
        return is_error, text

    def verdict(self) -> None:
        """Add this test to the module tally and fail listing every escape."""
        TALLY.tried[self.cls] += self.tried
        TALLY.escapes.extend(self.escapes)
        counts = Counter(str(e) for e in self.escapes)
        print(
            f"  [{self.cls}] tried={self.tried} "
            + " ".join(f"{k}={sum(1 for e in self.escapes if e.kind == k)}" for k in _KINDS)
        )
        if counts:
            lines = [f"{n}x {line}" if n > 1 else line for line, n in counts.items()]
            pytest.fail(
                f"{len(self.escapes)} escape(s) in {self.tried} attempts ({self.cls}):\n"
                + "\n".join(lines),
                pytrace=False,
            )


_KINDS: tuple[Kind, ...] = ("outside_read", "outside_write", "other")


@pytest.fixture
def arena(tmp_path: Path) -> Iterator[Arena]:
    made = Arena(tmp_path)
    try:
        yield made
    finally:
        made.close()


def file_attacks(path: str) -> list[tuple[str, Args]]:
    """Every tool against one file path."""
    return [
        ("read_file", {"path": path}),
        ("grep", {"pattern": ".", "path": path}),
        ("write_file", {"path": path, "content": PWN}),
        ("edit_file", {"path": path, "old_string": "EDITME", "new_string": "PWNED"}),
        ("list_dir", {"path": path}),
        ("glob", {"pattern": "*", "path": path}),
    ]


def dir_attacks(path: str) -> list[tuple[str, Args]]:
    """Every tool against one directory path and the files below it."""
    return [
        ("read_file", {"path": f"{path}/secret.txt"}),
        ("read_file", {"path": f"{path}/q/secret.txt"}),
        ("list_dir", {"path": path}),
        ("list_dir", {"path": f"{path}/"}),
        ("list_dir", {"path": f"{path}/q"}),
        ("glob", {"pattern": "**/*", "path": path}),
        ("grep", {"pattern": ".", "path": path}),
        ("grep", {"pattern": ".", "path": f"{path}/q/secret.txt"}),
        ("write_file", {"path": f"{path}/new.txt", "content": PWN}),
        ("write_file", {"path": f"{path}/victim.txt", "content": PWN}),
        ("edit_file", {"path": f"{path}/victim.txt", "old_string": "EDITME", "new_string": "X"}),
        ("write_file", {"path": f"{path}/newdir/x.txt", "content": PWN}),
    ]


# --- races ------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, slots=True)
class Race:
    """One race: ``setup`` makes the bait and returns the (real, bait) pairs the swapper
    exchanges; ``ops(i)`` is round ``i`` of tool calls."""

    name: str
    mode: Literal["exchange", "dance"]
    setup: Callable[[Arena], list[tuple[Path, Path]]]
    ops: Callable[[int], list[tuple[str, Args]]]
    ignore: frozenset[str] = frozenset()
    watch_top: bool = True
    call_timeout: float = 10.0


def _dir_ops(i: int) -> list[tuple[str, Args]]:
    n = i % 6
    ops: list[tuple[str, Args]] = [
        ("read_file", {"path": "d/secret.txt"}),
        ("read_file", {"path": "d/q/secret.txt"}),
        ("grep", {"pattern": ".", "path": "d"}),
        ("grep", {"pattern": ".", "path": "d/q/secret.txt"}),
        ("glob", {"pattern": "**/*", "path": "d"}),
        ("list_dir", {"path": "d"}),
        ("list_dir", {"path": "d/q"}),
        ("write_file", {"path": "d/victim.txt", "content": INSIDE}),
        ("edit_file", {"path": "d/victim.txt", "old_string": "EDITME", "new_string": "EDITED"}),
        ("edit_file", {"path": "d/q/victim.txt", "old_string": "EDITME", "new_string": "EDITED"}),
        ("edit_file", {"path": "d/q/victim.txt", "old_string": "EDITED", "new_string": "EDITME"}),
        ("write_file", {"path": f"d/new-{n}.txt", "content": PWN}),
        ("write_file", {"path": f"d/q/made-{n}/x.txt", "content": PWN}),
        ("write_file", {"path": "d/q/victim.txt", "content": INSIDE}),
    ]
    if i % 5 == 0:
        ops.append(("grep", {"pattern": ".", "path": "."}))
        ops.append(("glob", {"pattern": "**/*"}))
    return ops


def _file_ops(i: int) -> list[tuple[str, Args]]:
    ops: list[tuple[str, Args]] = [
        ("read_file", {"path": "f.txt"}),
        ("grep", {"pattern": ".", "path": "f.txt"}),
        ("read_file", {"path": "g.txt"}),
        ("write_file", {"path": "g.txt", "content": INSIDE}),
        ("edit_file", {"path": "g.txt", "old_string": "EDITME", "new_string": "EDITED"}),
        ("edit_file", {"path": "g.txt", "old_string": "EDITED", "new_string": "EDITME"}),
        ("list_dir", {"path": "."}),
    ]
    if i % 5 == 0:
        ops.append(("grep", {"pattern": ".", "path": "."}))
        ops.append(("glob", {"pattern": "*.txt"}))
    return ops


def _root_ops(i: int) -> list[tuple[str, Args]]:
    n = i % 6
    return [
        ("read_file", {"path": "secret.txt"}),
        ("read_file", {"path": "q/secret.txt"}),
        ("list_dir", {"path": "."}),
        ("list_dir", {"path": "q"}),
        ("glob", {"pattern": "**/hidden-*"}),
        ("grep", {"pattern": ".", "path": "q"}),
        ("write_file", {"path": "victim.txt", "content": INSIDE}),
        ("edit_file", {"path": "q/victim.txt", "old_string": "EDITME", "new_string": "EDITED"}),
        ("edit_file", {"path": "q/victim.txt", "old_string": "EDITED", "new_string": "EDITME"}),
        ("write_file", {"path": f"new-{n}.txt", "content": PWN}),
    ]


def _fifo_race_ops(i: int) -> list[tuple[str, Args]]:
    ops: list[tuple[str, Args]] = [
        ("read_file", {"path": "f.txt"}),
        ("grep", {"pattern": ".", "path": "f.txt"}),
        ("edit_file", {"path": "f.txt", "old_string": "EDITME", "new_string": "EDITED"}),
        ("edit_file", {"path": "f.txt", "old_string": "EDITED", "new_string": "EDITME"}),
        ("write_file", {"path": "f.txt", "content": INSIDE}),
        ("list_dir", {"path": "."}),
    ]
    if i % 5 == 0:
        ops.append(("grep", {"pattern": "."}))
        ops.append(("glob", {"pattern": "**/*"}))
    return ops


def _setup_dir_abs(a: Arena) -> list[tuple[Path, Path]]:
    a.link(".swap_d", a.outside)
    return [(a.root / "d", a.root / ".swap_d")]


def _setup_dir_rel(a: Arena) -> list[tuple[Path, Path]]:
    a.link(".swap_d", "../outside")
    return [(a.root / "d", a.root / ".swap_d")]


def _setup_parent(a: Arena) -> list[tuple[Path, Path]]:
    a.link("d/.swap_q", "../../outside/q")
    return [(a.root / "d" / "q", a.root / "d" / ".swap_q")]


def _setup_files(a: Arena) -> list[tuple[Path, Path]]:
    a.link(".swap_f", "../outside/secret.txt")
    a.link(".swap_g", a.outside / "victim.txt")
    return [(a.root / "f.txt", a.root / ".swap_f"), (a.root / "g.txt", a.root / ".swap_g")]


def _setup_root(a: Arena) -> list[tuple[Path, Path]]:
    os.symlink("outside", a.top / ".swap_ws")
    return [(a.top / "ws", a.top / ".swap_ws")]


def _setup_fifo(a: Arena) -> list[tuple[Path, Path]]:
    os.mkfifo(a.root / ".swap_fifo", 0o600)
    return [(a.root / "f.txt", a.root / ".swap_fifo")]


RACES = [
    Race(name="dir<->abs-link exchange", mode="exchange", setup=_setup_dir_abs, ops=_dir_ops),
    Race(name="dir<->rel-link rename dance", mode="dance", setup=_setup_dir_rel, ops=_dir_ops),
    Race(name="parent dir d/q<->link exchange", mode="exchange", setup=_setup_parent, ops=_dir_ops),
    Race(name="file<->link exchange", mode="exchange", setup=_setup_files, ops=_file_ops),
    Race(name="file<->link rename dance", mode="dance", setup=_setup_files, ops=_file_ops),
    Race(
        name="workspace root<->link exchange",
        mode="exchange",
        setup=_setup_root,
        ops=_root_ops,
        ignore=frozenset({".swap_ws", "ws.stash"}),
        watch_top=False,
    ),
    Race(
        name="file<->FIFO exchange",
        mode="exchange",
        setup=_setup_fifo,
        ops=_fifo_race_ops,
        call_timeout=2.0,
    ),
]


async def _race_call(arena: Arena, race: Race, tool: str, args: Args) -> None:
    arena.tried += 1
    label = f"{tool} {_show(args)}"
    arena.drain()
    text = ""
    started = time.monotonic()
    try:
        with anyio.fail_after(race.call_timeout):
            _is_error, text = await arena._direct_call(tool, args)
    except TimeoutError:
        arena.flag("other", race.name, f"{label}: no answer within {race.call_timeout:.0f} s")
    except Exception as error:
        arena.flag("other", race.name, f"{label}: raised {type(error).__name__}: {error}")
    else:
        elapsed = time.monotonic() - started
        if elapsed > race.call_timeout:
            arena.flag("other", race.name, f"{label}: answered only after {elapsed:.1f} s")
    arena.judge(race.name, label, text, arena.drain(), [])


async def run_race(arena: Arena, race: Race, work: Path, seconds: float) -> dict[str, int]:
    """Run ``race`` for ``seconds``: the swapper process against back-to-back tool calls.
    Escapes go to ``arena``; returns the swapper's counts."""
    pairs = race.setup(arena)
    arena.seal("races", ignore=race.ignore, watch_top=race.watch_top)
    fifo_race = any(not bait.is_symlink() for _real, bait in pairs)
    swapped = [path for pair in pairs for path in pair] if fifo_race else []
    for path in swapped:
        RELEASER.arm(path, seconds + 3)  # a call stuck on the FIFO bait is freed, and flagged
    ready = work / "swapper.ready"
    command = [
        sys.executable,
        str(SWAPPER),
        "--mode",
        race.mode,
        "--seconds",
        str(seconds + 30),
        "--ready",
        str(ready),
        *(str(p) for pair in pairs for p in pair),
    ]
    # Popen only forks; the swapper runs beside the event loop, which never waits on it blocking
    swapper = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # noqa: ASYNC220
    calls = 0
    try:
        with anyio.fail_after(10):
            while not ready.exists() and swapper.poll() is None:  # noqa: ASYNC110 - another process writes it
                await anyio.sleep(0.01)
        end = time.monotonic() + seconds
        i = 0
        while time.monotonic() < end and swapper.poll() is None:
            for tool, args in race.ops(i):
                await _race_call(arena, race, tool, args)
                calls += 1
            i += 1
    finally:
        if swapper.poll() is None:
            swapper.send_signal(signal.SIGTERM)
        try:
            out, err = swapper.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            swapper.kill()
            out, err = swapper.communicate()
        for path in swapped:
            RELEASER.disarm(path)
    assert swapper.returncode == 0, f"swapper failed: {err.decode()[-2000:]}"
    counts: dict[str, int] = json.loads(out.decode().strip().splitlines()[-1])
    print(f"  race {race.name}: {calls} tool calls, swapper {counts}")
    assert counts["swaps"] > 100, f"the swapper barely ran: {counts}"
    changes = diff(arena.pristine, arena.snap())
    if changes:
        arena.flag("outside_write", race.name, "after the race: " + "; ".join(changes[:5]))
        restore(arena.top, arena.pristine, skip=arena._skip())
    return counts


@pytest.mark.parametrize("race", RACES, ids=lambda r: r.name)
async def test_race_swapping_paths_for_links(arena: Arena, tmp_path: Path, race: Race) -> None:
    """A helper process swaps a directory, a file, a parent directory of the target or the
    workspace root itself with a symlink to the outside (or a file with a FIFO), in a tight
    loop, while the tools read, write, edit, grep, glob and list through that path as fast as
    they can."""
    await run_race(arena, race, tmp_path, RACE_SECONDS)
    arena.verdict()


# --- symlinks ---------------------------------------------------------------------------------


async def test_symlinks_leaving_the_root(arena: Arena, monkeypatch: pytest.MonkeyPatch) -> None:
    """File and directory links leaving the root (absolute, relative, deep), chains leaving
    after several hops, loops, dangling links, links named like their target, ``..`` after a
    link (the lexical trap) and links into ``/proc/self`` and ``/dev/fd``."""
    a = arena
    out = a.outside
    monkeypatch.chdir(out)
    secret_fd = os.open(out / "secret.txt", os.O_RDONLY)
    victim_fd = os.open(out / "victim.txt", os.O_RDONLY)
    try:
        file_links = [
            a.link("abs_file", out / "secret.txt"),
            a.link("rel_file", "../outside/secret.txt"),
            a.link("abs_victim", out / "victim.txt"),
            a.link("rel_victim", "../outside/victim.txt"),
            a.link("deep/a/b/rel_victim", "../../../../outside/q/victim.txt"),
            a.link("c4", "../outside/secret.txt"),
            a.link("sub/c3", "../c4"),
            a.link("c2", "sub/c3"),
            a.link("c1", "c2"),
            a.link("deep/cv3", "../../outside/victim.txt"),
            a.link("cv2", "deep/cv3"),
            a.link("cv1", "cv2"),
            a.link("secret.txt", "../outside/secret.txt"),
            a.link("victim.txt", "../outside/victim.txt"),
            a.link("dang_out", "../outside/made-by-dangling.txt"),
            a.link("dang_abs", out / "made-by-dangling-abs.txt"),
            a.link("dang_chain", "dang_out"),
            a.link("proc_fd", f"/proc/self/fd/{secret_fd}"),
            a.link("proc_fd_victim", f"/proc/self/fd/{victim_fd}"),
            a.link("dev_fd", f"/dev/fd/{secret_fd}"),
            a.link("proc_cwd_file", "/proc/self/cwd/secret.txt"),
            a.link("proc_root_file", f"/proc/self/root{out}/victim.txt"),
            a.link("trail_file", "../outside/secret.txt/"),
        ]
        dir_links = [
            a.link("abs_dir", out),
            a.link("rel_dir", "../outside"),
            a.link("deep/a/b/rel_dir", "../../../../outside"),
            a.link("cd2", "deep/a/b/rel_dir"),
            a.link("cd1", "cd2"),
            a.link("outside", "../outside"),
            a.link("dq_then_up", "../outside/q/.."),
            a.link("proc_cwd", "/proc/self/cwd"),
            a.link("proc_root", f"/proc/self/root{out}"),
            a.link("proc_self_root", "/proc/self/root"),
            a.link("dang_dir", "../outside/made-dir"),
        ]
        a.link("dq", "../outside/q")
        a.link("loop_a", "loop_b")
        a.link("loop_b", "loop_a")
        a.link("self_loop", "self_loop")
        a.link("loop_dir", "loop_dir/x")
        a.seal("symlinks")
        for path in file_links:
            for tool, args in file_attacks(path):
                await a.attempt(path, tool, args)
            await a.attempt(path, "read_file", {"path": f"{path}/"})
            await a.attempt(path, "write_file", {"path": f"{path}/", "content": PWN})
        for path in dir_links:
            for tool, args in dir_attacks(path):
                await a.attempt(path, tool, args)
        await a.attempt("dir link then ..", "read_file", {"path": "dq/../secret.txt"})
        lexical: list[tuple[str, Args]] = [
            ("read_file", {"path": "dq/../lexi.txt"}),
            ("grep", {"pattern": ".", "path": "dq/../lexi.txt"}),
            ("write_file", {"path": "dq/../lexi.txt", "content": PWN}),
            ("edit_file", {"path": "dq/../victim.txt", "old_string": "EDITME", "new_string": "X"}),
            ("list_dir", {"path": "dq/.."}),
            ("glob", {"pattern": "*", "path": "dq/.."}),
            ("read_file", {"path": "abs_dir/../outside/secret.txt"}),
            ("write_file", {"path": "dq/../../outside/new.txt", "content": PWN}),
        ]
        for tool, args in lexical:
            await a.attempt("lexical trap: link then ..", tool, args)
        for loop in ("loop_a", "self_loop", "loop_dir", "loop_dir/y"):
            for tool, args in file_attacks(loop):
                await a.attempt(f"loop {loop}", tool, args, limit=5)
        for tool, args in dir_attacks("dang_dir") + file_attacks("dang_chain"):
            await a.attempt("dangling", tool, args)
    finally:
        os.close(secret_fd)
        os.close(victim_fd)
    a.verdict()


async def test_links_that_stay_inside_still_work(arena: Arena) -> None:
    """Control: links whose target is inside the root (also by a path that climbs out and back
    in) are followed, and the walks still see inside files — so a refusal elsewhere is a
    refusal, not a broken tool."""
    a = arena
    a.link("in_file", "inside.txt")
    a.link("in_abs", a.root / "inside.txt")
    a.link("in_dir", "d")
    a.link("ic2", "d/q/secret.txt")
    a.link("ic1", "ic2")
    a.link("deep/x/up", "../../d")
    a.link("out_and_back", "../ws/inside.txt")
    a.seal("controls")
    for path in ("in_file", "in_abs", "ic1", "in_dir/secret.txt", "deep/x/up/lexi.txt"):
        await a.attempt(path, "read_file", {"path": path}, expect="ok", must_contain="placeholder")
    # A target that climbs above the root and comes back in: refusing it is a valid choice
    # (RESOLVE_BENEATH refuses it too); only shown.
    is_error, text = await a.attempt("out_and_back", "read_file", {"path": "out_and_back"})
    print(
        f"  note: link '../ws/inside.txt' (out of the root and back) -> error={is_error} {text[:80]!r}"
    )
    await a.attempt(
        "in_dir", "list_dir", {"path": "in_dir"}, expect="ok", must_contain="secret.txt"
    )
    await a.attempt(
        "grep", "grep", {"pattern": "placeholder"}, expect="ok", must_contain="d/q/secret.txt"
    )
    await a.attempt(
        "glob", "glob", {"pattern": "**/*.txt"}, expect="ok", must_contain="d/q/victim.txt"
    )
    await a.attempt(
        "edit via link",
        "edit_file",
        {"path": "in_file", "old_string": "EDITME", "new_string": "EDITED"},
        expect="ok",
    )
    await a.attempt(
        "write new", "write_file", {"path": "fresh/dir/new.txt", "content": "x"}, expect="ok"
    )
    await a.attempt("write via link", "write_file", {"path": "ic1", "content": "x"}, expect="ok")
    a.verdict()


# --- hard links -------------------------------------------------------------------------------


async def test_hard_links_to_outside_files_are_never_written(arena: Arena) -> None:
    """An outside file hard-linked into the workspace: write_file and edit_file must leave the
    outside file as it was. Also a hard link opened and then unlinked, reached through
    ``/proc/self/fd/N`` (its link text names the workspace: ``<ws>/hv.txt (deleted)``)."""
    a = arena
    out = a.outside
    os.link(out / "victim.txt", a.root / "hl_victim.txt")
    os.link(out / "q" / "victim.txt", a.root / "d" / "hl_victim2.txt")
    os.link(out / "victim.txt", a.root / "hv.txt")
    held_victim = os.open(a.root / "hv.txt", os.O_RDONLY)
    os.unlink(a.root / "hv.txt")
    os.link(out / "secret.txt", a.root / "hs.txt")
    held_secret = os.open(a.root / "hs.txt", os.O_RDONLY)
    os.unlink(a.root / "hs.txt")
    a.link("fd_deleted", f"/proc/self/fd/{held_victim}")
    try:
        a.seal("hardlinks")
        for path in ("hl_victim.txt", "d/hl_victim2.txt"):
            await a.attempt(path, "write_file", {"path": path, "content": PWN})
            await a.attempt(
                path, "edit_file", {"path": path, "old_string": "EDITME", "new_string": "PWNED"}
            )
            await a.attempt(
                path,
                "edit_file",
                {"path": path, "old_string": "victim", "new_string": "V", "replace_all": True},
            )
        for path in (f"/proc/self/fd/{held_victim}", f"/dev/fd/{held_victim}", "fd_deleted"):
            for tool, args in file_attacks(path):
                await a.attempt("unlinked hard link via fd", tool, args)
        for path in (f"/proc/self/fd/{held_secret}", f"/dev/fd/{held_secret}"):
            await a.attempt("unlinked hard link via fd", "read_file", {"path": path})
            await a.attempt("unlinked hard link via fd", "grep", {"pattern": ".", "path": path})
    finally:
        os.close(held_victim)
        os.close(held_secret)
    a.verdict()


# --- special files ----------------------------------------------------------------------------


def _fifo_ops(path: str) -> list[tuple[str, Args, Literal["error"] | None]]:
    return [
        ("read_file", {"path": path}, "error"),
        ("write_file", {"path": path, "content": "x"}, "error"),
        ("edit_file", {"path": path, "old_string": "a", "new_string": "b"}, "error"),
        ("grep", {"pattern": ".", "path": path}, None),
        ("list_dir", {"path": path}, "error"),
        ("glob", {"pattern": "*", "path": path}, "error"),
    ]


def _fresh_fifos(a: Arena, count: int) -> tuple[list[Path], list[Path]]:
    """``count`` FIFOs in the workspace and ``count`` outside (with a link to each)."""
    inside = [a.root / "fifos" / f"pipe-{n}" for n in range(count)]
    outside = [a.outside / "fifos" / f"trap-{n}" for n in range(count)]
    for path in inside + outside:
        path.parent.mkdir(exist_ok=True)
        os.mkfifo(path, 0o600)
    for n in range(count):
        a.link(f"fifos/link-{n}", f"pipe-{n}")
        a.link(f"fifos/out-{n}", f"../../outside/fifos/trap-{n}")
    return inside, outside


async def test_fifo_gets_a_prompt_error(arena: Arena) -> None:
    """A FIFO (in the workspace, behind an inside link, behind a link to the outside) gives an
    error result within ``anyio.fail_after(5)``; walks over a folder of FIFOs do not hang."""
    a = arena
    ops = _fifo_ops("X")
    inside, outside = _fresh_fifos(a, len(ops) + 1)
    a.seal("special")
    every = tuple(inside + outside)
    await a.attempt("walk over FIFOs", "grep", {"pattern": "."}, direct=True, limit=5, fifos=every)
    await a.attempt(
        "walk over FIFOs", "glob", {"pattern": "**/*"}, direct=True, limit=5, fifos=every
    )
    for n, (tool, _args, expect) in enumerate(ops):
        for target, fifo in (
            (f"fifos/pipe-{n}", inside[n]),
            (f"fifos/link-{n}", inside[n]),
            (f"fifos/out-{n}", outside[n]),
        ):
            args = _fifo_ops(target)[n][1]
            await a.attempt(
                f"FIFO {target}", tool, args, direct=True, expect=expect, limit=5, fifos=(fifo,)
            )
    a.verdict()


async def test_fifo_cancel_lands(arena: Arena) -> None:
    """A call stuck on a FIFO is cancellable: a scope cancelled after 1 s finishes within
    2.5 s (the FIFO is freed only at 4 s)."""
    a = arena
    ops = _fifo_ops("X")
    inside, _outside = _fresh_fifos(a, len(ops))
    a.seal("special")
    for n, (tool, _args, _expect) in enumerate(ops):
        target = f"fifos/pipe-{n}"
        args = _fifo_ops(target)[n][1]
        a.tried += 1
        RELEASER.arm(inside[n], 4.0)
        started = time.monotonic()
        with anyio.move_on_after(1):
            await a._direct_call(tool, args)
        elapsed = time.monotonic() - started
        RELEASER.arm(inside[n], 0)
        if elapsed > 2.5:
            a.flag(
                "other", f"cancel {target}", f"{tool}: cancel at 1 s landed after {elapsed:.1f} s"
            )
        a.judge(f"cancel {target}", tool, "", a.drain(), [])
    a.verdict()


async def test_unix_socket_gets_an_error(arena: Arena) -> None:
    a = arena
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    path = a.root / "sock"
    if len(os.fsencode(path)) >= 100:
        pytest.skip("temporary path too long for a UNIX socket")
    server.bind(str(path))
    server.listen(1)
    try:
        a.link("sock_link", "sock")
        a.seal("special")
        for target in ("sock", "sock_link"):
            for tool, args, expect in _fifo_ops(target):
                await a.attempt(f"socket {target}", tool, args, expect=expect, limit=5)
        await a.attempt("walk over a socket", "grep", {"pattern": "."}, limit=5)
    finally:
        server.close()
    a.verdict()


def test_device_nodes_are_refused(arena: Arena) -> None:
    """Character devices made in the workspace with mknod (root) and links to ``/dev``: read,
    write and edit give error results. Runs in a child process with a 3 GiB address-space
    limit, so a tool reading ``/dev/zero`` to its end fails there instead of here."""
    if os.geteuid() != 0:
        pytest.skip("mknod of a character device needs root")
    a = arena
    devices = {"zero": (1, 5), "null": (1, 3), "urandom": (1, 9), "full": (1, 7)}
    for name, (major, minor) in devices.items():
        os.mknod(a.root / name, 0o600 | stat.S_IFCHR, os.makedev(major, minor))
    a.link("zero_link", "/dev/zero")
    a.link("urandom_link", "/dev/urandom")
    a.link("null_link", "/dev/null")
    a.seal("special")
    attempts: list[tuple[str, Args, Literal["error"] | None]] = []
    for target in [*devices, "zero_link", "urandom_link", "null_link"]:
        attempts.append(("read_file", {"path": target}, "error"))
        attempts.append(("write_file", {"path": target, "content": "x"}, "error"))
        attempts.append(
            ("edit_file", {"path": target, "old_string": "\x00", "new_string": "x"}, "error")
        )
        attempts.append(("grep", {"pattern": "zzz", "path": target}, None))
    attempts.append(("grep", {"pattern": "zzz"}, None))
    attempts.append(("glob", {"pattern": "**/*"}, None))
    before = a.snap()
    a.drain()
    try:
        probe = subprocess.run(
            [sys.executable, str(DEVICE_PROBE), str(a.root), str(3 << 30)],
            input=json.dumps([[tool, args] for tool, args, _ in attempts]).encode(),
            capture_output=True,
            timeout=10 * len(attempts),
            check=False,
        )
        stdout, stderr, returncode = probe.stdout, probe.stderr, probe.returncode
    except subprocess.TimeoutExpired as expired:
        stdout, stderr, returncode = expired.stdout or b"", expired.stderr or b"", None
    answers = {
        int(line["index"]): line
        for line in (json.loads(raw) for raw in stdout.decode().splitlines() if raw.strip())
    }
    for index, (tool, args, expect) in enumerate(attempts):
        a.tried += 1
        label = f"{tool} {_show(args)}"
        answer = answers.get(index)
        if answer is None:
            a.flag(
                "other",
                "device",
                f"{label}: no answer (probe exit {returncode}: {stderr.decode()[-300:]!r})",
            )
            continue
        text = str(answer.get("text", ""))
        if a.leaked(text):
            a.flag("outside_read", "device", f"{label}: {a.leaked(text)}")
        if answer["outcome"] != "result":
            a.flag("other", "device", f"{label}: {answer['outcome']} {text[:200]!r}")
        elif float(answer["seconds"]) > 5:
            a.flag("other", "device", f"{label}: answered after {answer['seconds']} s")
        elif expect == "error" and not answer["is_error"]:
            a.flag("other", "device", f"{label}: expected an error result, got {text[:120]!r}")
    a.judge("device", "device probe", "", a.drain(), diff(before, a.snap()))
    a.verdict()


# --- hostile paths ----------------------------------------------------------------------------


async def test_hostile_paths(arena: Arena, monkeypatch: pytest.MonkeyPatch) -> None:
    """``..`` climbing, absolute paths outside, ``/proc/self/{root,cwd,fd}``, ``/dev/fd``,
    ``~`` and ``$HOME``, NUL bytes, paths longer than PATH_MAX and components longer than
    NAME_MAX, percent- and backslash-spelled dots, the root itself, the empty path and a
    trailing slash on a file."""
    a = arena
    out, root = a.outside, a.root
    monkeypatch.chdir(out)
    monkeypatch.setenv("HOME", str(out))
    fd = os.open(out / "secret.txt", os.O_RDONLY)
    dir_fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    hidden_fd = os.open(out / f"hidden-{a.name_token}.txt", os.O_RDONLY)
    a.link("fd_hidden", f"/proc/self/fd/{hidden_fd}")
    pid = os.getpid()
    try:
        a.seal("paths")
        outside_paths = [
            "../outside/secret.txt",
            "./../outside/secret.txt",
            "d/../../outside/secret.txt",
            "d/q/../../../outside/q/secret.txt",
            "../ws/../outside/secret.txt",
            "..",
            "../outside",
            str(out / "secret.txt"),
            str(out),
            f"{root}/../outside/secret.txt",
            f"{root}/d/../../outside/victim.txt",
            f"{root}//..//outside//secret.txt",
            "/etc/passwd",
            "/",
            "/proc/self/root/etc/passwd",
            "/proc/self/root",
            f"/proc/self/root{out}/secret.txt",
            f"/proc/thread-self/root{out}/victim.txt",
            f"/proc/{pid}/root{out}/secret.txt",
            "/proc/self/cwd",
            "/proc/self/cwd/secret.txt",
            "/proc/self/cwd/victim.txt",
            f"/proc/self/fd/{fd}",
            f"/dev/fd/{fd}",
            f"/proc/self/fd/{dir_fd}",
            f"/proc/self/fd/{dir_fd}/victim.txt",
            f"/dev/fd/{dir_fd}/secret.txt",
            f"/proc/self/fd/{hidden_fd}",  # the name of an open outside file: never shown
            f"/dev/fd/{hidden_fd}",
            "fd_hidden",
            "~/secret.txt",
            "~",
            "$HOME/secret.txt",
            "${HOME}/victim.txt",
            "../outside/secret.txt\x00",
            "../outside/secret.txt\x00inside.txt",
            "inside.txt\x00/../../outside/secret.txt",
            "a/" * 2100 + "../" * 2101 + "../outside/secret.txt",
            "./" * 2500 + "../outside/victim.txt",
            "x" * 300 + "/../../outside/secret.txt",
            "%2e%2e/outside/secret.txt",
            "..%2foutside%2fsecret.txt",
            "..\\outside\\secret.txt",
            "\uff0e\uff0e/outside/secret.txt",
            "../outside/secret.txt ",
            " ../outside/secret.txt",
            "\n../outside/secret.txt",
            f"file://{out}/secret.txt",
        ]
        for path in outside_paths:
            for tool, args in file_attacks(path):
                await a.attempt(path, tool, args)
        own = [
            ".",
            "",
            "./",
            str(root),
            f"{root}/",
            "d/..",
            "d/q/../..",
            "/proc/self/root" + str(root),
        ]
        for path in own:
            case = f"the root itself ({path!r})"
            await a.attempt(case, "read_file", {"path": path}, expect="error")
            await a.attempt(case, "write_file", {"path": path, "content": PWN}, expect="error")
            await a.attempt(
                case,
                "edit_file",
                {"path": path, "old_string": "EDITME", "new_string": "X"},
                expect="error",
            )
            await a.attempt(case, "list_dir", {"path": path})
        odd = [
            "inside.txt\x00",
            "\x00",
            "a/" * 2100 + "x.txt",
            "x" * 300,
            "d/" + "y" * 256 + "/z.txt",
            "inside.txt/",
            "d/secret.txt/",
            "d/q/secret.txt/.",
            "inside.txt/..",
            "d/../" * 1000 + "inside.txt",
        ]
        for path in odd:
            for tool, args in file_attacks(path):
                await a.attempt(f"odd {path[:40]!r}", tool, args)
    finally:
        os.close(fd)
        os.close(dir_fd)
        os.close(hidden_fd)
    a.verdict()


async def test_outside_paths_answer_alike(arena: Arena) -> None:
    """No oracle: a path outside the root gets the same answer whether or not something is
    there (an existing secret or a missing name, a directory the process may not enter or a
    missing one), with only the path's own text differing."""
    a = arena
    out = a.outside
    fd = os.open(out / "secret.txt", os.O_RDONLY)
    try:
        a.seal("oracle")
        pairs = [
            (str(out / "secret.txt"), str(out / "no-such-file.txt")),
            (str(out / "q"), str(out / "no-such-dir")),
            (f"{out}/secret.txt/x", f"{out}/no-such-file.txt/x"),
            ("../outside/secret.txt", "../outside/no-such-file.txt"),
            ("../outside/q/x", "../no-such-dir/q/x"),
            ("/proc/1/cwd/x", "/proc/1/no-such/x"),
            ("/proc/1/root/etc", "/proc/1/no-such/etc"),
            (f"/proc/self/fd/{fd}", "/proc/self/fd/999999"),
        ]
        for there, missing in pairs:
            for tool in ("read_file", "list_dir", "write_file"):
                answers: list[str] = []
                for path in (there, missing):
                    args: Args = {"path": path}
                    if tool == "write_file":
                        args["content"] = PWN
                    _is_error, text = await a.attempt(f"oracle {there}", tool, args)
                    answers.append(text.replace(path, "<path>"))
                if answers[0] != answers[1]:
                    a.flag(
                        "other",
                        f"oracle {there}",
                        f"{tool}: {answers[0][:90]!r} (there) vs {answers[1][:90]!r} (missing)",
                    )
    finally:
        os.close(fd)
    a.verdict()


# --- walks ------------------------------------------------------------------------------------


async def test_walks_never_leave_the_root(arena: Arena, monkeypatch: pytest.MonkeyPatch) -> None:
    """grep, glob and list_dir over a workspace full of links leading out (files, directories,
    chains, ``/proc/self/{cwd,root}``, ``/``, a ``.gitignore`` that is a link to an outside
    file) never show, yield or open anything outside."""
    a = arena
    out = a.outside
    monkeypatch.chdir(out)
    a.link("abs_file.txt", out / "secret.txt")
    a.link("rel_file.txt", "../outside/secret.txt")
    a.link("abs_dir", out)
    a.link("rel_dir", "../outside")
    a.link("d/q/up_out", "../../../outside/q")
    a.link("chain1", "chain2")
    a.link("chain2", "d/q/up_out")
    a.link("proc_cwd", "/proc/self/cwd")
    a.link("proc_root", "/proc/self/root")
    a.link("slash", "/")
    a.link(".gitignore", "../outside/secret.txt")
    a.link("d/.gitignore", "../../outside/q/lexi.txt")
    a.link("deep/.git", "../../outside")
    a.seal("walks")
    walks: list[tuple[str, Args, str | None]] = [
        ("grep", {"pattern": "."}, "placeholder"),
        ("grep", {"pattern": ".", "include_ignored": True}, "placeholder"),
        ("grep", {"pattern": "S3CR3T|placeholder", "ignore_case": True}, "placeholder"),
        ("grep", {"pattern": ".", "include": ["**/*.txt"]}, "placeholder"),
        ("grep", {"pattern": ".", "include": ["**/hidden-*"]}, None),
        ("grep", {"pattern": ".", "path": "d"}, "placeholder"),
        ("grep", {"pattern": "root:", "path": "."}, None),
        ("glob", {"pattern": "**/*"}, "inside.txt"),
        ("glob", {"pattern": "**"}, "inside.txt"),
        ("glob", {"pattern": "**/*", "include_ignored": True}, "inside.txt"),
        ("glob", {"pattern": "**/hidden-*"}, None),
        ("glob", {"pattern": "*/*/*"}, None),
        ("glob", {"pattern": "{abs_dir,rel_dir,proc_cwd,slash}/**"}, None),
        ("glob", {"pattern": "**/passwd"}, None),
        ("list_dir", {"path": "."}, "inside.txt"),
        ("list_dir", {"path": "d"}, "secret.txt"),
        ("list_dir", {"path": "d/q"}, "secret.txt"),
        ("list_dir", {"path": "deep"}, None),
    ]
    for tool, args, must in walks:
        await a.attempt("walk", tool, args, must_contain=must)
    a.verdict()


# --- the instruments themselves -------------------------------------------------------------


def _naive_tools(root: Path) -> dict[str, Tool]:
    """Deliberately escapable tools with the real tools' names: a ``realpath`` check on the
    joined path, then ``open`` of the joined path (check-then-use), writes in place, a walk
    that follows links."""

    def checked(path: str) -> str:
        joined = os.path.join(root, path)
        real = os.path.realpath(joined)
        if real != str(root) and not real.startswith(f"{root}{os.sep}"):
            raise ValueError(f"{path} is outside")
        return joined

    @function_tool
    def read_file(path: str) -> str:
        """Read a file."""
        with open(checked(path), encoding="utf-8", errors="replace") as handle:
            return handle.read()

    @function_tool
    def write_file(path: str, content: str) -> str:
        """Write a file."""
        with open(checked(path), "w", encoding="utf-8") as handle:
            handle.write(content)
        return "written"

    @function_tool
    def grep(pattern: str, path: str = ".") -> str:
        """Search files."""
        found: list[str] = []
        for directory, _dirs, files in os.walk(checked(path), followlinks=True):
            for name in files:
                with (
                    contextlib.suppress(OSError),
                    open(
                        os.path.join(directory, name), encoding="utf-8", errors="replace"
                    ) as handle,
                ):
                    found += [line for line in handle if re.search(pattern, line)]
        return "".join(found)

    return {t.name: t for t in (read_file, write_file, grep)}


async def test_instruments_catch_a_naive_implementation(tmp_path: Path) -> None:
    """Control for the suite itself: the same races and checks, run against deliberately
    escapable tools, must report outside reads and writes (a red team that cannot see an
    escape proves nothing). Not counted in the figures."""
    found: dict[str, list[Escape]] = {}
    race_arena = Arena(tmp_path / "race")
    try:
        race_arena.tools = _naive_tools(race_arena.root)
        race = Race(
            name="naive dir<->link",
            mode="exchange",
            setup=_setup_dir_abs,
            ops=lambda _i: [
                ("read_file", {"path": "d/secret.txt"}),
                ("write_file", {"path": "d/victim.txt", "content": INSIDE}),
            ],
        )
        await run_race(race_arena, race, tmp_path, min(RACE_SECONDS, 2.0))
        found["race"] = race_arena.escapes
    finally:
        race_arena.close()
    static = Arena(tmp_path / "static")
    try:
        static.tools = _naive_tools(static.root)
        os.link(static.outside / "victim.txt", static.root / "hl_victim.txt")
        static.link("abs_dir", static.outside)
        static.seal("canary")
        await static.attempt("hard link", "write_file", {"path": "hl_victim.txt", "content": PWN})
        await static.attempt("walk", "grep", {"pattern": "."})
        found["static"] = static.escapes
    finally:
        static.close()
    kinds = {where: {e.kind for e in escapes} for where, escapes in found.items()}
    print(f"  instruments: {kinds}")
    assert {"outside_read", "outside_write"} <= kinds["race"], found["race"][:5]
    assert {"outside_read", "outside_write"} <= kinds["static"], found["static"]


# --- summary ----------------------------------------------------------------------------------


def test_zz_fs_redteam_summary() -> None:
    """Print the module's figures (the repo conftest collects lines starting ``fs redteam``)."""
    classes = ", ".join(f"{cls}={n}" for cls, n in sorted(TALLY.tried.items()))
    print(
        f"fs redteam: tried={sum(TALLY.tried.values())} "
        f"outside_reads={TALLY.count('outside_read')} "
        f"outside_writes={TALLY.count('outside_write')} "
        f"other={TALLY.count('other')} ({classes})"
    )
    for escape in dict.fromkeys(str(e) for e in TALLY.escapes):
        print(f"  {escape}")
