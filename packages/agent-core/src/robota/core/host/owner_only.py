"""Owner-only store: create directories and files only their owner can read, and verify the
ones that already exist (seed 000, "Owner-Only Store").

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
  and then verified with ``fstat``/``lstat``: a umask that removed owner bits is repaired on the
  entry just created, before any byte is written, and a filesystem that ignores chmod raises
  :class:`ModeNotEnforcedError`. The verification is load-bearing, not decoration.

An entry that already exists is judged before it is used, never adopted (issue #12): it must not
be a symbolic link (``lstat``, ``O_NOFOLLOW``: a planted link would make the store read,
truncate or create its target), it must be the right kind of entry (a regular file, or a
directory; never a FIFO, socket or device), it must belong to this account and carry no
group/other mode bits. :func:`verify_private_file` and :func:`verify_private_dir` state the
rule; :func:`open_private_file` opens an existing file (or creates a missing one) for reading
or appending under it, judging the descriptor it actually opened. A refusal is a typed error
naming the path and the fix: :class:`UnsafeStoreEntryError` (a link, a wrong type) or
:class:`InsecurePermissionsError` (wide mode, foreign owner). Nothing is ever chmod-ed after
the fact except on an explicit ``tighten=True``.

Three more attacks are handled (the outsider red team): a store FILE with more than one hard
link is refused (``st_nlink > 1``, judged on ``lstat`` and on the opened descriptor's
``fstat``: a link to another file of the same account passes owner and mode checks, and using
it would read or change that file); a store folder swapped for a link after it was checked
cannot redirect the store when its entries are reached through a descriptor of the verified
folder (:func:`private_dir`, then ``dir_fd=`` on every call here); and every existing ancestor
of a folder :func:`ensure_private_dir` accepts (its path resolved
once) must belong to root or this account and be writable by nobody else unless sticky
(``/tmp``), as OpenSSH's secure-path check requires: whoever can write an ancestor can swap the
folder.

Which guarantee holds is reported, not assumed: :func:`owner_only_guarantee` returns
``POSIX_MODES`` where mode bits are enforced and ``UNVERIFIED`` on Windows, where chmod cannot
express owner-only and this module only provides atomic writes and link/type checks (ACLs are
not inspected).

Example:
    >>> import os, tempfile
    >>> from pathlib import Path
    >>> store = Path(tempfile.mkdtemp()) / "robota"
    >>> ensure_private_dir(store)
    <OwnerOnlyGuarantee.POSIX_MODES: 'posix_modes'>
    >>> _ = write_private_file(store / "token.json", b"{}")
    >>> oct((store / "token.json").stat().st_mode & 0o777)
    '0o600'
    >>> descriptor = open_private_file(store / "run.jsonl", append=True, create=True)
    >>> os.write(descriptor, b"{}\\n"), os.close(descriptor)
    (3, None)
    >>> os.chmod(store / "token.json", 0o644)  # an older version left it readable
    >>> verify_private_file(store / "token.json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    robota.core.host.errors.InsecurePermissionsError: ... Fix: chmod 600 ...
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shlex
import stat
from collections.abc import Generator
from enum import StrEnum
from pathlib import Path
from typing import Literal

from robota.core.host.errors import (
    InsecurePermissionsError,
    ModeNotEnforcedError,
    UnsafeStoreEntryError,
)

__all__ = [
    "DIRECTORY_MODE",
    "FILE_MODE",
    "EntryKind",
    "OwnerOnlyGuarantee",
    "create_private_file",
    "ensure_private_dir",
    "open_private_dir",
    "open_private_file",
    "owner_only_guarantee",
    "private_dir",
    "read_private_file",
    "verify_private_dir",
    "verify_private_file",
    "write_private_file",
]

DIRECTORY_MODE = 0o700
"""Mode of every directory this module creates."""
FILE_MODE = 0o600
"""Mode of every file this module creates."""

_OTHERS = 0o077
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_DIR_FD = (
    bool(_DIRECTORY)
    and os.open in os.supports_dir_fd
    and os.stat in os.supports_dir_fd
    and os.mkdir in os.supports_dir_fd
)

EntryKind = Literal["file", "directory"]
"""The kind of entry a store keeps at a path: a regular ``"file"`` or a ``"directory"``."""


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


def _verify_new(path: Path, mode_now: int, wanted: int, fix: int | None = None) -> None:
    """Verify the mode of an entry this module just created; a umask that removed owner bits
    is repaired once (on the descriptor when there is one) and then checked again."""
    if mode_now == wanted:
        return
    if fix is not None:
        os.fchmod(fix, wanted)
        mode_now = stat.S_IMODE(os.fstat(fix).st_mode)
    else:
        os.chmod(path, wanted)
        mode_now = stat.S_IMODE(os.lstat(path).st_mode)
    if mode_now != wanted:
        raise ModeNotEnforcedError(
            f"{str(path)!r} was created {oct(wanted)} but reports {oct(mode_now)}",
            path=str(path),
        )


def _describe(mode: int) -> str:
    kinds = (
        (stat.S_ISLNK, "symbolic link"),
        (stat.S_ISDIR, "directory"),
        (stat.S_ISREG, "regular file"),
        (stat.S_ISFIFO, "FIFO"),
        (stat.S_ISSOCK, "socket"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
    )
    return next((name for test, name in kinds if test(mode)), "special file")


def _judge(
    path: str | os.PathLike[str], info: os.stat_result, kind: EntryKind, *, private: bool
) -> None:
    """Raise the typed error for an existing entry that a store must not use.

    ``info`` comes from ``lstat`` (so a link shows as a link) or from ``fstat`` of a descriptor
    opened ``O_NOFOLLOW``. ``private`` adds the owner and mode checks (POSIX only).
    """
    text = os.fspath(path)
    quoted = shlex.quote(text)
    if stat.S_ISLNK(info.st_mode):
        fix = f"remove the symlink (rm {quoted})"
        raise UnsafeStoreEntryError(
            f"{text!r} is a symbolic link ({os.strerror(errno.ELOOP)} under O_NOFOLLOW); a store "
            f"never follows a link at its own path. Fix: {fix}",
            path=text,
            fix=fix,
            problem="symlink",
            found="symbolic link",
            errno=errno.ELOOP,
        )
    is_right_type = stat.S_ISDIR if kind == "directory" else stat.S_ISREG
    if not is_right_type(info.st_mode):
        found = _describe(info.st_mode)
        wanted = "a directory" if kind == "directory" else "a regular file"
        fix = f"move it out of the way (mv {quoted} {shlex.quote(text + '.unsafe')})"
        if kind == "directory":
            code = errno.ENOTDIR
        else:
            code = errno.EISDIR if stat.S_ISDIR(info.st_mode) else errno.EINVAL
        raise UnsafeStoreEntryError(
            f"{text!r} is a {found} where {wanted} belongs. Fix: {fix}",
            path=text,
            fix=fix,
            problem="wrong_type",
            found=found,
            errno=code,
        )
    if kind == "file" and info.st_nlink > 1:
        copy = shlex.quote(text + ".copy")
        fix = f"give it a single link (cp -p {quoted} {copy} && mv {copy} {quoted})"
        raise UnsafeStoreEntryError(
            f"{text!r} has {info.st_nlink} hard links; another name shares its content, so a "
            f"store never uses it. Fix: {fix}",
            path=text,
            fix=fix,
            problem="hard_link",
            found=f"regular file with {info.st_nlink} links",
            errno=errno.EMLINK,
        )
    if not private or owner_only_guarantee() is not OwnerOnlyGuarantee.POSIX_MODES:
        return
    mode = stat.S_IMODE(info.st_mode)
    me = os.geteuid()
    if info.st_uid != me:
        fix = f"remove it, or take it over (chown {me} {quoted})"
        raise InsecurePermissionsError(
            f"{text!r} is owned by uid {info.st_uid}, not {me}. Fix: {fix}",
            path=text,
            mode=mode,
            uid=info.st_uid,
            fix=fix,
        )
    if mode & _OTHERS:
        fix = f"chmod {DIRECTORY_MODE if kind == 'directory' else FILE_MODE:o} {quoted}"
        raise InsecurePermissionsError(
            f"{text!r} has mode {oct(mode)}; others can access it. Fix: {fix}",
            path=text,
            mode=mode,
            uid=info.st_uid,
            fix=fix,
        )


def _at(path: str | os.PathLike[str], dir_fd: int | None) -> str:
    """What a system call gets for ``path``: the path itself, or with ``dir_fd`` its last
    component (opened relative to the descriptor of its verified folder)."""
    text = os.fspath(path)
    if dir_fd is None:
        return text
    name = os.path.basename(text)
    if name in ("", ".", ".."):
        raise ValueError(f"{text!r} does not end in a file name")
    return name


def _lstat(path: str | os.PathLike[str], dir_fd: int | None) -> os.stat_result:
    return os.stat(_at(path, dir_fd), dir_fd=dir_fd, follow_symlinks=False)


def verify_private_file(
    path: str | os.PathLike[str], *, dir_fd: int | None = None
) -> os.stat_result:
    """Check that an existing ``path`` is an owner-only regular file a store may use.

    The entry itself is inspected (``lstat``): it must not be a symbolic link, must be a regular
    file (not a directory, FIFO, socket or device) with exactly one hard link, must belong to
    this account and must carry no group/other mode bits. Nothing is changed.

    Args:
        path: The file to check.
        dir_fd: A descriptor of ``path``'s folder (:func:`private_dir`): the last component is
            looked up in that folder, whatever its path names now.

    Returns:
        Its ``lstat`` result.

    Raises:
        FileNotFoundError: Nothing exists at ``path``.
        UnsafeStoreEntryError: ``path`` is a symbolic link, not a regular file, or has more
            than one hard link (``problem == "hard_link"``).
        InsecurePermissionsError: ``path`` belongs to another account or has group/other bits
            (POSIX only); ``fix`` says ``chmod 600 PATH`` or how to take it over.
        OSError: ``lstat`` failed otherwise.
    """
    info = _lstat(path, dir_fd)
    _judge(path, info, "file", private=True)
    return info


def verify_private_dir(path: str | os.PathLike[str]) -> os.stat_result:
    """Check that an existing ``path`` is an owner-only directory a store may use.

    Same rules as :func:`verify_private_file` for a directory: not a symbolic link (``lstat``),
    a directory, this account's, no group/other bits. Nothing is changed or created (use
    :func:`ensure_private_dir` to create a missing one).

    Args:
        path: The directory to check.

    Returns:
        Its ``lstat`` result.

    Raises:
        FileNotFoundError: Nothing exists at ``path``.
        UnsafeStoreEntryError: ``path`` is a symbolic link or not a directory.
        InsecurePermissionsError: ``path`` belongs to another account or has group/other bits
            (POSIX only); ``fix`` says ``chmod 700 PATH`` or how to take it over.
        OSError: ``lstat`` failed otherwise.
    """
    info = os.lstat(path)
    _judge(path, info, "directory", private=True)
    return info


def _resolve_parent(path: str | os.PathLike[str]) -> Path:
    """``path`` with its parent resolved once (links among the parents followed, the last
    component kept as is, so a link there is still judged as a link)."""
    given = Path(path)
    if given.name in ("", ".", ".."):
        return Path(os.path.realpath(given))
    return Path(os.path.realpath(given.parent)) / given.name


def _check_ancestors(folder: Path) -> None:
    """Refuse a store folder whose existing ancestors another account can change.

    Every existing ancestor of ``folder`` (``folder`` itself excluded; its parent resolved
    already) must belong to root or this account and must not be group/other writable unless
    it carries the sticky bit (``/tmp``): whoever can write an ancestor can rename the store
    folder away and put a link or a folder of their own in its place.
    """
    if owner_only_guarantee() is not OwnerOnlyGuarantee.POSIX_MODES:
        return
    me = os.geteuid()
    for ancestor in folder.parents:
        try:
            info = os.lstat(ancestor)
        except FileNotFoundError:
            continue  # not created yet: made 0700 by ensure_private_dir
        text = os.fspath(ancestor)
        quoted = shlex.quote(text)
        mode = stat.S_IMODE(info.st_mode)
        if info.st_uid not in (0, me):
            fix = (
                f"keep the store in a folder whose parents belong to you or root "
                f"(not under {quoted}), or take it over (chown {me} {quoted})"
            )
            raise InsecurePermissionsError(
                f"{os.fspath(folder)!r} is inside {text!r}, owned by uid {info.st_uid}, who "
                f"can replace the store folder. Fix: {fix}",
                path=text,
                mode=mode,
                uid=info.st_uid,
                fix=fix,
            )
        if mode & 0o022 and not mode & stat.S_ISVTX:
            fix = f"chmod go-w {quoted} (or chmod +t {quoted} for a shared folder)"
            raise InsecurePermissionsError(
                f"{os.fspath(folder)!r} is inside {text!r} (mode {oct(mode)}), which others "
                f"can write: they can replace the store folder. Fix: {fix}",
                path=text,
                mode=mode,
                uid=info.st_uid,
                fix=fix,
            )


def ensure_private_dir(
    path: str | os.PathLike[str], *, tighten: bool = False
) -> OwnerOnlyGuarantee:
    """Make sure ``path`` (and any missing parent) exists as an owner-only directory.

    Missing directories are created 0700 and verified. An existing ``path`` is accepted when it
    is a directory itself (a symbolic link to one is refused: it is judged with ``lstat``),
    owned by this account, with no group/other bits. The parent path is resolved once (a link
    among the parents, such as a linked ``~``, is followed there and only there) and every
    existing ancestor must belong to root or this account and be writable by nobody else
    unless sticky (``/tmp``); ancestors are never changed.

    Args:
        path: Directory to ensure.
        tighten: When True an existing, own, too-wide directory at ``path`` has its
            group/other bits cleared instead of raising. A mode is never widened, and a link,
            a wrong type or a foreign owner is still refused.

    Returns:
        The guarantee in force (see :func:`owner_only_guarantee`).

    Raises:
        InsecurePermissionsError: ``path`` exists with group/other bits (and ``tighten`` is
            False) or belongs to another account, or an existing ancestor belongs to another
            account or is writable by others without the sticky bit (``path`` and ``fix`` name
            that ancestor).
        UnsafeStoreEntryError: ``path`` is a symbolic link (dangling or not) or not a
            directory. It is also an :class:`OSError` (``ELOOP``/``ENOTDIR``).
        ModeNotEnforcedError: The filesystem does not keep the mode it was given.
        OSError: Other filesystem failures, as raised.
    """
    target = _resolve_parent(path)
    guarantee = owner_only_guarantee()
    _check_ancestors(target)
    missing: list[Path] = []
    probe = target
    while not os.path.lexists(probe):  # a dangling link exists: it is judged, not replaced
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
            created = os.lstat(directory)
            _judge(directory, created, "directory", private=False)
            _verify_new(directory, stat.S_IMODE(created.st_mode), DIRECTORY_MODE)
    info = os.lstat(target)
    if (
        tighten
        and guarantee is OwnerOnlyGuarantee.POSIX_MODES
        and stat.S_ISDIR(info.st_mode)
        and info.st_uid == os.geteuid()
        and stat.S_IMODE(info.st_mode) & _OTHERS
    ):
        os.chmod(target, stat.S_IMODE(info.st_mode) & ~_OTHERS)
        info = os.lstat(target)
        if stat.S_ISDIR(info.st_mode) and stat.S_IMODE(info.st_mode) & _OTHERS:
            raise ModeNotEnforcedError(
                f"chmod of {str(target)!r} to owner-only did not take "
                f"(mode {oct(stat.S_IMODE(info.st_mode))})",
                path=str(target),
            )
    _judge(target, info, "directory", private=True)
    return guarantee


def open_private_dir(
    path: str | os.PathLike[str], *, dir_fd: int | None = None, create: bool = False
) -> int:
    """Open an owner-only store folder and return a descriptor of it, never following a link.

    The folder is opened ``O_DIRECTORY | O_NOFOLLOW`` and the descriptor's ``fstat`` is judged
    as :func:`verify_private_dir` does, so what the descriptor names is what was checked.
    Entries reached relative to it (``dir_fd=`` of the functions here) stay in that folder even
    when its path is later renamed away and replaced by a link to another folder.

    Args:
        path: The folder (for messages; with ``dir_fd`` only its last component is opened).
        dir_fd: A descriptor of ``path``'s parent folder to open the last component in.
        create: Create a missing folder: through :func:`ensure_private_dir` (parents,
            ancestor check) without ``dir_fd``, as one ``mkdir(0o700)`` in ``dir_fd`` with it.

    Returns:
        The descriptor (close-on-exec); the caller closes it.

    Raises:
        FileNotFoundError: The folder is missing and ``create`` is False.
        UnsafeStoreEntryError: ``path`` is a symbolic link or not a directory.
        InsecurePermissionsError: The folder belongs to another account or has group/other
            bits (or, when created, an ancestor is unsafe).
        ModeNotEnforcedError: A folder created here does not keep mode 0700.
        OSError: Other filesystem failures (``ENOTSUP`` where directories cannot be opened).
    """
    name = _at(path, dir_fd)
    flags = os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC
    created = False
    descriptor = -1
    for attempt in range(2):
        try:
            descriptor = os.open(name, flags, dir_fd=dir_fd)
            break
        except FileNotFoundError:
            if not create or attempt:
                raise
            if dir_fd is None:
                ensure_private_dir(path)
            else:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, DIRECTORY_MODE, dir_fd=dir_fd)
                    created = True
        except OSError as error:
            if error.errno in (errno.ELOOP, errno.ENOTDIR):
                _judge(path, _lstat(path, dir_fd), "directory", private=True)
            raise
    try:
        info = os.fstat(descriptor)
        _judge(path, info, "directory", private=False)
        if created and owner_only_guarantee() is OwnerOnlyGuarantee.POSIX_MODES:
            _verify_new(Path(path), stat.S_IMODE(info.st_mode), DIRECTORY_MODE, fix=descriptor)
            info = os.fstat(descriptor)
        _judge(path, info, "directory", private=True)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


@contextlib.contextmanager
def private_dir(
    path: str | os.PathLike[str], *, dir_fd: int | None = None, create: bool = False
) -> Generator[int | None]:
    """:func:`open_private_dir` as a context manager: yields the folder's descriptor and closes
    it afterwards.

    Where descriptors of folders cannot be used (Windows), the folder is verified by path
    instead (:func:`ensure_private_dir` with ``create``, else :func:`verify_private_dir`) and
    None is yielded, which every ``dir_fd=`` here accepts (the path is then used as given).

    Example:
        >>> import tempfile
        >>> from pathlib import Path
        >>> store = Path(tempfile.mkdtemp()) / "store"
        >>> with private_dir(store, create=True) as folder:
        ...     _ = write_private_file(store / "a.json", b"{}", dir_fd=folder)
        ...     read_private_file(store / "a.json", dir_fd=folder)
        b'{}'
    """
    if not _DIR_FD:  # pragma: no cover - Windows
        if dir_fd is None and create:
            ensure_private_dir(path)
        else:
            verify_private_dir(path)
        yield None
        return
    descriptor = open_private_dir(path, dir_fd=dir_fd, create=create)
    try:
        yield descriptor
    finally:
        os.close(descriptor)


def write_private_file(
    path: str | os.PathLike[str], data: bytes, *, dir_fd: int | None = None
) -> OwnerOnlyGuarantee:
    """Atomically replace ``path`` with ``data``, as an owner-only (0600) file.

    The bytes go to a fresh temporary file in the same directory, created 0600 with
    ``O_CREAT | O_EXCL | O_NOFOLLOW`` and verified with ``fstat`` before any byte is written,
    then flushed (``fsync``) and renamed over ``path`` with ``os.replace``. A reader sees the
    old content or the new, never a mix, and never a wider mode. The rename replaces whatever
    entry is at ``path`` (a wide legacy file, a symbolic link, a hard link to another file)
    without writing through it; a directory at ``path`` makes the rename fail. The parent
    directory must exist (use :func:`ensure_private_dir`).

    Args:
        path: File to write.
        data: The full new content.
        dir_fd: A descriptor of ``path``'s folder (:func:`private_dir`); the temporary file and
            the rename then happen in that folder whatever its path names now.

    Returns:
        The guarantee in force.

    Raises:
        ModeNotEnforcedError: The temporary file does not keep mode 0600.
        OSError: Filesystem failures, as raised; the temporary file is removed.
    """
    target = Path(path)
    guarantee = owner_only_guarantee()
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
    descriptor = _create_exclusive(temporary, os.O_WRONLY, dir_fd=dir_fd)
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(descriptor, view)
                view = view[written:]
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        if dir_fd is None:
            os.replace(temporary, target)
        else:
            os.replace(
                _at(temporary, dir_fd), _at(target, dir_fd), src_dir_fd=dir_fd, dst_dir_fd=dir_fd
            )
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(_at(temporary, dir_fd), dir_fd=dir_fd)
        raise
    if dir_fd is not None:
        os.fsync(dir_fd)
    else:
        _fsync_directory(target.parent)
    return guarantee


def _create_exclusive(
    path: str | os.PathLike[str], access: int, *, dir_fd: int | None = None
) -> int:
    """``os.open(path, access | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)``, mode verified."""
    flags = access | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC | _BINARY
    name = _at(path, dir_fd)
    descriptor = os.open(name, flags, FILE_MODE, dir_fd=dir_fd)
    try:
        if owner_only_guarantee() is OwnerOnlyGuarantee.POSIX_MODES:
            mode = stat.S_IMODE(os.fstat(descriptor).st_mode)
            _verify_new(Path(path), mode, FILE_MODE, fix=descriptor)
    except BaseException:
        os.close(descriptor)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=dir_fd)  # ours (O_EXCL): a file whose mode does not hold
        raise
    return descriptor


def create_private_file(path: str | os.PathLike[str], *, dir_fd: int | None = None) -> int:
    """Create ``path`` as a new, empty owner-only (0600) file and return a write descriptor.

    The file is opened ``O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC``: an existing
    entry of any kind at ``path`` (a planted file, a symlink to a victim) is never opened, so
    nothing is truncated or written through. The mode is verified with ``fstat``. The caller
    owns the descriptor (``os.close`` it, or hand it to a child process as its output).

    Args:
        path: File to create; its directory should be owner-only (:func:`ensure_private_dir`).
        dir_fd: A descriptor of ``path``'s folder (:func:`private_dir`) to create it in.

    Returns:
        The open descriptor.

    Raises:
        FileExistsError: Something already exists at ``path`` (a symlink included).
        ModeNotEnforcedError: The new file does not keep mode 0600 (it is removed again).
        OSError: Other filesystem failures, as raised.
    """
    return _create_exclusive(path, os.O_WRONLY, dir_fd=dir_fd)


def _open_existing(
    path: str | os.PathLike[str], access: int, *, private: bool, dir_fd: int | None = None
) -> int:
    """Open an existing store file without following a link and judge what was opened.

    The entry is judged with ``lstat`` first, so a FIFO or device is never opened at all; the
    open itself is ``O_NOFOLLOW | O_NONBLOCK`` (an entry swapped in between cannot be followed
    or block), and the descriptor's ``fstat`` is judged again (type, link count, owner, mode)
    before it is returned.
    """
    _judge(path, _lstat(path, dir_fd), "file", private=private)
    flags = access | _NOFOLLOW | _CLOEXEC | _BINARY | _NONBLOCK
    try:
        descriptor = os.open(_at(path, dir_fd), flags, dir_fd=dir_fd)
    except FileNotFoundError:
        raise
    except OSError:
        _judge(path, _lstat(path, dir_fd), "file", private=private)  # swapped: name it
        raise
    try:
        _judge(path, os.fstat(descriptor), "file", private=private)
        if _NONBLOCK:
            import fcntl

            status = fcntl.fcntl(descriptor, fcntl.F_GETFL)
            fcntl.fcntl(descriptor, fcntl.F_SETFL, status & ~_NONBLOCK)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def open_private_file(
    path: str | os.PathLike[str],
    *,
    append: bool = False,
    create: bool = False,
    dir_fd: int | None = None,
) -> int:
    """Open an owner-only store file for reading or appending, never following a link.

    An existing file is judged as :func:`verify_private_file` does, both before the open
    (``lstat``: a FIFO or device is never opened) and on the descriptor it returns (``fstat`` of
    an ``O_NOFOLLOW`` open: not a link, a regular file with one hard link, ours, owner-only),
    so what is used is what was checked. With ``create`` a missing file is created exclusively
    (``O_CREAT | O_EXCL | O_NOFOLLOW``, 0600, verified) — an entry appearing at the same
    moment is then opened and judged like any existing one.

    Args:
        path: The file; its directory should be owner-only (:func:`ensure_private_dir`).
        append: Open write-only with ``O_APPEND`` instead of read-only.
        create: Create the file when it is missing.
        dir_fd: A descriptor of ``path``'s folder (:func:`private_dir`) to open it in.

    Returns:
        The open descriptor (blocking, close-on-exec); the caller closes it.

    Raises:
        FileNotFoundError: ``path`` does not exist and ``create`` is False.
        UnsafeStoreEntryError: ``path`` is a symbolic link, not a regular file, or has more
            than one hard link.
        InsecurePermissionsError: ``path`` belongs to another account or has group/other bits.
        ModeNotEnforcedError: A file created here does not keep mode 0600.
        OSError: Other filesystem failures, as raised.
    """
    access = (os.O_WRONLY | os.O_APPEND) if append else os.O_RDONLY
    attempts = 3 if create else 1
    for attempt in range(attempts):
        if create:
            try:
                return _create_exclusive(path, access, dir_fd=dir_fd)
            except FileExistsError:
                pass
        try:
            return _open_existing(path, access, private=True, dir_fd=dir_fd)
        except FileNotFoundError:
            if attempt == attempts - 1:
                raise
    raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), os.fspath(path))


def read_private_file(
    path: str | os.PathLike[str], *, require_private: bool = True, dir_fd: int | None = None
) -> bytes:
    """Read an owner-only file written by :func:`write_private_file`.

    The file is opened as :func:`open_private_file` does: a symbolic link, a file with more
    than one hard link or an entry that is not a regular file is refused before anything is
    read (a FIFO is never opened, so a read cannot hang on one).

    Args:
        path: File to read.
        require_private: When True (default, POSIX only) a file with group/other bits or owned
            by another account raises instead of being read.
        dir_fd: A descriptor of ``path``'s folder (:func:`private_dir`) to read it from.

    Returns:
        The file's bytes.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        UnsafeStoreEntryError: ``path`` is a symbolic link, not a regular file or hard-linked
            (also an :class:`OSError`, ``errno`` ``ELOOP`` for a link).
        InsecurePermissionsError: ``require_private`` and the file is not owner-only; ``fix``
            names the ``chmod 600`` to run.
        OSError: Other failures, as raised.
    """
    descriptor = _open_existing(path, os.O_RDONLY, private=require_private, dir_fd=dir_fd)
    with os.fdopen(descriptor, "rb") as handle:
        return handle.read()


def _fsync_directory(directory: Path) -> None:
    if os.name == "nt":  # pragma: no cover - directories cannot be opened on Windows
        return
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
