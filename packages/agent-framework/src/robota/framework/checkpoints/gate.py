"""The checkpoint gate: snapshot a file before a tool writes it (seed 003: "a contributed
Write/Edit is checkpointed exactly like a default one and a tool that became usable later is
held to the same policy as one present from the start").

Because it is a :class:`~robota.core.gate.ToolGate`, it applies to every tool the agent runs,
including tools added mid-session. It never blocks a call.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import anyio.to_thread
from robota.core.errors import RobotaError
from robota.core.gate import Allow, GateVerdict, ToolCallRequest, ToolGate
from robota.core.tools.base import ArgumentKind, RiskClass, Tool
from robota.framework.checkpoints.store import CheckpointStore

__all__ = ["CheckpointGate", "checkpoint_path_key"]


def checkpoint_path_key(tool: Tool) -> str | None:
    """The argument naming the file ``tool`` writes, or None when the tool is not checkpointed.

    A tool is checkpointed when its risk is :attr:`~robota.core.tools.base.RiskClass.MODIFY` and
    its declared permission argument is a :attr:`~robota.core.tools.base.ArgumentKind.PATH`
    (``write_file``, ``edit_file`` and any contributed tool declaring the same). Tools that
    write without declaring a path (a shell command) cannot be checkpointed by this gate.
    """
    argument = tool.permission_argument
    if tool.risk is not RiskClass.MODIFY or argument is None:
        return None
    return argument.key if argument.kind is ArgumentKind.PATH else None


class CheckpointGate(ToolGate):
    """Snapshots the target file of every MODIFY-class call with a path argument, once per
    turn, into a :class:`CheckpointStore` — before the body runs.

    Put it after the permission and hook gates, so a denied call records nothing.

    Args:
        store: Where snapshots go.
        root: Relative paths are taken against this directory (the tools' workspace root).
        resolve: Maps a path argument to the absolute file the tool will write (default:
            ``os.path.realpath(root / value)``, the same canonical target the built-in file
            tools write through symlinks). Raising a :class:`~robota.core.errors.RobotaError`
            or ``OSError`` means the tool will refuse the path, so nothing is recorded.

    The turn is :attr:`CheckpointStore.current_turn`, or the call's run id when no turn was
    begun.
    """

    def __init__(
        self,
        store: CheckpointStore,
        *,
        root: Path,
        resolve: Callable[[str], Path] | None = None,
    ) -> None:
        self.store = store
        self.root = root
        self._resolve = resolve or self._default_resolve

    def _default_resolve(self, value: str) -> Path:
        return Path(os.path.realpath(self.root / value))

    async def before_tool(self, request: ToolCallRequest) -> GateVerdict:
        """Record the target file's state, then allow the call unchanged.

        Raises:
            OSError: the existing file could not be read (the call does not run unprotected).
        """
        key = checkpoint_path_key(request.tool)
        if key is None:
            return Allow()
        value = request.arguments.get(key)
        if not isinstance(value, str) or not value:
            return Allow()
        turn = self.store.current_turn or request.run_id
        await anyio.to_thread.run_sync(self._record, value, turn)
        return Allow()

    def _record(self, value: str, turn: str) -> None:
        """Resolve and snapshot (file I/O: runs in a worker thread)."""
        try:
            path = self._resolve(value)
        except (RobotaError, OSError, ValueError):
            return
        self.store.snapshot(path, turn)
