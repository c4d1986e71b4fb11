"""Which repository a reading git command would open, and whether anything in it can make that
command run a program (seed 000, "Permission System": the inspect exception; "Path
Containment": everything is compared on canonical paths).

``git status`` ran a workspace folder's ``core.fsmonitor`` program when the call's cwd was that
folder (measured): git opens the repository it discovers from its working directory, not the
workspace's. :func:`inspect_repository` therefore repeats git's discovery (``setup.c``:
``setup_git_directory_gently_1``, ``read_gitfile_gently``, ``is_git_directory``) from the
call's cwd and accepts only when all of this holds:

* no ``GIT_*`` environment variable is set other than :data:`ALLOWED_ENVIRONMENT` (``GIT_DIR``,
  ``GIT_WORK_TREE``, ``GIT_CONFIG*``, ``GIT_EXTERNAL_DIFF``, ``GIT_PAGER``,
  ``GIT_CEILING_DIRECTORIES``… change what git opens or runs), and ``HOME`` and
  ``XDG_CONFIG_HOME`` are not inside the workspace (git's global configuration would then be
  a workspace file);
* walking up from the cwd, the first directory holding a ``.git`` entry (directory, or file
  ``gitdir: PATH``) or looking like a bare repository (``HEAD`` with ``objects``/``refs``/
  ``commondir``) is found **at or below the workspace root**, and that candidate is a valid
  repository (``HEAD`` a ``ref: refs/…`` or an object id, ``objects`` and ``refs``
  directories); anything odd (an empty ``.git`` folder git would skip, an unreadable file, a
  symlinked ``HEAD``) refuses, because git might then go on to a repository further up;
* the git directory, its ``commondir`` and ``core.worktree`` all resolve inside the workspace;
* every configuration file git reads from the repository (``commondir/config``,
  ``config.worktree``) parses and holds only allowlisted keys (:mod:`._git_config`); the
  global and system files are the user's own and are trusted, not judged;
* the hooks directory holds only ``*.sample`` files and hooks a reading command never runs
  (``git status`` writes the index, which runs ``post-index-change``);
* there is no ``objects/info/alternates`` (objects read from outside);
* every populated submodule recorded in the index (a gitlink entry with a ``.git``) passes the
  same checks: ``git status`` and ``git diff`` run ``git status`` inside each one.

The answer holds for the files as they were when checked (the read-only sandbox the call runs
in keeps them so). Only the standard file layout is modelled: a ``reftable`` or ``split
index`` repository, an index this reader cannot parse, or more than
:data:`MAX_REPOSITORIES` nested repositories refuse.
"""

from __future__ import annotations

import os
import stat
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from robota.core.host.errors import InvalidPathError
from robota.core.host.paths import canonical_path, is_inside
from robota.core.permissions._git_config import ConfigEntry, key_allowed, read_config

__all__ = ["ALLOWED_ENVIRONMENT", "MAX_REPOSITORIES", "GitRepository", "inspect_repository"]


def _names(text: str) -> frozenset[str]:
    """The space-separated names of ``text``."""
    return frozenset(text.split())


ALLOWED_ENVIRONMENT = frozenset(
    {
        "GIT_TERMINAL_PROMPT",
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_AUTHOR_DATE",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "GIT_COMMITTER_DATE",
        "GIT_SSL_CAINFO",
        "GIT_SSL_CAPATH",
        "GIT_SSL_NO_VERIFY",
        "GIT_HTTP_USER_AGENT",
        "GIT_ASKPASS",
        "GIT_CONFIG_NOSYSTEM",
    }
)
"""``GIT_*`` variables that may be set; any other refuses. These only name an identity, skip
the system configuration file (``GIT_CONFIG_NOSYSTEM``), or matter for network transfers and
credential prompts, which the allowed subcommands never make
(a partial clone, whose lazy fetches would, is refused through ``extensions.partialclone`` and
``remote.*.promisor`` being absent from the configuration allowlist)."""

MAX_REPOSITORIES = 16
"""Repositories (the one opened plus populated submodules, nested) checked before refusing."""

_INERT_HOOKS = _names(
    "applypatch-msg pre-applypatch post-applypatch pre-commit pre-merge-commit "
    "prepare-commit-msg commit-msg post-commit pre-rebase post-checkout post-merge pre-push "
    "pre-receive update proc-receive post-receive post-update push-to-checkout pre-auto-gc "
    "post-rewrite sendemail-validate p4-changelist p4-prepare-changelist p4-post-changelist "
    "p4-pre-submit"
)
"""Hooks that ``status``/``log``/``diff``/``show``/``rev-parse``/``branch`` never run (githooks(5)).
Absent on purpose: ``post-index-change`` (runs when the index is written, which ``status``
does), ``reference-transaction``, ``fsmonitor-watchman``, and any unknown name."""

_MAX_CONFIG_BYTES = 1 << 20
_MAX_INDEX_BYTES = 256 << 20
_MAX_SMALL_FILE = 4096
_GITLINK = 0o160000


@dataclass(frozen=True, kw_only=True, slots=True)
class GitRepository:
    """The repository git would open.

    Attributes:
        git_dir: Canonical git directory (``.git``, or the bare repository).
        common_dir: Canonical common directory (differs for a linked worktree).
        worktree: Canonical working tree, or None for a bare repository.
    """

    git_dir: Path
    common_dir: Path
    worktree: Path | None


@dataclass(kw_only=True, slots=True)
class _Budget:
    left: int = MAX_REPOSITORIES


def inspect_repository(
    cwd: Path, *, workspace: Path, environ: Mapping[str, str]
) -> GitRepository | None:
    """Return the repository git would open from ``cwd`` when nothing in it (or in the
    environment) can make a reading git command run a program; else None.

    Args:
        cwd: Canonical directory git runs in (inside ``workspace``).
        workspace: Canonical workspace root.
        environ: The environment git inherits.

    Returns:
        The repository (see the module docstring for every condition), or None: refuse.
    """
    if any(name.startswith("GIT_") and name not in ALLOWED_ENVIRONMENT for name in environ):
        return None
    if not is_inside(workspace, cwd):
        return None
    for variable in ("HOME", "XDG_CONFIG_HOME"):
        value = environ.get(variable)
        if value and os.path.isabs(value) and is_inside(workspace, value):
            return None  # the "global" configuration file would be a workspace file
    try:
        found = _discover(cwd, workspace)
        if found is None:
            return None
        return found if _safe(found, workspace, _Budget()) else None
    except (OSError, InvalidPathError, ValueError, struct.error):
        return None


def _discover(cwd: Path, workspace: Path) -> GitRepository | None:
    directory = cwd
    while True:
        dotgit = directory / ".git"
        if os.path.lexists(dotgit):
            return _open_dotgit(dotgit, worktree=directory, workspace=workspace)
        if os.path.lexists(directory / "HEAD") and any(
            os.path.lexists(directory / name) for name in ("objects", "refs", "commondir")
        ):
            dirs = _git_dirs(directory, workspace)
            if dirs is None:
                return None
            return GitRepository(git_dir=dirs[0], common_dir=dirs[1], worktree=None)
        if directory == workspace or directory.parent == directory:
            return None  # the next candidate would lie outside the workspace
        directory = directory.parent


def _open_dotgit(dotgit: Path, *, worktree: Path, workspace: Path) -> GitRepository | None:
    info = os.stat(dotgit)  # follows a symlink, as git does; a dangling one raises → refuse
    if stat.S_ISDIR(info.st_mode):
        dirs = _git_dirs(dotgit, workspace)
    elif stat.S_ISREG(info.st_mode):
        data = _read_inside(dotgit, workspace, _MAX_SMALL_FILE)
        if data is None or b"\x00" in data or not data.startswith(b"gitdir: "):
            return None
        target = data[len(b"gitdir: ") :].rstrip(b"\r\n")
        if not target:
            return None
        dirs = _git_dirs(Path(os.path.join(worktree, os.fsdecode(target))), workspace)
    else:
        return None
    if dirs is None:
        return None
    return GitRepository(git_dir=dirs[0], common_dir=dirs[1], worktree=worktree)


def _git_dirs(candidate: Path, workspace: Path) -> tuple[Path, Path] | None:
    git_dir = _canonical_inside(candidate, workspace)
    if git_dir is None or not git_dir.is_dir() or not _valid_head(git_dir / "HEAD"):
        return None
    common_dir = git_dir
    pointer = git_dir / "commondir"
    if os.path.lexists(pointer):
        data = _read_inside(pointer, workspace, _MAX_SMALL_FILE)
        text = data.rstrip(b"\r\n") if data is not None else b""
        if not text or b"\x00" in text:
            return None
        shared = _canonical_inside(Path(os.path.join(git_dir, os.fsdecode(text))), workspace)
        if shared is None or not shared.is_dir():
            return None
        common_dir = shared
    for name in ("objects", "refs"):
        inner = _canonical_inside(common_dir / name, workspace)
        if inner is None or not inner.is_dir():
            return None
    return git_dir, common_dir


def _valid_head(head: Path) -> bool:
    info = os.lstat(head)
    if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_SMALL_FILE:
        return False
    data = head.read_bytes()
    if data.startswith(b"ref:"):
        return data[4:].lstrip(b" \t\r\n").startswith(b"refs/")
    hexdigits = b"0123456789abcdef"
    for size in (64, 40):
        prefix = data[:size]
        if len(prefix) == size and all(byte in hexdigits for byte in prefix.lower()):
            return True
    return False


def _safe(repository: GitRepository, workspace: Path, budget: _Budget) -> bool:
    budget.left -= 1
    if budget.left < 0:
        return False
    entries = _config_entries(repository, workspace)
    if entries is None:
        return False
    worktree = repository.worktree
    hash_size = 20
    for entry in entries:
        if entry.key == "core.worktree":
            if entry.value is None:
                return False
            path = _canonical_inside(Path(os.path.join(repository.git_dir, entry.value)), workspace)
            if path is None:
                return False
            worktree = path
        elif entry.key == "extensions.objectformat":
            hash_size = 32 if (entry.value or "").lower() == "sha256" else 20
        elif entry.key == "extensions.refstorage" and (entry.value or "").lower() != "files":
            return False
    if not _hooks_inert(repository.common_dir / "hooks", workspace):
        return False
    if os.path.lexists(repository.common_dir / "objects" / "info" / "alternates"):
        return False
    for directory in {repository.git_dir, repository.common_dir}:
        if not _links_stay_inside(directory, workspace):
            return False
    if worktree is None:
        return True
    index = repository.git_dir / "index"
    if not os.path.lexists(index):
        return True
    data = _read_inside(index, workspace, _MAX_INDEX_BYTES)
    links = gitlinks(data, hash_size) if data is not None else None
    if links is None:
        return False
    for link in links:
        submodule = Path(os.path.join(worktree, os.fsdecode(link)))
        dotgit = submodule / ".git"
        if not os.path.lexists(dotgit):
            continue  # not populated: git does not look inside
        place = _canonical_inside(submodule, workspace)
        if place is None:
            return False
        inner = _open_dotgit(dotgit, worktree=place, workspace=workspace)
        if inner is None or not _safe(inner, workspace, budget):
            return False
    return True


_MAX_GIT_ENTRIES = 50_000
"""Entries of a git directory walked looking for links; a larger one is not judged (the line
then asks)."""


def _links_stay_inside(git_dir: Path, workspace: Path) -> bool:
    """True when no symlink anywhere in ``git_dir`` (objects, refs, logs, packed-refs, index,
    HEAD…) leads outside the workspace: a linked ``objects/ab`` or ``refs/heads`` makes a
    reading command show another repository's history. Bounded by :data:`_MAX_GIT_ENTRIES`."""
    pending = [git_dir]
    seen = 0
    while pending:
        directory = pending.pop()
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    seen += 1
                    if seen > _MAX_GIT_ENTRIES:
                        return False
                    if entry.is_symlink():
                        if _canonical_inside(Path(entry.path), workspace) is None:
                            return False
                    elif entry.is_dir(follow_symlinks=False):
                        pending.append(Path(entry.path))
        except OSError:
            return False
    return True


def _config_entries(repository: GitRepository, workspace: Path) -> list[ConfigEntry] | None:
    files = dict.fromkeys(
        (
            repository.common_dir / "config",
            repository.git_dir / "config",
            repository.git_dir / "config.worktree",
            repository.common_dir / "config.worktree",
        )
    )
    entries: list[ConfigEntry] = []
    for path in files:
        if not os.path.lexists(path):
            continue
        data = _read_inside(path, workspace, _MAX_CONFIG_BYTES)
        parsed = read_config(data) if data is not None else None
        if parsed is None or not all(key_allowed(entry) for entry in parsed):
            return None
        entries.extend(parsed)
    return entries


def _hooks_inert(hooks: Path, workspace: Path) -> bool:
    if not os.path.lexists(hooks):
        return True
    place = _canonical_inside(hooks, workspace)
    if place is None:
        return False
    if not place.is_dir():
        return True
    return all(name.endswith(".sample") or name in _INERT_HOOKS for name in os.listdir(place))


def gitlinks(data: bytes, hash_size: int) -> list[bytes] | None:
    """List the gitlink (submodule) paths of a git index file.

    Args:
        data: The index file's bytes (format versions 2, 3 and 4, ``gitformat-index(5)``).
        hash_size: 20 (SHA-1) or 32 (SHA-256) bytes per object id.

    Returns:
        The paths of entries with mode 160000, or None when the data is not an index this
        reader understands or it uses a split index (``link`` extension).
    """
    if len(data) < 12 + hash_size or data[:4] != b"DIRC":
        return None
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        return None
    end = len(data) - hash_size
    fixed = 40 + hash_size + 2
    offset = 12
    previous = b""
    found: list[bytes] = []
    for _ in range(count):
        start = offset
        if start + fixed > end:
            return None
        (mode,) = struct.unpack(">I", data[start + 24 : start + 28])
        (flags,) = struct.unpack(">H", data[start + fixed - 2 : start + fixed])
        cursor = start + fixed
        if flags & 0x4000:
            if version < 3:
                return None
            cursor += 2
        if version == 4:
            strip, cursor = _varint(data, cursor, end)
            stop = data.find(b"\x00", cursor, end)
            if strip < 0 or strip > len(previous) or stop < 0:
                return None
            name = previous[: len(previous) - strip] + data[cursor:stop]
            offset = stop + 1
        else:
            length = flags & 0x0FFF
            if length == 0x0FFF:
                stop = data.find(b"\x00", cursor, end)
                if stop < 0:
                    return None
                length = stop - cursor
            name = data[cursor : cursor + length]
            if cursor + length >= end or data[cursor + length] != 0:
                return None
            offset = start + ((cursor - start + length + 8) & ~7)
        previous = name
        if mode == _GITLINK:
            found.append(name)
    while offset + 8 <= end:
        signature = data[offset : offset + 4]
        (size,) = struct.unpack(">I", data[offset + 4 : offset + 8])
        if signature == b"link":
            return None
        offset += 8 + size
    if offset != end:
        return None
    return found


def _varint(data: bytes, cursor: int, end: int) -> tuple[int, int]:
    """Git's offset varint (``varint.c``); returns (-1, cursor) on malformed data."""
    if cursor >= end:
        return -1, cursor
    byte = data[cursor]
    cursor += 1
    value = byte & 0x7F
    while byte & 0x80:
        if cursor >= end or value > (1 << 48):
            return -1, cursor
        value += 1
        byte = data[cursor]
        cursor += 1
        value = (value << 7) + (byte & 0x7F)
    return value, cursor


def _canonical_inside(path: Path, workspace: Path) -> Path | None:
    try:
        canonical = canonical_path(path)
    except InvalidPathError:
        return None
    return canonical if is_inside(workspace, canonical) else None


def _read_inside(path: Path, workspace: Path, limit: int) -> bytes | None:
    place = _canonical_inside(path, workspace)
    if place is None:
        return None
    info = os.stat(place)
    if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
        return None
    return place.read_bytes()
