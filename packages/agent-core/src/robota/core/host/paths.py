"""Path containment: "is this path inside that root?" answered on canonical paths.

Seed 000, "Path Containment": ``os.path.normpath``/``abspath`` are lexical and never consult the
filesystem, so they cannot see a symlink. A link inside a root pointing outside it passes a
``startswith(root + sep)`` check while the syscall that follows escapes. Every security
containment check (file-tool sandbox, asset servers) must route through :func:`resolve_inside`
so two checks can never disagree.

How a candidate is canonicalized:

* A relative candidate is taken relative to ``root``; an absolute one is used as given.
* The path is walked one component at a time with ``lstat``. Every symlink met is replaced by
  its target (absolute targets restart from ``/``), including a *dangling* link and links in
  the middle of the path, up to 40 links (Linux ``MAXSYMLINKS``); more is a loop and is refused.
* At the first component that does not exist (or whose parent is not a directory) the walk
  stops consulting the filesystem: the remaining components cannot be links yet, and ``..``
  after them removes them lexically, which is what the kernel would do once they exist.
* Nothing is decoded: ``%2e%2e`` and ``..%c0%af`` are literal file names, a backslash is an
  ordinary character on POSIX. A NUL byte is refused (no syscall accepts it).

The root is canonicalized the same way, so a root reached through a link (``/tmp`` on macOS)
works. The answer is a prefix comparison of whole components on the two canonical paths.

Limits (documented, tested in ``tests/test_host_paths.py``):

* **TOCTOU.** The answer holds for the filesystem as it was during the check. A directory
  replaced by a symlink between the check and the ``open`` escapes the check; closing that
  needs ``openat2(RESOLVE_BENEATH)`` or a per-component ``O_NOFOLLOW`` walk at use time, which
  this module does not do. Use the returned canonical path immediately, and keep roots out of
  reach of other accounts.
* On case-insensitive filesystems a candidate spelled in another case than the root is refused
  (the safe direction).
* Windows: links are resolved with :func:`os.path.realpath`; junction and 8.3-name subtleties
  are not modelled.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> root = Path(tempfile.mkdtemp())
    >>> resolve_inside(root, "notes/today.md") == root.resolve() / "notes" / "today.md"
    True
    >>> is_inside(root, "../../etc/passwd")
    False
"""

from __future__ import annotations

import os
import stat
from collections import deque
from pathlib import Path
from typing import TypeAlias

from robota.core.host.errors import InvalidPathError, PathOutsideRootError

__all__ = ["MAX_SYMLINKS", "canonical_path", "is_inside", "resolve_inside"]

MAX_SYMLINKS = 40
"""Symlinks followed in one resolution before it is called a loop (Linux ``MAXSYMLINKS``)."""

_PathLike: TypeAlias = str | os.PathLike[str]


def canonical_path(path: _PathLike) -> Path:
    """Return the canonical absolute form of ``path``: every existing symlink resolved.

    Args:
        path: Absolute, or relative to the current directory. Need not exist.

    Returns:
        An absolute path without ``.``/``..`` components and without symlinks among its
        existing components; the missing tail is kept as spelled.

    Raises:
        InvalidPathError: ``path`` holds a NUL byte, a symlink loop was met, or a component
            could not be inspected (e.g. permission denied on ``lstat``).
    """
    text = os.fspath(path)
    if "\x00" in text:
        raise InvalidPathError("path holds a NUL byte", root="", candidate=text)
    absolute = os.path.abspath(text) if not os.path.isabs(text) else text
    if os.name == "nt":  # pragma: no cover - POSIX is the supported platform
        return Path(os.path.realpath(absolute))
    return Path(_walk(absolute, original=text))


def _walk(absolute: str, *, original: str) -> str:
    pending: deque[str] = deque(absolute.split("/"))
    resolved = "/"
    missing = False
    links = 0
    while pending:
        name = pending.popleft()
        if name in ("", "."):
            continue
        if name == "..":
            resolved = os.path.dirname(resolved)
            continue
        candidate = os.path.join(resolved, name)
        if missing:
            resolved = candidate
            continue
        try:
            info = os.lstat(candidate)
        except (FileNotFoundError, NotADirectoryError):
            missing = True
            resolved = candidate
            continue
        except OSError as error:
            raise InvalidPathError(
                f"cannot inspect {candidate!r}: {error.strerror}", root="", candidate=original
            ) from error
        if stat.S_ISLNK(info.st_mode):
            links += 1
            if links > MAX_SYMLINKS:
                raise InvalidPathError(
                    f"more than {MAX_SYMLINKS} symlinks (a loop) resolving {original!r}",
                    root="",
                    candidate=original,
                )
            target = os.readlink(candidate)
            if target.startswith("/"):
                resolved = "/"
            pending.extendleft(reversed(target.split("/")))
            continue
        resolved = candidate
    return resolved


def resolve_inside(root: _PathLike, candidate: _PathLike) -> Path:
    """Return ``candidate``'s canonical path if it lies inside ``root``'s canonical path.

    Args:
        root: The containing directory; canonicalized the same way (it may be a link).
        candidate: Relative (to ``root``) or absolute path; need not exist.

    Returns:
        The canonical path, equal to the canonical root or below it.

    Raises:
        PathOutsideRootError: The canonical candidate is outside the canonical root.
        InvalidPathError: NUL byte, symlink loop, or an uninspectable component.
    """
    root_text = os.fspath(root)
    candidate_text = os.fspath(candidate)
    try:
        canonical_root = canonical_path(root_text)
        joined = os.path.join(str(canonical_root), candidate_text)
        resolved = canonical_path(joined)
    except InvalidPathError as error:
        raise InvalidPathError(error.message, root=root_text, candidate=candidate_text) from error
    if not _contains(str(canonical_root), str(resolved)):
        raise PathOutsideRootError(
            f"{candidate_text!r} resolves to {str(resolved)!r}, outside {str(canonical_root)!r}",
            root=root_text,
            candidate=candidate_text,
        )
    return resolved


def is_inside(root: _PathLike, candidate: _PathLike) -> bool:
    """Return True when :func:`resolve_inside` would accept ``candidate``.

    Args:
        root: The containing directory.
        candidate: Relative (to ``root``) or absolute path.

    Returns:
        False for an outside path and for an invalid one (NUL byte, loop); never raises for
        those.
    """
    try:
        resolve_inside(root, candidate)
    except (PathOutsideRootError, InvalidPathError):
        return False
    return True


def _contains(root: str, path: str) -> bool:
    if path == root:
        return True
    prefix = root if root.endswith(os.sep) else root + os.sep
    return path.startswith(prefix)
