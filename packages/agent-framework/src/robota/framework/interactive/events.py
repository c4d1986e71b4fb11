"""Session-level events (``session.*``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from robota.core.events import Event

__all__ = ["BackgroundNotice", "SessionCompacted", "SessionSaved", "TitleAssigned"]


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionSaved(Event):
    """The record was written to the store."""

    type: ClassVar[str] = "session.saved"
    session_id: str
    revision: int


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
