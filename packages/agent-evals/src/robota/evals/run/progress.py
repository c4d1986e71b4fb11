"""The progress bar of an evaluation run (issue #19: "a progress bar on a terminal"): one
``rich`` bar on stderr that advances per completed case repetition.

Shown when the caller asks (``progress=True``), or by default (``progress=None``) only when
stderr is a terminal, so logs, pipes and CI output stay clean; never with ``progress=False``.
"""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

__all__ = ["RunProgress", "shows_progress"]


def shows_progress(progress: bool | None, console: Console) -> bool:
    """Whether a bar is shown: ``progress`` when given, else whether ``console`` writes to a
    terminal."""
    return console.is_terminal if progress is None else progress


class RunProgress:
    """A context manager around the bar; a disabled one does nothing.

    Args:
        progress: True: show; False: never; None: only when ``console`` is a terminal.
        total: Case repetitions the run makes.
        description: The label left of the bar (the report's name).
        console: Where the bar is drawn (None: a console on stderr).

    Example:
        >>> with RunProgress(False, total=3, description="smoke") as bar:
        ...     bar.advance()
        >>> bar.completed
        1
    """

    def __init__(
        self,
        progress: bool | None,
        *,
        total: int,
        description: str,
        console: Console | None = None,
    ) -> None:
        console = console or Console(stderr=True)
        self.completed = 0
        """Case repetitions reported done so far."""
        self._bar: Progress | None = None
        self._task: TaskID | None = None
        if shows_progress(progress, console):
            self._bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console,
            )
            self._task = self._bar.add_task(description, total=total)

    @property
    def shown(self) -> bool:
        """True when a bar is drawn."""
        return self._bar is not None

    def advance(self) -> None:
        """One more case repetition is done."""
        self.completed += 1
        if self._bar is not None and self._task is not None:
            self._bar.advance(self._task)

    def __enter__(self) -> RunProgress:
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._bar is not None:
            self._bar.stop()
