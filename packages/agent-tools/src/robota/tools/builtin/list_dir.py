"""``list_dir``: the entries of one directory (seed 004, built-in tools)."""

from __future__ import annotations

import os
from pathlib import Path
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
from robota.tools.errors import ToolUsageError
from robota.tools.workspace import Workspace

__all__ = ["ListDirArgs", "ListDirTool"]


class ListDirArgs(BaseModel):
    """Arguments of ``list_dir``."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(default=".", description="Directory to list; the workspace root by default.")


class ListDirTool(BuiltinTool[ListDirArgs]):
    """List one directory inside the workspace, sorted by name.

    One entry per line: ``name/`` for a directory, ``name -> target`` for a symlink,
    ``name  (N bytes)`` for a file. At most ``max_entries`` entries, then a line saying how many
    were left out.

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
        path = self.workspace.resolve(args.path)
        shown = self.workspace.display(path)
        if not path.exists():
            raise ToolUsageError(f"directory not found: {shown}")
        if not path.is_dir():
            raise ToolUsageError(f"{shown} is a file, not a directory; use read_file")
        lines = await anyio.to_thread.run_sync(_entries, path)
        if not lines:
            return f"({shown} is empty)"
        header = f"{shown}/ ({len(lines)} entries)"
        if len(lines) > self.max_entries:
            omitted = len(lines) - self.max_entries
            lines = [*lines[: self.max_entries], f"[{omitted} more entries not shown]"]
        return "\n".join([header, *lines])


def _entries(path: Path) -> list[str]:
    lines: list[str] = []
    for entry in sorted(os.scandir(path), key=lambda e: e.name):
        if entry.is_symlink():
            lines.append(f"{entry.name} -> {os.readlink(entry.path)}")
        elif entry.is_dir():
            lines.append(f"{entry.name}/")
        else:
            try:
                size = entry.stat().st_size
            except OSError:
                lines.append(entry.name)
                continue
            lines.append(f"{entry.name}  ({size} bytes)")
    return lines
