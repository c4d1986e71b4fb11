"""Session-level events (``session.*``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from robota.core.events import Event

__all__ = [
    "BackgroundNotice",
    "CompactionStarted",
    "ContextOverflowRecovered",
    "SessionCompacted",
    "SessionSaved",
    "TitleAssigned",
]


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionSaved(Event):
    """The record was written to the store."""

    type: ClassVar[str] = "session.saved"
    session_id: str
    revision: int


@dataclass(frozen=True, kw_only=True, slots=True)
class CompactionStarted(Event):
    """A compaction (``manual`` or ``auto``) is about to call the model."""

    type: ClassVar[str] = "session.compaction_started"
    reason: str


@dataclass(frozen=True, kw_only=True, slots=True)
class ContextOverflowRecovered(Event):
    """The provider reported a context overflow; older tool output was elided from the request
    and the call retried."""

    type: ClassVar[str] = "session.context_overflow_recovered"
    elided_results: int


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionCompacted(Event):
    """Older turns were summarized."""

    type: ClassVar[str] = "session.compacted"
    removed: int
    kept: int


@dataclass(frozen=True, kw_only=True, slots=True)
class TitleAssigned(Event):
    """The session named itself."""

    type: ClassVar[str] = "session.title_assigned"
    title: str


@dataclass(frozen=True, kw_only=True, slots=True)
class BackgroundNotice(Event):
    """A background task exited; the text is delivered to the model on the next turn."""

    type: ClassVar[str] = "session.background_notice"
    session_id: str
    text: str
