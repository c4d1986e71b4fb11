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
    "SessionLeaseLost",
    "SessionMerged",
    "SessionRecovered",
    "SessionReloaded",
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


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionRecovered(Event):
    """A warning: resume used the JSONL event log (issue #15).

    Attributes:
        session_id: The session.
        source: ``event_log`` (the snapshot was missing or unreadable; the record was rebuilt
            from the log, usage totals restart at zero) or ``snapshot+event_log`` (messages a
            turn committed after the last save, e.g. before its process was killed, were
            added from the log).
        snapshot_problem: Why the snapshot was not used (None for ``snapshot+event_log``).
        replayed: Log entries that changed the conversation.
    """

    type: ClassVar[str] = "session.recovered"
    session_id: str
    source: str
    snapshot_problem: str | None
    replayed: int


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionMerged(Event):
    """A warning: a save found a newer record written by another writer (outside the lease);
    this session's new messages were appended on top of it instead of being dropped, and the
    session goes on from the merged conversation.

    Attributes:
        session_id: The session.
        appended: Messages of this session appended to the stored record.
        revision: The revision the merged record was saved at.
    """

    type: ClassVar[str] = "session.merged"
    session_id: str
    appended: int
    revision: int


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionReloaded(Event):
    """This session had lost its lease (idle past ``lease_ttl``) and another host saved the
    session meanwhile; the newer record was loaded before the turn ran.

    Attributes:
        session_id: The session.
        revision: The revision loaded.
    """

    type: ClassVar[str] = "session.reloaded"
    session_id: str
    revision: int


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionLeaseLost(Event):
    """A renewal found the session's lease taken by another owner while a turn ran (this
    process stalled past ``lease_ttl``); the turn is cancelled.

    Attributes:
        session_id: The session.
        holder: Who holds the lease now (None: nobody).
    """

    type: ClassVar[str] = "session.lease_lost"
    session_id: str
    holder: str | None
