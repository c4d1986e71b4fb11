"""Kernel-side instruments for the red-team suites: inotify on a tree, byte-exact snapshots
that can be restored, and a FIFO releaser.

* :class:`TreeWatch` puts an inotify watch on every directory of a tree. An ``open``, ``read``,
  ``write``, ``create``... of anything in the tree, through whatever path (a symlink, a
  ``/proc/self/fd`` magic link), is reported; ``stat``/``lstat``/``readlink`` are not. A hard
  link elsewhere reaches the inode through another directory and is not reported (snapshots
  catch writes through it).
* :func:`snapshot` records every entry of a tree by ``lstat`` (type, mode, owner, size,
  ``mtime_ns``, link target, bytes of regular files — never opening anything else), so
  :func:`diff` shows any write; :func:`restore` puts a tree back in place (a regular file is
  rewritten in place, keeping its inode and so any hard link to it).
* :class:`FifoReleaser` is a daemon thread that, once a FIFO's deadline passes, keeps opening
  its other end (non-blocking) so a reader or writer stuck in ``open``/``read`` gets going
  again: a tool that hangs on a FIFO costs the suite seconds, not the run.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shutil
import stat
import struct
import threading
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "Entry",
    "FifoReleaser",
    "FsEvent",
    "TreeWatch",
    "diff",
    "restore",
    "snapshot",
]

IN_ACCESS = 0x1
IN_MODIFY = 0x2
IN_ATTRIB = 0x4
IN_CLOSE_WRITE = 0x8
IN_CLOSE_NOWRITE = 0x10
IN_OPEN = 0x20
IN_MOVED_FROM = 0x40
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ISDIR = 0x40000000

_READS = IN_ACCESS | IN_OPEN | IN_CLOSE_NOWRITE
_WRITES = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
)
_NAMES = {
    IN_ACCESS: "access",
    IN_MODIFY: "modify",
    IN_ATTRIB: "attrib",
    IN_CLOSE_WRITE: "close_write",
    IN_CLOSE_NOWRITE: "close_nowrite",
    IN_OPEN: "open",
    IN_MOVED_FROM: "moved_from",
    IN_MOVED_TO: "moved_to",
    IN_CREATE: "create",
    IN_DELETE: "delete",
    IN_DELETE_SELF: "delete_self",
    IN_MOVE_SELF: "move_self",
    IN_Q_OVERFLOW: "queue_overflow",
}
_HEADER = struct.Struct("iIII")


@dataclass(frozen=True, kw_only=True, slots=True)
class FsEvent:
    """One inotify event.

    Attributes:
        path: The entry concerned (the watched directory itself when the name is empty).
        mask: The raw inotify mask.
    """

    path: str
    mask: int

    @property
    def is_write(self) -> bool:
        """True for an event that changes the tree."""
        return bool(self.mask & _WRITES)

    @property
    def is_read(self) -> bool:
        """True for an open or read that changes nothing."""
        return bool(self.mask & _READS) and not self.is_write

    @property
    def is_overflow(self) -> bool:
        """True when the kernel dropped events (the queue was full): inconclusive."""
        return bool(self.mask & IN_Q_OVERFLOW)

    def __str__(self) -> str:
        names = [name for bit, name in _NAMES.items() if self.mask & bit]
        kind = "dir " if self.mask & IN_ISDIR else ""
        return f"{kind}{'|'.join(names)} {self.path}"


class TreeWatch:
    """inotify watches on ``top`` and every directory below it (not following symlinks).

    Args:
        top: The tree to watch.
        ignore: Names directly under ``top`` whose events are dropped (the workspace itself
            and the swapper's entries when ``top`` is the arena).
        skip: Directories below ``top`` not to watch at all.

    Raises:
        OSError: inotify is unavailable.
    """

    def __init__(self, top: Path, *, ignore: frozenset[str] = frozenset(), skip: frozenset[Path]):
        self._libc = ctypes.CDLL(None, use_errno=True)
        fd = self._libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        self._fd: int = fd
        self._top = top
        self._ignore = ignore
        self._dirs: dict[int, str] = {}
        mask = _READS | _WRITES
        for directory in _directories(top, skip):
            wd = self._libc.inotify_add_watch(self._fd, os.fsencode(directory), mask)
            if wd < 0:
                raise OSError(ctypes.get_errno(), f"inotify_add_watch {directory} failed")
            self._dirs[wd] = str(directory)

    def drain(self) -> list[FsEvent]:
        """Return (and forget) every event queued since the last drain."""
        events: list[FsEvent] = []
        while True:
            try:
                data = os.read(self._fd, 1 << 16)
            except BlockingIOError:
                return events
            offset = 0
            while offset + _HEADER.size <= len(data):
                wd, mask, _cookie, length = _HEADER.unpack_from(data, offset)
                raw = data[offset + _HEADER.size : offset + _HEADER.size + length]
                offset += _HEADER.size + length
                if mask & IN_IGNORED:
                    continue
                name = os.fsdecode(raw.rstrip(b"\x00"))
                directory = self._dirs.get(wd, str(self._top))
                if directory == str(self._top) and name in self._ignore:
                    continue
                events.append(
                    FsEvent(path=os.path.join(directory, name) if name else directory, mask=mask)
                )

    def close(self) -> None:
        """Stop watching."""
        with contextlib.suppress(OSError):
            os.close(self._fd)


def _directories(top: Path, skip: frozenset[Path]) -> list[Path]:
    found = [top]
    for current, dirnames, _files in os.walk(top, followlinks=False):
        kept: list[str] = []
        for name in dirnames:
            path = Path(current) / name
            if path in skip or path.is_symlink():  # a link is judged where it points, if at all
                continue
            kept.append(name)
            found.append(path)
        dirnames[:] = kept
    return found


Entry = tuple[str, int, int, int, int, int, bytes | str | None]
"""(kind, mode, uid, gid, size, mtime_ns, bytes of a file | target of a link | None)."""


def snapshot(top: Path, *, skip: frozenset[Path] = frozenset()) -> dict[str, Entry]:
    """Record every entry below ``top`` by ``lstat``; regular files with their bytes.

    Args:
        top: The tree.
        skip: Entries (and their subtrees) left out.

    Returns:
        ``relative path -> Entry``; FIFOs, sockets and devices are recorded without being
        opened.
    """
    entries: dict[str, Entry] = {}
    pending = [top]
    while pending:
        directory = pending.pop()
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            continue
        for name in names:
            path = directory / name
            if path in skip:
                continue
            try:
                info = os.lstat(path)
            except FileNotFoundError:
                continue
            entry = _entry(path, info)
            entries[str(path.relative_to(top))] = entry
            if entry[0] == "dir":
                pending.append(path)
    return entries


def _entry(path: Path, info: os.stat_result) -> Entry:
    kind, payload = _kind_and_payload(path, info)
    timeless = kind in ("dir", "fifo", "socket")  # a FIFO's mtime moves when it is written
    return (
        kind,
        stat.S_IMODE(info.st_mode),
        info.st_uid,
        info.st_gid,
        0 if timeless else info.st_size,
        0 if timeless else info.st_mtime_ns,
        payload,
    )


def _kind_and_payload(path: Path, info: os.stat_result) -> tuple[str, bytes | str | None]:
    mode = info.st_mode
    if stat.S_ISLNK(mode):
        return "link", os.readlink(path)
    if stat.S_ISDIR(mode):
        return "dir", None
    if stat.S_ISREG(mode):
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as handle:
            return "file", handle.read()
    if stat.S_ISFIFO(mode):
        return "fifo", None
    if stat.S_ISSOCK(mode):
        return "socket", None
    return "device", f"{os.major(info.st_rdev)},{os.minor(info.st_rdev)}"


def diff(before: dict[str, Entry], after: dict[str, Entry]) -> list[str]:
    """Describe every difference between two snapshots (empty when equal)."""
    changes: list[str] = []
    for path in sorted(before.keys() | after.keys()):
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        if old is None:
            changes.append(f"created {path}")
        elif new is None:
            changes.append(f"removed {path}")
        else:
            fields = ("kind", "mode", "uid", "gid", "size", "mtime", "content")
            changed = [name for name, a, b in zip(fields, old, new, strict=True) if a != b]
            changes.append(f"changed {path} ({', '.join(changed)})")
    return changes


def restore(top: Path, pristine: dict[str, Entry], *, skip: frozenset[Path] = frozenset()) -> None:
    """Put the tree below ``top`` back to ``pristine`` (FIFOs, sockets, devices excepted:
    they are recreated only when missing and are FIFOs).

    Regular files are rewritten in place, keeping their inode, so hard links made to them
    stay linked.
    """
    current = snapshot(top, skip=skip)
    for path in sorted(current.keys() - pristine.keys(), key=len, reverse=True):
        target = top / path
        if current[path][0] == "dir":
            shutil.rmtree(target, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                target.unlink()
    for path in sorted(pristine, key=len):
        kind, mode, uid, gid, _size, mtime_ns, payload = pristine[path]
        target = top / path
        now = snapshot_entry(target)
        if now == pristine[path]:
            continue
        if now is not None and now[0] != kind:
            if now[0] == "dir":
                shutil.rmtree(target)
            else:
                target.unlink()
            now = None
        if kind == "dir":
            if now is None:
                target.mkdir()
        elif kind == "link":
            assert isinstance(payload, str)
            if now is not None:
                target.unlink()
            os.symlink(payload, target)
            continue
        elif kind == "file":
            assert isinstance(payload, bytes)
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "wb") as handle:
                handle.write(payload)
        elif kind == "fifo" and now is None:
            os.mkfifo(target)
        os.chown(target, uid, gid, follow_symlinks=False)
        os.chmod(target, mode)
        if kind == "file":
            os.utime(target, ns=(mtime_ns, mtime_ns), follow_symlinks=False)


def snapshot_entry(path: Path) -> Entry | None:
    """The :data:`Entry` of one path, or None when it does not exist."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    return _entry(path, info)


class FifoReleaser:
    """Frees whatever is blocked on a FIFO once its deadline has passed.

    Only an entry that is itself a FIFO is touched (``lstat``, ``O_NOFOLLOW``): an armed path
    that is a file or a link is left alone. A daemon thread polls every armed FIFO each 20 ms after its deadline: it opens the write
    end non-blocking (succeeds only when a reader is waiting; writes a few junk bytes so a
    reader that holds its own write end also wakes) and the read end non-blocking (wakes a
    writer stuck in ``open``; drains what it wrote). A FIFO stays armed for the rest of the
    session, so a worker thread a tool abandoned is freed too.
    """

    JUNK = b"\x00fifo-released\x00" * 8

    def __init__(self) -> None:
        self._deadlines: dict[str, float] = {}
        self._lock = threading.Lock()
        self.releases = 0
        thread = threading.Thread(target=self._loop, name="fifo-releaser", daemon=True)
        thread.start()

    def arm(self, path: Path, after: float) -> None:
        """Start freeing ``path`` ``after`` seconds from now (0: at once)."""
        with self._lock:
            self._deadlines[str(path)] = time.monotonic() + after

    def disarm(self, path: Path) -> None:
        """Stop freeing ``path`` (nothing was stuck on it)."""
        with self._lock:
            self._deadlines.pop(str(path), None)

    def _loop(self) -> None:
        while True:
            time.sleep(0.02)
            now = time.monotonic()
            with self._lock:
                due = [path for path, deadline in self._deadlines.items() if deadline <= now]
            for path in due:
                self._release(path)

    def _release(self, path: str) -> None:
        try:
            if not stat.S_ISFIFO(os.lstat(path).st_mode):
                return  # only ever a FIFO itself: never a file, never through a link
        except OSError:
            return
        nofollow = os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW
        try:
            fd = os.open(path, os.O_WRONLY | nofollow)
        except OSError as error:
            if error.errno not in (errno.ENXIO, errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
                return
        else:
            self.releases += 1
            with contextlib.suppress(OSError):
                os.write(fd, self.JUNK)
            os.close(fd)
        try:
            fd = os.open(path, os.O_RDONLY | nofollow)
        except OSError:
            return
        try:
            with contextlib.suppress(OSError):
                while os.read(fd, 1 << 16):
                    pass
        finally:
            os.close(fd)


RELEASER = FifoReleaser()
"""The one releaser of the test session (a daemon thread; armed FIFOs stay armed)."""
