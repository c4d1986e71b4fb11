"""Holding an async context manager open in a task of its own.

An :class:`~robota.tools.mcp.McpToolset` holds an anyio task group, which must be exited by the
task that entered it, innermost scope first. A session is opened and shut down by its host,
often from different places of the host's own scope stack (``robota chat``'s ``/resume`` opens a
session inside the chat loop's task group and shuts the previous one down there). So the hub
does not enter the toolset in the host's task: on asyncio it enters it in a detached task that
only waits for :meth:`DetachedOwner.close`, so the toolset's scopes never interleave with the
host's. On another anyio backend (trio) the context is entered in the calling task, which must
then also close it, innermost first.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import anyio

__all__ = ["DetachedOwner"]


class DetachedOwner:
    """Enters ``context`` in a task of its own and exits it there on :meth:`close`.

    Args:
        context: An async context manager (entered once).
    """

    def __init__(self, context: Any) -> None:
        self._context = context
        self._entered = anyio.Event()
        self._stop = anyio.Event()
        self._done = anyio.Event()
        self._error: BaseException | None = None
        self._task: asyncio.Task[None] | None = None
        self._inline = False

    async def _hold(self) -> None:
        try:
            async with self._context:
                self._entered.set()
                await self._stop.wait()
        except BaseException as exc:  # reported to start(); the task itself ends quietly
            self._error = exc
        finally:
            self._entered.set()
            self._done.set()

    async def start(self) -> None:
        """Enter the context (in its own task on asyncio).

        Raises:
            BaseException: whatever entering the context raised.
        """
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not asyncio: enter here (close from this task, innermost first)
            self._inline = True
            await self._context.__aenter__()
            return
        self._task = loop.create_task(self._hold(), name="robota-mcp-servers")
        await self._entered.wait()
        if self._error is not None:
            raise self._error

    async def close(self) -> None:
        """Exit the context and wait until it has; idempotent, never raises."""
        with anyio.CancelScope(shield=True):
            if self._inline:
                self._inline = False
                with contextlib.suppress(Exception):
                    await self._context.__aexit__(None, None, None)
                return
            if self._task is None:
                return
            self._stop.set()
            await self._done.wait()
