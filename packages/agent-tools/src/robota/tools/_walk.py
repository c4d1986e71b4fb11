"""Walking a workspace the way git sees it (nested ``.gitignore`` files honoured), through the
rooted handle (:mod:`robota.tools.rooted`), so nothing outside the workspace is listed or opened.

Git's rules (gitignore(5)): each ``.gitignore`` applies to paths below its own directory, with
patterns relative to that directory; a deeper file takes precedence over a shallower one, and
within one file the last matching pattern wins (so ``!pattern`` re-includes). A path inside an
ignored directory cannot be re-included, which the walk gives for free by never descending
into an ignored directory. ``pathspec.GitIgnoreSpec`` implements the pattern grammar; this
module stacks one spec per directory. The ``.git`` directory is always skipped.

Only ``.gitignore`` files at or below the walk's workspace root are read (not those of a
repository enclosing the workspace, nor ``.git/info/exclude`` or the global excludes file). A
``.gitignore`` that is a symlink is not read (git does not follow it either, since 2.32).

How the walk stays inside: every directory is listed through its descriptor
(``os.scandir(fd)``) and entered with ``open(O_DIRECTORY | O_NOFOLLOW)`` relative to its
parent's descriptor, so a directory swapped for a symlink after the listing is not entered
(the entry is counted as changed). Symlinks are never descended into; they are yielded with
``kind="symlink"`` and :func:`open_for_reading` resolves them through the handle, refusing
one that leaves the workspace. FIFOs, sockets and devices are yielded as ``"special"`` and
never opened. The walk is iterative (no recursion limit) and does not enter directories more
than :data:`MAX_WALK_DEPTH` levels below its start. What a tool leaves out is counted in a :class:`Skipped` tally whose
:meth:`Skipped.note` the result carries.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

from pathspec import GitIgnoreSpec
from robota.core.host.errors import InvalidPathError, PathOutsideRootError
from robota.tools.errors import NotARegularFileError, ToolUsageError
from robota.tools.rooted import OpenedEntry, RootedDir, open_directory_at, open_regular_at

__all__ = [
    "MAX_WALK_DEPTH",
    "SKIP_BROKEN",
    "SKIP_CHANGED",
    "SKIP_DEEP",
    "SKIP_LINKED_DIRECTORY",
    "SKIP_LOOP",
    "SKIP_OUTSIDE",
    "SKIP_SPECIAL",
    "IgnoreStack",
    "Skipped",
    "WalkEntry",
    "open_for_reading",
    "skip_reason",
    "walk_files",
]

SKIP_OUTSIDE = "symlink leaving the workspace"
SKIP_SPECIAL = "not a regular file (FIFO, socket or device)"
SKIP_BROKEN = "broken symlink"
SKIP_LOOP = "symlink loop"
SKIP_LINKED_DIRECTORY = "symlink to a directory (not followed)"
SKIP_CHANGED = "changed or unreadable during the search"
MAX_WALK_DEPTH = 256
"""Directories deeper than this below the walk's start are not entered (each level holds a
descriptor open while its subdirectories are walked)."""
SKIP_DEEP = f"directory deeper than {MAX_WALK_DEPTH} levels (not searched)"

MAX_GITIGNORE_BYTES = 1 << 20
"""Bytes of one ``.gitignore`` read at most (1 MiB)."""

EntryKind = Literal["file", "dir", "symlink", "special"]


@dataclass(frozen=True, kw_only=True, slots=True)
class _Level:
    base: str  # directory of the .gitignore, relative to the root, "" for the root
    spec: GitIgnoreSpec


class IgnoreStack:
    """The ``.gitignore`` specs that apply in one directory, shallowest first."""

    def __init__(self, levels: tuple[_Level, ...] = ()) -> None:
        self._levels = levels

    def enter(self, dir_fd: int, relative: str) -> IgnoreStack:
        """Return the stack for the directory open as ``dir_fd`` (``relative`` to the root),
        adding its ``.gitignore`` when it has a readable regular one."""
        lines = _gitignore_lines(dir_fd)
        return self if lines is None else self.with_lines(relative, lines)

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


def _gitignore_lines(dir_fd: int) -> list[str] | None:
    try:
        fd = open_regular_at(".gitignore", dir_fd)
    except (OSError, ToolUsageError):
        return None
    try:
        data = os.pread(fd, MAX_GITIGNORE_BYTES, 0)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data.decode("utf-8", errors="replace").splitlines()


@dataclass(frozen=True, kw_only=True, slots=True)
class WalkEntry:
    """One entry met by :func:`walk_files`.

    Attributes:
        relative: Path below the workspace root, ``/``-separated.
        local: Path below the walk's start directory.
        name: The entry's name in its directory.
        kind: ``"file"`` (regular), ``"dir"``, ``"symlink"`` (not resolved yet) or
            ``"special"`` (FIFO, socket, device).
        dir_fd: Descriptor of the directory holding it; valid only until the walk moves on.
    """

    relative: str
    local: str
    name: str
    kind: EntryKind
    dir_fd: int


class Skipped:
    """A tally of entries left out of a result, by reason.

    Example:
        >>> skipped = Skipped()
        >>> skipped.add(SKIP_OUTSIDE)
        >>> skipped.add(SKIP_OUTSIDE)
        >>> skipped.note()
        '[2 entries skipped: symlink leaving the workspace]'
    """

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()

    def add(self, reason: str) -> None:
        """Count one entry skipped for ``reason``."""
        self.counts[reason] += 1

    def __bool__(self) -> bool:
        return bool(self.counts)

    def note(self) -> str:
        """One line saying how many entries were skipped and why (``""`` when none)."""
        if not self.counts:
            return ""
        parts = [
            f"{count} {'entry' if count == 1 else 'entries'} skipped: {reason}"
            for reason, count in sorted(self.counts.items())
        ]
        return "[" + "; ".join(parts) + "]"


def walk_files(
    handle: RootedDir,
    start: OpenedEntry,
    *,
    gitignore: bool = True,
    include_dirs: bool = False,
    cancelled: Callable[[], bool] = lambda: False,
    skipped: Skipped | None = None,
) -> Iterator[WalkEntry]:
    """Yield the entries under the directory ``start`` (opened through ``handle``).

    Args:
        handle: The workspace's rooted handle (its ``.gitignore`` files from the root down to
            ``start`` apply).
        start: The directory to walk, as :meth:`RootedDir.open` returned it (kept open by the
            caller for the whole walk).
        gitignore: Skip what the ``.gitignore`` files ignore (symlinks and special files are
            matched as files, as git does).
        include_dirs: Also yield directories (not ``start`` itself).
        cancelled: Polled between directories; the walk stops once it returns True.
        skipped: Counts directories that changed between listing and entering, and those
            deeper than :data:`MAX_WALK_DEPTH` (not entered).

    Yields:
        Entries in sorted order per directory, a directory's entries before its
        subdirectories' (depth first). Directories are entered, never symlinks.
    """
    stack = IgnoreStack()
    if gitignore:
        stack = _ancestor_ignores(handle, start.parts)
        stack = stack.enter(start.fd, start.relative)
    yield from _walk(
        start.fd, start.relative, "", stack, gitignore, include_dirs, cancelled, skipped
    )


def _ancestor_ignores(handle: RootedDir, parts: tuple[str, ...]) -> IgnoreStack:
    """The ``.gitignore`` levels of the root and of each directory above the start."""
    stack = IgnoreStack()
    fd = os.dup(handle.fileno())
    try:
        for index, part in enumerate(parts):
            stack = stack.enter(fd, "/".join(parts[:index]))
            try:
                child = open_directory_at(part, fd)
            except OSError:
                break
            os.close(fd)
            fd = child
    finally:
        os.close(fd)
    return stack


@dataclass(kw_only=True, slots=True)
class _Frame:
    """One directory of the walk: open as ``fd``, its subdirectories still to enter."""

    fd: int
    stack: IgnoreStack
    subdirs: Iterator[tuple[str, str, str]]
    depth: int
    owned: bool  # the walk opened ``fd`` (and closes it)


def _walk(
    start_fd: int,
    relative: str,
    local: str,
    stack: IgnoreStack,
    gitignore: bool,
    include_dirs: bool,
    cancelled: Callable[[], bool],
    skipped: Skipped | None,
) -> Iterator[WalkEntry]:
    """Depth-first, without recursion (a tree deeper than Python's recursion limit must not
    raise ``RecursionError``); directories deeper than :data:`MAX_WALK_DEPTH` below the start
    are not entered (counted as :data:`SKIP_DEEP`)."""
    if cancelled():
        return
    subdirs: list[tuple[str, str, str]] = []
    yield from _list(start_fd, relative, local, stack, gitignore, include_dirs, skipped, subdirs)
    frames = [_Frame(fd=start_fd, stack=stack, subdirs=iter(subdirs), depth=0, owned=False)]
    try:
        while frames:
            frame = frames[-1]
            following = next(frame.subdirs, None)
            if following is None:
                frames.pop()
                if frame.owned:
                    os.close(frame.fd)
                continue
            if cancelled():
                return
            name, entry_relative, entry_local = following
            if frame.depth + 1 > MAX_WALK_DEPTH:
                if skipped is not None:
                    skipped.add(SKIP_DEEP)
                continue
            try:
                child_fd = open_directory_at(name, frame.fd)
            except OSError:  # swapped for a symlink, removed, or unreadable since the listing
                if skipped is not None:
                    skipped.add(SKIP_CHANGED)
                continue
            child = _Frame(
                fd=child_fd, stack=frame.stack, subdirs=iter(()), depth=frame.depth + 1, owned=True
            )
            frames.append(child)
            child.stack = frame.stack.enter(child_fd, entry_relative) if gitignore else frame.stack
            found: list[tuple[str, str, str]] = []
            yield from _list(
                child_fd,
                entry_relative,
                entry_local,
                child.stack,
                gitignore,
                include_dirs,
                skipped,
                found,
            )
            child.subdirs = iter(found)
    finally:
        for frame in frames:
            if frame.owned:
                os.close(frame.fd)


def _list(
    dir_fd: int,
    relative: str,
    local: str,
    stack: IgnoreStack,
    gitignore: bool,
    include_dirs: bool,
    skipped: Skipped | None,
    subdirs: list[tuple[str, str, str]],
) -> Iterator[WalkEntry]:
    """Yield the entries of one directory; append its subdirectories to enter to ``subdirs``."""
    try:
        with os.scandir(dir_fd) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError:
        if skipped is not None:
            skipped.add(SKIP_CHANGED)
        return
    for entry in entries:
        name = entry.name
        entry_relative = f"{relative}/{name}" if relative else name
        entry_local = f"{local}/{name}" if local else name
        kind: EntryKind
        try:
            if entry.is_symlink():
                kind = "symlink"
            elif entry.is_dir(follow_symlinks=False):
                kind = "dir"
            elif entry.is_file(follow_symlinks=False):
                kind = "file"
            else:
                kind = "special"
        except OSError:
            continue  # removed since the listing
        if kind == "dir" and name == ".git":
            continue
        if gitignore and stack.ignored(entry_relative, is_dir=kind == "dir"):
            continue
        if kind == "dir":
            subdirs.append((name, entry_relative, entry_local))
            if not include_dirs:
                continue
        yield WalkEntry(
            relative=entry_relative, local=entry_local, name=name, kind=kind, dir_fd=dir_fd
        )


def skip_reason(handle: RootedDir, entry: WalkEntry) -> str | None:
    """Why a walked entry cannot be used as a regular file inside the workspace, or None when
    it can (a regular file, or a symlink leading to one inside the workspace)."""
    if entry.kind == "file":
        return None
    if entry.kind == "special":
        return SKIP_SPECIAL
    if entry.kind == "dir":
        return SKIP_LINKED_DIRECTORY
    where = handle.probe(entry.relative)
    return {
        "regular file": None,
        "outside": SKIP_OUTSIDE,
        "directory": SKIP_LINKED_DIRECTORY,
        "missing": SKIP_BROKEN,
        "loop": SKIP_LOOP,
        "invalid": SKIP_CHANGED,
    }.get(where, SKIP_SPECIAL)


def open_for_reading(handle: RootedDir, entry: WalkEntry, skipped: Skipped) -> OpenedEntry | None:
    """Open a walked entry as a regular file inside the workspace, or count why not.

    A plain file is opened relative to its directory's descriptor (``O_NOFOLLOW``,
    non-blocking, ``fstat``-checked); a symlink is resolved and opened through ``handle``.

    Returns:
        The opened file (the caller closes it), or None after adding the reason to
        ``skipped``.
    """
    reason = skip_reason(handle, entry)
    if reason is not None:
        skipped.add(reason)
        return None
    try:
        if entry.kind == "symlink":
            return handle.open(entry.relative, expect="file")
        fd = open_regular_at(entry.name, entry.dir_fd, shown=entry.relative)
    except PathOutsideRootError:
        skipped.add(SKIP_OUTSIDE)
        return None
    except NotARegularFileError:
        skipped.add(SKIP_SPECIAL)
        return None
    except (OSError, InvalidPathError, ToolUsageError):
        skipped.add(SKIP_CHANGED)
        return None
    try:
        info = os.fstat(fd)
    except OSError:
        os.close(fd)
        skipped.add(SKIP_CHANGED)
        return None
    return OpenedEntry(fd, info, tuple(entry.relative.split("/")))
