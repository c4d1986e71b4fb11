"""Owner-only store: create directories and files only their owner can read (seed 000,
"Owner-Only Store").

For every host store under ``~/.robota`` and a project's ``.robota`` (session records, logs,
settings, device credentials). Three facts about the filesystem API each produced a real
defect before this module existed, and each is handled here:

* ``os.makedirs(path, mode)`` does not change a directory that already exists, so a directory
  pre-created at 0777 would stay 0777. :func:`ensure_private_dir` checks an existing directory
  and raises :class:`InsecurePermissionsError` when it is group/other accessible or owned by
  another account (or, when asked, tightens it; it never widens a mode).
* A mode given at open applies only at creation, so a file an older version left at 0644 would
  keep 0644. :func:`write_private_file` never rewrites in place: it writes a fresh temporary
  file in the same directory and ``os.replace``-s it over the target (atomic on POSIX).
* Creating wide and tightening afterwards leaves a window where the data is readable. Entries
  are created with their final mode (``os.open(O_CREAT | O_EXCL, 0o600)``, ``os.mkdir(0o700)``)
  and then verified with ``fstat``/``stat``: a umask that removed owner bits is repaired on the
  entry just created, and a filesystem that ignores chmod raises
  :class:`ModeNotEnforcedError`. The verification is load-bearing, not decoration.

Which guarantee holds is reported, not assumed: :func:`owner_only_guarantee` returns
``POSIX_MODES`` where mode bits are enforced and ``UNVERIFIED`` on Windows, where chmod cannot
express owner-only and this module only provides atomic writes (ACLs are not inspected).

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> store = Path(tempfile.mkdtemp()) / "robota"
    >>> ensure_private_dir(store)
    <OwnerOnlyGuarantee.POSIX_MODES: 'posix_modes'>
    >>> _ = write_private_file(store / "token.json", b"{}")
    >>> oct((store / "token.json").stat().st_mode & 0o777)
    '0o600'
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from enum import StrEnum
from pathlib import Path

from robota.core.host.errors import InsecurePermissionsError, ModeNotEnforcedError

__all__ = [
    "DIRECTORY_MODE",
    "FILE_MODE",
    "OwnerOnlyGuarantee",
    "ensure_private_dir",
    "owner_only_guarantee",
    "read_private_file",
    "write_private_file",
]

DIRECTORY_MODE = 0o700
"""Mode of every directory this module creates."""
FILE_MODE = 0o600
"""Mode of every file this module creates."""

_OTHERS = 0o077


class OwnerOnlyGuarantee(StrEnum):
    """Which owner-only guarantee is in force on this platform.

    ``POSIX_MODES``: mode bits are set at creation and verified. ``UNVERIFIED``: the platform
    has no POSIX modes (Windows); writes are atomic but access is whatever the ACLs say.
    """

    POSIX_MODES = "posix_modes"
    UNVERIFIED = "unverified"


def owner_only_guarantee() -> OwnerOnlyGuarantee:
    """Return the guarantee this platform supports (``UNVERIFIED`` on Windows)."""
    return OwnerOnlyGuarantee.UNVERIFIED if os.name == "nt" else OwnerOnlyGuarantee.POSIX_MODES


def _check_existing(path: Path, info: os.stat_result, *, tighten: bool) -> None:
    mode = stat.S_IMODE(info.st_mode)
    if info.st_uid != os.geteuid():
        raise InsecurePermissionsError(
            f"{str(path)!r} is owned by uid {info.st_uid}, not {os.geteuid()}",
            path=str(path),
            mode=mode,
            uid=info.st_uid,
        )
    if mode & _OTHERS == 0:
        return
    if not tighten:
        raise InsecurePermissionsError(
            f"{str(path)!r} has mode {oct(mode)}; others can access it",
            path=str(path),
            mode=mode,
            uid=info.st_uid,
        )
    os.chmod(path, mode & ~_OTHERS)
    after = stat.S_IMODE(os.stat(path).st_mode)
    if after & _OTHERS:
        raise ModeNotEnforcedError(
            f"chmod of {str(path)!r} to owner-only did not take (mode {oct(after)})",
            path=str(path),
        )


def _verify_new(path: Path, mode_now: int, wanted: int, fix: int | None = None) -> None:
    if mode_now == wanted:
        return
    if fix is not None:
        os.fchmod(fix, wanted)
        mode_now = stat.S_IMODE(os.fstat(fix).st_mode)
    else:
        os.chmod(path, wanted)
        mode_now = stat.S_IMODE(os.stat(path).st_mode)
    if mode_now != wanted:
        raise ModeNotEnforcedError(
            f"{str(path)!r} was created {oct(wanted)} but reports {oct(mode_now)}",
            path=str(path),
        )


def ensure_private_dir(
    path: str | os.PathLike[str], *, tighten: bool = False
) -> OwnerOnlyGuarantee:
    """Make sure ``path`` (and any missing parent) exists as an owner-only directory.

    Missing directories are created 0700 and verified. An existing ``path`` is accepted when it
    is a directory owned by this account with no group/other bits; parents that already exist
    are left alone (``~`` itself is not this module's to judge).

    Args:
        path: Directory to ensure.
        tighten: When True an existing, own, too-wide ``path`` has its group/other bits
            cleared instead of raising. A mode is never widened.

    Returns:
        The guarantee in force (see :func:`owner_only_guarantee`).

    Raises:
        InsecurePermissionsError: ``path`` exists with group/other bits (and ``tighten`` is
            False) or belongs to another account.
        ModeNotEnforcedError: The filesystem does not keep the mode it was given.
        NotADirectoryError: ``path`` exists and is not a directory.
        OSError: Other filesystem failures, as raised.
    """
    target = Path(path)
    guarantee = owner_only_guarantee()
    missing: list[Path] = []
    probe = target
    while not probe.exists():
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory, DIRECTORY_MODE)
        except FileExistsError:
            continue  # created concurrently: judged below like any existing directory
        if guarantee is OwnerOnlyGuarantee.POSIX_MODES:
            _verify_new(directory, stat.S_IMODE(os.stat(directory).st_mode), DIRECTORY_MODE)
    info = os.stat(target)
    if not stat.S_ISDIR(info.st_mode):
        raise NotADirectoryError(f"{str(target)!r} is not a directory")
    if guarantee is OwnerOnlyGuarantee.POSIX_MODES:
        _check_existing(target, info, tighten=tighten)
    return guarantee


def write_private_file(path: str | os.PathLike[str], data: bytes) -> OwnerOnlyGuarantee:
    """Atomically replace ``path`` with ``data``, as an owner-only (0600) file.

    The bytes go to a fresh temporary file in the same directory, created 0600 with
    ``O_CREAT | O_EXCL | O_NOFOLLOW`` and verified with ``fstat`` before any byte is written,
    then flushed (``fsync``) and renamed over ``path`` with ``os.replace``. A reader sees the
    old content or the new, never a mix, and never a wider mode. The parent directory must
    exist (use :func:`ensure_private_dir`).

    Args:
        path: File to write.
        data: The full new content.

    Returns:
        The guarantee in force.

    Raises:
        ModeNotEnforcedError: The temporary file does not keep mode 0600.
        OSError: Filesystem failures, as raised; the temporary file is removed.
    """
    target = Path(path)
    guarantee = owner_only_guarantee()
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    descriptor = os.open(temporary, flags, FILE_MODE)
    try:
        try:
            if guarantee is OwnerOnlyGuarantee.POSIX_MODES:
                mode = stat.S_IMODE(os.fstat(descriptor).st_mode)
                _verify_new(temporary, mode, FILE_MODE, fix=descriptor)
            view = memoryview(data)
            while view:
                written = os.write(descriptor, view)
                view = view[written:]
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    _fsync_directory(target.parent)
    return guarantee


def read_private_file(path: str | os.PathLike[str], *, require_private: bool = True) -> bytes:
    """Read an owner-only file written by :func:`write_private_file`.

    Args:
        path: File to read; a symlink is refused (``O_NOFOLLOW``).
        require_private: When True (default, POSIX only) a file with group/other bits or owned
            by another account raises instead of being read.

    Returns:
        The file's bytes.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        InsecurePermissionsError: ``require_private`` and the file is not owner-only.
        OSError: Other failures (``ELOOP`` for a symlink), as raised.
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    descriptor = os.open(path, flags | getattr(os, "O_BINARY", 0))
    with os.fdopen(descriptor, "rb") as handle:
        if require_private and owner_only_guarantee() is OwnerOnlyGuarantee.POSIX_MODES:
            info = os.fstat(handle.fileno())
            mode = stat.S_IMODE(info.st_mode)
            if mode & _OTHERS or info.st_uid != os.geteuid():
                raise InsecurePermissionsError(
                    f"{os.fspath(path)!r} has mode {oct(mode)}, uid {info.st_uid}",
                    path=os.fspath(path),
                    mode=mode,
                    uid=info.st_uid,
                )
        return handle.read()


def _fsync_directory(directory: Path) -> None:
    if os.name == "nt":  # pragma: no cover - directories cannot be opened on Windows
        return
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
