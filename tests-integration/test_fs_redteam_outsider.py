"""Outsider red team for the file tools (``read_file``, ``write_file``, ``edit_file``,
``list_dir``, ``glob``, ``grep``): attack classes that ``test_fs_redteam.py`` does not try.

* **root opened by name**: ``Workspace.at`` canonicalizes the root and then opens it by path
  (a race with the root swapped for a link between the two), and a copied, pickled or lazily
  built ``Workspace`` opens the root path again later, after it was swapped;
* **the workspace's parent swapped** for a link while the tools run (the handle must not care);
* **hostile spellings**: ``//``, trailing ``/.``, ``...``, Unicode look-alikes and
  normalization forms, case, newlines, the root spelled with ``/.``/``/..``, absolute and
  ``..`` glob patterns and include/exclude globs, ``.`` variants for ``list_dir``, a link to
  the handle's own ``/proc/self/fd/N``;
* **resource exhaustion** (in a child process with a memory cap, like the device probe): a
  directory tree deeper than Python's recursion limit, brace-expansion bombs in ``glob`` and
  ``grep`` include globs, a catastrophically backtracking ``grep`` pattern, a sparse 8 GiB
  "text" file, a file that keeps growing while it is read.

Escapes are judged from the kernel's side (inotify and byte-exact snapshots of the outside
tree, the outside secret in a result) as in ``test_fs_redteam.py``; a crash out of
``Tool.call``, a hang or a starved event loop is flagged ``other``. Every flagged attempt fails
its test.

Run: ``uv run --frozen pytest tests-integration/test_fs_redteam_outsider.py``; the last test
prints ``fs redteam(outsider): tried=N outside_reads=R outside_writes=W ...``.
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import anyio
import pytest
from robota.core.messages import JsonValue, MediaPart, TextPart
from robota.core.tools.base import Tool, ToolContext, ToolReturn
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

HELPERS = Path(__file__).resolve().parent / "fs_redteam"
SWAPPER = HELPERS / "swapper.py"
DEVICE_PROBE = HELPERS / "device_probe.py"
RACE_SECONDS = float(os.environ.get("RT_RACE_SECONDS", "2"))
INSIDE = "inside placeholder EDITME\n"
PWN = "PWNED by the outsider\n"
Kind = Literal["outside_read", "outside_write", "other"]
Args = dict[str, JsonValue]
_KINDS: tuple[Kind, ...] = ("outside_read", "outside_write", "other")


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


def _text(output: str | ToolReturn) -> tuple[bool, str]:
    if isinstance(output, str):
        return False, output
    parts: list[str] = []
    for part in output.content:
        if isinstance(part, TextPart):
            parts.append(part.text)
        elif isinstance(part, MediaPart) and part.data is not None:
            parts.append(part.data.decode("latin-1"))
    return output.is_error, "\n".join(parts)


async def call_tool(tool: Tool, args: Args) -> tuple[bool, str]:
    ctx: ToolContext[Any] = ToolContext(
        run_id="outsider", call_id="c", tool_call_id="t", tool_name=tool.name, deps=None
    )
    return _text(await tool.call(dict(args), ctx))


class Arena:
    """``<tmp>/arena/ws`` (the workspace) beside ``<tmp>/arena/outside`` (the secret and a
    victim); the workspace holds harmless files of the same names."""

    def __init__(self, tmp_path: Path) -> None:
        self.top = tmp_path / "arena"
        self.outside = self.top / "outside"
        self.ws = self.top / "ws"
        self.secret = secrets.token_hex(16)
        self.outside.mkdir(parents=True)
        (self.outside / "secret.txt").write_text(f"outside secret S3CR3T-{self.secret}\n")
        (self.outside / "victim.txt").write_text(f"victim EDITME S3CR3T-{self.secret}\n")
        for name in ("secret.txt", "victim.txt", "d/secret.txt", "d/victim.txt"):
            path = self.ws / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(INSIDE)
        self.cls = "unsealed"
        self.escapes: list[Escape] = []
        self.tried = 0
        self.watch: TreeWatch | None = None
        self.pristine: dict[str, Entry] = {}

    def seal(self, cls: str) -> None:
        self.cls = cls
        self.pristine = snapshot(self.outside)
        self.watch = TreeWatch(self.outside, skip=frozenset())

    def drain(self) -> list[FsEvent]:
        return self.watch.drain() if self.watch is not None else []

    def close(self) -> None:
        if self.watch is not None:
            self.watch.close()

    def flag(self, kind: Kind, case: str, detail: str) -> None:
        self.escapes.append(Escape(kind=kind, cls=self.cls, case=case, detail=detail))

    def judge(self, case: str, label: str, text: str) -> None:
        """Flag what the outside tree saw since the last drain, and the secret in ``text``."""
        events = self.drain()
        reads = [e for e in events if e.is_read]
        writes = [e for e in events if e.is_write]
        changes = diff(self.pristine, snapshot(self.outside))
        if self.secret in text:
            self.flag("outside_read", case, f"{label}: outside secret in the result")
        elif reads:
            self.flag("outside_read", case, f"{label}: opened outside: {reads[0]}")
        if writes or changes:
            seen = "; ".join([*(str(e) for e in writes[:2]), *changes[:2]])
            self.flag("outside_write", case, f"{label}: {seen}")
            restore(self.outside, self.pristine)
            self.drain()

    async def attempt(
        self, case: str, tool: Tool, args: Args, *, must_contain: str | None = None
    ) -> str:
        self.tried += 1
        label = f"{tool.name} {json.dumps(args)[:120]}"
        self.drain()
        text = ""
        try:
            with anyio.fail_after(10):
                _is_error, text = await call_tool(tool, args)
        except TimeoutError:
            self.flag("other", case, f"{label}: no answer within 10 s")
        except Exception as error:
            self.flag("other", case, f"{label}: raised {type(error).__name__}: {error}"[:300])
        self.judge(case, label, text)
        if must_contain is not None and must_contain not in text:
            self.flag("other", case, f"{label}: {must_contain!r} missing from {text[:120]!r}")
        return text

    def verdict(self) -> None:
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
                + "\n".join(lines[:30]),
                pytrace=False,
            )


@pytest.fixture
def arena(tmp_path: Path) -> Iterator[Arena]:
    made = Arena(tmp_path)
    try:
        yield made
    finally:
        made.close()


class Swapper:
    """The suite's swapper process (``fs_redteam/swapper.py``) exchanging pairs of names with
    ``renameat2(RENAME_EXCHANGE)`` until stopped."""

    def __init__(self, work: Path, pairs: list[tuple[Path, Path]], mode: str = "exchange") -> None:
        ready = work / f"swapper-{secrets.token_hex(4)}.ready"
        command = [sys.executable, str(SWAPPER), "--mode", mode, "--seconds", "60"]
        command += ["--ready", str(ready), *(str(p) for pair in pairs for p in pair)]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while not ready.exists() and self.process.poll() is None:
            assert time.monotonic() < deadline, "the swapper did not start"
            time.sleep(0.01)
        self.counts: dict[str, int] = {}

    def stop(self) -> dict[str, int]:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            out, err = self.process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, err = self.process.communicate()
        assert self.process.returncode == 0, f"swapper failed: {err.decode()[-1000:]}"
        self.counts = json.loads(out.decode().strip().splitlines()[-1])
        return self.counts


# --- the root opened by name ------------------------------------------------------------------


async def test_workspace_root_swapped_while_it_is_opened(arena: Arena, tmp_path: Path) -> None:
    """``Workspace.at(ws)`` while another process exchanges ``ws`` with a link to the outside:
    a workspace whose root says ``.../ws`` must only ever see the inside. (``Workspace.at``
    canonicalizes and then opens the path; a swap between the two roots the handle outside.)
    Workspaces whose root came out as the outside path itself (the caller named a link) are
    not counted: that is what the caller asked for."""
    a = arena
    os.symlink("outside", a.top / ".swap_ws")
    a.seal("root opened by name (race)")
    swapper = Swapper(tmp_path, [(a.ws, a.top / ".swap_ws")])
    opened = leaked = 0
    try:
        end = time.monotonic() + RACE_SECONDS
        while time.monotonic() < end:
            try:
                workspace = await anyio.to_thread.run_sync(Workspace.at, a.ws)
            except Exception:
                continue
            try:
                if workspace.root.name != "ws":
                    continue
                opened += 1
                a.tried += 1
                tools = _tools(workspace)
                _err, text = await call_tool(tools["read_file"], {"path": "secret.txt"})
                if a.secret in text:
                    leaked += 1
                    if leaked <= 3:
                        a.flag(
                            "outside_read",
                            "Workspace.at race",
                            f"root {workspace.root} read outside/secret.txt: {text.strip()[:80]!r}",
                        )
            finally:
                workspace.close()
            a.drain()  # the outside is read by design while the root is a link: not judged
    finally:
        counts = swapper.stop()
    print(f"  Workspace.at race: {opened} workspaces rooted at ws, {leaked} saw the outside")
    if leaked > 3:
        a.flag("outside_read", "Workspace.at race", f"... {leaked} in all ({counts})")
    a.verdict()


async def test_copied_or_lazy_workspace_reopens_a_swapped_root(arena: Arena) -> None:
    """A ``Workspace`` that is deep-copied, pickled (``RootedDir.__reduce__``) or built with the
    constructor (opened on first use) opens its root path again; if the root was swapped for a
    link to the outside by then, the copy must still not reach the outside."""
    a = arena
    original = Workspace.at(a.ws)
    variants: dict[str, Workspace] = {
        "copy.copy": copy.copy(original),
        "copy.deepcopy": copy.deepcopy(original),
        "pickle round trip": pickle.loads(pickle.dumps(original)),
        "Workspace(root=...) constructor": Workspace(root=original.root),
    }
    stash = a.top / "ws.real"
    os.rename(a.ws, stash)
    os.symlink("outside", a.ws)  # the root is now a link to the outside
    a.seal("root reopened by name")
    try:
        for label, workspace in [("original", original), *variants.items()]:
            tools = _tools(workspace)
            await a.attempt(label, tools["read_file"], {"path": "secret.txt"})
            await a.attempt(label, tools["grep"], {"pattern": "S3CR3T"})
            await a.attempt(label, tools["write_file"], {"path": "victim.txt", "content": PWN})
            await a.attempt(
                label,
                tools["edit_file"],
                {"path": "victim.txt", "old_string": "EDITME", "new_string": "PWNED"},
            )
    finally:
        for workspace in (original, *variants.values()):
            workspace.close()
        os.unlink(a.ws)
        os.rename(stash, a.ws)
    a.verdict()


async def test_parent_of_the_workspace_swapped(arena: Arena, tmp_path: Path) -> None:
    """The folder holding the workspace is exchanged with a link to a twin folder whose ``ws``
    holds the secret, while the tools run (the handle holds the root open: nothing may
    change)."""
    a = arena
    twin = tmp_path / "twin"
    (twin / "ws" / "d").mkdir(parents=True)
    for name in ("secret.txt", "victim.txt", "d/secret.txt", "d/victim.txt"):
        (twin / "ws" / name).write_text(f"twin S3CR3T-{a.secret} EDITME\n")
    workspace = Workspace.at(a.ws)
    tools = _tools(workspace)
    os.symlink(twin, tmp_path / ".swap_arena")
    a.seal("workspace parent swapped (race)")
    twin_before = snapshot(twin)
    swapper = Swapper(tmp_path, [(a.top, tmp_path / ".swap_arena")])
    ops: list[tuple[str, Args]] = [
        ("read_file", {"path": "d/secret.txt"}),
        ("grep", {"pattern": "S3CR3T"}),
        ("glob", {"pattern": "**/*"}),
        ("list_dir", {"path": "d"}),
        ("write_file", {"path": "d/victim.txt", "content": INSIDE}),
        ("edit_file", {"path": "victim.txt", "old_string": "EDITME", "new_string": "X"}),
        ("edit_file", {"path": "victim.txt", "old_string": "X", "new_string": "EDITME"}),
    ]
    try:
        end = time.monotonic() + RACE_SECONDS
        while time.monotonic() < end:
            for tool, args in ops:
                a.tried += 1
                try:
                    _err, text = await call_tool(tools[tool], args)
                except Exception as error:
                    a.flag("other", "parent swap", f"{tool}: raised {error!r}")
                    continue
                if a.secret in text:
                    a.flag("outside_read", "parent swap", f"{tool} {args}: twin secret shown")
    finally:
        swapper.stop()
        workspace.close()
    changes = diff(twin_before, snapshot(twin))
    if changes:
        a.flag("outside_write", "parent swap", f"twin changed: {changes[:3]}")
    a.drain()
    a.verdict()


# --- hostile spellings ------------------------------------------------------------------------


async def test_hostile_spellings_and_patterns(
    arena: Arena, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spellings and patterns the first suite did not try; none may reach the outside."""
    a = arena
    root = str(Workspace.at(a.ws).root)
    monkeypatch.chdir(a.outside)
    nfd = unicodedata.normalize("NFD", "caf\u00e9")
    (a.outside / f"{nfd}.txt").write_text(f"S3CR3T-{a.secret}\n")
    (a.ws / "caf\u00e9.txt").write_text(INSIDE)
    workspace = Workspace.at(a.ws)
    tools = _tools(workspace)
    root_fd = workspace.handle.fileno()
    os.symlink(f"/proc/self/fd/{root_fd}/../outside/secret.txt", a.ws / "own_fd_out")
    os.symlink(f"/proc/self/fd/{root_fd}/secret.txt", a.ws / "own_fd_in")
    os.symlink(f"{root}/./../outside/secret.txt", a.ws / "dot_dot_abs")
    os.symlink(f"{root}//../outside/secret.txt", a.ws / "slashes_abs")
    os.symlink(f"{root}2/../outside/secret.txt", a.ws / "prefix_abs")
    os.symlink("d/../../outside/secret.txt", a.ws / "d_up_out")
    a.seal("hostile spellings")
    paths = [
        "d//secret.txt",
        "d/./secret.txt/.",
        "d/secret.txt//",
        ".../outside/secret.txt",
        "\u2025/outside/secret.txt",  # two-dot leader
        "\u2024\u2024/outside/secret.txt",  # one-dot leaders
        "..\u2215outside\u2215secret.txt",  # division slash
        "..\u2044outside\u2044secret.txt",  # fraction slash
        f"../outside/{nfd}.txt",
        f"{unicodedata.normalize('NFC', nfd)}.txt",
        "../OUTSIDE/SECRET.TXT",
        "D/../../outside/secret.txt",
        "../outside/secret.txt\n",
        "d\n/../../outside/secret.txt",
        f"{root}/.",
        f"{root}/..",
        f"{root}/../outside",
        f"{root}/./../outside/secret.txt",
        f"{root}2/../outside/secret.txt",
        f"//{root.lstrip('/')}/../outside/secret.txt",
        f"/./{root.lstrip('/')}/../outside/secret.txt",
        f"/proc/self/fd/{root_fd}/../outside/secret.txt",
        f"/proc/self/fd/{root_fd}/secret.txt",
        f"/proc/{os.getpid()}/fd/{root_fd}/..",
        "own_fd_out",
        "own_fd_in",
        "dot_dot_abs",
        "slashes_abs",
        "prefix_abs",
        "d_up_out",
    ]
    for path in paths:
        await a.attempt(path, tools["read_file"], {"path": path})
        await a.attempt(path, tools["grep"], {"pattern": "S3CR3T", "path": path})
        await a.attempt(path, tools["list_dir"], {"path": path})
        await a.attempt(path, tools["write_file"], {"path": path, "content": PWN})
        await a.attempt(
            path,
            tools["edit_file"],
            {"path": path, "old_string": "EDITME", "new_string": "PWNED"},
        )
    for listed in (".", "./", "././.", ".//", "d/..", "d/./..", f"{root}/", f"{root}/./d/.."):
        await a.attempt(f"list_dir {listed}", tools["list_dir"], {"path": listed})
    patterns = [
        "/etc/*",
        "/etc/passwd",
        f"{a.outside}/*",
        "../*",
        "../outside/*",
        "../**",
        "**/../..",
        "**/../../outside/*",
        "{..,.}/**",
        "./../outside/secret.txt",
        "/**/secret.txt",
        "**/" + nfd + "*",
    ]
    for pattern in patterns:
        await a.attempt(f"glob {pattern}", tools["glob"], {"pattern": pattern})
        await a.attempt(f"glob {pattern} from d", tools["glob"], {"pattern": pattern, "path": "d"})
        await a.attempt(
            f"grep include {pattern}",
            tools["grep"],
            {"pattern": "S3CR3T", "include": [pattern], "include_ignored": True},
        )
    workspace.close()
    a.verdict()


# --- resource exhaustion ----------------------------------------------------------------------


def _probe(
    root: Path, attempts: list[tuple[str, Args]], *, limit: float, memory: int = 1 << 30
) -> list[dict[str, Any]]:
    """Run tool calls in the suite's device-probe child (address space capped at ``memory``,
    each call under ``anyio.fail_after(5)``); a child that does not finish within ``limit``
    seconds is killed (a call that never lets the event loop run cannot be timed out)."""
    process = subprocess.Popen(
        [sys.executable, str(DEVICE_PROBE), str(root), str(memory)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        out, _err = process.communicate(json.dumps(attempts).encode(), timeout=limit)
    except subprocess.TimeoutExpired:
        process.kill()
        out, _err = process.communicate()
    lines = [json.loads(line) for line in out.decode().splitlines() if line.strip()]
    while len(lines) < len(attempts):
        lines.append({"outcome": "killed", "seconds": limit})
    return lines


def _deep_tree(root: Path, depth: int) -> None:
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir("a", dir_fd=fd)
            child = os.open("a", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
        made = os.open("deep.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(made, b"deep line\n")
        os.close(made)
    finally:
        os.close(fd)


def _remove_deep_tree(root: Path) -> None:
    """Remove a tree made by :func:`_deep_tree` level by level (``shutil.rmtree`` and pytest's
    own temporary-folder cleanup recurse once per level and would hit the recursion limit)."""
    while (root / "a").exists():
        if (root / "a" / "a").exists():
            os.rename(root / "a" / "a", root / "a.next")
        shutil.rmtree(root / "a")
        if (root / "a.next").exists():
            os.rename(root / "a.next", root / "a")


async def test_resource_exhaustion(tmp_path: Path) -> None:
    """Each attack in its own capped child: a well-behaved tool answers with a result (an
    error result is fine) within seconds; raising out of ``Tool.call`` (``RecursionError``,
    ``MemoryError``, ``PatternLimitException``), hanging, or holding the event loop past the
    call's own 5 s deadline is flagged."""
    a = Arena(tmp_path)
    a.seal("resource exhaustion")
    cases: list[tuple[str, str, list[tuple[str, Args]], float]] = []
    deep = tmp_path / "deep_ws"
    deep.mkdir()
    _deep_tree(deep, 1100)
    cases.append(
        (
            "directory 1100 deep",
            str(deep),
            [
                ("glob", {"pattern": "**/deep.txt"}),
                ("grep", {"pattern": "deep line"}),
            ],
            30.0,
        )
    )
    bombs = tmp_path / "bomb_ws"
    bombs.mkdir()
    (bombs / "a.txt").write_text("a\n")
    cases.append(
        (
            "brace-expansion bomb",
            str(bombs),
            [
                ("glob", {"pattern": "{a,b}" * 40}),
                ("grep", {"pattern": "a", "include": ["{a,b}" * 40]}),
                ("grep", {"pattern": "a", "exclude": ["{a,b}" * 40]}),
            ],
            20.0,
        )
    )
    regex = tmp_path / "regex_ws"
    regex.mkdir()
    (regex / "a.txt").write_text("a" * 48 + "!\n")
    cases.append(
        ("catastrophic backtracking", str(regex), [("grep", {"pattern": "(a|aa)+$"})], 9.0)
    )
    sparse = tmp_path / "sparse_ws"
    sparse.mkdir()
    with (sparse / "big.txt").open("wb") as handle:
        handle.write(b"hello world\n" * 2000)  # 24 KB of text: not binary by the sniff
        handle.truncate(8 << 30)  # then 8 GiB of holes: one endless "line"
    cases.append(
        (
            "sparse 8 GiB text file",
            str(sparse),
            [
                ("read_file", {"path": "big.txt", "limit": 5}),
                ("grep", {"pattern": "zzz"}),
                ("edit_file", {"path": "big.txt", "old_string": "hello", "new_string": "x"}),
            ],
            40.0,
        )
    )
    try:
        answers = [
            await anyio.to_thread.run_sync(
                lambda r=root, at=attempts, li=limit: _probe(Path(r), at, limit=li)
            )
            for _case, root, attempts, limit in cases
        ]
    finally:
        _remove_deep_tree(deep)
    for (case, _root, attempts, _limit), lines in zip(cases, answers, strict=True):
        for line, (tool, args) in zip(lines, attempts, strict=True):
            a.tried += 1
            label = f"{tool} {json.dumps(args)[:80]}"
            outcome, seconds = line.get("outcome"), float(line.get("seconds", 0))
            if outcome == "raised":
                a.flag("other", case, f"{label}: raised {line.get('text', '')[:120]}")
            elif outcome in ("timeout", "killed"):
                a.flag("other", case, f"{label}: {outcome} after {seconds:.0f} s")
            elif seconds > 6:
                a.flag("other", case, f"{label}: held the event loop {seconds:.1f} s")
    growing = tmp_path / "grow_ws"
    growing.mkdir()
    target = growing / "grow.txt"
    target.write_text("hello world\n" * 2000)
    stop = threading.Event()

    def grow() -> None:  # extends the file by holes faster than anyone can read it
        size = target.stat().st_size
        while not stop.is_set():
            size += 64 << 20
            os.truncate(target, size)
            time.sleep(0.005)

    grower = threading.Thread(target=grow, daemon=True)
    grower.start()
    try:
        attempts: list[tuple[str, Args]] = [
            ("edit_file", {"path": "grow.txt", "old_string": "hello", "new_string": "x"}),
            ("read_file", {"path": "grow.txt", "limit": 1}),
        ]
        lines = await anyio.to_thread.run_sync(lambda: _probe(growing, attempts, limit=20.0))
    finally:
        stop.set()
        grower.join()
        target.unlink()
    for line, (tool, _args) in zip(lines, attempts, strict=True):
        a.tried += 1
        if line.get("outcome") != "result":
            detail = f"{line.get('outcome')} {str(line.get('text', ''))[:100]}"
            a.flag("other", "file growing while read", f"{tool}: {detail}")
    a.judge("resource exhaustion", "all probes", "")
    a.close()
    a.verdict()


# --- summary ----------------------------------------------------------------------------------


def test_zz_fs_redteam_outsider_summary() -> None:
    """Print the module's figures (the repo conftest collects lines starting ``fs redteam``)."""
    classes = ", ".join(f"{cls}={n}" for cls, n in sorted(TALLY.tried.items()))
    print(
        f"fs redteam(outsider): tried={sum(TALLY.tried.values())} "
        f"outside_reads={TALLY.count('outside_read')} "
        f"outside_writes={TALLY.count('outside_write')} "
        f"other={TALLY.count('other')} ({classes})"
    )
    for escape in dict.fromkeys(str(e) for e in TALLY.escapes):
        print(f"  {escape}")
