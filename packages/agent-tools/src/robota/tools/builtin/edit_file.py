"""``edit_file``: exact string replacement in a text file (seed 004, built-in tools).

The old string must occur exactly once unless ``replace_all`` is set; an absent or ambiguous
string is an error result saying how many times it occurs, so the model can add context.
A file larger than ``max_bytes`` (default 16 MiB; checked on the opened file's size and again
while reading, so a sparse or growing file is refused too) is an error result naming the limit.
"""

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
from robota.tools.builtin._files import looks_binary
from robota.tools.errors import ToolUsageError
from robota.tools.rooted import RootedDir
from robota.tools.workspace import Workspace

__all__ = ["DEFAULT_MAX_EDIT_BYTES", "EditFileArgs", "EditFileTool"]

DEFAULT_MAX_EDIT_BYTES = 16 << 20
"""Largest file ``edit_file`` reads to edit (16 MiB); a larger one is an error result."""


class EditFileArgs(BaseModel):
    """Arguments of ``edit_file``."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="File to edit, relative to the workspace root or absolute.")
    old_string: str = Field(description="Exact text to replace (whitespace included).")
    new_string: str = Field(description="Text to put in its place.")
    replace_all: bool = Field(
        default=False, description="Replace every occurrence instead of requiring exactly one."
    )


class EditFileTool(BuiltinTool[EditFileArgs]):
    """Replace an exact string in a UTF-8 text file inside the workspace.

    The file is read and written back through the workspace's rooted handle: the new content
    goes to a new file renamed over the old one (its permission bits kept), so a hard link to a
    file outside the workspace is never written through. Errors (as error results): the file
    does not exist, is binary, is not a regular file or leads outside the workspace;
    ``old_string`` is empty or equal to ``new_string``; ``old_string`` occurs 0 times
    (``"not found"``) or, without ``replace_all``, more than once (``"occurs 2 times"``). The
    result names the count replaced.

    Args:
        workspace: Paths are resolved and contained here.
        max_bytes: Larger files are refused (an error result naming the limit).
    """

    name = "edit_file"
    description = (
        "Replace an exact string in a file. old_string must match the file exactly "
        "(including indentation) and occur exactly once, unless replace_all is true; "
        "include surrounding lines to make it unique."
    )
    risk = RiskClass.MODIFY
    permission_argument = PermissionArgument(key="path", kind=ArgumentKind.PATH)
    args_model: ClassVar[type[BaseModel]] = EditFileArgs

    def __init__(self, workspace: Workspace, *, max_bytes: int = DEFAULT_MAX_EDIT_BYTES) -> None:
        self.workspace = workspace
        self.max_bytes = max_bytes

    async def run(self, args: EditFileArgs, ctx: ToolContext[Any]) -> ToolOutput:
        edit = functools.partial(_edit_file, self.workspace.handle, args, self.max_bytes)
        # Not abandoned on cancel: the result must say whether the file was replaced.
        return await anyio.to_thread.run_sync(edit)


def _edit_file(handle: RootedDir, args: EditFileArgs, max_bytes: int) -> str:
    """Read through the handle (at most ``max_bytes``), replace in memory, write back through
    the handle (a new file renamed over the old one)."""
    with handle.open(args.path, expect="file") as opened:
        shown = opened.display
        relative = opened.relative
        size = opened.info.st_size
        data = b"" if size > max_bytes else opened.read_up_to(max_bytes + 1)
        if size > max_bytes or len(data) > max_bytes:
            raise ToolUsageError(
                f"{shown} is larger than edit_file's {max_bytes}-byte limit "
                f"({max(size, len(data))} bytes); use write_file to replace it whole"
            )
    if args.old_string == "":
        raise ToolUsageError("old_string is empty; use write_file to create or replace a file")
    if args.old_string == args.new_string:
        raise ToolUsageError("old_string and new_string are the same; nothing to change")
    if looks_binary(data):
        raise ToolUsageError(f"{shown} is a binary file; edit_file edits UTF-8 text")
    text = data.decode("utf-8")
    count = text.count(args.old_string)
    if count == 0:
        raise ToolUsageError(
            f"old_string not found in {shown} (0 matches); read the file and copy the "
            "text exactly, including whitespace"
        )
    if count > 1 and not args.replace_all:
        raise ToolUsageError(
            f"old_string occurs {count} times in {shown}; include more surrounding "
            "context to make it unique, or set replace_all=true"
        )
    updated = text.replace(args.old_string, args.new_string)
    handle.replace_file(relative, updated.encode("utf-8"), create_parents=False)
    plural = "occurrence" if count == 1 else "occurrences"
    return f"Edited {shown}: replaced {count} {plural}"
