"""Check-then-use races (issue #12): another process swaps a workspace directory for a symlink
to an outside directory in a tight loop while the file tools read, search and write through
that directory. Not one outside byte may be read, not one outside file written or created."""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from _tools_helpers import call, text_of  # pyright: ignore[reportImplicitRelativeImport]
from anyio.streams.buffered import BufferedByteReceiveStream
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

SECRET = "OUTSIDE-SECRET"
SWAP_SECONDS = 3.0

# Exchanges <workspace>/d (a directory) and <workspace>/.swap (a symlink to the outside
# directory) atomically with renameat2(RENAME_EXCHANGE), as fast as it can, so "d" is always
# present and is a symlink leading outside about half of the time.
SWAPPER = r"""
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
first, second, seconds = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2]), float(sys.argv[3])
swaps = 0
print("ready", flush=True)
end = time.monotonic() + seconds
while time.monotonic() < end:
    if libc.renameat2(-100, first, -100, second, 2) != 0:
        sys.exit(f"renameat2 failed: errno {ctypes.get_errno()}")
    swaps += 1
if swaps % 2:
    libc.renameat2(-100, first, -100, second, 2)
print(swaps, flush=True)
"""


def _exchange_supported(tmp_path: Path) -> bool:
    libc = ctypes.CDLL(None, use_errno=True)
    if not hasattr(libc, "renameat2"):
        return False
    (tmp_path / "probe-a").mkdir()
    os.symlink("probe-a", tmp_path / "probe-b")
    done = libc.renameat2(
        -100, os.fsencode(tmp_path / "probe-a"), -100, os.fsencode(tmp_path / "probe-b"), 2
    )
    return done == 0


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.anyio
async def test_swapping_a_directory_for_a_symlink_never_leaks_or_escapes(
    workspace: Workspace, ctx: ToolContext[Any], tmp_path: Path
) -> None:
    if sys.platform != "linux" or not _exchange_supported(tmp_path):
        pytest.skip("needs renameat2(RENAME_EXCHANGE) to swap a directory atomically")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_text(f"{SECRET} f\n")
    (outside / "e.txt").write_text(f"{SECRET} e one\n")
    (outside / "only-outside.txt").write_text(f"{SECRET} only\n")
    before = _snapshot(outside)
    inside = workspace.root / "d"
    inside.mkdir()
    (inside / "f.txt").write_text("inside f\n")
    (inside / "e.txt").write_text("inside e one\n")
    os.symlink(outside, workspace.root / ".swap")

    read, grep, glob, listing = (
        ReadFileTool(workspace),
        GrepTool(workspace),
        GlobTool(workspace),
        ListDirTool(workspace),
    )
    write, edit = WriteFileTool(workspace), EditFileTool(workspace)
    command = [sys.executable, "-c", SWAPPER, str(inside), str(workspace.root / ".swap")]
    seen: list[str] = []
    rounds = refused = succeeded = 0
    async with await anyio.open_process([*command, str(SWAP_SECONDS)]) as swapper:
        assert swapper.stdout is not None
        output = BufferedByteReceiveStream(swapper.stdout)
        assert await output.receive_until(b"\n", 100) == b"ready"
        while swapper.returncode is None:
            rounds += 1
            results = [
                await call(read, ctx, path="d/f.txt"),
                await call(read, ctx, path="d/only-outside.txt"),
                await call(grep, ctx, pattern="SECRET|inside"),
                await call(grep, ctx, pattern="SECRET|inside", path="d"),
                await call(glob, ctx, pattern="**/*.txt"),
                await call(listing, ctx, path="d"),
                await call(write, ctx, path="d/f.txt", content="inside f\n"),
                await call(write, ctx, path=f"d/new-{rounds}.txt", content="inside new\n"),
                await call(edit, ctx, path="d/e.txt", old_string="one", new_string="two"),
                await call(edit, ctx, path="d/e.txt", old_string="two", new_string="one"),
            ]
            for result in results:
                seen.append(text_of(result))
                if result.is_error and "outside" in text_of(result):
                    refused += 1
                elif not result.is_error:
                    succeeded += 1
        swaps = int(await output.receive_until(b"\n", 100))
        assert await swapper.wait() == 0

    leaked = [
        text
        for text in seen
        if SECRET in text or "only-outside.txt  (" in text  # content, entry
    ]
    assert leaked == []
    assert _snapshot(outside) == before
    assert inside.is_dir()
    assert not inside.is_symlink()
    assert (inside / "f.txt").read_text() == "inside f\n"
    # The race really ran: many swaps, many tool calls, and both outcomes happened.
    assert swaps > 1000
    assert rounds > 20
    assert refused > 0
    assert succeeded > 0
