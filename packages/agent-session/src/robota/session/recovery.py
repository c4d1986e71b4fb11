"""Loading a session to resume it, with the JSONL event log as the recovery source; keeping a
turn whose save conflicted (issue #15; seed 003, "the JSONL replay log is the recovery source
when that snapshot is missing").

:func:`load_session` reads the snapshot from the store and, when an event log is given:

* the snapshot is readable: entries the log has *after* the position the snapshot recorded
  (:data:`EVENT_LOG_SEQ`, written by every save of an ``InteractiveSession``) are applied on
  top of it — the messages of a turn that ran but whose process died before it saved. Source
  ``"snapshot+event_log"``; ``"snapshot"`` when there is nothing to add.
* the snapshot is missing or unreadable (:class:`~robota.session.store.SessionCorruptError`:
  malformed or truncated JSON, an unknown record version or shape): the record is rebuilt from
  the log alone (:meth:`~robota.session.eventlog.EventLog.rebuild`). Source ``"event_log"``.
* neither is usable: :class:`SessionUnrecoverableError` names both problems; when there is
  neither a snapshot nor a log the id is simply unknown: :class:`SessionNotFoundError`.

Any other store failure (an I/O error, a locked database) is raised as it is: a snapshot that
could not be *read* is never treated as one that is gone. :func:`store_recovered` writes what
was recovered back to the store (the caller holds the session's lease).

:func:`merge_turn` builds the record a writer whose save conflicted stores instead: the newer
stored record with this writer's new messages appended, keeping both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from robota.core.messages import Message
from robota.core.usage import Usage
from robota.session.eventlog import EventLog, EventLogCorruptError, replay
from robota.session.record import SessionRecord
from robota.session.store import (
    SessionCorruptError,
    SessionNotFoundError,
    SessionStore,
    SessionStoreError,
)

__all__ = [
    "EVENT_LOG_SEQ",
    "LoadedSession",
    "RecoverySource",
    "SessionUnrecoverableError",
    "load_session",
    "merge_turn",
    "store_recovered",
]

EVENT_LOG_SEQ = "event_log_seq"
"""Snapshot metadata key: the ``seq`` of the session's last log entry when it was saved."""

RecoverySource = Literal["snapshot", "snapshot+event_log", "event_log"]
"""Where a loaded session came from: the snapshot alone, the snapshot plus log entries written
after it, or the log alone."""

SnapshotState = Literal["ok", "missing", "unreadable"]


class SessionUnrecoverableError(SessionStoreError):
    """Neither the snapshot nor the event log can give the session back.

    Attributes:
        session_id: The session.
        snapshot_problem: Why the snapshot is unusable (missing, or the decode error).
        log_problem: Why the log is unusable (none configured, no file, no
            ``session.created`` entry, a malformed line).
    """

    code = "session_unrecoverable"

    def __init__(self, *, session_id: str, snapshot_problem: str, log_problem: str) -> None:
        super().__init__(
            f"session {session_id} cannot be resumed: snapshot: {snapshot_problem}; "
            f"event log: {log_problem}"
        )
        self.session_id = session_id
        self.snapshot_problem = snapshot_problem
        self.log_problem = log_problem


@dataclass(frozen=True, kw_only=True, slots=True)
class LoadedSession:
    """What :func:`load_session` found.

    Attributes:
        record: The record to resume (for ``"event_log"``: revision 0, usage zero).
        source: Where it came from (:data:`RecoverySource`).
        snapshot: ``ok``, ``missing`` or ``unreadable``.
        snapshot_problem: Why the snapshot was not used (None when it was).
        log_problem: Why the log was not used, when the snapshot was (None otherwise).
        replayed: Log entries that changed the conversation (appended or replaced it) on top
            of the snapshot, or to build it.
    """

    record: SessionRecord
    source: RecoverySource
    snapshot: SnapshotState
    snapshot_problem: str | None = None
    log_problem: str | None = None
    replayed: int = 0

    @property
    def recovered(self) -> bool:
        """True when the log gave back anything the snapshot did not have."""
        return self.source != "snapshot"


async def load_session(store: SessionStore, log: EventLog | None, session_id: str) -> LoadedSession:
    """Load ``session_id`` for resume, falling back to (or completing from) the event log.

    Raises:
        SessionNotFoundError: there is neither a snapshot nor a log of that id.
        SessionUnrecoverableError: the snapshot is missing or unreadable and the log cannot
            rebuild it; names both problems.
        SessionStoreError: the store failed otherwise (raised as is).
        UnsafeStoreEntryError, InsecurePermissionsError: the log folder or file is unsafe
            (never bypassed by falling back).
    """
    state: SnapshotState
    try:
        snapshot = await store.get(session_id)
    except SessionNotFoundError:
        snapshot, state, problem = None, "missing", "no snapshot is stored"
    except SessionCorruptError as exc:
        snapshot, state, problem = None, "unreadable", f"unreadable ({exc})"
    else:
        return _complete(snapshot, log)
    if log is None:
        if state == "missing":
            raise SessionNotFoundError(f"no session {session_id!r} (and no event log)")
        raise SessionUnrecoverableError(
            session_id=session_id, snapshot_problem=problem, log_problem="no event log is used"
        )
    if state == "missing" and not log.exists(session_id):
        raise SessionNotFoundError(f"no session {session_id!r}: no snapshot and no event log")
    try:
        entries = log.read(session_id)
        record = log.rebuild(session_id)
    except (EventLogCorruptError, SessionStoreError) as exc:
        raise SessionUnrecoverableError(
            session_id=session_id, snapshot_problem=problem, log_problem=str(exc)
        ) from exc
    last = entries[-1].seq if entries else 0
    record = replace(record, metadata={EVENT_LOG_SEQ: last})
    changes = sum(1 for e in entries if e.type in _CHANGES)
    return LoadedSession(
        record=record,
        source="event_log",
        snapshot=state,
        snapshot_problem=problem,
        replayed=changes,
    )


_CHANGES = frozenset({"message.committed", "history.replaced"})


def _complete(snapshot: SessionRecord, log: EventLog | None) -> LoadedSession:
    """The snapshot plus what the log recorded after it."""
    position = snapshot.metadata.get(EVENT_LOG_SEQ)
    if log is None or not isinstance(position, int) or isinstance(position, bool):
        return LoadedSession(record=snapshot, source="snapshot", snapshot="ok")
    try:
        tail = [e for e in log.read(snapshot.id) if e.seq > position]
        changes = [e for e in tail if e.type in _CHANGES]
        messages = replay(changes, snapshot.messages) if changes else snapshot.messages
    except EventLogCorruptError as exc:
        return LoadedSession(
            record=snapshot, source="snapshot", snapshot="ok", log_problem=str(exc)
        )
    if messages == snapshot.messages:  # e.g. a merge logged the history it saved
        return LoadedSession(record=snapshot, source="snapshot", snapshot="ok")
    record = replace(
        snapshot,
        messages=messages,
        metadata={**snapshot.metadata, EVENT_LOG_SEQ: tail[-1].seq},
    )
    return LoadedSession(
        record=record, source="snapshot+event_log", snapshot="ok", replayed=len(changes)
    )


async def store_recovered(store: SessionStore, loaded: LoadedSession) -> SessionRecord:
    """Write a recovered record back (nothing for a plain ``"snapshot"`` load) and return it as
    stored: saved over its snapshot, created when the snapshot was missing, or written over an
    unreadable one (:meth:`~robota.session.store.SessionStore.overwrite`). The caller holds the
    session's lease.

    Raises:
        SessionConflictError: the snapshot changed since it was loaded (a writer outside the
            lease).
        SessionStoreError: the store failed.
    """
    if not loaded.recovered:
        return loaded.record
    if loaded.snapshot == "ok":
        return await store.save(loaded.record)
    if loaded.snapshot == "missing":
        return await store.create(replace(loaded.record, revision=0))
    return await store.overwrite(loaded.record)


def merge_turn(
    stored: SessionRecord,
    *,
    base: Sequence[Message],
    current: Sequence[Message],
    usage: Usage,
) -> tuple[SessionRecord, int]:
    """The record to save after a conflict: ``stored`` (the newer record in the store) with the
    messages ``current`` added since ``base`` (what this writer last saved or loaded) appended,
    and ``usage`` (this writer's unsaved usage) added to its total. Nothing of either writer is
    dropped; the title ``stored`` has wins.

    Returns:
        The merged record (``stored``'s revision, so it saves over it) and how many messages
        were appended.
    """
    common = 0
    for old, new in zip(base, current, strict=False):
        if old != new:
            break
        common += 1
    added = tuple(current[common:])
    merged = replace(
        stored,
        messages=(*stored.messages, *added),
        usage=stored.usage + usage,
    )
    return merged, len(added)
