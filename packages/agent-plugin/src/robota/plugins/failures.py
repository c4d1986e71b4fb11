"""Failure isolation shared by every plugin sink (seed 000, "Disposal Contract": "a plugin's own
handler failures must never take down the host").

:class:`GuardedSink` is the base of the plugins' :class:`~robota.core.events.EventSink`
implementations: its :meth:`GuardedSink.emit` never raises. A handler failure is logged on the
``robota.plugins`` logger and kept as a :class:`PluginFailure` in :attr:`GuardedSink.failures`
(the newest :data:`MAX_FAILURES` only), so a host can inspect what went wrong without the run
being affected.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass

from robota.core.events import Event

__all__ = ["MAX_FAILURES", "GuardedSink", "PluginFailure"]

MAX_FAILURES = 100
"""How many failures a plugin keeps (the oldest are dropped first)."""

_log = logging.getLogger("robota.plugins")


@dataclass(frozen=True, kw_only=True, slots=True)
class PluginFailure:
    """One failure a plugin swallowed instead of raising into the host.

    Attributes:
        plugin: The plugin's class name, e.g. ``"OpenTelemetrySink"``.
        stage: Where it failed: an event type (``"model.response"``), ``"callback"`` or
            ``"aclose"``.
        error: The exception that was caught.
    """

    plugin: str
    stage: str
    error: Exception


class GuardedSink:
    """Base of an event sink whose failures are recorded, never raised.

    Subclasses implement :meth:`handle`; :meth:`emit` calls it and catches any ``Exception``.
    """

    def __init__(self) -> None:
        self._failures: deque[PluginFailure] = deque(maxlen=MAX_FAILURES)

    @property
    def failures(self) -> tuple[PluginFailure, ...]:
        """The failures swallowed so far, oldest first (at most :data:`MAX_FAILURES`)."""
        return tuple(self._failures)

    def emit(self, event: Event) -> None:
        """Deliver ``event`` to :meth:`handle`; never raises (a failure is logged and kept)."""
        try:
            self.handle(event)
        except Exception as error:
            self.record_failure(event.type, error)

    def handle(self, event: Event) -> None:
        """Process one event (subclasses override; may raise, :meth:`emit` contains it)."""

    def record_failure(self, stage: str, error: Exception) -> None:
        """Log ``error`` and keep it in :attr:`failures`.

        Args:
            stage: An event type, ``"callback"`` or ``"aclose"``.
            error: The caught exception.
        """
        name = type(self).__name__
        _log.error("%s failed at %s", name, stage, exc_info=error)
        self._failures.append(PluginFailure(plugin=name, stage=stage, error=error))
