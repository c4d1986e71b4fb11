"""Exclusive ``flock`` locks on an owner-only ``<file>.lock`` next to a file, shared by several
processes (two chats, a chat and ``robota mcp approve``, two sessions refreshing one OAuth
token). POSIX only: on Windows the lock is a no-op.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncGenerator, Generator
from pathlib import Path

import anyio
import anyio.to_thread
from robota.core.host.errors import OwnerOnlyError
from robota.core.host.owner_only import open_private_file, private_dir

__all__ = ["locked", "locked_async"]

_POLL = 0.05
"""Seconds between two tries of a lock another process holds."""


def _lock_path(path: Path) -> Path:
    return path.with_name(f"{path.name}.lock")


@contextlib.contextmanager
def locked(path: Path, folder: int | None) -> Generator[None]:
    """Hold an exclusive ``flock`` on ``<path>.lock`` (owner-only, created when missing, never
    a link) in ``folder`` (a descriptor of ``path``'s folder, or None) while the block runs;
    blocks until the lock is free; a no-op on Windows.

    Raises:
        OwnerOnlyError: the lock file is unsafe (a link, another account's, readable by others).
    """
    if sys.platform == "win32":  # pragma: no cover - no flock
        yield
        return
    import fcntl

    descriptor = open_private_file(_lock_path(path), append=True, create=True, dir_fd=folder)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # releases the lock


def _open(path: Path) -> int:
    with private_dir(path.parent) as folder:
        return open_private_file(_lock_path(path), append=True, create=True, dir_fd=folder)


@contextlib.asynccontextmanager
async def locked_async(path: Path | None, *, wait: float) -> AsyncGenerator[bool]:
    """Hold an exclusive ``flock`` on ``<path>.lock`` while the block runs, without blocking
    the event loop (the lock is tried every 50 ms), waiting at most ``wait`` seconds.

    Yields:
        True when the lock is held; False when it could not be had (``path`` None, Windows,
        an unsafe or unopenable lock file, or ``wait`` seconds passed): the block then runs
        unlocked, as a caller that must not hang prefers.
    """
    if path is None or sys.platform == "win32":
        yield False
        return
    import fcntl

    try:
        descriptor = await anyio.to_thread.run_sync(_open, path)
    except (OSError, OwnerOnlyError):
        yield False
        return
    try:
        held = False
        with anyio.move_on_after(wait):
            while True:
                try:
                    fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    await anyio.sleep(_POLL)
                    continue
                held = True
                break
        yield held
    finally:
        os.close(descriptor)  # releases the lock
