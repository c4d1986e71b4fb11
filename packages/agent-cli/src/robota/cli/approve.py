"""Interactive permission prompts on the terminal (allow once / allow for session / deny)."""

from __future__ import annotations

import sys
from typing import TextIO

import anyio.to_thread
from robota.core.permissions import Approval, PermissionRequest

__all__ = ["TerminalApprover"]


class TerminalApprover:
    """Asks the person at the terminal. Any answer other than ``y``/``a`` denies; end of
    input denies.

    Args:
        reader: Returns one line of input (``input`` by default).
        err: Where the question is written.
    """

    def __init__(self, *, reader: object = None, err: TextIO | None = None) -> None:
        self._reader = reader if callable(reader) else input
        self._err = err or sys.stderr

    async def __call__(self, request: PermissionRequest) -> Approval:
        argument = request.argument if request.argument is not None else request.arguments_text
        self._err.write(
            f"\n? {request.tool_name} wants to run: {argument}\n"
            f"  ({request.reason})\n"
            "  [y] allow once   [a] allow for this session   [n] deny > "
        )
        self._err.flush()
        try:
            answer = await anyio.to_thread.run_sync(self._reader)
        except EOFError:
            answer = "n"
        choice = str(answer).strip().lower()
        if choice in ("y", "yes"):
            return Approval(kind="allow_once")
        if choice in ("a", "always"):
            return Approval(kind="allow_session")
        return Approval(kind="deny", message="the user denied this call")
