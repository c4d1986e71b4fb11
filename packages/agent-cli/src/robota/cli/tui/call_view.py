"""A permission question's full call, as the person at the terminal sees it: the tool's name,
every argument (pretty JSON cut by :mod:`robota.cli.tui.call_arguments`: a long value keeps
its head and tail around a count of what is hidden), why it asks, and for a file edit the
proposed change as a unified diff — or why there is none.

The model chose all of it: every string is written through
:func:`~robota.cli.terminal_text.shown` (escape sequences, C1 controls, bidirectional
overrides and invisible characters appear as their escapes). :func:`prompt_view` also says how
many characters that could change what the call does are not on the screen; the question then
offers ``[v] view all`` (:func:`full_view`) before it accepts ``y`` or ``a``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from rich.console import Group, RenderableType
from rich.highlighter import JSONHighlighter
from rich.panel import Panel
from rich.text import Text
from robota.cli.terminal_text import shown
from robota.cli.tui.call_arguments import (
    MAX_VALUE_CHARS,
    MAX_VALUE_LINES,
    bound_arguments,
)
from robota.cli.tui.diffs import (
    FILE_TOOLS,
    MAX_DIFF_LINE_CHARS,
    MAX_DIFF_LINES,
    diff_text,
    proposed_after,
    read_workspace_file,
    unified_diff,
)
from robota.core.permissions import PermissionRequest

__all__ = [
    "MAX_VALUE_CHARS",
    "MAX_VALUE_LINES",
    "CallView",
    "bounded_arguments",
    "call_view",
    "full_view",
    "prompt_view",
]

_CONTENT_ARGUMENTS = frozenset({"content", "old_string", "new_string"})
"""A file tool's arguments a complete diff shows in full (their cut hides nothing)."""


def bounded_arguments(arguments_text: str, *, limit: int = MAX_VALUE_CHARS) -> str:
    """The call's arguments (JSON text) as indented JSON, every string value over ``limit``
    characters or :data:`MAX_VALUE_LINES` lines cut to its head and tail, with how many
    characters (and lines) are hidden between; text that is not JSON is cut the same way.
    Not yet safe for a terminal (:func:`~robota.cli.terminal_text.shown`).

    Example:
        >>> print(bounded_arguments('{"path": "a.txt", "content": "0123456789"}', limit=5))
        {
          "path": "a.txt",
          "content": "012… (+5 characters hidden) …89"
        }
    """
    return bound_arguments(arguments_text, limit=limit).text


@dataclass(frozen=True, kw_only=True, slots=True)
class CallView:
    """What the question shows.

    Attributes:
        renderable: The panel.
        hidden: Characters of the call not on the screen that could change what it does
            (blanks and a file tool's content shown whole in its diff are not counted); when
            above 0 the person views the whole call (:func:`full_view`) before allowing it.
    """

    renderable: RenderableType
    hidden: int


def _exists(workspace: Path, path: str) -> bool:
    target = Path(path).expanduser()
    return os.path.lexists(target if target.is_absolute() else workspace / target)


def _arguments(request: PermissionRequest) -> dict[str, Any] | None:
    try:
        parsed = json.loads(request.arguments_text)
    except (ValueError, RecursionError):
        return None
    return cast(dict[str, Any], parsed) if isinstance(parsed, dict) else None


def _refusal(arguments: Mapping[str, Any], before: str) -> str:
    """Why ``edit_file`` will refuse the call (its rule, ``robota.tools.builtin.edit_file``)."""
    old, new = arguments.get("old_string"), arguments.get("new_string")
    if not isinstance(old, str) or not isinstance(new, str):
        return "(old_string or new_string is missing: the tool will refuse this edit)"
    if not old:
        return "(old_string is empty: the tool will refuse this edit)"
    if old == new:
        return "(old_string and new_string are the same: the tool will refuse this edit)"
    count = before.count(old)
    if count == 0:
        return "(old_string is not in the file as it is now: the tool will refuse this edit)"
    return (
        f"(old_string occurs {count} times in the file and replace_all is not set: the tool "
        "will refuse this edit)"
    )


def _diff_lines(request: PermissionRequest, workspace: Path | None) -> list[str] | Text | None:
    """The proposed change's diff lines, or a note saying why there is none, or None (not a
    file tool, no workspace)."""
    if request.tool_name not in FILE_TOOLS or workspace is None:
        return None
    arguments = _arguments(request)
    path = arguments.get("path") if arguments is not None else None
    if arguments is None or not isinstance(path, str):
        return None
    before = read_workspace_file(workspace, path)
    if before is None and _exists(workspace, path):
        what = "replaces" if request.tool_name == "write_file" else "edits"
        return Text(
            f"{what} an existing file (not shown: binary, not UTF-8, over 1 MiB, not a "
            "regular file, or outside the workspace)",
            style="yellow",
        )
    after = proposed_after(request.tool_name, arguments, before)
    if after is None:
        if request.tool_name == "edit_file" and before is not None:
            return Text(_refusal(arguments, before), style="yellow")
        return None
    return unified_diff(before or "", after, path=path)


def prompt_view(request: PermissionRequest, *, workspace: Path | None) -> CallView:
    """The panel shown before the question, and how much of the call it hides.

    Args:
        request: The call put to the person.
        workspace: The workspace root, for the diff of a proposed file edit (the file is read
            inside it only; None: no diff).
    """
    bounded = bound_arguments(request.arguments_text)
    if bounded.parsed is None:
        arguments = Text(shown(bounded.text, keep_lines=True))
    else:
        arguments = JSONHighlighter()(shown(bounded.text, keep_lines=True))
    arguments.no_wrap = False  # long values wrap: what is hidden is counted where it is
    arguments.overflow = "fold"
    parts: list[RenderableType] = [
        arguments,
        Text(f"why: {shown(request.reason)}", style="italic") if request.reason else Text(""),
    ]
    diff = _diff_lines(request, workspace)
    complete = False
    if isinstance(diff, Text):
        parts.append(diff)
    elif diff is not None:
        parts.append(diff_text(diff) if diff else Text("(no change to the file)", style="dim"))
        complete = len(diff) <= MAX_DIFF_LINES and all(
            len(line) <= MAX_DIFF_LINE_CHARS for line in diff
        )
    hidden = sum(
        count
        for name, count in bounded.hidden.items()
        if not (complete and name in _CONTENT_ARGUMENTS)
    )
    title = Text.assemble((shown(request.tool_name), "bold"), " wants to run")
    panel = Panel(
        Group(*[p for p in parts if p]), title=title, title_align="left", border_style="yellow"
    )
    return CallView(renderable=panel, hidden=hidden)


def call_view(request: PermissionRequest, *, workspace: Path | None) -> RenderableType:
    """The panel shown before the question ``[y] allow once  [a] allow for this session
    [n] deny`` (:func:`prompt_view`'s panel).

    Args:
        request: The call put to the person.
        workspace: The workspace root, for the diff of a proposed file edit (the file is read
            inside it only; None: no diff).
    """
    return prompt_view(request, workspace=workspace).renderable


def full_view(request: PermissionRequest, *, workspace: Path | None) -> RenderableType:
    """The whole call, nothing cut (``[v] view all``): each argument under its name — a string
    as its lines, anything else as indented JSON — and a file edit's whole diff.

    Args:
        request: The call put to the person.
        workspace: As for :func:`prompt_view`.
    """
    parts: list[RenderableType] = [
        Text.assemble((shown(request.tool_name), "bold"), " wants to run (the whole call):")
    ]
    arguments = _arguments(request)
    if arguments is None:
        parts.append(Text(shown(request.arguments_text, keep_lines=True)))
    for name, value in (arguments or {}).items():
        size = f"{len(value):,} characters" if isinstance(value, str) else type(value).__name__
        parts.append(Text(f"── {shown(name)} ({size}) ──", style="bold cyan"))
        text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
        parts.append(Text(shown(text, keep_lines=True)))
    diff = _diff_lines(request, workspace)
    if isinstance(diff, Text):
        parts.append(diff)
    elif diff:
        parts.append(Text("── the change ──", style="bold cyan"))
        parts.append(diff_text(diff, limit=None, width=None))
    parts.append(Text("── end of the call ──", style="bold cyan"))
    return Group(*parts)
