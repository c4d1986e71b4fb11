"""The answer as Markdown while it streams: finished blocks are printed once, as they finish;
only the last, unfinished block is redrawn in a ``rich`` Live region (throttled, and bounded to
the screen's height, in lines and in characters), so a long answer costs the same per redraw at
its end as at its start, even when it is one line, and the whole stream costs time linear in
the answer's length (streamed text is kept as lines and pieces, never copied whole per piece).

The model chose the text: it is written through :func:`~robota.cli.terminal_text.shown` as it
is fed (escape sequences, C1 controls, bidirectional overrides and invisible characters appear
as their escapes), and rendered by :class:`~robota.cli.tui.answer_markdown.Markdown` (raw HTML
shown as text, a link's target shown when its text differs)."""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.live import Live
from rich.live_render import LiveRender
from rich.segment import Segment
from robota.cli.terminal_text import shown
from robota.cli.tui.answer_markdown import Markdown

__all__ = ["MarkdownStream"]

CODE_THEME = "monokai"
"""The Pygments theme of code blocks."""


def _fence(stripped: str) -> str | None:
    """The fence marker (``` or ~~~ run) that ``stripped`` opens, or None."""
    for char in "`~":
        run = len(stripped) - len(stripped.lstrip(char))
        if run >= 3 and not (char == "`" and "`" in stripped[run:]):
            return char * run
    return None


class _Block:
    """Markdown blocks as one piece of the answer: ``rich`` starts a rendering that opens with
    a list or a quote with a blank line, which the piece does not (the stream puts exactly one
    blank line between pieces, as ``rich`` does between the blocks of a whole text); ``gap``
    puts that one blank line first."""

    def __init__(self, source: str, *, gap: bool) -> None:
        self._markdown = Markdown(source, code_theme=CODE_THEME)
        self._gap = gap

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self._gap:
            yield Segment.line()
        leading = True
        for segment in console.render(self._markdown, options):
            if leading and segment.text == "\n" and not segment.control:
                continue
            leading = False
            yield segment


def _without_blank_end(line: list[Segment]) -> list[Segment]:
    """``line`` less its trailing white space drawn with no background (``rich`` pads a
    paragraph to the full width; a shorter row is not re-wrapped when the terminal narrows)."""
    end = len(line)
    while end > 0:
        segment = line[end - 1]
        if segment.control or segment.text.strip():
            break
        if segment.style is not None and segment.style.bgcolor is not None:
            break
        end -= 1
    return line[:end]


class _BottomLines:
    """A renderable showing the last ``height`` lines of another (the live tail's view).

    Attributes:
        widths: The cells of each row it drew last (after :func:`_without_blank_end`).
    """

    def __init__(self, renderable: RenderableType, height: int) -> None:
        self._renderable = renderable
        self._height = height
        self.widths: list[int] = []

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(self._renderable, options, pad=False)
        self.widths = []
        for line in lines[-self._height :]:
            kept = _without_blank_end(line)
            self.widths.append(Segment.get_line_length(kept))
            yield from kept
            yield Segment.line()


class _Region(LiveRender):
    """The live region's last frame, as ``rich`` erases it before the next one."""

    def rewrapped(self, widths: list[int], width: int) -> None:
        """The terminal is now ``width`` columns and re-wrapped the frame's rows (``widths``
        cells each): erase as many rows as they now take, not as many as were drawn."""
        if self._shape is not None:
            rows = sum(max(1, -(-cells // width)) for cells in widths)
            self._shape = (min(self._shape[0], width), rows)


class _Live(Live):
    """``rich``'s Live, told when the terminal re-wrapped its region (:meth:`rewrapped`)."""

    def __init__(self, console: Console) -> None:
        super().__init__(
            console=console,
            auto_refresh=False,
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
            vertical_overflow="crop",
        )
        self._live_render = self._region = _Region(self.get_renderable(), vertical_overflow="crop")

    def rewrapped(self, widths: list[int], width: int) -> None:
        """See :meth:`_Region.rewrapped`."""
        with self._lock:
            self._region.rewrapped(widths, width)


class MarkdownStream:
    """Renders a growing Markdown text on ``console``.

    :meth:`feed` appends streamed text: each block followed by a blank line and a new
    unindented block (or a closed code fence) is committed — printed once, above the live
    region, which is redrawn at once to hold only the rest — and the rest is redrawn at most
    every ``refresh_interval`` seconds. :meth:`finish` erases the live region and prints the
    last block once, so nothing is printed twice and no partial frame stays on the screen.
    Blocks are separated by one blank line, as ``rich`` renders the whole text.

    Args:
        console: Where the answer goes (standard output).
        refresh_interval: Seconds between redraws of the unfinished block.
        clock: Monotonic seconds (injected in tests).
    """

    def __init__(
        self,
        console: Console,
        *,
        refresh_interval: float = 0.1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._console = console
        self._interval = refresh_interval
        self._clock = clock
        self._live: _Live | None = None
        self._frame: _BottomLines | None = None  # what the live region shows
        self._frame_width = 0  # the terminal's width when it was drawn
        self._last_draw = float("-inf")
        self._reset()

    def _reset(self) -> None:
        self._lines: list[str] = []  # the uncommitted complete lines, without their "\n"
        self._tail: list[str] = []  # the pieces of the unfinished last line
        self._ink = False  # the uncommitted text holds more than white space
        self._dropped = 0  # lines committed in this segment
        self._fence: str | None = None  # the open fence's marker
        self._fence_line = ""  # the line that opened it
        self._fence_at = 0  # that line's number in the segment (0-based)
        self._after_block = False  # a blank line or a closed fence came last
        self._committed = 0  # blocks printed in this segment

    @property
    def active(self) -> bool:
        """True while text of the segment is not printed for good yet."""
        return self._ink or bool(self._lines) or bool(self._tail) or self._live is not None

    def feed(self, text: str) -> None:
        """Append streamed text: commit the blocks it finishes, redraw the rest (throttled).

        Work is proportional to ``text`` (plus one bounded redraw), not to the answer so far.
        """
        text = shown(text, keep_lines=True)
        if not text:
            return
        self._refit()
        self._ink = self._ink or not text.isspace()
        *complete, rest = text.split("\n")
        boundary = 0
        if complete:
            complete[0] = "".join(self._tail) + complete[0]
            self._tail = [rest] if rest else []
            for line in complete:
                if self._starts_block(line) and self._lines:
                    boundary = len(self._lines)
                self._lines.append(line)
        elif rest:
            self._tail.append(rest)
        now = self._clock()
        if boundary > 0:
            block = "\n".join(self._lines[:boundary])
            del self._lines[:boundary]
            self._dropped += boundary
            self._ink = True  # what is left opens with the block's first, not blank, line
            with self._console:  # one write: the block, then the live region redrawn under it
                self._print(block)
                if self._live is not None:
                    self._last_draw = now
                    self._show(self._live)
        if now - self._last_draw >= self._interval:
            self._last_draw = now
            self._draw()

    def finish(self) -> None:
        """Erase the live region and print what was not printed yet (once)."""
        if self._live is not None:
            self._refit()
            self._live.stop()
            self._live = None
            self._frame = None
        if self._ink:
            self._print("\n".join([*self._lines, "".join(self._tail)]))
        self._reset()
        self._last_draw = float("-inf")

    def _starts_block(self, line: str) -> bool:
        """Scan one complete line; True when a new block starts at it (a commit point)."""
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if self._fence is not None:
            closing = stripped.rstrip()
            if indent <= 3 and closing.startswith(self._fence) and not closing.strip("`~"):
                self._fence = None
                self._after_block = True
            return False
        if not line.strip():
            self._after_block = True
            return False
        marker = _fence(stripped) if indent <= 3 else None
        starts = self._after_block and (indent == 0 or marker is not None)
        self._after_block = False
        if marker is not None:
            self._fence, self._fence_line = marker, line
            self._fence_at = self._dropped + len(self._lines)
        return starts

    def _print(self, text: str) -> None:
        self._console.print(_Block(text, gap=self._committed > 0))
        self._committed += 1

    def _refit(self) -> None:
        """When the terminal's width changed since the live region was drawn, tell ``rich``
        how many rows it takes now: a terminal that re-wraps its lines (tmux, most terminal
        emulators) made the long ones taller, and erasing only the rows drawn would leave the
        top of the region behind, a stale copy above the redrawn one."""
        if self._live is None or self._frame is None:
            return
        width = self._console.width
        if width != self._frame_width and width > 0:
            self._live.rewrapped(self._frame.widths, width)
            self._frame_width = width

    def _show(self, live: _Live) -> None:
        frame = self._view()
        live.update(frame, refresh=True)
        self._frame, self._frame_width = frame, self._console.width

    def _view(self) -> _BottomLines:
        height = max(self._console.height - 2, 4)
        # bound what is parsed, not only what is shown: the last 2 × height lines, and at most
        # as many characters as 2 × height full rows hold (one long line is cut at its start)
        budget = 2 * height * max(self._console.width, 20)
        pieces: list[str] = []
        size = 0
        for piece in reversed(self._tail):
            pieces.append(piece)
            size += len(piece)
            if size >= budget:
                break
        kept = ["".join(reversed(pieces))[-budget:]]
        size = len(kept[0])
        first = len(self._lines)  # the first complete line kept
        while first > 0 and len(kept) <= 2 * height and size < budget:
            first -= 1
            line = self._lines[first]
            kept.append(line[max(0, len(line) - (budget - size)) :])
            size += len(line) + 1
        kept.reverse()
        cut = first > 0 or size >= budget
        if cut and self._fence is not None and self._fence_at < self._dropped + first:
            kept.insert(0, self._fence_line)
        source = "\n".join(kept)
        return _BottomLines(_Block(source, gap=self._committed > 0), height)

    def _draw(self) -> None:
        if not self._ink:
            return
        if self._live is None:
            self._live = _Live(self._console)
            self._live.start()
        self._show(self._live)
