"""``read_file``: a text file's lines numbered like ``cat -n``, or an image as a media part
(seed 004, built-in tools; seed 000, "Path Containment", "Tool Output Bounds").

The file is opened once through the workspace's rooted handle (no symlink leaving the
workspace, no FIFO, socket or device: those are refused before a byte is read) and sniffed,
sized and read from that one descriptor, in a worker thread.

Reading is bounded whatever the file's size (a sparse 8 GiB file, a file growing while it is
read): lines are read one at a time, at most 1 MiB each (a longer line is cut and ends the
reading), and after the last line shown at most ``COUNT_AHEAD_BYTES`` more are read to count
the remaining lines; an image is read to at most ``max_image_bytes`` (plus one byte).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

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
from robota.tools.builtin._files import (
    MAX_LINE_BYTES,
    SNIFF_BYTES,
    image_media_type,
    iter_lines,
    looks_binary,
)
from robota.tools.errors import NotARegularFileError, ToolUsageError
from robota.tools.rooted import RootedDir
from robota.tools.workspace import Workspace

__all__ = ["ReadFileArgs", "ReadFileTool"]

DEFAULT_MAX_IMAGE_BYTES = 5 * 1024 * 1024
"""Largest image returned as a media part, in bytes (Anthropic's per-image API limit is 5 MB)."""
COUNT_AHEAD_BYTES = 4 << 20
"""Bytes read past the last line shown to count the file's lines for the continuation note;
a file with more left says "more lines follow" instead of a total."""


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
            data = opened.read_up_to(max_image_bytes + 1)
            if len(data) > max_image_bytes:
                raise ToolUsageError(
                    f"{shown} is an image over the {max_image_bytes}-byte limit (it grew)"
                )
            return ToolReturn(
                content=(
                    TextPart(text=f"Image {shown} ({media_type}, {len(data)} bytes)"),
                    MediaPart(media_kind="image", media_type=media_type, data=data, name=shown),
                )
            )
        if looks_binary(head):
            raise ToolUsageError(f"{shown} is a binary file ({size} bytes); not shown as text")
        page = _numbered_lines(opened.fd, args.offset, args.limit, bounds, cancelled)
    if page.long_line is not None and page.long_line < args.offset:
        raise ToolUsageError(
            f"line {page.long_line} of {shown} is longer than {MAX_LINE_BYTES} bytes; "
            "read_file does not read past it"
        )
    if page.total == 0 and page.complete:
        return f"({shown} is empty)"
    if args.offset > page.total and page.complete:
        raise ToolUsageError(
            f"offset {args.offset} is past the end of {shown}, which has {page.total} lines"
        )
    text = page.text
    if page.long_line is not None:
        text += (
            f"\n[line {page.long_line} is longer than {MAX_LINE_BYTES} bytes: cut, and the "
            "rest of the file is not read]"
        )
    elif page.last < page.total and page.complete:
        text += (
            f"\n[showed lines {args.offset}-{page.last} of {page.total}; "
            f"continue with offset={page.last + 1}]"
        )
    elif not page.complete:
        text += (
            f"\n[showed lines {args.offset}-{page.last}; more lines follow; "
            f"continue with offset={page.last + 1}]"
        )
    return text


@dataclass(kw_only=True, slots=True)
class _Page:
    text: str
    last: int  # last line shown
    total: int  # lines counted
    complete: bool  # total is the file's line count (the end was reached)
    long_line: int | None  # the line longer than MAX_LINE_BYTES that ended the reading


def _numbered_lines(
    fd: int, offset: int, limit: int, bounds: OutputBounds, cancelled: Callable[[], bool]
) -> _Page:
    """Number the lines ``offset`` .. ``offset + limit - 1`` (within ``bounds``), then count
    the rest for at most :data:`COUNT_AHEAD_BYTES`."""
    out: list[str] = []
    used = 0
    last = offset - 1
    total = 0
    full = False
    ahead = 0
    for number, (raw, complete) in enumerate(iter_lines(fd), start=1):
        total = number
        if number % 10_000 == 0 and cancelled():
            return _Page(
                text="\n".join(out), last=last, total=total, complete=False, long_line=None
            )
        if full or number < offset:
            if not complete:  # a line too long to count past: the total stays unknown
                long_line = None if full else number
                return _Page(
                    text="\n".join(out), last=last, total=total, complete=False, long_line=long_line
                )
            if full:
                ahead += len(raw) + 1
                if ahead > COUNT_AHEAD_BYTES:
                    return _Page(
                        text="\n".join(out), last=last, total=total, complete=False, long_line=None
                    )
            continue
        if number >= offset + limit:
            full = True
            continue
        line = raw.decode("utf-8", errors="replace")
        if len(line) > bounds.max_line_chars:
            cut = len(line) - bounds.max_line_chars
            more = f"{cut} more characters" if complete else "more characters"
            line = f"{line[: bounds.max_line_chars]}... [{more} on this line]"
        entry = f"{number:>6}\t{line}"
        size = len(entry.encode()) + 1
        if used + size > bounds.max_bytes and out:
            full = True
            continue
        out.append(entry)
        used += size
        last = number
        if not complete:
            return _Page(
                text="\n".join(out), last=last, total=total, complete=False, long_line=number
            )
    return _Page(text="\n".join(out), last=last, total=total, complete=True, long_line=None)
