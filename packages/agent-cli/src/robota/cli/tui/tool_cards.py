"""Tool cards on standard error: a spinner with the elapsed time while a call runs, then one
line per call — ``⏺ name(key argument) ✓ 0.4s`` — with a bounded preview of the result and,
for a file edit, the unified diff of the file before → after. The elapsed time leaves out the
time a permission question about the call was on the screen."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.live import Live
from rich.padding import Padding
from rich.spinner import Spinner
from rich.text import Text
from robota.cli.render import key_argument
from robota.cli.terminal_text import shown
from robota.cli.tui.diffs import FILE_TOOLS, diff_text, read_workspace_file, unified_diff
from robota.core.agent.events import ToolCallCompleted, ToolCallSkipped, ToolCallStarted

__all__ = ["PREVIEW_CHARS", "PREVIEW_LINES", "ToolCards", "preview"]

PREVIEW_LINES = 6
"""Lines of a tool result shown under its card; the rest is counted (``… +K lines``)."""


PREVIEW_CHARS = 400
"""Characters of one result line handed to ``rich`` (a line is cut at the console's width when
drawn; cutting it first bounds the work for a result of one huge line)."""


def preview(text: str, *, limit: int = PREVIEW_LINES, width: int = PREVIEW_CHARS) -> Text:
    """The first ``limit`` lines of a result, each under ``⎿``, each cut at ``width`` characters
    and then at the console's width (ellipsis), then ``… +K lines`` for the rest; empty for an
    empty result. The text is the tool's (or the model's): it is written through
    :func:`~robota.cli.terminal_text.shown`, so escape sequences and invisible characters
    appear as their escapes.

    The work is bounded by ``limit`` and ``width``, not by the size of ``text`` (lines are
    found one at a time; the rest is only counted).
    """
    body = text.strip("\n")
    lines: list[str] = []
    position = 0
    while position < len(body) and len(lines) < limit:
        end = body.find("\n", position)
        end = len(body) if end < 0 else end
        lines.append(body[position : min(end, position + width)].rstrip("\r"))
        position = end + 1
    hidden = body.count("\n", position) + 1 if position < len(body) else 0
    out = Text(no_wrap=True, overflow="ellipsis")
    for index, line in enumerate(lines):
        out.append("  ⎿ " if index == 0 else "    ", style="dim")
        out.append(shown(line.expandtabs(4)) + "\n", style="dim")
    if hidden > 0:
        out.append(f"    … +{hidden} lines\n", style="dim")
    out.rstrip()
    return out


@dataclass(kw_only=True, slots=True)
class _Card:
    name: str
    argument: str
    started: float
    path: str | None = None  # a file tool's target
    before: str | None = None  # its text when the call started (None: none, or unreadable)
    spinner: Spinner = field(default_factory=lambda: Spinner("dots", style="cyan"))


class _Running:
    """The live region: one spinner line per running call, with its elapsed seconds."""

    def __init__(self, cards: ToolCards) -> None:
        self._cards = cards

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        now = self._cards.clock()
        for card in self._cards.running():
            card.spinner.update(text=_title(card, Text(f"{now - card.started:.1f}s", "dim")))
            yield card.spinner


def _title(card: _Card, outcome: Text) -> Text:
    title = Text("⏺ ", style="bold")
    title.append(card.name, style="bold")
    title.append(f"({card.argument})" if card.argument else "()")
    title.append(" ")
    title.append_text(outcome)
    return title


class ToolCards:
    """The cards of the calls of a turn, drawn on ``console`` (standard error).

    Args:
        console: Where the cards go.
        workspace: The workspace root: a file tool's target is read (inside it only, see
            :func:`~robota.cli.tui.diffs.read_workspace_file`) when the call starts and when it
            ends, for the diff. None: no diffs.
        clock: Monotonic seconds (injected in tests).
        animate: Redraw the spinners on their own (a refresh thread); False redraws only when
            a card starts or ends.
    """

    def __init__(
        self,
        console: Console,
        *,
        workspace: Path | None,
        clock: Callable[[], float] = time.monotonic,
        animate: bool = True,
    ) -> None:
        self.console = console
        self.workspace = workspace
        self.clock = clock
        self._animate = animate
        self._cards: dict[str, _Card] = {}
        self._lock = threading.Lock()  # the refresh thread reads the cards
        self._live: Live | None = None
        self._paused = False
        self._asked_at: float | None = None  # when the permission question went up
        self._denied: set[str] = set()

    @property
    def active(self) -> bool:
        """True while a call runs (its spinner is on the screen)."""
        return self._live is not None

    def running(self) -> tuple[_Card, ...]:
        """The calls running now, in the order they started."""
        with self._lock:
            return tuple(self._cards.values())

    def start(self, event: ToolCallStarted) -> None:
        """A call started: its spinner line (and, for a file tool, the file's text now)."""
        card = _Card(
            name=shown(event.call.name),
            argument=key_argument(event.arguments),
            started=self.clock(),
        )
        path = event.arguments.get("path")
        if event.call.name in FILE_TOOLS and isinstance(path, str) and self.workspace is not None:
            card.path = path
            card.before = read_workspace_file(self.workspace, path)
        with self._lock:
            self._cards[event.call_id] = card
        self._show()

    def denied(self, call_id: str) -> None:
        """The permission check denied the call ``call_id`` (its card says so)."""
        self._denied.add(call_id)

    def complete(self, event: ToolCallCompleted) -> None:
        """A call ended: its card, its result's preview, and a file tool's diff."""
        with self._lock:
            card = self._cards.pop(event.call_id, None)
        result = event.result
        if card is None:
            card = _Card(name=shown(result.name), argument="", started=self.clock())
        elapsed = Text(f"{self.clock() - card.started:.1f}s", style="dim")
        parts: list[RenderableType] = []
        if event.call_id in self._denied:
            self._denied.discard(event.call_id)
            outcome = Text("⊘ denied ", style="yellow").append_text(elapsed)
            parts.append(preview(result.text, limit=2))
        elif result.is_error:
            outcome = Text("✗ ", style="bold red").append_text(elapsed)
            parts.append(preview(result.text))
        else:
            outcome = Text("✓ ", style="bold green").append_text(elapsed)
            parts.append(preview(result.text))
            diff = self._diff(card)
            if diff is not None:
                parts.append(Padding(diff, (0, 0, 0, 4)))
        self._print(Group(_title(card, outcome), *[p for p in parts if p]))
        self._show()

    def skipped(self, event: ToolCallSkipped) -> None:
        """A call that never ran (unknown tool, denied by a resume decision, interrupted...)."""
        line = Text("⊘ ", style="yellow")
        line.append(shown(event.call.name), style="bold")
        line.append(f" {shown(event.reason.replace('_', ' '))}", style="yellow")
        self._print(Group(line, preview(event.message, limit=2)))

    def pause(self) -> None:
        """Take the spinners off the screen (a permission question is asked); the clocks of
        the calls started so far stop until :meth:`resume`."""
        if self._asked_at is None:
            self._asked_at = self.clock()
        self._paused = True
        self._stop()

    def resume(self, call_id: str | None = None) -> None:
        """Put the spinners back after :meth:`pause` (the question was answered).

        Args:
            call_id: The call the question was about: its clock starts now (it waited for
                the answer, not for its tool); the other calls' clocks are left alone. None
                (unknown): the time the question was on the screen is taken off every call
                started before it.
        """
        asked_at, self._asked_at = self._asked_at, None
        now = self.clock()
        with self._lock:
            asked_about = self._cards.get(call_id) if call_id else None
            if asked_about is not None:
                asked_about.started = now
            elif asked_at is not None:
                for card in self._cards.values():
                    if card.started <= asked_at:
                        card.started += now - asked_at
        self._paused = False
        self._show()

    def finish(self) -> None:
        """The turn ended: calls still running (a cancelled turn) get a card saying so."""
        self._paused = False
        with self._lock:
            left = list(self._cards.values())
            self._cards.clear()
        self._stop()
        for card in left:
            self._print(_title(card, Text("⊘ cancelled", style="yellow")))
        self._denied.clear()
        self._asked_at = None

    def _diff(self, card: _Card) -> RenderableType | None:
        if card.path is None or self.workspace is None:
            return None
        after = read_workspace_file(self.workspace, card.path)
        if after is None:
            return None
        lines = unified_diff(card.before or "", after, path=card.path)
        return diff_text(lines) if lines else None

    def _print(self, renderable: RenderableType) -> None:
        self.console.print(renderable, highlight=False)

    def _show(self) -> None:
        if self._paused or not self.running():
            self._stop()
            return
        if self._live is None:
            self._live = Live(
                _Running(self),
                console=self.console,
                auto_refresh=self._animate,
                refresh_per_second=8,
                transient=True,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._live.start()
        self._live.refresh()

    def _stop(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
