"""Opening a path that was checked to lie inside a root, and checking again where the opened
descriptor really is (seed 000, "Path Containment"): shared by ``@path`` attachments
(:mod:`robota.cli._attach_files`) and the diff snapshots (:mod:`robota.cli.tui.diffs`).

A check made on a path name is stale by the time the name is opened: a racing process can swap
the final component, or any directory in the middle, for a symbolic link leading out. So
:func:`open_inside` opens ``O_NOFOLLOW | O_NONBLOCK | O_NOCTTY`` (a final symlink fails the open,
a FIFO swapped in does not block), ``fstat``-s the descriptor (still the kind expected) and asks
the kernel for the descriptor's real path (``/proc/self/fd/N`` on Linux, ``F_GETPATH`` on
macOS), which must lie inside the root: a middle directory swapped for a link is caught after
the open and before a byte is read.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "CHANGED",
    "OPEN_FLAGS",
    "OpenRefused",
    "Opened",
    "descriptor_path",
    "kind_of",
    "open_inside",
]

OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
"""Flags of every open: read only, no final symlink followed, no blocking, no controlling
terminal, closed on exec."""
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
CHANGED = "it changed while being attached (a symlink now); not followed"
"""Why a path whose final component turned into a symlink is not followed."""


class OpenRefused(Exception):
    """The path was not opened, or what was opened is not what was checked.

    Attributes:
        reason: Why, in words (``it is outside the workspace (its path changed while being
            attached)``).
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, kw_only=True, slots=True)
class Opened:
    """A descriptor opened by :func:`open_inside`; the caller closes :attr:`fd`.

    Attributes:
        fd: The open descriptor (non-blocking).
        info: Its ``fstat``.
        real: The kernel's path for it (absolute; a name that is not UTF-8 holds surrogate
            escapes, as :func:`os.fsdecode` gives).
        relative: :attr:`real` relative to the root (``""`` for the root itself).
    """

    fd: int
    info: os.stat_result
    real: str
    relative: str


def open_inside(root: Path, path: Path, *, directory: bool) -> Opened:
    """Open ``path``, which a caller resolved inside ``root``, and verify the descriptor (see
    the module docstring).

    Args:
        root: The canonical root (symlinks resolved).
        path: The resolved path to open.
        directory: Expect a directory (else a regular file).

    Returns:
        The open descriptor with its ``fstat`` and real path; close it.

    Raises:
        OpenRefused: The open failed (a final component now a symlink, a component gone, or
            another system error), the descriptor is not the kind expected, the system cannot
            say where it is, or it is outside ``root``. Nothing stays open.
    """
    try:
        fd = os.open(path, OPEN_FLAGS | (_DIRECTORY if directory else 0))
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.EMLINK, errno.ENOTDIR, errno.ENOENT):
            raise OpenRefused(CHANGED) from error
        raise OpenRefused(error.strerror or str(error)) from error
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode) != directory or not (directory or stat.S_ISREG(info.st_mode)):
            raise OpenRefused(f"it changed while being attached (a {kind_of(info.st_mode)})")
        real = descriptor_path(fd)
        if real is None:
            raise OpenRefused("the system cannot say where the opened file is")
        relative = _relative(root, real)
        if relative is None:
            raise OpenRefused("it is outside the workspace (its path changed while being attached)")
    except BaseException:
        os.close(fd)
        raise
    return Opened(fd=fd, info=info, real=real, relative=relative)


def descriptor_path(fd: int) -> str | None:
    """The path the kernel has for an open descriptor (None when it cannot say)."""
    import fcntl

    get_path: int | None = getattr(fcntl, "F_GETPATH", None)
    if get_path is not None:  # macOS
        raw = fcntl.fcntl(fd, get_path, bytes(1024))
        return os.fsdecode(raw.split(b"\0", 1)[0])
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


def _relative(root: Path, real: str) -> str | None:
    """``real`` relative to ``root`` (``""`` for the root), None when outside it."""
    root_text = str(root)
    if real == root_text:
        return ""
    prefix = root_text.rstrip("/") + "/"
    return real[len(prefix) :] if real.startswith(prefix) else None


def kind_of(mode: int) -> str:
    """The kind of file ``mode`` (an ``st_mode``) says, in words: ``FIFO``, ``socket``..."""
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISBLK(mode):
        return "block device"
    if stat.S_ISLNK(mode):
        return "symlink"
    return "special file" if not stat.S_ISREG(mode) else "regular file"
