"""Recorders for tests: an event sink that keeps every event, and an httpx transport that keeps
every request (and can refuse to send any, to prove a refusal happened before the network).

Example:
    >>> from robota.core.testing.scripted import ScriptedProvider
    >>> from robota.core.agent import Agent
    >>> events = EventRecorder()
    >>> _ = Agent(ScriptedProvider(["Hi"]), sinks=[events]).run_sync("Hello")
    >>> events.types()[0], events.types()[-1]
    ('run.started', 'run.completed')
"""

from __future__ import annotations

from typing import TypeVar

import httpx
from robota.core.events import Event

__all__ = ["EventRecorder", "RecordingTransport"]

EventT = TypeVar("EventT", bound=Event)


class EventRecorder:
    """An event sink keeping every event it is given, in order.

    Attributes:
        events: The events received.
    """

    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        """Keep ``event``."""
        self.events.append(event)

    def of(self, kind: type[EventT]) -> list[EventT]:
        """The events of class ``kind``, in order."""
        return [e for e in self.events if isinstance(e, kind)]

    def types(self) -> list[str]:
        """The ``type`` of every event, in order."""
        return [e.type for e in self.events]


class RecordingTransport(httpx.AsyncBaseTransport):
    """An httpx transport that records every request and serves it from ``inner``.

    Args:
        inner: The transport answering the requests (e.g. ``httpx.MockTransport``). None: no
            request may be sent — one raises ``AssertionError`` naming its URL.

    Attributes:
        requests: Every request the client tried to send, in order.
    """

    def __init__(self, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self.inner = inner
        self.requests: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Record ``request``, then answer it from ``inner``.

        Raises:
            AssertionError: ``inner`` is None (no request may be sent).
        """
        self.requests.append(request)
        if self.inner is None:
            raise AssertionError(f"no request may be sent: {request.url}")
        return await self.inner.handle_async_request(request)
