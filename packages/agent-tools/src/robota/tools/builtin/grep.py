"""``grep``: search file contents with a regular expression (seed 004, built-in tools).

Python :mod:`re` syntax, matched by the ``regex`` package (a superset of it) so that each
line's search has a time limit and releases the GIL: a catastrophically backtracking pattern
such as ``(a|aa)+$`` fails the call with an error result after ``match_timeout`` seconds
instead of holding the interpreter (where no cancellation could reach it). Lines are read with
bounded memory: a line longer than 1 MiB ends the search of its file (counted in the skip
note). Include/exclude globs whose braces expand past wcmatch's limit are an error result.
Files ignored by ``.gitignore`` and binary files (NUL byte or invalid
UTF-8 in the first 8 KiB) are skipped; ``include``/``exclude`` globs filter files by path
relative to the searched directory (a glob without ``/`` matches the file name at any depth).
Output looks like ``grep -n``: ``path:line:text`` for matches, ``path-line-text`` for context
lines, ``--`` between separate groups.

Files are found and opened through the workspace's rooted handle (:mod:`robota.tools._walk`):
a symlink is searched only when it leads to a regular file inside the workspace, FIFOs,
sockets and devices are never opened, and the result ends with a line saying how many
selected entries were skipped and why (``[1 entry skipped: symlink leaving the workspace]``).
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import anyio.to_thread
import regex
from pydantic import BaseModel, ConfigDict, Field
from robota.core.tools.base import (
    ArgumentKind,
    PermissionArgument,
    RiskClass,
    ToolContext,
    ToolOutput,
)
from robota.tools._walk import Skipped, open_for_reading, walk_files
from robota.tools.bounds import DEFAULT_BOUNDS, OutputBounds, bound_text
from robota.tools.builtin._base import BuiltinTool
from robota.tools.builtin._files import MAX_LINE_BYTES, SNIFF_BYTES, iter_lines, looks_binary
from robota.tools.builtin.glob import compile_globs
from robota.tools.errors import ToolUsageError
from robota.tools.rooted import OpenedEntry, RootedDir
from robota.tools.workspace import Workspace
from wcmatch.glob import WcMatcher

__all__ = ["DEFAULT_MATCH_TIMEOUT", "GrepArgs", "GrepTool"]

DEFAULT_MATCH_TIMEOUT = 1.0
"""Seconds one line's regular-expression search may take before the call fails."""
SKIP_LONG_LINE = f"line longer than {MAX_LINE_BYTES} bytes (rest of the file not searched)"
_CANCEL_EVERY = 4096


class GrepArgs(BaseModel):
    """Arguments of ``grep``."""

    model_config = ConfigDict(extra="forbid")

    pattern: str = Field(description="Regular expression (Python syntax) to search for.")
    path: str = Field(
        default=".", description="File or directory to search; the workspace root by default."
    )
    include: list[str] = Field(
        default_factory=list[str],
        description="Only search files matching one of these globs, e.g. ['*.py'].",
    )
    exclude: list[str] = Field(
        default_factory=list[str], description="Skip files matching one of these globs."
    )
    context: int = Field(
        default=0, ge=0, le=20, description="Lines of context before and after each match."
    )
    ignore_case: bool = Field(default=False, description="Match case-insensitively.")
    include_ignored: bool = Field(
        default=False, description="Also search files that .gitignore files ignore."
    )


@dataclass(frozen=True, kw_only=True, slots=True)
class _Search:
    regex: regex.Pattern[str]
    include: WcMatcher[str] | None
    exclude: WcMatcher[str] | None
    context: int
    max_matches: int
    timeout: float


class GrepTool(BuiltinTool[GrepArgs]):
    """Search files in the workspace for a regular expression.

    The search stops after ``max_matches`` matching lines (the note says so); the output is
    then cut to ``bounds``. No match gives ``"No matches for ..."`` (not an error). An invalid
    regular expression is an error result. When selected entries were left out (a symlink
    leaving the workspace, a FIFO, socket or device, a broken link), a last line says how many
    and why, e.g. ``[2 entries skipped: symlink leaving the workspace]``.

    Args:
        workspace: Paths are resolved and contained here.
        bounds: Output limits.
        max_matches: Matching lines reported before the search stops.
        match_timeout: Seconds one line's search may take; longer fails the call with an
            error result naming the file and line.
    """

    name = "grep"
    description = (
        "Search file contents with a regular expression (Python syntax). Returns "
        "path:line:text for each matching line. Use include/exclude globs to filter files "
        "and context for surrounding lines. Skips binary and .gitignore'd files."
    )
    risk = RiskClass.INSPECT
    permission_argument = PermissionArgument(key="path", kind=ArgumentKind.PATH)
    idempotent = True
    args_model: ClassVar[type[BaseModel]] = GrepArgs

    def __init__(
        self,
        workspace: Workspace,
        *,
        bounds: OutputBounds = DEFAULT_BOUNDS,
        max_matches: int = 500,
        match_timeout: float = DEFAULT_MATCH_TIMEOUT,
    ) -> None:
        self.workspace = workspace
        self.bounds = bounds
        self.max_matches = max_matches
        self.match_timeout = match_timeout

    async def run(self, args: GrepArgs, ctx: ToolContext[Any]) -> ToolOutput:
        try:
            compiled = regex.compile(args.pattern, regex.IGNORECASE if args.ignore_case else 0)
        except regex.error as error:
            raise ToolUsageError(f"invalid regular expression {args.pattern!r}: {error}") from error
        search = _Search(
            regex=compiled,
            include=compile_globs(args.include, what="include glob") if args.include else None,
            exclude=compile_globs(args.exclude, what="exclude glob") if args.exclude else None,
            context=args.context,
            max_matches=self.max_matches,
            timeout=self.match_timeout,
        )
        work = functools.partial(
            _grep,
            self.workspace.handle,
            args.path,
            search,
            not args.include_ignored,
            ctx.is_cancelled,
        )
        lines, matches, stopped, skipped = await anyio.to_thread.run_sync(
            work, abandon_on_cancel=True
        )
        note = f"\n{skipped.note()}" if skipped else ""
        if matches == 0:
            return f"No matches for {args.pattern!r}{note}"
        text = "\n".join(lines)
        if stopped:
            text += f"\n[search stopped after {self.max_matches} matching lines; narrow the pattern or path]"
        bounded = bound_text(text, self.bounds, hint="narrow the pattern or path").text
        return bounded + note


def _selected(local: str, search: _Search) -> bool:
    if search.include is not None and not search.include.match(local):
        return False
    return search.exclude is None or not search.exclude.match(local)


def _grep(
    handle: RootedDir,
    path: str,
    search: _Search,
    gitignore: bool,
    cancelled: Callable[[], bool],
) -> tuple[list[str], int, bool, Skipped]:
    out: list[str] = []
    matches = 0
    skipped = Skipped()
    with handle.open(path) as base:
        if not base.is_dir:
            if _selected(base.parts[-1], search):
                matches, stopped = _grep_opened(
                    base, base.relative, search, out, matches, skipped, cancelled
                )
                return out, matches, stopped, skipped
            return out, matches, False, skipped
        for entry in walk_files(
            handle, base, gitignore=gitignore, cancelled=cancelled, skipped=skipped
        ):
            if cancelled():
                break
            if not _selected(entry.local, search):
                continue
            opened = open_for_reading(handle, entry, skipped)
            if opened is None:
                continue
            with opened:
                matches, stopped = _grep_opened(
                    opened, entry.relative, search, out, matches, skipped, cancelled
                )
            if stopped:
                return out, matches, True, skipped
    return out, matches, False, skipped


def _grep_opened(
    opened: OpenedEntry,
    relative: str,
    search: _Search,
    out: list[str],
    matches: int,
    skipped: Skipped,
    cancelled: Callable[[], bool],
) -> tuple[int, bool]:
    try:
        if looks_binary(opened.read_head(SNIFF_BYTES)):
            return matches, False
        return _grep_file(opened.fd, relative, search, out, matches, skipped, cancelled)
    except OSError:
        return matches, False


def _grep_file(
    fd: int,
    relative: str,
    search: _Search,
    out: list[str],
    matches: int,
    skipped: Skipped,
    cancelled: Callable[[], bool],
) -> tuple[int, bool]:
    before: deque[tuple[int, str]] = deque(maxlen=search.context)
    after = 0
    last_printed = 0
    for number, (raw, complete) in enumerate(iter_lines(fd), start=1):
        if not complete:
            skipped.add(SKIP_LONG_LINE)
            return matches, False
        if number % _CANCEL_EVERY == 0 and cancelled():
            return matches, False
        line = raw.decode("utf-8", errors="replace")
        if _found(search, line, relative, number):
            if matches >= search.max_matches:
                return matches, True
            first = before[0][0] if before else number
            if search.context and out and (last_printed == 0 or first > last_printed + 1):
                out.append("--")
            for ctx_number, ctx_line in before:
                out.append(f"{relative}-{ctx_number}-{ctx_line}")
            before.clear()
            out.append(f"{relative}:{number}:{line}")
            last_printed = number
            matches += 1
            after = search.context
        elif after > 0:
            out.append(f"{relative}-{number}-{line}")
            last_printed = number
            after -= 1
        elif search.context:
            before.append((number, line))
    return matches, False


def _found(search: _Search, line: str, relative: str, number: int) -> bool:
    """Search one line under the time limit, releasing the GIL while matching."""
    try:
        return search.regex.search(line, timeout=search.timeout, concurrent=True) is not None
    except TimeoutError as error:
        raise ToolUsageError(
            f"the regular expression took longer than {search.timeout:g} s on "
            f"{relative}:{number} and was stopped; simplify it (nested or overlapping "
            "repetition such as (a|aa)+ backtracks catastrophically)"
        ) from error
