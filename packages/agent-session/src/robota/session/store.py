"""The session store port (issue: agent-session).

A :class:`SessionStore` persists :class:`~robota.session.record.SessionRecord` snapshots with
optimistic revisions: :meth:`SessionStore.save` succeeds only when the caller's record carries
the revision currently stored, so two writers can never interleave or silently overwrite a
session — the loser gets :class:`SessionConflictError` and must reload. A run lease
(:meth:`SessionStore.acquire_lease`) refuses a second concurrent run on the same session.

The port fits an embedded database (SQLite, :mod:`robota.session.sqlite`) and a server database
alike; :mod:`robota.session.testing` ships the conformance suite every backend runs.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from robota.core.errors import ErrorCategory, RobotaError
from robota.session.record import SessionRecord, SessionSummary

__all__ = [
    "SessionBusyError",
    "SessionConflictError",
    "SessionNotFoundError",
    "SessionStore",
    "SessionStoreError",
]


class SessionStoreError(RobotaError):
    """The store failed (I/O, corrupt data)."""

    code = "session_store"


class SessionNotFoundError(SessionStoreError):
    """No session with that id."""

    code = "session_not_found"
    default_category = ErrorCategory.USER


class SessionConflictError(SessionStoreError):
    """The stored revision differs from the caller's: another writer saved first."""

    code = "session_conflict"
    default_recoverable = True


class SessionBusyError(SessionStoreError):
    """Another run holds the session's lease."""

    code = "session_busy"
    default_category = ErrorCategory.USER
    default_recoverable = True


class SessionStore(ABC):
    """Persistence port for session records. Async methods; ``async with store:`` closes it."""

    @abstractmethod
    async def create(self, record: SessionRecord) -> SessionRecord:
        """Store a new record (its ``revision`` must be 0); returns it with revision 1.

        Raises:
            SessionConflictError: if the id already exists or the revision is not 0.
        """

    @abstractmethod
    async def get(self, session_id: str) -> SessionRecord:
        """Load a record.

        Raises:
            SessionNotFoundError: if absent.
            SessionStoreError: if the stored data cannot be decoded.
        """

    @abstractmethod
    async def save(self, record: SessionRecord) -> SessionRecord:
        """Replace the stored record if its revision equals ``record.revision``; returns the
        record with ``revision + 1`` and a fresh ``updated_at``.

        Raises:
            SessionNotFoundError: if absent.
            SessionConflictError: if the stored revision differs.
        """

    @abstractmethod
    async def list(self, *, limit: int = 50, offset: int = 0) -> Sequence[SessionSummary]:
        """Summaries, most recently updated first."""

    @abstractmethod
    async def delete(self, session_id: str) -> bool:
        """Delete a record; True if it existed."""

    @abstractmethod
    async def acquire_lease(self, session_id: str, owner: str, *, ttl: float = 3600.0) -> None:
        """Take the run lease of a session for ``owner`` (seconds until it expires by itself).

        Raises:
            SessionBusyError: if another live owner holds it.
        """

    @abstractmethod
    async def release_lease(self, session_id: str, owner: str) -> None:
        """Release the lease if ``owner`` holds it (no-op otherwise)."""

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release resources."""

    async def __aenter__(self) -> SessionStore:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
