"""Interactive permission prompts on the terminal (allow once / allow for session / deny; view
all first when part of the call is not on the screen)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

import anyio.to_thread
from rich.console import Console
from robota.cli.line_input import InputInterrupted, LineSource
from robota.cli.terminal_text import shown
from robota.cli.tui.call_view import full_view, prompt_view
from robota.core.permissions import Approval, PermissionRequest

__all__ = ["TerminalApprover"]


class TerminalApprover:
    """Asks the person at the terminal. Any answer other than ``y``/``a`` denies; end of
    input denies, and so does Ctrl-C while the question waits.

    When the panel cannot show the whole call (a long command's middle, a file's content
    beyond the diff, thousands of values), the question offers ``[v] view all`` instead of
    ``y``/``a``: ``v`` prints every argument whole (and the whole diff), then ``y``/``a`` are
    accepted; a ``y`` or ``a`` before that prints the whole call first and asks again, so
    nothing runs that was not on the screen.

    Args:
        reader: Returns one line of input, called in a worker thread (``input`` by default;
            ignored when ``lines`` is given).
        err: Where the question is written.
        lines: Reads the answer in the event loop instead (the ``robota`` command shares one
            with its chat prompt, so Ctrl-C can interrupt the question and no line is lost).
        workspace: The workspace root: a file edit's question shows the proposed change as a
            diff against the file (read inside the workspace only).
        console: Draws the full call (name, every argument, the reason, the diff) as a panel;
            by default one on ``err`` when it is a terminal, else the call is one line.
    """

    def __init__(
        self,
        *,
        reader: object = None,
        err: TextIO | None = None,
        lines: LineSource | None = None,
        workspace: Path | None = None,
        console: Console | None = None,
    ) -> None:
        self._reader = reader if callable(reader) else input
        self._err = err or sys.stderr
        self._lines = lines
        self._workspace = workspace
        if console is None and self._err.isatty():
            console = Console(file=self._err, highlight=False)
        self._console = console

    def _show(self, request: PermissionRequest) -> int:
        """The call asked about: a panel with every argument on a terminal, else one line
        (whole); the characters of the call not shown."""
        if self._console is not None:
            view = prompt_view(request, workspace=self._workspace)
            self._console.print()
            self._console.print(view.renderable)
            return view.hidden
        argument = request.argument if request.argument is not None else request.arguments_text
        self._err.write(
            f"\n? {shown(request.tool_name)} wants to run: {shown(argument)}\n"
            f"  ({shown(request.reason)})\n"
        )
        return 0

    async def _ask(self, question: str) -> str:
        self._err.flush()
        try:
            if self._lines is not None:
                answer = await self._lines.read_line(question)  # the line editor draws it
            else:
                self._err.write(question)
                self._err.flush()
                answer = await anyio.to_thread.run_sync(self._reader)
        except (EOFError, InputInterrupted):
            answer = "n"
        if answer is None:  # end of input
            answer = "n"
        return str(answer).strip().lower()

    async def __call__(self, request: PermissionRequest) -> Approval:
        hidden = self._show(request)
        question = "  [y] allow once   [a] allow for this session   [n] deny > "
        if hidden:
            choice = await self._ask(
                f"  [v] view all first ({hidden:,} characters not shown)   [n] deny > "
            )
            if choice not in ("v", "view", "y", "yes", "a", "always"):
                return Approval(kind="deny", message="the user denied this call")
            assert self._console is not None  # only a panel hides anything
            self._console.print(full_view(request, workspace=self._workspace))
        choice = await self._ask(question)
        if choice in ("y", "yes"):
            return Approval(kind="allow_once")
        if choice in ("a", "always"):
            return Approval(kind="allow_session")
        return Approval(kind="deny", message="the user denied this call")
