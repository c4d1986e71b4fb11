"""The rooted workspace handle (issue #12): no way out through symlinks, ``..``, magic links,
hard links or special files, for the handle itself and for every file tool."""

from __future__ import annotations

import doctest
import fcntl
import importlib
import os
import socket
import stat
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from _tools_helpers import call, text_of  # pyright: ignore[reportImplicitRelativeImport]
from robota.core.host.errors import InvalidPathError, PathOutsideRootError
from robota.core.tools.base import ToolContext
from robota.tools import (
    EditFileTool,
    GlobTool,
    GrepTool,
    ListDirTool,
    ReadFileTool,
    Workspace,
    WriteFileTool,
)
from robota.tools.errors import (
    NotADirectoryPathError,
    NotARegularFileError,
    PathNotFoundError,
    PathTooLongError,
    SymlinkLoopError,
)
from robota.tools.rooted import RootedDir

SECRET = "OUTSIDE-SECRET 42"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text(SECRET + "\n")
    return folder


# --- the handle -------------------------------------------------------------------------------


def test_paths_inside_are_reached_and_named_canonically(workspace: Workspace) -> None:
    root = workspace.root
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "mod.py").write_text("x = 1\n")
    os.symlink("src/pkg", root / "pkg")  # relative link in the middle of a path
    os.symlink(str(root / "src" / "pkg" / "mod.py"), root / "abs.py")  # absolute, inside
    os.symlink("../src/pkg/mod.py", root / "src" / "up.py")  # ".." that stays inside
    os.symlink("abs.py", root / "chain.py")  # link to a link
    handle = workspace.handle

    for spelling in ("pkg/mod.py", "abs.py", "src/up.py", "chain.py", str(root / "pkg/mod.py")):
        with handle.open(spelling, expect="file") as opened:
            assert (opened.relative, opened.read_all()) == ("src/pkg/mod.py", b"x = 1\n"), spelling
    assert handle.canonical("src/../pkg/new/../mod.py") == root / "src" / "pkg" / "mod.py"
    assert handle.canonical("missing/dir/../file.txt") == root / "missing" / "file.txt"
    for the_root in ("", ".", "src/..", str(root), str(root) + "/"):
        with handle.open(the_root) as opened:
            assert opened.is_dir, the_root
            assert opened.display == ".", the_root


def test_every_way_out_is_the_same_typed_error(workspace: Workspace, outside: Path) -> None:
    root = workspace.root
    os.symlink(outside / "secret.txt", root / "abs-link")
    os.symlink("../outside/secret.txt", root / "rel-link")
    os.symlink(outside, root / "dir-link")
    os.symlink(f"/proc/self/root{outside}/secret.txt", root / "magic-link")
    os.symlink(f"/proc/{os.getpid()}/cwd/../../..", root / "proc-link")
    (root / "sub").mkdir()
    handle = workspace.handle

    for spelling in (
        "..",
        "../outside/secret.txt",
        "sub/../../outside/secret.txt",
        str(outside / "secret.txt"),
        f"{root}/../outside/secret.txt",
        f"/proc/self/root{outside}/secret.txt",
        "abs-link",
        "rel-link",
        "dir-link/secret.txt",
        "magic-link",
        "proc-link",
    ):
        with pytest.raises(PathOutsideRootError) as caught:
            handle.open(spelling)
        assert "outside" in caught.value.message, spelling
        with pytest.raises(PathOutsideRootError):
            handle.replace_file(spelling if spelling != ".." else "../x", b"x")
        with pytest.raises(PathOutsideRootError):
            workspace.resolve(spelling)
    assert (outside / "secret.txt").read_text() == SECRET + "\n"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


def test_path_errors_are_typed(workspace: Workspace) -> None:
    root = workspace.root
    os.symlink("loop-b", root / "loop-a")
    os.symlink("loop-a", root / "loop-b")
    (root / "file.txt").write_text("x")
    handle = workspace.handle

    with pytest.raises(InvalidPathError, match="NUL"):
        handle.open("a\x00b")
    with pytest.raises(SymlinkLoopError):
        handle.open("loop-a")
    with pytest.raises(SymlinkLoopError):
        handle.replace_file("loop-a/x.txt", b"x")
    with pytest.raises(PathTooLongError):
        handle.open("n" * 300)
    with pytest.raises(PathTooLongError):
        handle.replace_file("n" * 300, b"x")
    with pytest.raises(PathTooLongError):
        handle.open("d/" * 2100)
    with pytest.raises(PathNotFoundError, match=r"file not found: nope/deeper\.txt"):
        handle.open("nope/deeper.txt", expect="file")
    with pytest.raises(NotADirectoryPathError, match=r"file\.txt is a regular file"):
        handle.open("file.txt/inner")
    with pytest.raises(NotADirectoryPathError):
        handle.replace_file("file.txt/inner", b"x")
    with pytest.raises(NotARegularFileError) as caught:
        handle.replace_file(".", b"x")
    assert caught.value.kind == "directory"


def test_the_root_descriptor_is_close_on_exec_and_closes(tmp_path: Path) -> None:
    handle = RootedDir(tmp_path.resolve())
    fd = handle.fileno()
    assert fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC
    handle.close()
    with pytest.raises(OSError, match="Bad file descriptor"):
        os.fstat(fd)
    with pytest.raises(ValueError, match="closed"):
        handle.open(".")


def test_the_handle_keeps_the_directory_it_opened(tmp_path: Path, outside: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "f.txt").write_text("inside\n")
    workspace = Workspace.at(root)
    root.rename(tmp_path / "moved")
    os.symlink(outside, root)  # the root's name now leads elsewhere

    with workspace.handle.open("f.txt", expect="file") as opened:
        assert opened.read_all() == b"inside\n"
    with pytest.raises(PathNotFoundError):
        workspace.handle.open("secret.txt")


# --- special files ----------------------------------------------------------------------------


@pytest.mark.anyio
async def test_read_file_on_a_fifo_is_refused_promptly(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    os.mkfifo(workspace.root / "pipe")
    started = time.monotonic()
    with anyio.fail_after(2):
        result = await call(ReadFileTool(workspace), ctx, path="pipe")
        grep = await call(GrepTool(workspace), ctx, pattern="x")
        edit = await call(EditFileTool(workspace), ctx, path="pipe", old_string="a", new_string="b")
        write = await call(WriteFileTool(workspace), ctx, path="pipe", content="x")
    assert time.monotonic() - started < 2
    assert result.is_error
    assert text_of(result) == (
        "Error: pipe is a FIFO, not a regular file; only regular files are read or written"
    )
    assert text_of(grep) == (
        "No matches for 'x'\n[1 entry skipped: not a regular file (FIFO, socket or device)]"
    )
    assert edit.is_error
    assert "FIFO" in text_of(edit)
    assert write.is_error
    assert "FIFO" in text_of(write)
    assert stat.S_ISFIFO(os.lstat(workspace.root / "pipe").st_mode)


@pytest.mark.anyio
async def test_cancelling_a_long_search_lands_promptly(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    (workspace.root / "big.txt").write_text("no match here\n" * 400_000)
    started = time.monotonic()
    with anyio.move_on_after(0.05) as scope:
        await call(GrepTool(workspace), ctx, pattern=r"(a|b)*c$")
    assert scope.cancelled_caught
    assert time.monotonic() - started < 0.5


def test_sockets_and_devices_are_refused_before_reading(workspace: Workspace) -> None:
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(workspace.root / "sock"))
        with pytest.raises(NotARegularFileError) as caught:
            workspace.handle.open("sock")
        assert caught.value.kind == "socket"
    finally:
        server.close()
    try:
        os.mknod(workspace.root / "null", stat.S_IFCHR | 0o600, os.makedev(1, 3))
    except PermissionError:
        return  # creating a device node needs CAP_MKNOD
    with pytest.raises(NotARegularFileError) as caught:
        workspace.handle.open("null")
    assert caught.value.kind == "character device"
    with pytest.raises(NotARegularFileError):
        workspace.handle.replace_file("null", b"x")


# --- hard links and atomic replacement -------------------------------------------------------


@pytest.mark.anyio
async def test_write_and_edit_never_write_through_a_hard_link(
    workspace: Workspace, ctx: ToolContext[Any], outside: Path
) -> None:
    victim = outside / "victim.txt"
    victim.write_text("outside original\n")
    os.link(victim, workspace.root / "linked.txt")
    os.link(victim, workspace.root / "edited.txt")
    os.chmod(workspace.root / "linked.txt", 0o640)

    written = await call(WriteFileTool(workspace), ctx, path="linked.txt", content="new\n")
    assert text_of(written) == "Overwrote linked.txt (4 bytes, 1 lines)"
    edited = await call(
        EditFileTool(workspace), ctx, path="edited.txt", old_string="original", new_string="X"
    )
    assert text_of(edited) == "Edited edited.txt: replaced 1 occurrence"

    assert victim.read_text() == "outside original\n"
    assert victim.stat().st_nlink == 1
    assert (workspace.root / "linked.txt").read_text() == "new\n"
    assert (workspace.root / "edited.txt").read_text() == "outside X\n"
    assert stat.S_IMODE((workspace.root / "linked.txt").stat().st_mode) == 0o640
    assert [p.name for p in workspace.root.iterdir() if p.name.endswith(".tmp")] == []


def test_replace_keeps_mode_and_sets_the_asked_one(workspace: Workspace) -> None:
    target = workspace.root / "run.sh"
    target.write_text("echo 1\n")
    target.chmod(0o755)
    handle = workspace.handle

    assert handle.replace_file("run.sh", b"echo 2\n").existed is True
    assert stat.S_IMODE(target.stat().st_mode) == 0o755
    handle.replace_file("deep/er/new.txt", b"x", mode=0o600)
    assert stat.S_IMODE((workspace.root / "deep/er/new.txt").stat().st_mode) == 0o600
    with pytest.raises(PathNotFoundError, match="directory not found: absent"):
        handle.replace_file("absent/x.txt", b"x", create_parents=False)


def test_replace_through_an_inside_link_replaces_the_target(workspace: Workspace) -> None:
    (workspace.root / "real.txt").write_text("old")
    os.symlink("real.txt", workspace.root / "alias.txt")
    os.symlink("made-by-link.txt", workspace.root / "dangling.txt")

    assert workspace.handle.replace_file("alias.txt", b"new").display == "real.txt"
    assert workspace.handle.replace_file("dangling.txt", b"born").display == "made-by-link.txt"

    assert os.readlink(workspace.root / "alias.txt") == "real.txt"
    assert (workspace.root / "real.txt").read_text() == "new"
    assert (workspace.root / "made-by-link.txt").read_text() == "born"


def test_remove_file_removes_the_entry_not_the_link_target(workspace: Workspace) -> None:
    (workspace.root / "real.txt").write_text("kept")
    os.symlink("real.txt", workspace.root / "alias.txt")
    (workspace.root / "folder").mkdir()

    assert workspace.handle.remove_file("alias.txt") is True
    assert workspace.handle.remove_file("folder") is False
    assert workspace.handle.remove_file("absent.txt") is False
    assert (workspace.root / "real.txt").read_text() == "kept"
    assert not (workspace.root / "alias.txt").exists()


# --- the tools --------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_grep_never_returns_content_through_a_link_leaving(
    workspace: Workspace, ctx: ToolContext[Any], outside: Path
) -> None:
    (workspace.root / "notes.txt").write_text("OUTSIDE-SECRET is what we look for\n")
    os.symlink(outside / "secret.txt", workspace.root / "leak.txt")
    os.symlink(outside, workspace.root / "leak-dir")
    (workspace.root / "sub").mkdir()
    os.symlink("../notes.txt", workspace.root / "sub" / "inside.txt")

    result = await call(GrepTool(workspace), ctx, pattern="OUTSIDE-SECRET")
    assert text_of(result).splitlines() == [
        "notes.txt:1:OUTSIDE-SECRET is what we look for",
        "sub/inside.txt:1:OUTSIDE-SECRET is what we look for",
        "[2 entries skipped: symlink leaving the workspace]",
    ]
    direct = await call(GrepTool(workspace), ctx, pattern="SECRET", path="leak.txt")
    assert direct.is_error
    assert "outside" in text_of(direct)
    assert SECRET not in text_of(direct)


@pytest.mark.anyio
async def test_glob_and_list_dir_say_what_leaves(
    workspace: Workspace, ctx: ToolContext[Any], outside: Path
) -> None:
    (workspace.root / "a.txt").write_text("a")
    os.symlink(outside / "secret.txt", workspace.root / "leak.txt")
    os.symlink("a.txt", workspace.root / "alias.txt")
    os.symlink("gone.txt", workspace.root / "broken.txt")
    os.mkfifo(workspace.root / "pipe.txt")

    found = await call(GlobTool(workspace), ctx, pattern="*.txt")
    assert text_of(found).splitlines() == [
        "a.txt",
        "alias.txt",
        "[1 entry skipped: broken symlink; 1 entry skipped: not a regular file (FIFO, socket "
        "or device); 1 entry skipped: symlink leaving the workspace]",
    ]
    listing = await call(ListDirTool(workspace), ctx)
    assert text_of(listing).splitlines() == [
        "./ (5 entries)",
        "a.txt  (1 bytes)",
        "alias.txt -> a.txt",
        "broken.txt -> gone.txt  (broken symlink)",
        f"leak.txt -> {outside / 'secret.txt'}  (leads outside the workspace; not followed)",
        "pipe.txt  (FIFO)",
    ]


@pytest.mark.anyio
async def test_a_symlinked_gitignore_is_not_read(
    workspace: Workspace, ctx: ToolContext[Any], outside: Path
) -> None:
    (outside / "ignore-all").write_text("*\n")
    os.symlink(outside / "ignore-all", workspace.root / ".gitignore")
    (workspace.root / "kept.py").write_text("")

    result = await call(GlobTool(workspace), ctx, pattern="*.py")
    assert text_of(result) == "kept.py"


@pytest.mark.anyio
async def test_shell_style_resolve_refuses_the_same_paths(
    workspace: Workspace, outside: Path
) -> None:
    os.symlink(outside, workspace.root / "away")
    with pytest.raises(PathOutsideRootError):
        workspace.resolve("away")
    assert workspace.resolve(".") == workspace.root


@pytest.mark.parametrize(
    "module", ["robota.tools.rooted", "robota.tools._walk", "robota.tools.builtin._files"]
)
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
