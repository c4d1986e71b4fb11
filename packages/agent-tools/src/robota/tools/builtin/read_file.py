"""``read_file``: a text file's lines numbered like ``cat -n``, or an image as a media part
(seed 004, built-in tools; seed 000, "Path Containment", "Tool Output Bounds").

The file is opened once through the workspace's rooted handle (no symlink leaving the
workspace, no FIFO, socket or device: those are refused before a byte is read) and sniffed,
sized and read from that one descriptor, in a worker thread.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any, ClassVar, TextIO

import anyio.to_thread
from pydantic import BaseModel, ConfigDict, Field
from robota.core.messages import MediaPart, TextPart
from robota.core.tools.base import (
    ArgumentKind,
    PermissionArgument,
    RiskClass,
    ToolContext,
    ToolOutput,
    ToolReturn,
)
from robota.tools.bounds import DEFAULT_BOUNDS, OutputBounds
from robota.tools.builtin._base import BuiltinTool
from robota.tools.builtin._files import SNIFF_BYTES, image_media_type, looks_binary
from robota.tools.errors import NotARegularFileError, ToolUsageError
from robota.tools.rooted import RootedDir
from robota.tools.workspace import Workspace

__all__ = ["ReadFileArgs", "ReadFileTool"]

DEFAULT_MAX_IMAGE_BYTES = 5 * 1024 * 1024
"""Largest image returned as a media part, in bytes (Anthropic's per-image API limit is 5 MB)."""


class ReadFileArgs(BaseModel):
    """Arguments of ``read_file``."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="File to read, relative to the workspace root or absolute.")
    offset: int = Field(default=1, ge=1, description="1-based line number to start at.")
    limit: int = Field(default=2000, ge=1, description="Maximum number of lines to return.")


class ReadFileTool(BuiltinTool[ReadFileArgs]):
    """Read a text file (numbered lines) or an image (media part) inside the workspace.

    Output: one line per file line, ``f"{number:>6}\\t{text}"`` (1-based numbers, as ``cat -n``
    prints them), starting at ``offset`` for at most ``limit`` lines; lines longer than
    ``bounds.max_line_chars`` are cut with a marker; the whole text stops at
    ``bounds.max_bytes``. When lines remain, a last line says which lines were shown and the
    ``offset`` to continue from. PNG, JPEG, GIF and WebP files (by magic bytes) come back as a
    :class:`~robota.core.messages.MediaPart` (``image/png`` ...); other binary files (NUL byte
    or invalid UTF-8 in the first 8 KiB) are refused with an error result, as are FIFOs,
    sockets and devices (before any read, so a FIFO never blocks) and paths leading outside
    the workspace (:class:`~robota.core.host.errors.PathOutsideRootError`).

    Args:
        workspace: Paths are resolved and contained here.
        bounds: Output limits.
        max_image_bytes: Larger images are refused (bytes).
    """

    name = "read_file"
    description = (
        "Read a file from the workspace. Text comes back with 1-based line numbers "
        "(like `cat -n`); use offset and limit to page through long files. Images "
        "(PNG, JPEG, GIF, WebP) are returned as images."
    )
    risk = RiskClass.INSPECT
    permission_argument = PermissionArgument(key="path", kind=ArgumentKind.PATH)
    idempotent = True
    args_model: ClassVar[type[BaseModel]] = ReadFileArgs

    def __init__(
        self,
        workspace: Workspace,
        *,
        bounds: OutputBounds = DEFAULT_BOUNDS,
        max_image_bytes: int = DEFAULT_MAX_IMAGE_BYTES,
    ) -> None:
        self.workspace = workspace
        self.bounds = bounds
        self.max_image_bytes = max_image_bytes

    async def run(self, args: ReadFileArgs, ctx: ToolContext[Any]) -> ToolOutput:
        read = functools.partial(
            _read_file,
            self.workspace.handle,
            args,
            self.bounds,
            self.max_image_bytes,
            ctx.is_cancelled,
        )
        # Reading only: a cancelled call may leave the worker to finish and close the file.
        return await anyio.to_thread.run_sync(read, abandon_on_cancel=True)


def _read_file(
    handle: RootedDir,
    args: ReadFileArgs,
    bounds: OutputBounds,
    max_image_bytes: int,
    cancelled: Callable[[], bool],
) -> ToolOutput:
    """Open once through the handle; sniff, size and read that one descriptor."""
    try:
        opened = handle.open(args.path, expect="file")
    except NotARegularFileError as error:
        if error.kind == "directory":
            raise ToolUsageError(
                f"{error.path} is a directory; use list_dir to see its entries"
            ) from error
        raise
    with opened:
        shown = opened.display
        size = opened.info.st_size
        head = opened.read_head(SNIFF_BYTES)
        media_type = image_media_type(head)
        if media_type is not None:
            if size > max_image_bytes:
                raise ToolUsageError(
                    f"{shown} is an image of {size} bytes, over the {max_image_bytes}-byte limit"
                )
            data = opened.read_all()
            return ToolReturn(
                content=(
                    TextPart(text=f"Image {shown} ({media_type}, {len(data)} bytes)"),
                    MediaPart(media_kind="image", media_type=media_type, data=data, name=shown),
                )
            )
        if looks_binary(head):
            raise ToolUsageError(f"{shown} is a binary file ({size} bytes); not shown as text")
        with os.fdopen(
            opened.fd, "r", encoding="utf-8", errors="replace", closefd=False
        ) as text_file:
            text, last, total = _numbered_lines(
                text_file, args.offset, args.limit, bounds, cancelled
            )
    if total == 0:
        return f"({shown} is empty)"
    if args.offset > total:
        raise ToolUsageError(
            f"offset {args.offset} is past the end of {shown}, which has {total} lines"
        )
    if last < total:
        text += f"\n[showed lines {args.offset}-{last} of {total}; continue with offset={last + 1}]"
    return text


def _numbered_lines(
    handle: TextIO, offset: int, limit: int, bounds: OutputBounds, cancelled: Callable[[], bool]
) -> tuple[str, int, int]:
    """Return (text, last line shown, total lines)."""
    out: list[str] = []
    used = 0
    last = offset - 1
    total = 0
    full = False
    for number, raw in enumerate(handle, start=1):
        total = number
        if number % 10_000 == 0 and cancelled():
            break
        if full or number < offset:
            continue
        if number >= offset + limit:
            full = True
            continue
        line = raw.rstrip("\r\n")
        if len(line) > bounds.max_line_chars:
            cut = len(line) - bounds.max_line_chars
            line = f"{line[: bounds.max_line_chars]}... [{cut} more characters on this line]"
        entry = f"{number:>6}\t{line}"
        size = len(entry.encode()) + 1
        if used + size > bounds.max_bytes and out:
            full = True
            continue
        out.append(entry)
        used += size
        last = number
    return "\n".join(out), last, total
