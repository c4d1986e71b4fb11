"""``write_file``: create or overwrite a text file inside the workspace (seed 004, built-in
tools; seed 000, "Path Containment")."""

from __future__ import annotations

import functools
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
from robota.tools.workspace import Workspace

__all__ = ["WriteFileArgs", "WriteFileTool"]


class WriteFileArgs(BaseModel):
    """Arguments of ``write_file``."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="File to write, relative to the workspace root or absolute.")
    content: str = Field(description="The complete new content of the file.")


class WriteFileTool(BuiltinTool[WriteFileArgs]):
    """Write ``content`` (UTF-8) to a file inside the workspace, creating missing parent
    directories; an existing file is replaced.

    The write goes through the workspace's rooted handle
    (:meth:`~robota.tools.rooted.RootedDir.replace_file`): a new file is created beside the
    target and renamed over it, so a hard link to a file outside the workspace is never written
    through and a reader never sees half a file; an existing file keeps its permission bits.
    The result says how many bytes and lines were written. A path that is a directory, FIFO,
    socket or device, or one leading outside the workspace (``..``, an absolute path elsewhere,
    a symlink), is an error result.

    Args:
        workspace: Paths are resolved and contained here.
    """

    name = "write_file"
    description = (
        "Write a file in the workspace (creating it, or replacing its whole content). "
        "Prefer edit_file for changing part of an existing file."
    )
    risk = RiskClass.MODIFY
    permission_argument = PermissionArgument(key="path", kind=ArgumentKind.PATH)
    idempotent = True
    args_model: ClassVar[type[BaseModel]] = WriteFileArgs

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    async def run(self, args: WriteFileArgs, ctx: ToolContext[Any]) -> ToolOutput:
        data = args.content.encode("utf-8")
        write = functools.partial(self.workspace.handle.replace_file, args.path, data)
        # Not abandoned on cancel: the result must say whether the file was replaced.
        replaced = await anyio.to_thread.run_sync(write)
        lines = args.content.count("\n") + (
            0 if args.content.endswith("\n") or not args.content else 1
        )
        verb = "Overwrote" if replaced.existed else "Created"
        return f"{verb} {replaced.display} ({len(data)} bytes, {lines} lines)"
