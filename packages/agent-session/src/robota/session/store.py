"""The session store port (issue: agent-session).

A :class:`SessionStore` persists :class:`~robota.session.record.SessionRecord` snapshots with
optimistic revisions: :meth:`SessionStore.save` succeeds only when the caller's record carries
the revision currently stored, so two writers can never interleave or silently overwrite a
session — the loser gets :class:`SessionConflictError` and must reload. A run lease
(:meth:`SessionStore.acquire_lease`, kept alive with :meth:`SessionStore.renew_lease`) refuses
a second concurrent writer on the same session with :class:`SessionLeaseHeldError`, which names
the holder and when its lease runs out; a holder that died stops blocking others when its lease
expires (issue #15, "one session, one writer").

The port fits an embedded database (SQLite, :mod:`robota.session.sqlite`) and a server database
alike; :mod:`robota.session.testing` ships the conformance suite every backend runs.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from robota.core.errors import ErrorCategory, RobotaError
from robota.session.record import SessionRecord, SessionSummary

__all__ = [
    "Lease",
    "SessionBusyError",
    "SessionConflictError",
    "SessionCorruptError",
    "SessionLeaseHeldError",
    "SessionLeaseLostError",
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


class SessionCorruptError(SessionStoreError):
    """A session's stored snapshot exists but cannot be decoded (malformed JSON, a truncated
    body, an unknown record version or shape). The event log may still rebuild it
    (:func:`robota.session.recovery.load_session`)."""

    code = "session_corrupt"


class SessionConflictError(SessionStoreError):
    """The stored revision differs from the caller's: another writer saved first."""

    code = "session_conflict"
    default_recoverable = True


class SessionBusyError(SessionStoreError):
    """Another run holds the session's lease."""

    code = "session_busy"
    default_category = ErrorCategory.USER
    default_recoverable = True


@dataclass(frozen=True, kw_only=True, slots=True)
class Lease:
    """A run lease as the store granted it.

    Attributes:
        session_id: The leased session.
        owner: Who holds it (an owner id chosen by the caller, e.g. ``host:pid:nonce``).
        expires_at: When it runs out by itself (UTC) unless renewed.
    """

    session_id: str
    owner: str
    expires_at: datetime


class SessionLeaseHeldError(SessionBusyError):
    """Another live owner holds the session's lease: the caller must not run or write. Its
    ``code`` stays ``session_busy`` (the failure kind is the same; this adds its fields).

    Attributes:
        session_id: The session.
        holder: The owner id holding the lease (for an ``InteractiveSession``:
            ``host:pid:nonce``).
        expires_at: When the holder's lease runs out unless it renews it (UTC); a holder that
            died stops blocking at that moment.
    """

    def __init__(
        self,
        message: str | None = None,
        *,
        session_id: str,
        holder: str,
        expires_at: datetime,
    ) -> None:
        super().__init__(
            message
            or f"session {session_id} is in use by {holder} (its lease runs out at "
            f"{expires_at.isoformat(timespec='seconds')} unless renewed)"
        )
        self.session_id = session_id
        self.holder = holder
        self.expires_at = expires_at


class SessionLeaseLostError(SessionStoreError):
    """A renewal found that ``owner`` no longer holds the lease: it was released, or it ran
    out and another owner took it.

    Attributes:
        session_id: The session.
        owner: Who tried to renew.
        holder: Who holds it now (None: nobody).
    """

    code = "session_lease_lost"
    default_recoverable = True

    def __init__(self, *, session_id: str, owner: str, holder: str | None) -> None:
        now_held = f"it is held by {holder}" if holder else "nobody holds it"
        super().__init__(f"session {session_id}: {owner} lost its lease ({now_held})")
        self.session_id = session_id
        self.owner = owner
        self.holder = holder


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
            SessionCorruptError: if the stored snapshot cannot be decoded.
            SessionStoreError: if the store itself fails.
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
    async def overwrite(self, record: SessionRecord) -> SessionRecord:
        """Store ``record`` under its id whatever is stored there now — even a snapshot that
        cannot be decoded — and return it with the stored revision + 1 (1 when there was
        none) and a fresh ``updated_at``. ``record.revision`` is ignored.

        For recovery by the lease holder (a rebuilt snapshot replacing a corrupt one); an
        ordinary writer uses :meth:`save`, which refuses a stale revision.
        """

    @abstractmethod
    async def list(self, *, limit: int = 50, offset: int = 0) -> Sequence[SessionSummary]:
        """Summaries, most recently updated first."""

    @abstractmethod
    async def delete(self, session_id: str) -> bool:
        """Delete a record; True if it existed."""

    @abstractmethod
    async def acquire_lease(self, session_id: str, owner: str, *, ttl: float = 3600.0) -> Lease:
        """Take the run lease of a session for ``owner`` for ``ttl`` seconds.

        Succeeds when nobody holds it, when the holder's lease has run out, or when ``owner``
        holds it already (the expiry is then pushed to now + ``ttl``). The session need not
        exist yet (a new session is leased before its first save).

        Raises:
            SessionLeaseHeldError: (a :class:`SessionBusyError`) if another owner holds a lease
                that has not run out; it names the holder and the expiry.
        """

    @abstractmethod
    async def renew_lease(self, session_id: str, owner: str, *, ttl: float = 3600.0) -> Lease:
        """Push ``owner``'s lease to now + ``ttl`` seconds.

        A lease of ``owner`` that ran out but that nobody took since is renewed (nobody could
        have written under a lease in between).

        Raises:
            SessionLeaseLostError: if ``owner`` does not hold the lease (released, or taken by
                another owner after it ran out).
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
