"""Workspace trust (seed 003, "No public project-path helper", "Workspace identity").

Project settings, hooks, skills and instruction files are read only when the host marks the
workspace trusted; restricted is the default. :class:`TrustStore` remembers the operator's answer
per workspace in an owner-only JSON file at a host-named path, keyed by the workspace's canonical
path plus its device and inode, so a directory recreated at the same path does not inherit a
grant.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from robota.core.errors import ConfigurationError
from robota.core.host.errors import OwnerOnlyError
from robota.core.host.owner_only import (
    ensure_private_dir,
    private_dir,
    read_private_file,
    write_private_file,
)

__all__ = [
    "TrustDecision",
    "TrustStore",
    "TrustStoreError",
    "UnsafeTrustFileError",
    "workspace_identity",
]

TrustDecision = Literal["trusted", "restricted"]


class TrustStoreError(ConfigurationError):
    """The trust file exists but cannot be read or parsed (never treated as empty)."""

    code = "trust_store"


class UnsafeTrustFileError(TrustStoreError):
    """The trust file or its folder fails the owner-only check (issue #12): a symbolic link,
    not a regular file/directory, readable by others, or another account's. Never read as
    empty: a grant in a file others can write is not the operator's answer.

    The owner-only error (:class:`~robota.core.host.errors.UnsafeStoreEntryError` or
    :class:`~robota.core.host.errors.InsecurePermissionsError`) is the ``__cause__``.

    Attributes:
        path: The entry that failed the check.
        fix: What to do, naming the path (``chmod 600 PATH``, remove the symlink...).
    """

    code = "unsafe_trust_file"

    def __init__(self, cause: OwnerOnlyError) -> None:
        super().__init__(f"trust file: {cause.message}")
        self.path = cause.path
        self.fix = cause.fix


def workspace_identity(root: str | Path) -> str:
    """``<canonical path>#<device>:<inode>[:<generation>]`` of a workspace root.

    A deleted folder's inode number is soon reused (ext4 hands the same number to the next
    folder made there), so on Linux the inode's *generation* (``FS_IOC_GETVERSION``; ext4,
    xfs, btrfs: a new value each time an inode is reused) is part of the identity: a folder
    recreated at the same path (``rm -rf p && git clone evil p``) is a new workspace and is
    asked about again. Where the filesystem has no generation the identity is path, device
    and inode.

    Raises:
        FileNotFoundError: if the root does not exist.
    """
    real = Path(root).resolve(strict=True)
    info = real.stat()
    generation = _inode_generation(real)
    suffix = f":{generation}" if generation is not None else ""
    return f"{real}#{info.st_dev}:{info.st_ino}{suffix}"


_FS_IOC_GETVERSION = 0x80087601  # _IOR('v', 1, long) on 64-bit Linux


def _inode_generation(path: Path) -> int | None:
    if not sys.platform.startswith("linux"):
        return None
    import fcntl  # POSIX only: imported where it is used

    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        raw = fcntl.ioctl(descriptor, _FS_IOC_GETVERSION, bytes(8))
    except OSError:
        return None  # the filesystem keeps no generation (tmpfs, some network filesystems)
    finally:
        os.close(descriptor)
    return int.from_bytes(raw[:4], sys.byteorder)


@dataclass(kw_only=True, slots=True)
class TrustStore:
    """Remembered trust answers in an owner-only JSON file.

    Every read verifies an existing file first (issue #12): a symbolic link, a non-regular
    file, a file readable by others (say 0666) or owned by another account raises
    :class:`UnsafeTrustFileError` naming the path and the fix (``chmod 600 PATH``, remove the
    symlink), never treated as an empty store; so does a file with more than one hard link. A
    write also verifies the folder (:func:`~robota.core.host.owner_only.ensure_private_dir`:
    itself and its ancestors). Every read and write opens the folder first (``O_NOFOLLOW``,
    verified owner-only) and reaches the file through that descriptor, so a folder swapped
    for a link since the last call is refused, never followed.

    Attributes:
        path: The file (host-named). Created 0600 (folder 0700) on first write.
    """

    path: Path

    def _read(self) -> dict[str, TrustDecision]:
        try:
            with private_dir(self.path.parent) as folder:
                data = read_private_file(self.path, dir_fd=folder)
        except FileNotFoundError:
            return {}
        except OwnerOnlyError as exc:
            raise UnsafeTrustFileError(exc) from exc
        except OSError as exc:
            raise TrustStoreError(f"trust file {self.path}: cannot read: {exc}") from exc
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise TrustStoreError(f"trust file {self.path}: not UTF-8: {exc}") from exc
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as exc:
            raise TrustStoreError(f"trust file {self.path}: invalid JSON: {exc}") from exc
        if not isinstance(raw, dict) or not all(
            v in ("trusted", "restricted") for v in raw.values()
        ):
            raise TrustStoreError(f"trust file {self.path}: not a trust map")
        return {str(k): v for k, v in raw.items()}

    def get(self, root: str | Path) -> TrustDecision | None:
        """The remembered answer for ``root``, or None when never asked.

        Raises:
            UnsafeTrustFileError: the file is a link, not a regular file, readable by others
                or another account's.
            TrustStoreError: the file cannot be read or parsed.
            FileNotFoundError: ``root`` does not exist.
        """
        return self._read().get(workspace_identity(root))

    def set(self, root: str | Path, decision: TrustDecision) -> None:
        """Remember ``decision`` for ``root`` (atomic owner-only write).

        Raises:
            UnsafeTrustFileError: the file or its folder is a link, the wrong kind of entry,
                readable by others or another account's.
            TrustStoreError: the existing file cannot be read or parsed.
            FileNotFoundError: ``root`` does not exist.
            OSError: the file cannot be written.
        """
        data = self._read()
        data[workspace_identity(root)] = decision
        encoded = json.dumps(data, indent=2, sort_keys=True).encode()
        try:
            ensure_private_dir(self.path.parent)
            with private_dir(self.path.parent) as folder:
                write_private_file(self.path, encoded, dir_fd=folder)
        except OwnerOnlyError as exc:
            raise UnsafeTrustFileError(exc) from exc
