"""``list_dir``: the entries of one directory (seed 004, built-in tools)."""

from __future__ import annotations

import functools
import os
import stat
from typing import Any, ClassVar

import anyio.to_thread
from pydantic import BaseModel, ConfigDict, Field
from robota.core.tools.base import (
    ArgumentKind,
    PermissionArgument,
    RiskClass,
    ToolContext,
    ToolOutput,
)
from robota.tools.builtin._base import BuiltinTool
from robota.tools.errors import NotADirectoryPathError, ToolUsageError
from robota.tools.rooted import RootedDir, kind_of
from robota.tools.workspace import Workspace

__all__ = ["ListDirArgs", "ListDirTool"]


class ListDirArgs(BaseModel):
    """Arguments of ``list_dir``."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(default=".", description="Directory to list; the workspace root by default.")


class ListDirTool(BuiltinTool[ListDirArgs]):
    """List one directory inside the workspace, sorted by name.

    One entry per line: ``name/`` for a directory, ``name -> target`` for a symlink (with
    ``(leads outside the workspace; not followed)``, ``(broken symlink)`` or
    ``(symlink loop)`` when that is where it goes), ``name  (N bytes)`` for a file and
    ``name  (FIFO)`` (``socket``, ``character device`` ...) for a special file. At most
    ``max_entries`` entries, then a line saying how many were left out. The directory is
    opened through the workspace's rooted handle and listed through its descriptor.

    Args:
        workspace: Paths are resolved and contained here.
        max_entries: Entries shown before the listing is cut.
    """

    name = "list_dir"
    description = "List the entries of a directory in the workspace (directories end in '/')."
    risk = RiskClass.INSPECT
    permission_argument = PermissionArgument(key="path", kind=ArgumentKind.PATH)
    idempotent = True
    args_model: ClassVar[type[BaseModel]] = ListDirArgs

    def __init__(self, workspace: Workspace, *, max_entries: int = 1000) -> None:
        self.workspace = workspace
        self.max_entries = max_entries

    async def run(self, args: ListDirArgs, ctx: ToolContext[Any]) -> ToolOutput:
        listing = functools.partial(_entries, self.workspace.handle, args.path)
        shown, lines = await anyio.to_thread.run_sync(listing, abandon_on_cancel=True)
        if not lines:
            return f"({shown} is empty)"
        header = f"{shown}/ ({len(lines)} entries)"
        if len(lines) > self.max_entries:
            omitted = len(lines) - self.max_entries
            lines = [*lines[: self.max_entries], f"[{omitted} more entries not shown]"]
        return "\n".join([header, *lines])


_LINK_NOTES = {
    "outside": "  (leads outside the workspace; not followed)",
    "missing": "  (broken symlink)",
    "loop": "  (symlink loop)",
}


def _entries(handle: RootedDir, path: str) -> tuple[str, list[str]]:
    """List the directory opened through the handle (``os.scandir`` on its descriptor)."""
    try:
        opened = handle.open(path, expect="directory")
    except NotADirectoryPathError as error:
        if error.kind == "regular file":
            raise ToolUsageError(
                f"{error.path} is a file, not a directory; use read_file"
            ) from error
        raise
    lines: list[str] = []
    with opened:
        with os.scandir(opened.fd) as listing:
            entries = sorted(listing, key=lambda e: e.name)
        for entry in entries:
            relative = f"{opened.relative}/{entry.name}" if opened.relative else entry.name
            lines.append(_describe(handle, entry, relative, opened.fd))
    return opened.display, lines


def _describe(handle: RootedDir, entry: os.DirEntry[str], relative: str, dir_fd: int) -> str:
    try:
        if entry.is_symlink():
            target = os.readlink(entry.name, dir_fd=dir_fd)
            return f"{entry.name} -> {target}{_LINK_NOTES.get(handle.probe(relative), '')}"
        if entry.is_dir(follow_symlinks=False):
            return f"{entry.name}/"
        info = entry.stat(follow_symlinks=False)
    except OSError:  # changed since the listing
        return entry.name
    if stat.S_ISREG(info.st_mode):
        return f"{entry.name}  ({info.st_size} bytes)"
    return f"{entry.name}  ({kind_of(info.st_mode)})"
