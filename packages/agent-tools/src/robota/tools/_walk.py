"""Walking a workspace the way git sees it: nested ``.gitignore`` files honoured.

Git's rules (gitignore(5)): each ``.gitignore`` applies to paths below its own directory, with
patterns relative to that directory; a deeper file takes precedence over a shallower one, and
within one file the last matching pattern wins (so ``!pattern`` re-includes). A path inside an
ignored directory cannot be re-included, which the walk gives for free by never descending
into an ignored directory. ``pathspec.GitIgnoreSpec`` implements the pattern grammar; this
module stacks one spec per directory. The ``.git`` directory is always skipped.

Only ``.gitignore`` files at or below the walk's workspace root are read (not those of a
repository enclosing the workspace, nor ``.git/info/exclude`` or the global excludes file).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pathspec import GitIgnoreSpec

__all__ = ["IgnoreStack", "walk_files"]


@dataclass(frozen=True, kw_only=True, slots=True)
class _Level:
    base: str  # directory of the .gitignore, relative to the root, "" for the root
    spec: GitIgnoreSpec


class IgnoreStack:
    """The ``.gitignore`` specs that apply in one directory, shallowest first."""

    def __init__(self, levels: tuple[_Level, ...] = ()) -> None:
        self._levels = levels

    def enter(self, directory: Path, relative: str) -> IgnoreStack:
        """Return the stack for ``directory`` (``relative`` to the root), adding its
        ``.gitignore`` when it has a readable one."""
        path = directory / ".gitignore"
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return self
        return self.with_lines(relative, lines)

    def with_lines(self, relative: str, lines: list[str]) -> IgnoreStack:
        """Return the stack with a ``.gitignore`` of ``lines`` in directory ``relative``
        (``""`` for the root) added as the deepest level."""
        return IgnoreStack(
            (*self._levels, _Level(base=relative, spec=GitIgnoreSpec.from_lines(lines)))
        )

    def ignored(self, relative: str, *, is_dir: bool) -> bool:
        """True when git would ignore ``relative`` (a path relative to the root, ``/``-separated)."""
        for level in reversed(self._levels):
            if level.base:
                if not relative.startswith(level.base + "/"):
                    continue
                local = relative[len(level.base) + 1 :]
            else:
                local = relative
            result = level.spec.check_file(local + "/" if is_dir else local)
            if result.include is not None:
                return result.include
        return False


def walk_files(
    root: Path,
    start: Path,
    *,
    gitignore: bool = True,
    include_dirs: bool = False,
    cancelled: Callable[[], bool] = lambda: False,
) -> Iterator[tuple[Path, str, bool]]:
    """Yield ``(path, relative, is_dir)`` for files (and optionally directories) under ``start``.

    Args:
        root: The workspace root (``.gitignore`` files from here down to ``start`` apply).
        start: Directory to walk, inside ``root``.
        gitignore: Skip what the ``.gitignore`` files ignore.
        include_dirs: Also yield directories (not ``start`` itself).
        cancelled: Polled between directories; the walk stops once it returns True.

    Yields:
        Entries in sorted order per directory, depth first; ``relative`` is relative to
        ``root`` with ``/`` separators. Symlinks are not followed into directories; a symlink
        is yielded as a file.
    """
    stack = IgnoreStack()
    if gitignore:
        relative_start = start.relative_to(root).as_posix()
        relative_start = "" if relative_start == "." else relative_start
        stack = stack.enter(root, "")
        current = root
        walked = ""
        for part in [p for p in relative_start.split("/") if p]:
            current = current / part
            walked = f"{walked}/{part}" if walked else part
            stack = stack.enter(current, walked)
    yield from _walk(root, start, stack, gitignore, include_dirs, cancelled)


def _walk(
    root: Path,
    directory: Path,
    stack: IgnoreStack,
    gitignore: bool,
    include_dirs: bool,
    cancelled: Callable[[], bool],
) -> Iterator[tuple[Path, str, bool]]:
    if cancelled():
        return
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError:
        return
    subdirs: list[tuple[Path, str]] = []
    for entry in entries:
        path = Path(entry.path)
        relative = path.relative_to(root).as_posix()
        is_dir = entry.is_dir(follow_symlinks=False)
        if is_dir and entry.name == ".git":
            continue
        if gitignore and stack.ignored(relative, is_dir=is_dir):
            continue
        if is_dir:
            if include_dirs:
                yield path, relative, True
            subdirs.append((path, relative))
        else:
            yield path, relative, False
    for path, relative in subdirs:
        child = stack.enter(path, relative) if gitignore else stack
        yield from _walk(root, path, child, gitignore, include_dirs, cancelled)
