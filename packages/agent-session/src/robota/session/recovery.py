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
from itertools import pairwise
from typing import Literal

from robota.core.messages import AssistantMessage, Message, ToolResultMessage
from robota.core.usage import Usage
from robota.session.eventlog import EventLog, EventLogCorruptError, LogEntry, replay
from robota.session.record import SessionRecord
from robota.session.store import (
    SessionCorruptError,
    SessionNotFoundError,
    SessionStore,
    SessionStoreError,
)

__all__ = [
    "EVENT_LOG_LAST",
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

EVENT_LOG_LAST = "event_log_last"
"""Snapshot metadata key: the ``id`` of the session's last log entry when it was saved. Resume
applies the entries after that one; when the log no longer holds it (truncated, deleted,
restarted) the entries the snapshot lacks are found by comparing messages."""

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
    record = replace(
        record,
        metadata={EVENT_LOG_SEQ: last, EVENT_LOG_LAST: entries[-1].id if entries else None},
    )
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
    """The snapshot plus what the log recorded after it.

    The entries after the one the snapshot names (:data:`EVENT_LOG_LAST`) are applied. When the
    log does not hold that entry, or (for a snapshot that names none) its ``seq`` numbers go
    backwards or end before the snapshot's position, the log was truncated, deleted or
    restarted: the conversation is then completed by comparing messages
    (:func:`_restarted_tail`), never by ``seq``.
    """
    position = snapshot.metadata.get(EVENT_LOG_SEQ)
    marker = snapshot.metadata.get(EVENT_LOG_LAST)
    has_position = isinstance(position, int) and not isinstance(position, bool)
    if log is None or not (has_position or isinstance(marker, str)):
        return LoadedSession(record=snapshot, source="snapshot", snapshot="ok")
    try:
        entries = log.read(snapshot.id)
        tail = _tail(entries, marker, position if isinstance(position, int) else 0)
        if tail is None:
            messages = _restarted_tail(snapshot.messages, entries)
            tail = entries
            changes = [e for e in entries if e.type in _CHANGES]
        else:
            changes = [e for e in tail if e.type in _CHANGES]
            messages = replay(changes, snapshot.messages) if changes else snapshot.messages
    except EventLogCorruptError as exc:
        return LoadedSession(
            record=snapshot, source="snapshot", snapshot="ok", log_problem=str(exc)
        )
    if messages == snapshot.messages or not tail:  # e.g. a merge logged the history it saved
        return LoadedSession(record=snapshot, source="snapshot", snapshot="ok")
    record = replace(
        snapshot,
        messages=messages,
        metadata={**snapshot.metadata, EVENT_LOG_SEQ: tail[-1].seq, EVENT_LOG_LAST: tail[-1].id},
    )
    return LoadedSession(
        record=record, source="snapshot+event_log", snapshot="ok", replayed=len(changes)
    )


def _tail(entries: Sequence[LogEntry], marker: object, position: int) -> list[LogEntry] | None:
    """The entries written after the snapshot, or None when the log was truncated, deleted or
    restarted since (so positions in it say nothing)."""
    if isinstance(marker, str):
        for index in range(len(entries) - 1, -1, -1):
            if entries[index].id == marker:
                return list(entries[index + 1 :])
        return None
    seqs = [e.seq for e in entries]
    if any(b <= a for a, b in pairwise(seqs)):
        return None  # seq went backwards or repeated: a restarted log, or two appenders
    if position > (seqs[-1] if seqs else 0):
        return None  # the log is shorter than it was at the save
    return [e for e in entries if e.seq > position]


def _restarted_tail(
    snapshot: Sequence[Message], entries: Sequence[LogEntry]
) -> tuple[Message, ...]:
    """The snapshot's conversation completed from a log that no longer holds the snapshot's
    position: from its last ``history.replaced`` (a whole conversation) when it has one and
    that conversation extends the snapshot; otherwise the committed messages that follow the
    longest stretch the snapshot already ends with."""
    changes = [e for e in entries if e.type in _CHANGES]
    if any(e.type == "history.replaced" for e in changes):
        whole = replay(changes)
        if tuple(whole[: len(snapshot)]) == tuple(snapshot):
            return whole
        changes = changes[
            max(i for i, e in enumerate(changes) if e.type == "history.replaced") + 1 :
        ]
    logged = list(replay(changes))
    overlap = 0
    for size in range(min(len(snapshot), len(logged)), 0, -1):
        if list(snapshot[len(snapshot) - size :]) == logged[:size]:
            overlap = size
            break
    return (*snapshot, *logged[overlap:])


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

    A message ``stored`` already holds beyond what it shares with ``base`` (the other writer
    recovered it from the log) is not appended again, and neither is an assistant message whose
    tool call id, or a tool result whose call id, ``stored`` already has: a message is stored
    once.

    Returns:
        The merged record (``stored``'s revision, so it saves over it) and how many messages
        were appended.
    """
    common = 0
    for old, new in zip(base, current, strict=False):
        if old != new:
            break
        common += 1
    shared = 0
    for old, new in zip(base, stored.messages, strict=False):
        if old != new:
            break
        shared += 1
    theirs = list(stored.messages[shared:])
    calls = {c for m in stored.messages for c in _call_ids(m)}
    answered = {c for m in stored.messages for c in _answer_ids(m)}
    added_list: list[Message] = []
    for message in current[common:]:
        if message in theirs:
            theirs.remove(message)
            continue
        if _call_ids(message) & calls or _answer_ids(message) & answered:
            continue
        added_list.append(message)
    added = tuple(added_list)
    merged = replace(
        stored,
        messages=(*stored.messages, *added),
        usage=stored.usage + usage,
    )
    return merged, len(added)


def _call_ids(message: Message) -> set[str]:
    if isinstance(message, AssistantMessage):
        return {call.id for call in message.tool_calls}
    return set()


def _answer_ids(message: Message) -> set[str]:
    if isinstance(message, ToolResultMessage):
        return {result.call_id for result in message.results}
    return set()
