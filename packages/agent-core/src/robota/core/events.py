"""Events (seed 000, "Event Architecture").

Every event is named ``owner.local_name`` (its :attr:`Event.type`) and carries the owner path of
the execution that produced it — agent → run → round → tool call — so a consumer can tell which
nesting emitted it without a separate correlation mechanism. Events go to observers
(:class:`EventSink`) and to stream consumers (``Agent.stream``).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import ClassVar, Literal, Protocol

__all__ = ["Event", "EventSink", "NullEventSink", "OwnerPath", "OwnerSegment"]

OwnerKind = Literal["agent", "run", "round", "tool_call", "session", "subagent", "task"]


@dataclass(frozen=True, kw_only=True, slots=True)
class OwnerSegment:
    """One level of the owner path, e.g. ``("run", "run_3f2a")``."""

    kind: OwnerKind
    id: str


@dataclass(frozen=True, kw_only=True, slots=True)
class OwnerPath:
    """The execution nesting that produced an event, outermost first."""

    segments: tuple[OwnerSegment, ...] = ()

    def child(self, kind: OwnerKind, id: str) -> OwnerPath:
        """This path extended by one segment."""
        return OwnerPath(segments=(*self.segments, OwnerSegment(kind=kind, id=id)))

    def find(self, kind: OwnerKind) -> str | None:
        """The id of the innermost segment of ``kind``, or None."""
        for segment in reversed(self.segments):
            if segment.kind == kind:
                return segment.id
        return None

    def __str__(self) -> str:
        return "/".join(f"{s.kind}:{s.id}" for s in self.segments)


@dataclass(frozen=True, kw_only=True, slots=True)
class Event:
    """Base of every event.

    Attributes:
        type: ``owner.local_name`` (class-level constant of each subclass).
        owner: Where it came from.
    """

    type: ClassVar[str] = "event"
    owner: OwnerPath = field(default_factory=OwnerPath)


class EventSink(Protocol):
    """Receives events. ``emit`` must be cheap and must not raise; a sink that fails is the
    host's bug and is logged, never allowed to stop a run."""

    def emit(self, event: Event) -> None:
        """Deliver one event."""
        ...


class NullEventSink:
    """The default sink: drops everything."""

    def emit(self, event: Event) -> None:
        """Drop ``event``."""


def emit_all(sinks: Sequence[EventSink], event: Event) -> None:
    """Deliver ``event`` to every sink, logging (never raising) a sink's failure."""
    for sink in sinks:
        try:
            sink.emit(event)
        except Exception:  # a host's sink must not stop a run
            import logging

            logging.getLogger(__name__).exception("event sink failed on %s", event.type)


class StreamBackpressure(Protocol):
    """A stream consumer's bounded event buffer, as the run producing the events sees it
    (``Agent.stream``): the run's provider rounds wait for room when it is :attr:`full`, so a
    slow consumer holds a bounded number of undelivered events."""

    @property
    def full(self) -> bool:
        """True while the buffer holds as many undelivered events as it may."""
        ...

    async def wait_room(self) -> None:
        """Return once the consumer made room (at once when there is room, or the consumer
        stopped reading)."""
        ...


stream_backpressure: ContextVar[StreamBackpressure | None] = ContextVar(
    "robota_stream_backpressure", default=None
)
"""The buffer of the stream consumer reading the current task's run (set by ``AgentStream`` in
the task driving the run; None when no stream consumer reads it)."""
