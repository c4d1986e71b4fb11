"""The chat's look on a terminal: :class:`RichEventPrinter`, the ``rich`` counterpart of the plain
:class:`~robota.cli.render.EventPrinter` (which stays the printer of pipes and ``--json``)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO, cast

from rich.console import Console
from rich.text import Text
from robota.cli.render import EventPrinter
from robota.cli.tui.markdown_stream import MarkdownStream
from robota.cli.tui.status_line import StatusLine
from robota.cli.tui.tool_cards import ToolCards
from robota.core.agent.events import (
    ModelResponded,
    ModelTextDelta,
    ToolCallCompleted,
    ToolCallSkipped,
    ToolCallStarted,
)
from robota.core.events import Event
from robota.core.permissions import PermissionDecided, PermissionRequested
from robota.framework.interactive import InteractiveSession

__all__ = ["RichEventPrinter"]


class RichEventPrinter(EventPrinter):
    """Prints events on a terminal with ``rich``.

    The answer goes to ``out`` as Markdown (code highlighted) while it streams
    (:class:`~robota.cli.tui.markdown_stream.MarkdownStream`); the segment is printed for good
    when the model's response ends or a tool starts. Tool cards go to ``err``
    (:class:`~robota.cli.tui.tool_cards.ToolCards`): a spinner with the elapsed time while the
    call runs, then ✓/✗/⊘ with the key argument, a bounded preview of the result and, for a
    file edit, the unified diff. Spinners leave the screen while a permission question is
    asked. With a ``status`` line, it is printed dim after each turn (when the line editor has
    no toolbar to show it). Usage, denials and the finish reason are counted as by
    :class:`~robota.cli.render.EventPrinter`.

    Args:
        out: The answer's console (standard output by default).
        err: The cards' console (standard error by default).
        workspace: The workspace root, for the diffs of file edits (None: no diffs).
        status: Printed after each turn when given (unless :attr:`print_status` is False).
        refresh_interval: Seconds between redraws of the streaming answer.
        clock: Monotonic seconds (injected in tests).
        animate: Spinners redraw on their own (False in tests: only at changes).
    """

    def __init__(
        self,
        *,
        out: Console | None = None,
        err: Console | None = None,
        workspace: Path | None = None,
        status: StatusLine | None = None,
        refresh_interval: float = 0.1,
        clock: Callable[[], float] = time.monotonic,
        animate: bool = True,
    ) -> None:
        self.out_console = out or Console(file=sys.stdout)
        self.err_console = err or Console(file=sys.stderr)
        super().__init__(
            out=cast(TextIO, self.out_console.file),
            err=cast(TextIO, self.err_console.file),
            json_mode=False,
        )
        self.status = status
        self.print_status = True
        """False when a line editor's toolbar shows the status line instead."""
        self._answer = MarkdownStream(
            self.out_console, refresh_interval=refresh_interval, clock=clock
        )
        self._cards = ToolCards(self.err_console, workspace=workspace, clock=clock, animate=animate)

    def emit(self, event: Event) -> None:
        """Handle one event."""
        self.tally(event)
        if isinstance(event, ModelTextDelta):
            self._answer.feed(event.text)
        elif isinstance(event, ModelResponded):
            self._answer.finish()
        elif isinstance(event, ToolCallStarted):
            self._answer.finish()
            self._cards.start(event)
        elif isinstance(event, ToolCallCompleted):
            self._cards.complete(event)
        elif isinstance(event, ToolCallSkipped):
            self._answer.finish()
            self._cards.skipped(event)
        elif isinstance(event, PermissionRequested):
            self._answer.finish()
            self._cards.pause()
        elif isinstance(event, PermissionDecided):
            if event.behavior == "deny" and event.call_id:
                self._cards.denied(event.call_id)
            self._cards.resume(event.call_id)

    def follow(self, session: InteractiveSession) -> None:
        """The chat's current session is now ``session``: the status line reports on it."""
        if self.status is not None:
            self.status.follow(session)

    @property
    def mid_line(self) -> bool:
        """True while the answer or a spinner is being drawn (nothing else may draw then)."""
        return self._answer.active or self._cards.active

    def finish(self) -> None:
        """The turn ended: the answer printed for good, spinners gone, the status line."""
        self._answer.finish()
        self._cards.finish()
        if self.status is not None and self.print_status:
            self.err_console.print(Text(self.status.text(), style="dim"), highlight=False)
