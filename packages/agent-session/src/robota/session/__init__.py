"""Session persistence for Robota: records, the store port, SQLite, JSONL event logs."""

from robota.session.eventlog import EventLog, EventLogCorruptError, LogEntry
from robota.session.journal import SQLiteJournal
from robota.session.record import SessionRecord, SessionSummary, new_session_id
from robota.session.sqlite import SQLiteSessionStore
from robota.session.store import (
    SessionBusyError,
    SessionConflictError,
    SessionNotFoundError,
    SessionStore,
    SessionStoreError,
)

__all__ = [
    "EventLog",
    "EventLogCorruptError",
    "LogEntry",
    "SQLiteJournal",
    "SQLiteSessionStore",
    "SessionBusyError",
    "SessionConflictError",
    "SessionNotFoundError",
    "SessionRecord",
    "SessionStore",
    "SessionStoreError",
    "SessionSummary",
    "new_session_id",
]
