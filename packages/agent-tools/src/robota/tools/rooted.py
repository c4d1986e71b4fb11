"""A rooted directory handle: the one filesystem authority of the file tools (seed 002,
"Execution environments"; seed 000, "Path Containment"; issue #12).

:func:`robota.core.host.paths.resolve_inside` answers "is this path inside that root?" for the
filesystem as it was during the check; a directory swapped for a symlink between that answer
and the ``open`` escapes it. :class:`RootedDir` closes the gap by never separating the check
from the use:

* The root is opened once as a directory descriptor (``O_DIRECTORY | O_CLOEXEC``, so a forked
  child keeps it and an ``exec``-ed program does not) and kept.
* Every path is reached component by component with ``dir_fd=``: ``lstat`` says what the entry
  is, and a directory is entered with ``open(O_DIRECTORY | O_NOFOLLOW)``, so an entry swapped
  for a symlink in between fails the open (and the walk looks again) instead of being
  followed. A file is opened ``O_NOFOLLOW | O_NONBLOCK`` and checked with ``fstat``.
* A symlink is never followed by the kernel. Its target is read (``readlink``) and walked again
  through the handle: a relative target from the link's directory, an absolute target from the
  root when it names a place inside the root. A target that leaves the root raises
  :class:`~robota.core.host.errors.PathOutsideRootError`, the same error as ``..`` above the
  root or an absolute path elsewhere. Magic links (``/proc/self/fd/N``, ``/proc/self/root``)
  are therefore never followed as magic: only their text is, like ``RESOLVE_NO_MAGICLINKS``.
  More than 40 links is a loop (:class:`~robota.tools.errors.SymlinkLoopError`).
* ``..`` pops a directory this walk entered; it never asks the kernel for a parent, so it cannot
  climb above the root.
* Only regular files and directories are used: FIFOs, sockets and devices are refused
  (:class:`~robota.tools.errors.NotARegularFileError`) before a byte is read.
* Writes never open the target: a new file is created ``O_EXCL | O_NOFOLLOW`` beside it (same
  directory descriptor) and renamed over it, so a hard link from the target to a file outside
  the root is never written through. The target's permission bits are kept (not its extra
  links); a target that is a directory or special file is refused.

This is a pure component walk (portable POSIX ``*at`` calls); ``openat2(RESOLVE_BENEATH)`` is
not needed and not used.

Limits: a directory the walk already holds open and that another process then *moves* outside
the root stays open (``RESOLVE_BENEATH`` has the same property for a held descriptor); this
needs write access to both places. A regular file swapped for a device node between ``lstat``
and ``open`` is still refused by ``fstat`` after the (non-blocking) open. Windows is not
supported (no ``dir_fd``).

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> root = Path(tempfile.mkdtemp()).resolve()
    >>> handle = RootedDir(root)
    >>> handle.replace_file("notes/today.md", b"hello").existed
    False
    >>> with handle.open("notes/today.md", expect="file") as opened:
    ...     opened.read_all()
    b'hello'
    >>> handle.canonical("notes/../notes/today.md") == root / "notes" / "today.md"
    True
    >>> handle.close()
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import threading
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Literal

from robota.core.host.errors import InvalidPathError, PathOutsideRootError
from robota.core.host.paths import MAX_SYMLINKS
from robota.tools.errors import (
    NotADirectoryPathError,
    NotARegularFileError,
    PathChangedError,
    PathNotFoundError,
    PathTooLongError,
    SymlinkLoopError,
)

__all__ = [
    "MAX_PATH_BYTES",
    "MAX_RETRIES",
    "OpenedEntry",
    "Replaced",
    "RootedDir",
    "kind_of",
    "open_directory_at",
    "open_regular_at",
]

MAX_PATH_BYTES = 4096
"""Longest path accepted, in bytes of its filesystem encoding (Linux ``PATH_MAX``)."""
MAX_RETRIES = 64
"""How often one resolution looks again at an entry that changed between ``lstat`` and
``open`` before it raises :class:`~robota.tools.errors.PathChangedError`."""

_O = os.O_RDONLY
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_NOCTTY = getattr(os, "O_NOCTTY", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_PATH = getattr(os, "O_PATH", 0)
_DIR_FLAGS = os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC
_FILE_FLAGS = os.O_RDONLY | _NONBLOCK | _NOFOLLOW | _CLOEXEC | _NOCTTY
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
# errno values meaning "the entry is not what lstat said a moment ago" (ELOOP: it became a
# symlink under O_NOFOLLOW; FreeBSD says EMLINK).
_CHANGED = frozenset({errno.ELOOP, errno.EMLINK, errno.ENOTDIR, errno.ENOENT})

Expect = Literal["file", "directory", "any"]


def kind_of(mode: int) -> str:
    """Name the kind of file ``mode`` (an ``st_mode``) describes, as messages show it."""
    if stat.S_ISREG(mode):
        return "regular file"
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISBLK(mode):
        return "block device"
    return "special file"


def open_directory_at(name: str, dir_fd: int) -> int:
    """Open the directory entry ``name`` of ``dir_fd`` without following a symlink.

    Returns:
        A readable directory descriptor (``O_CLOEXEC``); the caller closes it.

    Raises:
        OSError: ``ELOOP``/``ENOTDIR`` when ``name`` is a symlink or not a directory,
            ``ENOENT`` when it is gone, other errors as raised.
    """
    return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)


def _enter_directory_at(name: str, dir_fd: int) -> int:
    """Like :func:`open_directory_at`, falling back to ``O_PATH`` (Linux) for a directory that
    can be searched but not read, so a walk can pass through it."""
    try:
        return open_directory_at(name, dir_fd)
    except PermissionError:
        if not _O_PATH:
            raise
        return os.open(name, _O_PATH | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=dir_fd)


def open_regular_at(name: str, dir_fd: int, *, shown: str | None = None) -> int:
    """Open the regular file ``name`` of ``dir_fd`` for reading, never following a symlink and
    never blocking on a FIFO (opened ``O_NONBLOCK``, checked with ``fstat``, then set back to
    blocking).

    Args:
        name: Entry name (no ``/``).
        dir_fd: The directory holding it.
        shown: The path for messages (default ``name``).

    Returns:
        A read descriptor (``O_CLOEXEC``); the caller closes it.

    Raises:
        NotARegularFileError: The entry is a directory, FIFO, socket or device.
        OSError: ``ELOOP`` when it is a symlink, ``ENOENT`` when gone, others as raised.
    """
    try:
        fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
    except OSError as error:
        if error.errno == errno.ENXIO:  # a socket (or a device without its driver)
            info = os.lstat(name, dir_fd=dir_fd)
            raise _not_regular(shown or name, info.st_mode) from error
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _not_regular(shown or name, info.st_mode)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_root(root: str) -> int:
    """Open the canonical directory path ``root`` for reading by walking it from ``/`` (or the
    working directory, for a relative path) one component at a time, never following a symlink.

    Raises:
        PathChangedError: A component is a symlink (the canonical path changed since it was
            canonicalized) or a ``..`` (the path is not canonical).
        OSError: A component is missing, not a directory or not accessible, as raised.
    """
    names = [name for name in root.split("/") if name not in ("", ".")]
    # The ancestors are only passed through: O_PATH (Linux) needs no read permission and is
    # not reported as an open of them (inotify); the root itself is opened for reading.
    through = (_O_PATH or _O) | _DIRECTORY | _CLOEXEC
    start = "/" if root.startswith("/") else "."
    fd = os.open(start, through if names else _O | _DIRECTORY | _CLOEXEC)
    try:
        for index, name in enumerate(names):
            if name == "..":
                raise PathChangedError(
                    f"workspace root {root!r} is not canonical (it holds '..')",
                    root=root,
                    candidate=root,
                )
            last = index == len(names) - 1
            try:
                child = (
                    open_directory_at(name, fd)
                    if last
                    else os.open(name, through | _NOFOLLOW, dir_fd=fd)
                )
            except OSError as error:
                if error.errno in (errno.ELOOP, errno.EMLINK, errno.ENOTDIR):
                    with contextlib.suppress(OSError):
                        if stat.S_ISLNK(os.lstat(name, dir_fd=fd).st_mode):
                            shown = "/" + "/".join(names[: index + 1])
                            raise PathChangedError(
                                f"workspace root {root!r} changed since it was canonicalized: "
                                f"{shown!r} is a symlink now; not followed",
                                root=root,
                                candidate=root,
                            ) from error
                raise
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _rebuild(root: str, identity: tuple[int, int] | None) -> RootedDir:
    """Unpickle a :class:`RootedDir` (it opens the root again, checking ``identity``)."""
    return RootedDir(root, identity=identity)


def _not_regular(shown: str, mode: int) -> NotARegularFileError:
    kind = kind_of(mode)
    if stat.S_ISDIR(mode):
        return NotARegularFileError(f"{shown} is a directory", path=shown, kind=kind)
    return NotARegularFileError(
        f"{shown} is a {kind}, not a regular file; only regular files are read or written",
        path=shown,
        kind=kind,
    )


def _close_quietly(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)


class OpenedEntry:
    """A regular file or directory opened through a :class:`RootedDir`.

    Attributes:
        fd: The open descriptor (read-only; a directory's can be given to ``os.scandir``).
        info: ``fstat`` of the descriptor.
        parts: Canonical path components below the root (empty for the root itself).
    """

    def __init__(self, fd: int, info: os.stat_result, parts: tuple[str, ...]) -> None:
        self.fd = fd
        self.info = info
        self.parts = parts

    @property
    def is_dir(self) -> bool:
        """True for a directory, False for a regular file."""
        return stat.S_ISDIR(self.info.st_mode)

    @property
    def relative(self) -> str:
        """The path below the root, ``/``-separated (``""`` for the root)."""
        return "/".join(self.parts)

    @property
    def display(self) -> str:
        """The path below the root as messages show it (``.`` for the root)."""
        return self.relative or "."

    def read_head(self, size: int) -> bytes:
        """Return up to ``size`` bytes from the start of the file (``pread``: the position does
        not move)."""
        return os.pread(self.fd, size, 0)

    def read_up_to(self, size: int) -> bytes:
        """Return the file's bytes from its start, at most ``size`` of them (fewer only at the
        end of the file); memory stays bounded however large the file is or grows."""
        chunks: list[bytes] = []
        offset = 0
        while offset < size:
            chunk = os.pread(self.fd, min(1 << 20, size - offset), offset)
            if not chunk:
                break
            chunks.append(chunk)
            offset += len(chunk)
        return b"".join(chunks)

    def read_all(self) -> bytes:
        """Return the whole file (from its start). Unbounded: a sparse or growing file can
        exhaust memory; the tools use :meth:`read_up_to`."""
        chunks: list[bytes] = []
        offset = 0
        while True:
            chunk = os.pread(self.fd, 1 << 20, offset)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            offset += len(chunk)

    def close(self) -> None:
        """Close the descriptor (idempotent)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> OpenedEntry:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


@dataclass(frozen=True, kw_only=True, slots=True)
class Replaced:
    """What :meth:`RootedDir.replace_file` did.

    Attributes:
        display: The file written, relative to the root (canonical: symlinks resolved).
        existed: True when a file was replaced, False when one was created.
    """

    display: str
    existed: bool


@dataclass(kw_only=True, slots=True)
class _Location:
    """Where a resolution ended: entry ``name`` of directory ``dir_fd`` (``name`` None: the
    directory itself). ``info`` is the entry's ``lstat`` (None: absent). ``missing`` holds the
    components not walked because ``name`` is absent or not a directory."""

    dir_fd: int
    parts: tuple[str, ...]
    name: str | None
    info: os.stat_result | None
    missing: tuple[str, ...]

    def close(self) -> None:
        os.close(self.dir_fd)

    def __enter__(self) -> _Location:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def named(self) -> tuple[str, ...]:
        return self.parts if self.name is None else (*self.parts, self.name)

    def display(self) -> str:
        return "/".join(self.named()) or "."

    def lexical(self) -> tuple[str, ...] | None:
        """The components with ``missing`` applied lexically (None: ``..`` climbed above the
        root)."""
        out = list(self.named())
        for part in self.missing:
            if part in ("", "."):
                continue
            if part == "..":
                if not out:
                    return None
                out.pop()
            else:
                out.append(part)
        return tuple(out)


class RootedDir:
    """A directory descriptor every path operation is confined beneath.

    The descriptor is opened on first use (or by :meth:`fileno`) and kept until :meth:`close`
    or garbage collection; it is ``O_CLOEXEC``. Paths are relative to the root, or absolute
    naming a place inside it (an absolute path reaching the root through a symlink, such as
    ``/tmp`` on macOS, is translated). Operations are blocking system calls: call them from a
    worker thread in async code. Methods may run concurrently from several threads; do not
    :meth:`close` while one is in flight.

    The root is opened by walking its canonical path from ``/`` one component at a time with
    ``O_NOFOLLOW | O_DIRECTORY``: the path was canonical (no symlinks), so a component that is a
    symlink now means the path changed since it was canonicalized (say, the root swapped for a
    link to elsewhere), and the open fails with :class:`~robota.tools.errors.PathChangedError`
    instead of following it. The ``(st_dev, st_ino)`` of the first open is remembered.

    Copying or pickling gives a handle that opens the root path again, the same way, and
    refuses (:class:`~robota.tools.errors.PathChangedError`) a directory other than the one
    the original handle had opened (the identity travels with the copy; a pickle taken to
    another machine therefore does not open there).

    Args:
        root: The root directory: an absolute, canonical path (no symlinks among its
            components), as :func:`robota.core.host.paths.canonical_path` returns.
        identity: ``(st_dev, st_ino)`` the root must have when opened (None: any).
    """

    def __init__(
        self, root: str | os.PathLike[str], *, identity: tuple[int, int] | None = None
    ) -> None:
        self._root = Path(root)
        self._root_text = os.fspath(root)
        self._identity = identity
        self._fd: int | None = None
        self._closed = False
        self._lock = threading.Lock()
        self._finalizer: Callable[[], object] | None = None

    @property
    def root(self) -> Path:
        """The root directory's path (as given)."""
        return self._root

    def fileno(self) -> int:
        """Return the root's directory descriptor, opening it on first use.

        Raises:
            ValueError: The handle was closed.
            OSError: The root cannot be opened as a directory.
        """
        with self._lock:
            if self._closed:
                raise ValueError(f"rooted directory handle on {self._root_text!r} is closed")
            if self._fd is None:
                fd = _open_root(self._root_text)
                try:
                    info = os.fstat(fd)
                    identity = (info.st_dev, info.st_ino)
                    if self._identity is not None and identity != self._identity:
                        raise PathChangedError(
                            f"workspace root {self._root_text!r} is no longer the directory "
                            "this handle was first opened on (it was replaced)",
                            root=self._root_text,
                            candidate=self._root_text,
                        )
                except BaseException:
                    os.close(fd)
                    raise
                self._identity = identity
                self._fd = fd
                self._finalizer = weakref.finalize(self, _close_quietly, fd)
            return self._fd

    def close(self) -> None:
        """Close the root descriptor; later operations raise ``ValueError`` (idempotent)."""
        with self._lock:
            self._closed = True
            if self._finalizer is not None:
                self._finalizer()
            self._fd = None

    def __enter__(self) -> RootedDir:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def identity(self) -> tuple[int, int] | None:
        """``(st_dev, st_ino)`` of the root directory once opened (or as given), else None."""
        return self._identity

    def __reduce__(
        self,
    ) -> tuple[Callable[..., RootedDir], tuple[str, tuple[int, int] | None]]:
        return (_rebuild, (self._root_text, self._identity))

    def __repr__(self) -> str:
        return f"RootedDir({self._root_text!r})"

    # --- public operations -------------------------------------------------------------------

    def canonical(self, path: str | os.PathLike[str]) -> Path:
        """Return the canonical absolute path ``path`` names inside the root.

        Symlinks are resolved through the handle; a missing tail is kept as spelled, with
        ``..`` after it applied lexically. The answer describes the moment of the call; use
        the other methods to act on a path.

        Raises:
            PathOutsideRootError: ``..`` above the root, an absolute path elsewhere, or a
                symlink leading outside.
            InvalidPathError: NUL byte; :class:`~robota.tools.errors.SymlinkLoopError`,
                :class:`~robota.tools.errors.PathTooLongError`,
                :class:`~robota.tools.errors.PathChangedError`.
        """
        text = os.fspath(path)
        with self._locate(text, follow_final=True) as location:
            parts = location.lexical()
        if parts is None:
            raise self._outside(text)
        return self._root.joinpath(*parts)

    def open(
        self, path: str | os.PathLike[str], *, expect: Expect = "any", follow_final: bool = True
    ) -> OpenedEntry:
        """Open the regular file or directory at ``path`` for reading.

        Args:
            path: Relative to the root, or absolute inside it.
            expect: ``"file"`` refuses a directory, ``"directory"`` refuses a file.
            follow_final: Follow a symlink in the last component (through the handle).

        Returns:
            The opened entry; close it (it is a context manager).

        Raises:
            PathNotFoundError: Nothing there (message: ``file not found: x``, ``directory not
                found: x`` or ``path not found: x`` after ``expect``).
            NotARegularFileError: A FIFO, socket or device; or a directory when
                ``expect="file"``.
            NotADirectoryPathError: ``expect="directory"`` and a file is there, or a middle
                component is not a directory.
            PathOutsideRootError: The path leaves the root.
            InvalidPathError: See :meth:`canonical`.
        """
        text = os.fspath(path)
        retries = 0
        while True:
            with self._locate(text, follow_final=follow_final) as location:
                try:
                    return self._open_location(location, expect)
                except OSError as error:
                    if error.errno not in _CHANGED:
                        raise _mapped(error, self._root_text, text) from error
                retries = self._retry(retries, text)

    def probe(self, path: str | os.PathLike[str]) -> str:
        """Say what ``path`` leads to, following symlinks through the handle, without raising
        for the answers a listing shows.

        Returns:
            A :func:`kind_of` name (``"regular file"``, ``"directory"``, ``"FIFO"`` ...), or
            ``"outside"`` (leaves the root), ``"missing"`` (nothing there: a broken link),
            ``"loop"`` (symlink loop) or ``"invalid"`` (other path errors).
        """
        try:
            with self._locate(os.fspath(path), follow_final=True) as location:
                if location.missing:
                    return "missing"
                if location.name is None:
                    return "directory"
                if location.info is None:
                    return "missing"
                return kind_of(location.info.st_mode)
        except PathOutsideRootError:
            return "outside"
        except SymlinkLoopError:
            return "loop"
        except (InvalidPathError, OSError):
            return "invalid"

    def replace_file(
        self,
        path: str | os.PathLike[str],
        data: bytes,
        *,
        mode: int | None = None,
        create_parents: bool = True,
    ) -> Replaced:
        """Write ``data`` as the new content of the file at ``path``, atomically.

        A new file is created beside the target (``O_CREAT | O_EXCL | O_NOFOLLOW``, same
        directory descriptor), filled, flushed (``fsync``) and renamed over the target: a hard
        link of the old file elsewhere keeps the old content, a reader sees old or new content.
        A symlink in the last component is followed through the handle (the link's target is
        replaced, not the link).

        Args:
            path: Relative to the root, or absolute inside it.
            data: The complete new content.
            mode: Permission bits for the file. Default: an existing file's bits (without
                set-user-ID/set-group-ID), or ``0o666`` less the umask for a new one. An
                existing file's owner and group are kept where the account may set them.
            create_parents: Create missing parent directories (``0o777`` less the umask).

        Returns:
            The canonical path written and whether a file was replaced.

        Raises:
            NotARegularFileError: The target is a directory, FIFO, socket or device.
            PathNotFoundError: A parent directory is missing and ``create_parents`` is False.
            NotADirectoryPathError: A parent component is a file.
            PathOutsideRootError: The path leaves the root.
            InvalidPathError: See :meth:`canonical`.
            OSError: Filesystem failures (no space, permission denied) as raised; the new file
                is removed.
        """
        text = os.fspath(path)
        retries = 0
        while True:
            with self._locate(text, follow_final=True, create_dirs=create_parents) as location:
                shown = location.display()
                self._require_parent(location, text)
                if location.name is None:
                    raise NotARegularFileError(
                        f"{shown} is a directory", path=shown, kind="directory"
                    )
                existing = location.info
                if existing is not None and not stat.S_ISREG(existing.st_mode):
                    raise _not_regular(shown, existing.st_mode)
                try:
                    _write_beside(location.dir_fd, location.name, data, existing, mode, shown)
                except _Changed:
                    retries = self._retry(retries, text)
                    continue
                return Replaced(display=shown, existed=existing is not None)

    def remove_file(self, path: str | os.PathLike[str]) -> bool:
        """Remove the entry at ``path`` if it is not a directory (a symlink in the last
        component is removed itself, not followed).

        Returns:
            True when an entry was removed; False when nothing was there or it is a directory.

        Raises:
            PathOutsideRootError: The path leaves the root.
            InvalidPathError: See :meth:`canonical`.
            OSError: Other filesystem failures, as raised.
        """
        text = os.fspath(path)
        with self._locate(text, follow_final=False) as location:
            if location.missing or location.name is None or location.info is None:
                return False
            if stat.S_ISDIR(location.info.st_mode):
                return False
            try:
                os.unlink(location.name, dir_fd=location.dir_fd)
            except FileNotFoundError:
                return False
            return True

    # --- resolution --------------------------------------------------------------------------

    def _open_location(self, location: _Location, expect: Expect) -> OpenedEntry:
        shown = location.display()
        if location.missing:
            if location.info is not None:
                raise NotADirectoryPathError(
                    f"{shown} is a {kind_of(location.info.st_mode)}, not a directory",
                    path=shown,
                    kind=kind_of(location.info.st_mode),
                )
            raise _not_found(location, expect)
        if location.name is None:
            fd = os.dup(location.dir_fd)
        elif location.info is None:
            raise _not_found(location, expect)
        elif stat.S_ISDIR(location.info.st_mode):
            fd = open_directory_at(location.name, location.dir_fd)
        elif stat.S_ISREG(location.info.st_mode):
            fd = open_regular_at(location.name, location.dir_fd, shown=shown)
        elif stat.S_ISLNK(location.info.st_mode):  # only with follow_final=False
            raise NotARegularFileError(
                f"{shown} is a symlink", path=shown, kind=kind_of(location.info.st_mode)
            )
        else:
            raise _not_regular(shown, location.info.st_mode)
        try:
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                if expect == "file":
                    raise NotARegularFileError(
                        f"{shown} is a directory", path=shown, kind="directory"
                    )
            elif expect == "directory":
                raise NotADirectoryPathError(
                    f"{shown} is a {kind_of(info.st_mode)}, not a directory",
                    path=shown,
                    kind=kind_of(info.st_mode),
                )
        except BaseException:
            os.close(fd)
            raise
        return OpenedEntry(fd, info, location.named())

    def _require_parent(self, location: _Location, text: str) -> None:
        if not location.missing:
            return
        shown = "/".join(location.named())
        if location.info is not None:
            kind = kind_of(location.info.st_mode)
            raise NotADirectoryPathError(
                f"{shown} is a {kind}, not a directory", path=shown, kind=kind
            )
        raise PathNotFoundError(f"directory not found: {shown}", path=shown)

    def _locate(self, text: str, *, follow_final: bool, create_dirs: bool = False) -> _Location:
        """Walk ``text`` beneath the root; return where it ends (the caller closes it)."""
        self._check_text(text)
        root_fd = self.fileno()
        first = self._translate_absolute(text, text) if text.startswith("/") else text.split("/")
        pending: deque[str] = deque(first)
        stack: list[int] = []  # descriptors of the directories entered below the root
        parts: list[str] = []
        links = 0
        retries = 0
        try:
            while True:
                while pending and pending[0] in ("", "."):
                    pending.popleft()
                current = stack[-1] if stack else root_fd
                if not pending:
                    return self._hand_over(stack, root_fd, parts, None, None, ())
                name = pending.popleft()
                if name == "..":
                    if stack:
                        os.close(stack.pop())
                        parts.pop()
                    elif self._root_text != "/":
                        raise self._outside(text)
                    continue
                last = all(p in ("", ".") for p in pending)
                try:
                    info = os.lstat(name, dir_fd=current)
                except FileNotFoundError:
                    if create_dirs and not last:
                        retries = self._retry(retries, text)
                        with contextlib.suppress(FileExistsError):
                            os.mkdir(name, 0o777, dir_fd=current)
                        pending.appendleft(name)
                        continue
                    rest = () if last else tuple(pending)
                    return self._hand_over(stack, root_fd, parts, name, None, rest)
                except OSError as error:
                    raise _mapped(error, self._root_text, text) from error
                if stat.S_ISLNK(info.st_mode) and (follow_final or not last):
                    links += 1
                    if links > MAX_SYMLINKS:
                        raise SymlinkLoopError(
                            f"more than {MAX_SYMLINKS} symlinks (a loop) resolving {text!r}",
                            root=self._root_text,
                            candidate=text,
                        )
                    try:
                        target = os.readlink(name, dir_fd=current)
                    except OSError as error:  # replaced since lstat: look again
                        if error.errno not in (errno.ENOENT, errno.EINVAL):
                            raise _mapped(error, self._root_text, text) from error
                        retries = self._retry(retries, text)
                        pending.appendleft(name)
                        continue
                    if not target:
                        raise InvalidPathError(
                            f"symlink {'/'.join((*parts, name))!r} has an empty target",
                            root=self._root_text,
                            candidate=text,
                        )
                    if target.startswith("/"):
                        translated = self._translate_absolute(target, text)
                        while stack:
                            os.close(stack.pop())
                        parts.clear()
                        pending.extendleft(reversed(translated))
                    else:
                        pending.extendleft(reversed(target.split("/")))
                    continue
                if last or not stat.S_ISDIR(info.st_mode):
                    rest = () if last else tuple(pending)
                    return self._hand_over(stack, root_fd, parts, name, info, rest)
                try:
                    fd = _enter_directory_at(name, current)
                except OSError as error:
                    if error.errno not in _CHANGED:
                        raise _mapped(error, self._root_text, text) from error
                    retries = self._retry(retries, text)
                    pending.appendleft(name)
                    continue
                stack.append(fd)
                parts.append(name)
        finally:
            for fd in stack:
                os.close(fd)

    @staticmethod
    def _hand_over(
        stack: list[int],
        root_fd: int,
        parts: list[str],
        name: str | None,
        info: os.stat_result | None,
        missing: tuple[str, ...],
    ) -> _Location:
        fd = stack.pop() if stack else os.dup(root_fd)
        return _Location(dir_fd=fd, parts=tuple(parts), name=name, info=info, missing=missing)

    def _check_text(self, text: str) -> None:
        if "\x00" in text:
            raise InvalidPathError("path holds a NUL byte", root=self._root_text, candidate=text)
        if len(os.fsencode(text)) > MAX_PATH_BYTES:
            raise PathTooLongError(
                f"path is longer than {MAX_PATH_BYTES} bytes",
                root=self._root_text,
                candidate=text[:100] + "...",
            )

    def _translate_absolute(self, absolute: str, candidate: str) -> list[str]:
        """Components below the root of the absolute path ``absolute`` (a candidate or a
        symlink's target). A name translation only, and purely lexical: an absolute path that
        does not start with the root's own spelling is refused without looking at the outside
        filesystem (no lookup there can leak what lies outside, e.g. a ``Permission denied``
        from ``/proc/1/cwd``). ``..`` components are kept: the walk through the handle applies
        them and refuses any that climb above the root."""
        root = self._root_text
        if root == "/":
            return absolute.split("/")
        if absolute == root:
            return []
        if absolute.startswith(root.rstrip("/") + "/"):
            return absolute[len(root.rstrip("/")) :].split("/")
        raise self._outside(candidate)

    def _outside(self, candidate: str) -> PathOutsideRootError:
        """The containment error for ``candidate``. The message names the candidate and the
        root only: where an outside path or link leads is outside information (the name of a
        file a ``/proc/self/fd/N`` link holds open, say) and is never shown."""
        root = self._root_text
        return PathOutsideRootError(
            f"{candidate!r} leads outside the workspace {root!r}", root=root, candidate=candidate
        )

    def _retry(self, retries: int, text: str) -> int:
        if retries >= MAX_RETRIES:
            raise PathChangedError(
                f"{text!r} kept changing while it was being opened; try again",
                root=self._root_text,
                candidate=text,
            )
        return retries + 1


class _Changed(Exception):
    """The target changed kind between the check and the rename: resolve again."""


def _write_beside(
    dir_fd: int,
    name: str,
    data: bytes,
    existing: os.stat_result | None,
    mode: int | None,
    shown: str,
) -> None:
    token = secrets.token_hex(6)
    temporary = f".{name}.{token}.tmp"
    if len(os.fsencode(temporary)) > 255:
        temporary = f".robota-{token}.tmp"
    create_mode = 0o600 if (existing is not None or mode is not None) else 0o666
    fd = os.open(temporary, _TEMP_FLAGS, create_mode, dir_fd=dir_fd)
    try:
        try:
            if existing is not None and (existing.st_uid, existing.st_gid) != (
                os.geteuid(),
                os.getegid(),
            ):
                with contextlib.suppress(OSError):
                    os.fchown(fd, existing.st_uid, existing.st_gid)
            wanted = mode
            if wanted is None and existing is not None:
                wanted = stat.S_IMODE(existing.st_mode) & ~(stat.S_ISUID | stat.S_ISGID)
            if wanted is not None:
                os.fchmod(fd, wanted)
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            now = os.lstat(name, dir_fd=dir_fd)
        except FileNotFoundError:
            now = None
        if now is not None and not stat.S_ISREG(now.st_mode):
            if stat.S_ISLNK(now.st_mode):
                raise _Changed  # became a symlink: resolve it through the handle again
            raise _not_regular(shown, now.st_mode)
        os.rename(temporary, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=dir_fd)
        raise


def _not_found(location: _Location, expect: Expect) -> PathNotFoundError:
    shown = "/".join(location.lexical() or location.named()) or "."
    what = {"file": "file", "directory": "directory", "any": "path"}[expect]
    return PathNotFoundError(f"{what} not found: {shown}", path=shown)


def _mapped(error: OSError, root: str, text: str) -> Exception:
    if error.errno == errno.ENAMETOOLONG:
        return PathTooLongError(
            f"a name in {text[:100]!r} is too long for the filesystem",
            root=root,
            candidate=text,
        )
    if error.errno == errno.ELOOP:
        return SymlinkLoopError(f"too many symlinks resolving {text!r}", root=root, candidate=text)
    return error
