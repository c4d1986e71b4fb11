"""``glob``: find files by glob pattern, skipping what ``.gitignore`` files ignore (seed 004,
built-in tools).

Patterns are matched by ``wcmatch`` (``**`` spans directories, ``{a,b}`` braces, ``*`` never
crosses ``/``; a pattern without ``/`` matches file names at any depth) against paths relative
to the searched directory. Nested ``.gitignore`` files apply as git applies them (see
:mod:`robota.tools._walk`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
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
from robota.tools._walk import walk_files
from robota.tools.builtin._base import BuiltinTool
from robota.tools.errors import ToolUsageError
from robota.tools.workspace import Workspace
from wcmatch import glob as wcglob

__all__ = ["GLOB_FLAGS", "GlobArgs", "GlobTool"]

GLOB_FLAGS = wcglob.GLOBSTAR | wcglob.BRACE | wcglob.MATCHBASE | wcglob.DOTGLOB
"""wcmatch flags used by ``glob`` and by ``grep``'s include/exclude filters."""


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

    At most ``max_results`` paths, then a line saying how many more matched.

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
        base = self.workspace.resolve(args.path)
        if not base.is_dir():
            raise ToolUsageError(f"directory not found: {self.workspace.display(base)}")
        find = functools.partial(
            _matches,
            self.workspace.root,
            base,
            args.pattern,
            not args.include_ignored,
            ctx.is_cancelled,
        )
        found = await anyio.to_thread.run_sync(find, abandon_on_cancel=True)
        if not found:
            return f"No files match {args.pattern!r}"
        if len(found) > self.max_results:
            more = len(found) - self.max_results
            return "\n".join(
                [*found[: self.max_results], f"[{more} more matches not shown; narrow the pattern]"]
            )
        return "\n".join(found)


def _matches(
    root: Path, base: Path, pattern: str, gitignore: bool, cancelled: Callable[[], bool]
) -> list[str]:
    found: list[str] = []
    for path, relative, _is_dir in walk_files(root, base, gitignore=gitignore, cancelled=cancelled):
        local = path.relative_to(base).as_posix()
        if wcglob.globmatch(local, pattern, flags=GLOB_FLAGS):
            found.append(relative)
    return sorted(found)
