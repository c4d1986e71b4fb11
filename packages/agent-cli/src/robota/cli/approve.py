"""Interactive permission prompts on the terminal (allow once / allow for session / deny)."""

from __future__ import annotations

import sys
from typing import TextIO

import anyio.to_thread
from robota.cli.line_input import InputInterrupted, LineSource
from robota.core.permissions import Approval, PermissionRequest

__all__ = ["TerminalApprover"]


class TerminalApprover:
    """Asks the person at the terminal. Any answer other than ``y``/``a`` denies; end of
    input denies, and so does Ctrl-C while the question waits.

    Args:
        reader: Returns one line of input, called in a worker thread (``input`` by default;
            ignored when ``lines`` is given).
        err: Where the question is written.
        lines: Reads the answer in the event loop instead (the ``robota`` command shares one
            with its chat prompt, so Ctrl-C can interrupt the question and no line is lost).
    """

    def __init__(
        self, *, reader: object = None, err: TextIO | None = None, lines: LineSource | None = None
    ) -> None:
        self._reader = reader if callable(reader) else input
        self._err = err or sys.stderr
        self._lines = lines

    async def __call__(self, request: PermissionRequest) -> Approval:
        argument = request.argument if request.argument is not None else request.arguments_text
        self._err.write(
            f"\n? {request.tool_name} wants to run: {argument}\n"
            f"  ({request.reason})\n"
            "  [y] allow once   [a] allow for this session   [n] deny > "
        )
        self._err.flush()
        try:
            if self._lines is not None:
                answer = await self._lines.read_line()
            else:
                answer = await anyio.to_thread.run_sync(self._reader)
        except (EOFError, InputInterrupted):
            answer = "n"
        if answer is None:  # end of input
            answer = "n"
        choice = str(answer).strip().lower()
        if choice in ("y", "yes"):
            return Approval(kind="allow_once")
        if choice in ("a", "always"):
            return Approval(kind="allow_session")
        return Approval(kind="deny", message="the user denied this call")
