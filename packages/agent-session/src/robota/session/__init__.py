"""Session persistence for Robota: records, the store port, SQLite, JSONL event logs, leases
and recovery."""

from typing import TYPE_CHECKING

from robota.session.eventlog import EventLog, EventLogCorruptError, LogEntry
from robota.session.journal import SQLiteJournal
from robota.session.record import SessionRecord, SessionSummary, new_session_id
from robota.session.recovery import (
    EVENT_LOG_SEQ,
    LoadedSession,
    RecoverySource,
    SessionUnrecoverableError,
    load_session,
    merge_turn,
    store_recovered,
)
from robota.session.sqlite import SQLiteSessionStore
from robota.session.store import (
    Lease,
    SessionBusyError,
    SessionConflictError,
    SessionCorruptError,
    SessionLeaseHeldError,
    SessionLeaseLostError,
    SessionNotFoundError,
    SessionStore,
    SessionStoreError,
)

__all__ = [
    "EVENT_LOG_SEQ",
    "EventLog",
    "EventLogCorruptError",
    "Lease",
    "LoadedSession",
    "LogEntry",
    "RecoverySource",
    "SQLiteJournal",
    "SQLiteSessionStore",
    "SessionBusyError",
    "SessionConflictError",
    "SessionCorruptError",
    "SessionLeaseHeldError",
    "SessionLeaseLostError",
    "SessionNotFoundError",
    "SessionRecord",
    "SessionStore",
    "SessionStoreError",
    "SessionSummary",
    "SessionUnrecoverableError",
    "load_session",
    "merge_turn",
    "new_session_id",
    "store_recovered",
]


if TYPE_CHECKING:
    __version__: str
    """This distribution's installed version, read from its metadata on first access (a
    name only a type checker sees declared here: at run time the module ``__getattr__``
    below answers it, so a misspelled import is still reported)."""
else:

    def __getattr__(name: str) -> str:
        """``__version__``: this distribution's installed version, read from its metadata on demand."""
        if name == "__version__":
            from importlib.metadata import version

            return version("robota-agent-session")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
