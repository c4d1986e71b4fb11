"""Unified diffs for the file-writing tools (``edit_file``, ``write_file``): a bounded, safe read
of the target file inside the workspace, the diff of a finished edit (before → after) and of a
proposed one (computed from the call's arguments, for the permission prompt)."""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.text import Text
from robota.cli._open_inside import OpenRefused, open_inside
from robota.cli.terminal_text import shown

__all__ = [
    "FILE_TOOLS",
    "MAX_DIFF_LINES",
    "MAX_DIFF_LINE_CHARS",
    "MAX_SNAPSHOT_BYTES",
    "diff_text",
    "proposed_after",
    "read_workspace_file",
    "unified_diff",
]

FILE_TOOLS = frozenset({"edit_file", "write_file"})
"""The built-in tools (``robota.tools.builtin``) that write a file named by their ``path``
argument: a diff is shown for them."""

MAX_SNAPSHOT_BYTES = 1 << 20
"""Largest file (bytes, 1 MiB) read to show a diff; a larger one shows none."""

MAX_DIFF_LINES = 80
"""Lines of a diff shown; the rest is counted (``… +K lines``)."""


def read_workspace_file(
    workspace: Path, path: str, *, limit: int = MAX_SNAPSHOT_BYTES
) -> str | None:
    """The UTF-8 text of ``path`` when it is a regular file inside ``workspace``, else None.

    Nothing outside the workspace is ever read: ``path`` (relative to ``workspace`` or
    absolute) is resolved with its symlinks first, and a target outside the resolved workspace
    is refused before any open; the file is then opened as an ``@path`` attachment is
    (:func:`robota.cli._open_inside.open_inside`): a final component swapped for a symlink
    fails the open, a FIFO swapped in does not block, and a directory in the middle swapped for
    a symlink leading out is caught by the opened descriptor's real path before a byte is read.
    A directory, FIFO, device or socket, a file over ``limit`` bytes, binary content (a NUL
    byte) or text that is not UTF-8 give None, as does a missing file (a ``write_file``
    creating it).

    Args:
        workspace: The workspace root (the tools resolve paths against it).
        path: The tool's ``path`` argument.
        limit: Largest size read, in bytes.
    """
    try:
        root = workspace.resolve(strict=True)
        target = Path(path).expanduser()
        target = (target if target.is_absolute() else root / target).resolve(strict=True)
    except (OSError, RuntimeError, ValueError):
        return None
    if not target.is_relative_to(root):
        return None
    try:
        opened = open_inside(root, target, directory=False)
    except OpenRefused:
        return None
    fd = opened.fd
    try:
        if opened.info.st_size > limit:
            return None
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 16, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit or b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def unified_diff(before: str, after: str, *, path: str) -> list[str]:
    """The unified diff of ``before`` → ``after`` (3 lines of context), one string per line
    without line ends; empty when nothing changed."""
    return list(
        difflib.unified_diff(
            before.splitlines(),
            after.splitlines(),
            fromfile=f"a/{path}",
            tofile=f"b/{path}",
            lineterm="",
        )
    )


def proposed_after(tool_name: str, arguments: Mapping[str, Any], before: str | None) -> str | None:
    """The file's content after the call, computed from its arguments, or None when it cannot
    be or the tool will refuse the call (an unknown tool, missing arguments; for ``edit_file``
    the tool's own rule, ``robota.tools.builtin.edit_file``: ``old_string`` empty, equal to
    ``new_string``, not in the file, or in it more than once without ``replace_all``).

    Args:
        tool_name: ``edit_file`` (``old_string``, ``new_string``, ``replace_all``) or
            ``write_file`` (``content``).
        arguments: The call's arguments.
        before: The file's current text (None: it does not exist or cannot be read).
    """
    if tool_name == "write_file":
        content = arguments.get("content")
        return content if isinstance(content, str) else None
    if tool_name == "edit_file":
        old, new = arguments.get("old_string"), arguments.get("new_string")
        if before is None or not isinstance(old, str) or not isinstance(new, str) or not old:
            return None
        if old == new:
            return None
        count = before.count(old)
        if count == 0 or (count > 1 and arguments.get("replace_all") is not True):
            return None
        return before.replace(old, new)
    return None


_STYLES = (("+++", "bold"), ("---", "bold"), ("@@", "cyan"), ("+", "green"), ("-", "red"))


MAX_DIFF_LINE_CHARS = 400
"""Characters of one diff line shown; the rest is counted (``… +K characters``)."""


def diff_text(
    lines: Sequence[str],
    *,
    limit: int | None = MAX_DIFF_LINES,
    width: int | None = MAX_DIFF_LINE_CHARS,
) -> Text:
    """``lines`` of a unified diff colored (additions green, removals red, hunk headers cyan),
    the first ``limit`` of them (None: all), then ``… +K lines`` for the rest; a line over
    ``width`` characters (None: no limit) ends with ``… +K characters``.

    The lines are the file's (or a model's proposed) text: each is written through
    :func:`~robota.cli.terminal_text.shown`, so an escape sequence in it cannot erase or
    rewrite what the terminal shows (a tab stays a tab).
    """
    text = Text(no_wrap=False)
    shown_lines = lines if limit is None else lines[:limit]
    for line in shown_lines:
        style = next((s for prefix, s in _STYLES if line.startswith(prefix)), "")
        cut = line if width is None or len(line) <= width else line[:width]
        text.append(shown(cut.replace("\t", "    ")), style=style)
        if len(cut) < len(line):
            text.append(f" … +{len(line) - len(cut):,} characters", style="dim")
        text.append("\n")
    hidden = len(lines) - len(shown_lines)
    if hidden > 0:
        text.append(f"… +{hidden} lines\n", style="dim")
    text.rstrip()
    return text
