"""No turn that ran is lost (issue #15): how an interactive session saves, and what resume
loads.

:func:`save_record` saves the session's record; when the store holds a newer revision anyway
(a writer outside the lease), it appends this session's new messages on top of that record
(:func:`robota.session.merge_turn`) and saves the result — both writers' messages are kept — and
retries if that races again. :func:`load_for_resume` loads a session under its lease with the
JSONL event log as the recovery source (:func:`robota.session.load_session`) and writes what it
recovered back to the store.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from robota.core.events import OwnerPath
from robota.core.messages import Message
from robota.core.usage import Usage
from robota.framework.interactive.events import SessionRecovered
from robota.framework.interactive.usage import merged_metadata
from robota.session import (
    EVENT_LOG_SEQ,
    EventLog,
    LoadedSession,
    SessionConflictError,
    SessionNotFoundError,
    SessionRecord,
    SessionStore,
    load_session,
    merge_turn,
    store_recovered,
)
from robota.session.recovery import EVENT_LOG_LAST

__all__ = [
    "MERGE_ATTEMPTS",
    "SaveOutcome",
    "load_for_resume",
    "log_created",
    "recovered_event",
    "reload_newer",
    "save_record",
]

MERGE_ATTEMPTS = 5
"""How many times a conflicting save is merged and retried before the conflict is raised."""


@dataclass(frozen=True, kw_only=True, slots=True)
class SaveOutcome:
    """What :func:`save_record` stored.

    Attributes:
        record: The record as stored.
        appended: None for a plain save; for a merged one, how many of this session's
            messages were appended to the newer stored record.
    """

    record: SessionRecord
    appended: int | None = None


async def save_record(
    store: SessionStore,
    record: SessionRecord,
    *,
    base: Sequence[Message],
    unsaved_usage: Usage,
    unsaved_by_model: Mapping[str, Usage] | None = None,
    log: EventLog | None,
) -> SaveOutcome:
    """Save ``record`` (create it at revision 0); merge instead of failing on a conflict.

    Args:
        store: The store.
        record: The session's record with its current messages and usage.
        base: The messages as last saved or loaded (what the store had from this session).
        unsaved_usage: Usage included in ``record.usage`` since that save.
        unsaved_by_model: The same per model, included in ``record.metadata``'s per-model
            totals (:mod:`.usage`); a merge adds it to the newer record's totals.
        log: The session's event log; its position is recorded in the snapshot's metadata
            (:data:`robota.session.EVENT_LOG_SEQ`, :data:`robota.session.EVENT_LOG_LAST`) so
            resume can add what was logged later.

    Raises:
        SessionConflictError: still conflicting after :data:`MERGE_ATTEMPTS` merges.
        SessionStoreError: the store failed.
    """
    if log is not None:
        position, last = log.last_position(record.id)
        record = replace(
            record, metadata={**record.metadata, EVENT_LOG_SEQ: position, EVENT_LOG_LAST: last}
        )
    try:
        if record.revision == 0:
            return SaveOutcome(record=await store.create(record))
        return SaveOutcome(record=await store.save(record))
    except SessionConflictError as conflict:
        error = conflict
    for _ in range(MERGE_ATTEMPTS):
        stored = await store.get(record.id)
        merged, appended = merge_turn(
            stored, base=base, current=record.messages, usage=unsaved_usage
        )
        merged = replace(
            merged,
            title=stored.title or record.title,
            model=record.model,
            provider=record.provider,
            system_prompt=record.system_prompt,
            metadata=merged_metadata(stored.metadata, record.metadata, unsaved_by_model or {}),
        )
        try:
            return SaveOutcome(record=await store.save(merged), appended=appended)
        except SessionConflictError as again:
            error = again
    raise error


async def load_for_resume(
    store: SessionStore, log: EventLog | None, session_id: str
) -> LoadedSession:
    """Load ``session_id`` (the caller holds its lease): the snapshot, completed from or
    rebuilt from the event log, and written back to the store when the log added anything.

    Raises:
        SessionNotFoundError: neither a snapshot nor a log of that id.
        SessionUnrecoverableError: neither is usable; names both problems.
        SessionStoreError: the store failed.
    """
    loaded = await load_session(store, log, session_id)
    if loaded.recovered:
        loaded = replace(loaded, record=await store_recovered(store, loaded))
    return loaded


def recovered_event(owner: OwnerPath, loaded: LoadedSession) -> SessionRecovered | None:
    """The warning a resume that used the event log emits (None when it did not)."""
    if not loaded.recovered:
        return None
    return SessionRecovered(
        owner=owner,
        session_id=loaded.record.id,
        source=loaded.source,
        snapshot_problem=loaded.snapshot_problem,
        replayed=loaded.replayed,
    )


async def reload_newer(
    store: SessionStore,
    record: SessionRecord,
    *,
    base: Sequence[Message],
    current: Sequence[Message],
) -> tuple[SessionRecord, tuple[Message, ...]] | None:
    """When another writer saved a newer revision than ``record``'s: the record to go on from
    (the stored one with ``current``'s messages since ``base`` appended; the stored title wins,
    this session's model, provider and system prompt are kept) and the messages the store has.
    None when the stored revision is ``record``'s (or nothing is stored).

    Raises:
        SessionStoreError: the store failed (an unreadable snapshot included).
    """
    try:
        stored = await store.get(record.id)
    except SessionNotFoundError:
        return None
    if stored.revision == record.revision:
        return None
    merged, _ = merge_turn(stored, base=base, current=current, usage=Usage())
    newer = replace(
        merged,
        title=stored.title or record.title,
        model=record.model,
        provider=record.provider,
        system_prompt=record.system_prompt,
    )
    return newer, stored.messages


def log_created(log: EventLog | None, record: SessionRecord) -> None:
    """Log a new session (``session.created``, then ``history.replaced`` when it starts with
    messages, as a fork does), so the log alone can rebuild it."""
    if log is None:
        return
    log.append(
        record.id,
        "session.created",
        {
            "model": record.model,
            "provider": record.provider,
            "system_prompt": record.system_prompt,
            "parent_id": record.parent_id,
            "title": record.title,
        },
    )
    if record.messages:
        log.append_history(record.id, record.messages)
