"""Run cancellation (seed 000, "Cancellation Contract", "Run Concurrency Contract").

A :class:`CancelToken` is the single source of cancellation for a run. The caller keeps the
token and calls :meth:`CancelToken.cancel`; the agent links the token to the anyio cancel scope
of the run, so cancelling reaches the provider call and every running tool body at once
(structured cancellation), and the run resolves as ``interrupted``.

A token is used from the event loop thread that runs the agent (it is not thread-safe).
"""

from __future__ import annotations

from collections.abc import Callable

import anyio

__all__ = ["CancelToken"]


class CancelToken:
    """A one-shot cancellation signal.

    Example:
        >>> token = CancelToken()
        >>> token.cancelled
        False
        >>> token.cancel("user pressed stop")
        >>> token.cancelled, token.reason
        (True, 'user pressed stop')
    """

    __slots__ = ("_cancelled", "_listeners", "_reason", "_waiters")

    def __init__(self) -> None:
        self._cancelled = False
        self._reason: object = None
        self._waiters: list[anyio.Event] = []
        self._listeners: list[Callable[[], None]] = []

    @property
    def cancelled(self) -> bool:
        """True once :meth:`cancel` was called."""
        return self._cancelled

    @property
    def reason(self) -> object:
        """The reason given to :meth:`cancel` (None when none was given or not cancelled)."""
        return self._reason

    def cancel(self, reason: object = None) -> None:
        """Request cancellation. Idempotent: later calls keep the first reason.

        Args:
            reason: Any value explaining why (kept on :class:`~robota.core.errors.RunCancelledError`
                as ``reason`` when a queued run is refused).
        """
        if self._cancelled:
            return
        self._cancelled = True
        self._reason = reason
        for event in self._waiters:
            event.set()
        self._waiters.clear()
        listeners, self._listeners = self._listeners, []
        for listener in listeners:
            listener()

    async def wait(self) -> None:
        """Return once the token is cancelled (at once when it already is)."""
        if self._cancelled:
            return
        event = anyio.Event()
        self._waiters.append(event)
        await event.wait()

    def on_cancel(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` (synchronously) when the token is cancelled; at once when it
        already is. Returns a function that removes the listener.

        The agent uses this to cancel a run's anyio cancel scope.
        """
        if self._cancelled:
            listener()
            return lambda: None
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove
