"""Edit checkpoints: what every tool-written file looked like before a turn (seed 003, "edit
checkpointing"; issue: "every file a tool writes can be restored to its state before the turn").

A :class:`CheckpointStore` keeps, per turn, the first-seen state of each file a tool was about
to write: its bytes and permission bits, or the fact that it did not exist. It lives in memory,
or — when the host names a folder — also on disk in owner-only files (``robota.core.host``
owner-only store), so checkpoints survive a restart. The store never picks a folder itself
(seed 003: "an omitted storage root fails before any filesystem write — never an ambient
default"; here an omitted folder means memory only).

Disk layout under the host's folder: one directory per turn named by its sequence number
(``000001``), holding ``manifest.json`` (turn id and file list) and one ``<n>.bin`` blob per
existing file. Every directory is 0700, every file 0600. Every use of the folder opens it
again (``O_DIRECTORY | O_NOFOLLOW``, verified owner-only) and reaches turn folders, blobs and
manifests through that descriptor, removing a turn folder with ``rmtree(dir_fd=)``: a folder
renamed away and replaced by a link is refused, never followed into. A blob or manifest with
more than one hard link is refused (a restore never writes another file's content into the
workspace).

The files a tool writes are read and written back through a rooted directory handle
(:class:`robota.tools.rooted.RootedDir`, issue #12): the workspace's when the store is given
one — then a path outside the workspace is never recorded nor restored, even when a manifest
on disk names it — else one rooted at ``/``. Either way a snapshot opens the file once
(``O_NOFOLLOW | O_NONBLOCK``, a FIFO, socket or device is not recorded and never blocks) and a
restore creates a new file and renames it over the path, so a hard link from the path to
another file is never written through.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path

import pydantic
from robota.core.errors import ErrorCategory, RobotaError
from robota.core.host.errors import OwnerOnlyError, PathContainmentError
from robota.core.host.owner_only import (
    ensure_private_dir,
    private_dir,
    read_private_file,
    write_private_file,
)
from robota.tools.errors import NotADirectoryPathError, NotARegularFileError, PathNotFoundError
from robota.tools.rooted import RootedDir
from robota.tools.workspace import Workspace

__all__ = [
    "Checkpoint",
    "CheckpointNotFoundError",
    "CheckpointStore",
    "CheckpointStoreError",
    "RestoreReport",
]


class CheckpointNotFoundError(RobotaError):
    """No checkpoint was recorded for that turn id (or it was already restored)."""

    code = "checkpoint_not_found"
    default_category = ErrorCategory.USER


class CheckpointStoreError(RobotaError):
    """A checkpoint folder holds a manifest that cannot be read (never silently ignored)."""

    code = "checkpoint_store_corrupt"


@dataclass(frozen=True, kw_only=True, slots=True)
class Checkpoint:
    """One turn's checkpoint as listed by :meth:`CheckpointStore.list`.

    Attributes:
        turn_id: The host's turn id.
        paths: Absolute paths of the files recorded, in first-touch order.
    """

    turn_id: str
    paths: tuple[Path, ...]


@dataclass(frozen=True, kw_only=True, slots=True)
class RestoreReport:
    """What :meth:`CheckpointStore.restore` changed.

    Attributes:
        turn_id: The turn rewound to (its start).
        restored: Files written back with their earlier bytes and mode.
        deleted: Files removed because they did not exist before the turn.
        undone_turns: Turn ids whose checkpoints were consumed, oldest first.
    """

    turn_id: str
    restored: tuple[Path, ...]
    deleted: tuple[Path, ...]
    undone_turns: tuple[str, ...]


class _FileRecord(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", frozen=True)
    path: str
    existed: bool
    mode: int | None = None
    blob: str | None = None


class _Manifest(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    turn_id: str
    files: list[_FileRecord] = pydantic.Field(default_factory=list[_FileRecord])


@dataclass(kw_only=True, slots=True)
class _Snapshot:
    existed: bool
    mode: int | None = None
    data: bytes | None = None
    blob: Path | None = None


@dataclass(kw_only=True, slots=True)
class _Turn:
    turn_id: str
    files: dict[Path, _Snapshot]
    folder: Path | None = None


class CheckpointStore:
    """Per-turn snapshots of tool-written files.

    Args:
        folder: Host-named directory to persist checkpoints in (created owner-only; existing
            checkpoints in it are loaded). None keeps them in memory only.
        workspace: The workspace the checkpointed tools write in. When given, every snapshot
            and restore goes through its rooted handle and a path outside it is neither
            recorded nor written back. None: files are reached through a handle rooted at
            ``/`` (symlinks resolved by the same component walk, no containment).

    Raises:
        InsecurePermissionsError: ``folder`` exists but is readable by others.
        CheckpointStoreError: a manifest in ``folder`` cannot be parsed.

    Example:
        >>> import tempfile
        >>> from pathlib import Path
        >>> target = Path(tempfile.mkdtemp()) / "notes.txt"
        >>> _ = target.write_text("before")
        >>> store = CheckpointStore()
        >>> store.begin_turn("turn-1")
        >>> store.snapshot(target)
        True
        >>> _ = target.write_text("after")
        >>> _ = store.restore("turn-1")
        >>> target.read_text()
        'before'
    """

    def __init__(self, folder: Path | None = None, *, workspace: Workspace | None = None) -> None:
        self.folder = folder
        self.workspace = workspace
        self._files = workspace.handle if workspace is not None else RootedDir("/")
        self._turns: dict[str, _Turn] = {}
        self._current: str | None = None
        self._sequence = 0
        if folder is not None:
            ensure_private_dir(folder)
            self._load(folder)

    @property
    def current_turn(self) -> str | None:
        """The turn :meth:`begin_turn` opened last, or None."""
        return self._current

    def begin_turn(self, turn_id: str) -> None:
        """Open ``turn_id``: later snapshots without an explicit turn go to it. Re-opening a
        known turn continues it (a file already recorded keeps its first snapshot)."""
        self._current = turn_id
        self._turn(turn_id)

    def snapshot(self, path: Path, turn_id: str | None = None) -> bool:
        """Record ``path``'s current state for the turn, once per turn.

        Args:
            path: Absolute path of the file a tool is about to write.
            turn_id: The turn (default: :attr:`current_turn`).

        Returns:
            True when recorded now; False when the turn already holds this path, ``path``
            is something other than a regular file or nothing (a directory, FIFO, socket or
            device, a path under a file), or it lies outside the store's workspace.

        Raises:
            ValueError: no turn given and none begun; ``path`` is relative.
            OSError: the file exists but cannot be read.
        """
        turn_key = turn_id if turn_id is not None else self._current
        if turn_key is None:
            raise ValueError("no turn: call begin_turn() or pass turn_id")
        if not path.is_absolute():
            raise ValueError(f"checkpoint paths must be absolute, got {path}")
        turn = self._turn(turn_key)
        if path in turn.files:
            return False
        try:
            opened = self._files.open(path, expect="file")
        except PathNotFoundError:
            turn.files[path] = _Snapshot(existed=False)
        except (NotARegularFileError, NotADirectoryPathError, PathContainmentError):
            return False
        else:
            with opened:
                data = opened.read_all()
                mode = stat.S_IMODE(opened.info.st_mode)
            snap = _Snapshot(existed=True, mode=mode, data=data)
            if turn.folder is not None:
                blob = turn.folder / f"{len(turn.files)}.bin"
                with self._turn_dir(turn.folder) as handle:
                    write_private_file(blob, data, dir_fd=handle)
                snap = _Snapshot(existed=True, mode=mode, blob=blob)
            turn.files[path] = snap
        self._save(turn)
        return True

    def list(self) -> tuple[Checkpoint, ...]:
        """Every turn with its recorded paths, oldest first (turns with no files included)."""
        return tuple(
            Checkpoint(turn_id=t.turn_id, paths=tuple(t.files)) for t in self._turns.values()
        )

    def restore(self, turn_id: str) -> RestoreReport:
        """Put every file touched in ``turn_id`` or any later turn back to its state before
        ``turn_id`` (the earliest snapshot of each path wins), deleting files that did not exist
        then. Those turns' checkpoints are consumed (removed from memory and disk).

        Parent directories a tool created are left in place. A file is written back as a new
        file renamed over the path (with its recorded permission bits); a path that did not
        exist is removed unless it is now a directory.

        Raises:
            CheckpointNotFoundError: no checkpoint for ``turn_id``.
            PathOutsideRootError: a recorded path lies outside the store's workspace (a
                manifest on disk naming it); nothing is written there.
            NotARegularFileError: a recorded file's path is now a directory or special file.
            OSError: a file could not be written back (files already restored stay restored).
        """
        if turn_id not in self._turns:
            raise CheckpointNotFoundError(f"no checkpoint for turn {turn_id!r}")
        order = list(self._turns)
        undone = order[order.index(turn_id) :]
        earliest: dict[Path, _Snapshot] = {}
        for key in undone:
            for path, snap in self._turns[key].files.items():
                earliest.setdefault(path, snap)
        restored: list[Path] = []
        deleted: list[Path] = []
        for path, snap in earliest.items():
            if snap.existed:
                self._files.replace_file(path, self._content(snap), mode=snap.mode)
                restored.append(path)
            elif self._files.remove_file(path):
                deleted.append(path)
        for key in undone:
            turn = self._turns.pop(key)
            if turn.folder is not None:
                self._remove_turn_dir(turn.folder)
        if self._current in undone:
            self._current = None
        return RestoreReport(
            turn_id=turn_id,
            restored=tuple(restored),
            deleted=tuple(deleted),
            undone_turns=tuple(undone),
        )

    def discard(self, turn_id: str) -> None:
        """Forget ``turn_id``'s checkpoint without restoring anything (no error if unknown).

        Raises:
            UnsafeStoreEntryError: the store folder is now a link or not a directory (nothing
                is removed).
            InsecurePermissionsError: the store folder is no longer owner-only.
        """
        turn = self._turns.pop(turn_id, None)
        if turn is not None and turn.folder is not None:
            self._remove_turn_dir(turn.folder)
        if self._current == turn_id:
            self._current = None

    # --- internals ------------------------------------------------------------------------

    @contextlib.contextmanager
    def _turn_dir(self, folder: Path) -> Generator[int | None]:
        """A descriptor of the turn ``folder`` opened through one of the store folder, both
        opened ``O_NOFOLLOW`` and verified owner-only (None where descriptors of folders are
        not available: the paths are then verified and used)."""
        assert self.folder is not None
        with private_dir(self.folder) as root, private_dir(folder, dir_fd=root) as handle:
            yield handle

    def _remove_turn_dir(self, folder: Path) -> None:
        """Remove a turn folder inside the verified store folder (never through a link)."""
        assert self.folder is not None
        with private_dir(self.folder) as root:
            if root is None:  # pragma: no cover - Windows
                shutil.rmtree(folder, ignore_errors=True)
            else:
                shutil.rmtree(folder.name, ignore_errors=True, dir_fd=root)

    def _content(self, snap: _Snapshot) -> bytes:
        if snap.data is not None:
            return snap.data
        assert snap.blob is not None
        with self._turn_dir(snap.blob.parent) as handle:
            return read_private_file(snap.blob, dir_fd=handle)

    def _turn(self, turn_id: str) -> _Turn:
        turn = self._turns.get(turn_id)
        if turn is None:
            self._sequence += 1
            folder = None
            if self.folder is not None:
                folder = self.folder / f"{self._sequence:06d}"
                with (
                    private_dir(self.folder) as root,
                    private_dir(folder, dir_fd=root, create=True),
                ):
                    pass  # made 0700 inside the verified store folder (or verified)
            turn = _Turn(turn_id=turn_id, files={}, folder=folder)
            self._turns[turn_id] = turn
            self._save(turn)
        return turn

    def _save(self, turn: _Turn) -> None:
        if turn.folder is None:
            return
        manifest = _Manifest(
            turn_id=turn.turn_id,
            files=[
                _FileRecord(
                    path=os.fspath(path),
                    existed=snap.existed,
                    mode=snap.mode,
                    blob=snap.blob.name if snap.blob is not None else None,
                )
                for path, snap in turn.files.items()
            ],
        )
        with self._turn_dir(turn.folder) as handle:
            write_private_file(
                turn.folder / "manifest.json", manifest.model_dump_json().encode(), dir_fd=handle
            )

    def _load(self, folder: Path) -> None:
        with private_dir(folder) as root:
            names = os.listdir(root if root is not None else folder)
        for name in sorted(names):
            if not name.isdigit():
                continue
            entry = folder / name
            manifest_path = entry / "manifest.json"
            try:
                with self._turn_dir(entry) as handle:  # not a symlink, ours, owner-only
                    raw = read_private_file(manifest_path, dir_fd=handle)
                manifest = _Manifest.model_validate_json(raw)
            except (OwnerOnlyError, OSError, pydantic.ValidationError) as exc:
                raise CheckpointStoreError(
                    f"checkpoint manifest {manifest_path} cannot be read: {exc}"
                ) from exc
            files: dict[Path, _Snapshot] = {}
            for record in manifest.files:
                if record.existed and record.blob is None:
                    raise CheckpointStoreError(
                        f"checkpoint manifest {manifest_path} lists {record.path} without content"
                    )
                if record.blob is not None and (
                    record.blob in ("", ".", "..") or "/" in record.blob or "\x00" in record.blob
                ):
                    raise CheckpointStoreError(
                        f"checkpoint manifest {manifest_path} names a blob outside its folder"
                    )
                blob = entry / record.blob if record.blob is not None else None
                files[Path(record.path)] = _Snapshot(
                    existed=record.existed, mode=record.mode, blob=blob
                )
            self._turns[manifest.turn_id] = _Turn(
                turn_id=manifest.turn_id, files=files, folder=entry
            )
            with contextlib.suppress(ValueError):
                self._sequence = max(self._sequence, int(entry.name))
