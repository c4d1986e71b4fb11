"""The "waiting for the model… (Ns)" line: shown on a terminal while a model call has sent
nothing yet, so a server that accepted the connection and went silent is visible (the call
itself ends at ``--timeout``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

import anyio
from robota.core.agent.events import (
    ModelResponded,
    ModelTextDelta,
    ModelThinkingDelta,
    ModelToolCallDelta,
    RoundStarted,
)
from robota.core.events import Event

__all__ = ["WaitingLine"]

_CLEAR = "\r\x1b[K"


class WaitingLine:
    """An event sink that tracks whether the model has sent anything since the round started,
    and a status line on ``err`` saying how long it has been silent.

    Subscribe it before the printer: it erases its line before any model output is printed.
    Retries of a failed call are invisible to events, so the count runs from the start of the
    round until the first byte of an answer.

    Args:
        err: The terminal the line is drawn on (standard error).
        enabled: False (not a terminal, ``--json``): track nothing, draw nothing.
        busy: Returns True while the line must not be drawn (the answer's text is mid-line on
            the same terminal).
        delay: Seconds of silence before the line first appears.
        clock: Monotonic seconds (injected in tests).
    """

    def __init__(
        self,
        err: TextIO,
        *,
        enabled: bool,
        busy: Callable[[], bool] = lambda: False,
        delay: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._err = err
        self.enabled = enabled
        self._busy = busy
        self._delay = delay
        self._clock = clock
        self._since: float | None = None
        self._shown = False

    @property
    def waiting_since(self) -> float | None:
        """When the current silent model call started (``clock`` seconds), or None."""
        return self._since

    def emit(self, event: Event) -> None:
        """Start counting at a round's start; stop (and erase the line) at any model output."""
        if not self.enabled:
            return
        if isinstance(event, RoundStarted):
            self._since = self._clock()
        elif isinstance(
            event, (ModelTextDelta, ModelThinkingDelta, ModelToolCallDelta, ModelResponded)
        ):
            self.stop()

    def stop(self) -> None:
        """Stop counting and erase the line (the turn ended, or output arrived)."""
        self._since = None
        if self._shown:
            self._err.write(_CLEAR)
            self._err.flush()
            self._shown = False

    def draw(self) -> None:
        """Draw (or refresh) the line when the model has been silent for ``delay`` seconds."""
        if self._since is None or self._busy():
            return
        silent = self._clock() - self._since
        if silent < self._delay:
            return
        self._err.write(f"{_CLEAR}waiting for the model… ({int(silent)}s)")
        self._err.flush()
        self._shown = True

    async def run(self, interval: float = 0.5) -> None:
        """Redraw every ``interval`` seconds until cancelled (then erase the line)."""
        if not self.enabled:
            return
        try:
            while True:
                await anyio.sleep(interval)
                self.draw()
        finally:
            self.stop()
