"""Resume's recovery source (issue #15): a real SQLite store and a real JSONL log; the snapshot
deleted, corrupted or behind the log; torn lines; two log writers; merging a conflicting turn."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import anyio
import pytest
from robota.core.messages import AssistantMessage, Message, TextPart, UserMessage
from robota.core.usage import Usage
from robota.session import (
    EVENT_LOG_SEQ,
    EventLog,
    EventLogCorruptError,
    SessionCorruptError,
    SessionNotFoundError,
    SessionRecord,
    SessionStoreError,
    SessionUnrecoverableError,
    SQLiteSessionStore,
    load_session,
    merge_turn,
    store_recovered,
)


def say(text: str) -> AssistantMessage:
    return AssistantMessage(parts=(TextPart(text=text),))


def logged_session(tmp_path: Path, messages: list[Message]) -> tuple[Path, EventLog, str]:
    """A stored session whose every message is also in its log, as a host writes them."""
    db = tmp_path / "state" / "s.db"
    log = EventLog(tmp_path / "state" / "logs")
    record = SessionRecord(model="m", system_prompt="sp", title="t")
    log.append(record.id, "session.created", {"model": "m", "system_prompt": "sp"})
    log.append(record.id, "session.title_assigned", {"title": "t"})
    for message in messages:
        log.append_message(record.id, message)
        log.append(record.id, "model.text_delta", {"text": "noise"})
    stored = SessionRecord(
        id=record.id,
        model="m",
        system_prompt="sp",
        title="t",
        messages=tuple(messages),
        usage=Usage(input_tokens=7),
        metadata={EVENT_LOG_SEQ: log.last_seq(record.id)},
    )

    async def create() -> None:
        async with SQLiteSessionStore(db) as store:
            await store.create(stored)

    anyio.run(create)
    return db, log, record.id


def damage(db: Path, statement: str, session_id: str) -> None:
    conn = sqlite3.connect(db)
    conn.execute(statement, (session_id,))
    conn.commit()
    conn.close()


def test_an_intact_snapshot_is_used_as_is(tmp_path: Path) -> None:
    db, log, session_id = logged_session(tmp_path, [UserMessage.of("hi"), say("hello")])

    async def main() -> None:
        async with SQLiteSessionStore(db) as store:
            loaded = await load_session(store, log, session_id)
            assert loaded.source == "snapshot"
            assert not loaded.recovered
            assert loaded.record.usage.input_tokens == 7
            assert await store_recovered(store, loaded) is loaded.record

    anyio.run(main)


@pytest.mark.parametrize(
    ("statement", "state"),
    [
        ("DELETE FROM sessions WHERE id = ?", "missing"),
        ('UPDATE sessions SET body = \'{"version": 1, "id"\' WHERE id = ?', "unreadable"),
        ("UPDATE sessions SET body = json_set(body, '$.version', 2) WHERE id = ?", "unreadable"),
    ],
    ids=["deleted", "truncated", "wrong-version"],
)
def test_a_missing_or_unreadable_snapshot_is_rebuilt_from_the_log(
    tmp_path: Path, statement: str, state: str
) -> None:
    messages: list[Message] = [UserMessage.of("hi"), say("hello")]
    db, log, session_id = logged_session(tmp_path, messages)
    damage(db, statement, session_id)

    async def main() -> None:
        async with SQLiteSessionStore(db) as store:
            loaded = await load_session(store, log, session_id)
            assert (loaded.source, loaded.snapshot) == ("event_log", state)
            assert loaded.replayed == 2
            assert loaded.snapshot_problem is not None
            assert loaded.record.messages == tuple(messages)
            assert (loaded.record.title, loaded.record.system_prompt) == ("t", "sp")
            stored = await store_recovered(store, loaded)
            assert await store.get(session_id) == stored
            assert stored.metadata[EVENT_LOG_SEQ] == log.last_seq(session_id)
            await store.save(stored)  # an ordinary writer goes on from it

    anyio.run(main)


def test_a_snapshot_behind_the_log_gets_the_unsaved_turn(tmp_path: Path) -> None:
    db, log, session_id = logged_session(tmp_path, [UserMessage.of("hi"), say("hello")])
    log.append_message(session_id, UserMessage.of("next"))  # the host died before saving
    log.append_message(session_id, say("partial"))

    async def main() -> None:
        async with SQLiteSessionStore(db) as store:
            loaded = await load_session(store, log, session_id)
            assert loaded.source == "snapshot+event_log"
            assert loaded.replayed == 2
            assert loaded.record.messages[2:] == (UserMessage.of("next"), say("partial"))
            assert loaded.record.usage.input_tokens == 7  # the snapshot's totals are kept
            stored = await store_recovered(store, loaded)
            assert stored.revision == 2
            again = await load_session(store, log, session_id)
            assert again.source == "snapshot"

    anyio.run(main)


def test_both_unusable_names_both_problems_and_unknown_is_not_found(tmp_path: Path) -> None:
    db, log, session_id = logged_session(tmp_path, [UserMessage.of("hi")])
    damage(db, "UPDATE sessions SET body = 'x' WHERE id = ?", session_id)
    path = log.path(session_id)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(lines[0] + "{broken\n" + "".join(lines[1:]))

    async def main() -> None:
        async with SQLiteSessionStore(db) as store:
            with pytest.raises(SessionCorruptError):
                await store.get(session_id)
            with pytest.raises(SessionUnrecoverableError) as failed:
                await load_session(store, log, session_id)
            assert failed.value.session_id == session_id
            assert failed.value.snapshot_problem.startswith("unreadable")
            assert failed.value.log_problem.endswith(":2: malformed log line")
            with pytest.raises(SessionUnrecoverableError) as no_log:
                await load_session(store, None, session_id)
            assert no_log.value.log_problem == "no event log is used"
            with pytest.raises(SessionNotFoundError):
                await load_session(store, log, "ses_unknown")
            with pytest.raises(SessionNotFoundError):
                await load_session(store, None, "ses_unknown")

    anyio.run(main)


def test_a_store_failure_is_not_mistaken_for_a_missing_snapshot(tmp_path: Path) -> None:
    db, log, session_id = logged_session(tmp_path, [UserMessage.of("hi")])

    class Failing(SQLiteSessionStore):
        async def get(self, session_id: str) -> SessionRecord:
            raise SessionStoreError("sqlite: database is locked")

    async def main() -> None:
        async with Failing(db) as store:
            with pytest.raises(SessionStoreError, match="locked"):
                await load_session(store, log, session_id)

    anyio.run(main)


def test_an_append_after_a_torn_line_marks_it_and_reads_go_on(tmp_path: Path) -> None:
    log = EventLog(tmp_path)
    log.append("s", "session.created", {})
    log.append_message("s", UserMessage.of("hi"))
    with log.path("s").open("a") as handle:
        handle.write('{"seq": 3, "ts": "2026-01-01T00:00:00+00:00", "type": "mess')
    assert [e.type for e in log.read("s")] == ["session.created", "message.committed"]
    assert log.last_seq("s") == 3
    fresh = EventLog(tmp_path)  # another process appends after the crash
    entry = fresh.append_message("s", say("hello"))
    assert entry.seq == 5
    entries = log.read("s")
    assert [e.type for e in entries] == [
        "session.created",
        "message.committed",
        "log.torn_line",
        "message.committed",
    ]
    assert entries[2].data == {"line": 3}
    assert log.rebuild("s").messages == (UserMessage.of("hi"), say("hello"))
    # a malformed line nobody marked is still corruption
    with log.path("s").open("a") as handle:
        handle.write("oops\n")
    log.append("s", "x", {})
    with pytest.raises(EventLogCorruptError, match=":6:"):
        log.read("s")


def test_two_log_writers_keep_seq_equal_to_the_line(tmp_path: Path) -> None:
    first, second = EventLog(tmp_path), EventLog(tmp_path)
    first.append("s", "a", {})
    second.append("s", "b", {})
    first.append("s", "c", {})  # first's cached position is stale: it counts again
    assert [(e.seq, e.type) for e in first.read("s")] == [(1, "a"), (2, "b"), (3, "c")]
    assert second.last_seq("s") == 3
    assert first.last_seq("missing") == 0


def test_history_replaced_and_subagent_log_ids(tmp_path: Path) -> None:
    log = EventLog(tmp_path)
    log.append("s", "session.created", {})
    log.append_message("s", UserMessage.of("old"))
    log.append_history("s", [UserMessage.of("summary")])
    log.append_message("s", say("new"))
    assert log.rebuild("s").messages == (UserMessage.of("summary"), say("new"))
    assert EventLog.subagent_log_id("ses_1", "sub_2") == "ses_1.sub_2"
    with pytest.raises(ValueError, match="unsafe"):
        EventLog.subagent_log_id("ses_1", "../x")


def test_merge_turn_appends_the_new_messages_on_the_newer_record() -> None:
    base = (UserMessage.of("a"), say("1"))
    stored = SessionRecord(
        messages=(*base, UserMessage.of("other"), say("2")),
        usage=Usage(input_tokens=10),
        revision=3,
    )
    current = (*base, UserMessage.of("mine"), say("3"))
    merged, appended = merge_turn(stored, base=base, current=current, usage=Usage(input_tokens=5))
    assert appended == 2
    assert merged.revision == 3
    assert merged.usage.input_tokens == 15
    assert merged.messages == (*stored.messages, UserMessage.of("mine"), say("3"))
