"""The outsider red team's classes as unit tests: the root opened without following a link
(``Workspace.at``, copies, pickles, the constructor), and bounded work (deep trees, brace
bombs, catastrophic regular expressions, sparse and growing files)."""

from __future__ import annotations

import copy
import os
import pickle
import time
from pathlib import Path
from typing import Any

import pytest
from _tools_helpers import call, text_of  # pyright: ignore[reportImplicitRelativeImport]
from robota.core.tools.base import ToolContext
from robota.tools import EditFileTool, GlobTool, GrepTool, ReadFileTool, Workspace
from robota.tools._walk import MAX_WALK_DEPTH, SKIP_DEEP
from robota.tools.builtin._files import MAX_LINE_BYTES, iter_lines
from robota.tools.errors import PathChangedError
from robota.tools.rooted import RootedDir

pytestmark = pytest.mark.anyio


@pytest.fixture
def swapped(tmp_path: Path) -> tuple[Path, Path, Path]:
    """``ws`` (inside) and ``outside`` with a secret; returns (ws, outside, stash)."""
    ws = tmp_path / "ws"
    outside = tmp_path / "outside"
    ws.mkdir()
    outside.mkdir()
    (ws / "secret.txt").write_text("inside\n")
    (outside / "secret.txt").write_text("SECRET\n")
    return ws, outside, tmp_path / "ws.real"


def _swap_for_link(ws: Path, stash: Path) -> None:
    os.rename(ws, stash)
    os.symlink("outside", ws)


def test_a_root_that_became_a_link_is_refused_not_followed(
    swapped: tuple[Path, Path, Path],
) -> None:
    ws, _outside, stash = swapped
    canonical = Workspace.at(ws).root
    _swap_for_link(ws, stash)
    lazy = Workspace(root=canonical)
    with pytest.raises(PathChangedError, match="symlink now"):
        lazy.handle.fileno()
    with pytest.raises(PathChangedError):
        RootedDir(canonical).open("secret.txt")
    # a link among the ancestors is refused as well
    with pytest.raises(PathChangedError):
        RootedDir(ws / "sub").fileno()


@pytest.mark.parametrize("how", ["deepcopy", "pickle", "constructor"])
async def test_copies_reopen_without_following_a_swapped_root(
    swapped: tuple[Path, Path, Path], ctx: ToolContext[Any], how: str
) -> None:
    ws, _outside, stash = swapped
    original = Workspace.at(ws)
    made = {
        "deepcopy": lambda: copy.deepcopy(original),
        "pickle": lambda: pickle.loads(pickle.dumps(original)),
        "constructor": lambda: Workspace(root=original.root),
    }[how]()
    _swap_for_link(ws, stash)
    try:
        result = await call(ReadFileTool(made), ctx, path="secret.txt")
        assert result.is_error
        assert "SECRET" not in text_of(result)
        assert "changed since it was canonicalized" in text_of(result)
        shallow = copy.copy(original)  # shares the open descriptor: still the inside
        assert "inside" in text_of(await call(ReadFileTool(shallow), ctx, path="secret.txt"))
    finally:
        original.close()
        made.close()


def test_a_copy_refuses_a_different_directory_at_the_root_path(
    swapped: tuple[Path, Path, Path],
) -> None:
    ws, _outside, stash = swapped
    original = Workspace.at(ws)
    identity = original.handle.identity
    assert identity is not None
    clone = pickle.loads(pickle.dumps(original))
    os.rename(ws, stash)
    ws.mkdir()  # a different directory under the same name
    with pytest.raises(PathChangedError, match="no longer the directory"):
        clone.handle.fileno()
    assert RootedDir(original.root).fileno() >= 0  # no identity asked: opens the new one
    original.close()


async def test_a_tree_deeper_than_the_recursion_limit_is_walked_with_a_note(
    tmp_path: Path, ctx: ToolContext[Any]
) -> None:
    root = tmp_path / "deep"
    root.mkdir()
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(1100):
        os.mkdir("a", dir_fd=fd)
        child = os.open("a", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = child
    os.close(fd)
    (root / "top.txt").write_text("deep line\n")
    workspace = Workspace.at(root)
    found = text_of(await call(GlobTool(workspace), ctx, pattern="**/*.txt"))
    assert found.splitlines() == ["top.txt", f"[1 entry skipped: {SKIP_DEEP}]"]
    grepped = text_of(await call(GrepTool(workspace), ctx, pattern="deep line"))
    assert grepped.splitlines() == ["top.txt:1:deep line", f"[1 entry skipped: {SKIP_DEEP}]"]
    assert str(MAX_WALK_DEPTH) in SKIP_DEEP
    workspace.close()
    while (root / "a").exists():  # pytest's cleanup recurses per level
        os.rename(root / "a", tmp_path / "a.old")
        if (tmp_path / "a.old" / "a").exists():
            os.rename(tmp_path / "a.old" / "a", root / "a")
        os.rmdir(tmp_path / "a.old")


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("glob", {"pattern": "{a,b}" * 40}),
        ("grep", {"pattern": "a", "include": ["{a,b}" * 40]}),
        ("grep", {"pattern": "a", "exclude": ["*.md", "{a,b}" * 40]}),
    ],
)
async def test_brace_bombs_are_usage_errors(
    workspace: Workspace, ctx: ToolContext[Any], tool: str, arguments: dict[str, Any]
) -> None:
    (workspace.root / "a.txt").write_text("a\n")
    made = GlobTool(workspace) if tool == "glob" else GrepTool(workspace)
    result = await call(made, ctx, **arguments)
    assert result.is_error
    assert "expands to more than 1000 patterns" in text_of(result)


async def test_catastrophic_backtracking_is_stopped_by_the_match_timeout(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    (workspace.root / "a.txt").write_text("fine\n" + "a" * 48 + "!\n")
    started = time.monotonic()
    result = await call(GrepTool(workspace, match_timeout=0.2), ctx, pattern="(a|aa)+$")
    assert time.monotonic() - started < 5
    assert result.is_error
    assert "took longer than 0.2 s on a.txt:2" in text_of(result)
    ok = await call(GrepTool(workspace), ctx, pattern=r"(?P<w>fi)ne\b")
    assert text_of(ok) == "a.txt:1:fine"


def _sparse(path: Path, size: int = 8 << 30) -> None:
    with path.open("wb") as handle:
        handle.write(b"hello world\n" * 2000)
        handle.truncate(size)


async def test_a_sparse_huge_file_is_read_bounded(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    _sparse(workspace.root / "big.txt")
    read = text_of(await call(ReadFileTool(workspace), ctx, path="big.txt", limit=2))
    assert read.splitlines() == [
        "     1\thello world",
        "     2\thello world",
        "[showed lines 1-2; more lines follow; continue with offset=3]",
    ]
    tail = text_of(await call(ReadFileTool(workspace), ctx, path="big.txt", offset=2000))
    assert tail.splitlines()[-1] == (
        f"[line 2001 is longer than {MAX_LINE_BYTES} bytes: cut, and the rest of the file is "
        "not read]"
    )
    past = await call(ReadFileTool(workspace), ctx, path="big.txt", offset=3000)
    assert past.is_error
    assert "read_file does not read past it" in text_of(past)
    grepped = text_of(await call(GrepTool(workspace), ctx, pattern="zzz"))
    assert grepped == (
        "No matches for 'zzz'\n[1 entry skipped: line longer than 1048576 bytes (rest of the "
        "file not searched)]"
    )
    edited = await call(
        EditFileTool(workspace), ctx, path="big.txt", old_string="hello", new_string="x"
    )
    assert edited.is_error
    assert "larger than edit_file's 16777216-byte limit" in text_of(edited)


async def test_edit_file_limit_is_configurable(workspace: Workspace, ctx: ToolContext[Any]) -> None:
    (workspace.root / "f.txt").write_text("hello\n" * 10)
    tool = EditFileTool(workspace, max_bytes=20)
    result = await call(tool, ctx, path="f.txt", old_string="hello", new_string="x")
    assert result.is_error
    assert "20-byte limit (60 bytes)" in text_of(result)


def test_iter_lines_keeps_universal_newlines_and_stops_at_a_long_line(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"a\r\nb\rc\n\nlast")
    fd = os.open(path, os.O_RDONLY)
    try:
        assert list(iter_lines(fd, chunk_bytes=3)) == [
            (b"a", True),
            (b"b", True),
            (b"c", True),
            (b"", True),
            (b"last", True),
        ]
        assert list(iter_lines(fd, max_line_bytes=3)) == [
            (b"a", True),
            (b"b", True),
            (b"c", True),
            (b"", True),
            (b"las", False),
        ]
    finally:
        os.close(fd)
