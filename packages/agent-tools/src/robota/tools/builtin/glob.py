"""``glob``: find files by glob pattern, skipping what ``.gitignore`` files ignore (seed 004,
built-in tools).

Patterns are matched by ``wcmatch`` (``**`` spans directories, ``{a,b}`` braces, ``*`` never
crosses ``/``; a pattern without ``/`` matches file names at any depth) against paths relative
to the searched directory. Nested ``.gitignore`` files apply as git applies them (see
:mod:`robota.tools._walk`). The walk goes through the workspace's rooted handle: a symlink is
listed only when it leads to a regular file inside the workspace, and the result ends with a
line saying how many matching entries were skipped and why (a symlink leaving the workspace,
a FIFO, socket or device, a broken link, a symlink to a directory, which is not followed, a
directory too deep to enter). A pattern whose braces expand to more than
:data:`GLOB_PATTERN_LIMIT` patterns is an error result.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
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
from robota.tools._walk import Skipped, skip_reason, walk_files
from robota.tools.builtin._base import BuiltinTool
from robota.tools.errors import ToolUsageError
from robota.tools.rooted import RootedDir
from robota.tools.workspace import Workspace
from wcmatch import glob as wcglob
from wcmatch._wcparse import PatternLimitException  # pyright: ignore[reportPrivateUsage]
from wcmatch.glob import WcMatcher

__all__ = ["GLOB_FLAGS", "GLOB_PATTERN_LIMIT", "GlobArgs", "GlobTool", "compile_globs"]

GLOB_FLAGS = wcglob.GLOBSTAR | wcglob.BRACE | wcglob.MATCHBASE | wcglob.DOTGLOB
"""wcmatch flags used by ``glob`` and by ``grep``'s include/exclude filters."""
GLOB_PATTERN_LIMIT = 1000
"""Most patterns one glob may expand to (``{a,b}`` braces multiply); more is a usage error."""


def compile_globs(patterns: Sequence[str], *, what: str = "glob pattern") -> WcMatcher[str]:
    """Compile ``patterns`` once with :data:`GLOB_FLAGS` (a match tests any of them).

    Raises:
        ToolUsageError: A pattern expands (braces) to more than :data:`GLOB_PATTERN_LIMIT`
            patterns, or is otherwise invalid.
    """
    try:
        return wcglob.compile(list(patterns), flags=GLOB_FLAGS, limit=GLOB_PATTERN_LIMIT)
    except PatternLimitException as error:
        shown = ", ".join(repr(p[:80]) for p in patterns)
        raise ToolUsageError(
            f"{what} {shown} expands to more than {GLOB_PATTERN_LIMIT} patterns "
            "(too many {a,b} braces); simplify it"
        ) from error
    except ValueError as error:
        raise ToolUsageError(f"invalid {what}: {error}") from error


class GlobArgs(BaseModel):
    """Arguments of ``glob``."""

    model_config = ConfigDict(extra="forbid")

    pattern: str = Field(description="Glob pattern, e.g. '**/*.py' or 'src/{a,b}/*.ts'.")
    path: str = Field(
        default=".", description="Directory to search; the workspace root by default."
    )
    include_ignored: bool = Field(
        default=False, description="Also return files that .gitignore files ignore."
    )


class GlobTool(BuiltinTool[GlobArgs]):
    """Return the workspace files matching a glob pattern, one relative path per line, sorted.

    At most ``max_results`` paths, then a line saying how many more matched, then (when any
    matching entry was left out) a line like
    ``[1 entry skipped: symlink leaving the workspace]``.

    Args:
        workspace: Paths are resolved and contained here.
        max_results: Paths shown before the result is cut.
    """

    name = "glob"
    description = (
        "Find files by glob pattern ('**/*.py', '*.md', 'src/**/test_*.py'). Paths are "
        "relative to the workspace root; files ignored by .gitignore are skipped."
    )
    risk = RiskClass.INSPECT
    permission_argument = PermissionArgument(key="path", kind=ArgumentKind.PATH)
    idempotent = True
    args_model: ClassVar[type[BaseModel]] = GlobArgs

    def __init__(self, workspace: Workspace, *, max_results: int = 1000) -> None:
        self.workspace = workspace
        self.max_results = max_results

    async def run(self, args: GlobArgs, ctx: ToolContext[Any]) -> ToolOutput:
        matcher = compile_globs([args.pattern])
        find = functools.partial(
            _matches,
            self.workspace.handle,
            args.path,
            matcher,
            not args.include_ignored,
            ctx.is_cancelled,
        )
        found, skipped = await anyio.to_thread.run_sync(find, abandon_on_cancel=True)
        note = [skipped.note()] if skipped else []
        if not found:
            return "\n".join([f"No files match {args.pattern!r}", *note])
        if len(found) > self.max_results:
            more = len(found) - self.max_results
            return "\n".join(
                [
                    *found[: self.max_results],
                    f"[{more} more matches not shown; narrow the pattern]",
                    *note,
                ]
            )
        return "\n".join([*found, *note])


def _matches(
    handle: RootedDir,
    path: str,
    matcher: WcMatcher[str],
    gitignore: bool,
    cancelled: Callable[[], bool],
) -> tuple[list[str], Skipped]:
    found: list[str] = []
    skipped = Skipped()
    with handle.open(path, expect="directory") as base:
        for entry in walk_files(
            handle, base, gitignore=gitignore, cancelled=cancelled, skipped=skipped
        ):
            if not matcher.match(entry.local):
                continue
            reason = skip_reason(handle, entry)
            if reason is None:
                found.append(entry.relative)
            else:
                skipped.add(reason)
    return sorted(found), skipped
