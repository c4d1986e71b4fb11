"""Regression tests for an outside attacker's recovery findings (promises 6 and 7): a log that
was truncated or restarted, repeated ``seq`` numbers, lines that are not UTF-8 or have fields of
the wrong type, a line naming another session, snapshots whose body names another session or
has fields of the wrong type, and a merge that must store every message once."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import anyio
import pytest
from robota.core.messages import (
    AssistantMessage,
    Message,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    ToolResultPart,
    UserMessage,
    dump_messages,
)
from robota.core.usage import Usage
from robota.session import (
    EVENT_LOG_SEQ,
    EventLog,
    EventLogCorruptError,
    SessionCorruptError,
    SessionRecord,
    SessionUnrecoverableError,
    SQLiteSessionStore,
    load_session,
    merge_turn,
)
from robota.session.recovery import EVENT_LOG_LAST


def say(text: str) -> AssistantMessage:
    return AssistantMessage(parts=(TextPart(text=text),))


def texts(messages: tuple[Message, ...]) -> list[str]:
    out: list[str] = []
    for message in messages:
        if isinstance(message, AssistantMessage):
            out.append(message.text or ",".join(c.id for c in message.tool_calls))
        elif isinstance(message, ToolResultMessage):
            out.append("result " + ",".join(r.call_id for r in message.results))
        elif isinstance(message, UserMessage):
            out.append("".join(p.text for p in message.parts if isinstance(p, TextPart)))
    return out


def saved(tmp_path: Path, messages: list[Message]) -> tuple[Path, EventLog, str]:
    """A stored session whose messages are all logged, saved with the log's position."""
    db = tmp_path / "state" / "s.db"
    log = EventLog(tmp_path / "state" / "logs")
    record = SessionRecord(model="m")
    log.append(record.id, "session.created", {"model": "m"})
    for message in messages:
        log.append_message(record.id, message)
    seq, last = log.last_position(record.id)
    stored = SessionRecord(
        id=record.id,
        model="m",
        messages=tuple(messages),
        metadata={EVENT_LOG_SEQ: seq, EVENT_LOG_LAST: last},
    )

    async def create() -> None:
        async with SQLiteSessionStore(db) as store:
            await store.create(stored)

    anyio.run(create)
    return db, log, record.id


def load(db: Path, log: EventLog, session_id: str) -> tuple[str, list[str]]:
    async def run() -> tuple[str, list[str]]:
        async with SQLiteSessionStore(db) as store:
            loaded = await load_session(store, log, session_id)
        return loaded.source, texts(loaded.record.messages)

    return anyio.run(run)


BASE: list[Message] = [UserMessage.of("q1"), say("a1")]


@pytest.mark.parametrize("how", ["zero bytes", "deleted"])
def test_a_turn_logged_after_the_log_was_truncated_is_recovered(tmp_path: Path, how: str) -> None:
    db, log, sid = saved(tmp_path, BASE)
    path = log.path(sid)
    if how == "zero bytes":
        path.write_bytes(b"")
    else:
        path.unlink()
    fresh = EventLog(log.folder)  # a new process after the truncation
    assert load(db, fresh, sid) == ("snapshot", ["q1", "a1"])
    fresh.append_message(sid, UserMessage.of("q2"))
    fresh.append_message(sid, say("a2"))
    assert load(db, EventLog(log.folder), sid) == (
        "snapshot+event_log",
        ["q1", "a1", "q2", "a2"],
    )


def test_a_restarted_log_overlapping_the_snapshot_adds_only_what_it_lacks(tmp_path: Path) -> None:
    db, log, sid = saved(tmp_path, BASE)
    log.path(sid).unlink()
    fresh = EventLog(log.folder)
    fresh.append_message(sid, BASE[1])  # already in the snapshot
    fresh.append_message(sid, UserMessage.of("q2"))
    assert load(db, EventLog(log.folder), sid)[1] == ["q1", "a1", "q2"]


@pytest.mark.parametrize("seqs", [(1, 2), (500, 501)])
def test_a_turn_whose_seq_numbers_repeat_or_jump_is_recovered(
    tmp_path: Path, seqs: tuple[int, int]
) -> None:
    db, log, sid = saved(tmp_path, BASE)
    with log.path(sid).open("ab") as handle:
        for seq, message in zip(seqs, (UserMessage.of("q2"), say("a2")), strict=True):
            body = json.loads(dump_messages([message]))["messages"][0]
            line = {"seq": seq, "ts": "2025-01-01T00:00:00+00:00", "type": "message.committed"}
            handle.write(json.dumps({**line, "data": {"message": body}}).encode() + b"\n")
    assert load(db, EventLog(log.folder), sid)[1] == ["q1", "a1", "q2", "a2"]


def test_a_legacy_snapshot_position_past_a_shorter_log_is_a_restart(tmp_path: Path) -> None:
    db, log, sid = saved(tmp_path, BASE)
    conn = sqlite3.connect(db)
    body = json.loads(conn.execute("SELECT body FROM sessions").fetchone()[0])
    body["metadata"] = {EVENT_LOG_SEQ: 99}
    conn.execute("UPDATE sessions SET body=?", (json.dumps(body),))
    conn.commit()
    conn.close()
    log.path(sid).unlink()
    EventLog(log.folder).append_message(sid, UserMessage.of("q2"))
    assert load(db, EventLog(log.folder), sid)[1] == ["q1", "a1", "q2"]


@pytest.mark.parametrize(
    "line",
    [
        b"\xff\xfe\x00\x80garbage\n",
        b'{"seq":3,"ts":"2025-01-01T00:00:00+00:00","type":"x","data":"oops"}\n',
        b'{"seq":"3","ts":"2025-01-01T00:00:00+00:00","type":"x","data":{}}\n',
        b"[1, 2]\n",
    ],
)
def test_every_malformed_line_is_a_typed_error(tmp_path: Path, line: bytes) -> None:
    log = EventLog(tmp_path)
    log.append("s1", "session.created", {"model": "m"})
    with log.path("s1").open("ab") as handle:
        handle.write(line)
    log.append("s1", "message.committed", {"message": {}})
    with pytest.raises(EventLogCorruptError):
        log.read("s1")
    with pytest.raises(EventLogCorruptError):
        log.rebuild("s1")


def test_an_invalid_utf8_torn_last_line_is_skipped(tmp_path: Path) -> None:
    log = EventLog(tmp_path)
    log.append("s1", "session.created", {"model": "m"})
    with log.path("s1").open("ab") as handle:
        handle.write(b'{"seq": 9, "ts": "\xff\xfe')
    assert [e.type for e in log.read("s1")] == ["session.created"]
    log.append("s1", "session.title_assigned", {"title": "t"})
    assert log.rebuild("s1").title == "t"


def test_a_damaged_log_never_blocks_a_good_snapshot(tmp_path: Path) -> None:
    db, log, sid = saved(tmp_path, BASE)
    with log.path(sid).open("ab") as handle:
        handle.write(b"\xff\xfe not utf-8\n")
    assert load(db, EventLog(log.folder), sid) == ("snapshot", ["q1", "a1"])


def test_a_log_line_naming_another_session_is_ignored(tmp_path: Path) -> None:
    db, log, sid = saved(tmp_path, BASE)
    intruder = json.loads(dump_messages([UserMessage.of("foreign")]))["messages"]
    with log.path(sid).open("ab") as handle:
        entry = {
            "seq": 10,
            "ts": "2025-01-01T00:00:00+00:00",
            "type": "history.replaced",
            "session_id": "ses_ffffffffffffffffffff",
            "data": {"messages": intruder},
        }
        handle.write(json.dumps(entry).encode() + b"\n")
    assert all(e.session_id == sid for e in log.read(sid))
    assert load(db, EventLog(log.folder), sid) == ("snapshot", ["q1", "a1"])


def rewrite_body(db: Path, session_id: str, **fields: object) -> None:
    conn = sqlite3.connect(db)
    row = conn.execute("SELECT body FROM sessions WHERE id=?", (session_id,)).fetchone()
    body = {**json.loads(row[0]), **fields}
    conn.execute("UPDATE sessions SET body=? WHERE id=?", (json.dumps(body), session_id))
    conn.commit()
    conn.close()


@pytest.mark.parametrize(
    "fields",
    [
        {"id": "ses_00000000000000000000"},
        {"revision": 77},
        {"revision": "1"},
        {"title": ["not", "a", "title"]},
        {"usage": {"input_tokens": "many"}},
        {"usage": {"bogus": 1}},
        {"metadata": [1]},
        {"model": 5},
    ],
)
def test_a_snapshot_with_a_damaged_field_is_unreadable_and_rebuilt(
    tmp_path: Path, fields: dict[str, object]
) -> None:
    db, log, sid = saved(tmp_path, BASE)
    rewrite_body(db, sid, **fields)

    async def get() -> None:
        async with SQLiteSessionStore(db) as store:
            await store.get(sid)

    with pytest.raises(SessionCorruptError):
        anyio.run(get)
    assert load(db, log, sid) == ("event_log", ["q1", "a1"])


def test_no_snapshot_and_a_non_utf8_log_is_unrecoverable(tmp_path: Path) -> None:
    db, log, sid = saved(tmp_path, BASE)
    rewrite_body(db, sid, version=99)
    with log.path(sid).open("ab") as handle:
        handle.write(b"\xff\n")
    with pytest.raises(SessionUnrecoverableError):
        load(db, log, sid)


def test_merge_stores_a_message_the_other_writer_recovered_once() -> None:
    call = AssistantMessage(parts=(ToolCallPart(id="c2", name="note", arguments={"x": "2"}),))
    result = ToolResultMessage(
        results=(ToolResultPart(call_id="c2", name="note", content=(TextPart(text="ok"),)),)
    )
    base: list[Message] = [UserMessage.of("A1"), say("a1")]
    mine = [*base, UserMessage.of("A2"), call, result, say("a2")]
    theirs = SessionRecord(
        messages=(*base, UserMessage.of("A2"), call, result, UserMessage.of("B"), say("b")),
        usage=Usage(input_tokens=1),
    )
    merged, added = merge_turn(theirs, base=base, current=mine, usage=Usage(input_tokens=2))
    assert texts(merged.messages) == ["A1", "a1", "A2", "c2", "result c2", "B", "b", "a2"]
    assert added == 1
    assert merged.usage.input_tokens == 3


def test_merge_never_repeats_a_tool_call_id_even_when_the_message_differs() -> None:
    call = AssistantMessage(parts=(ToolCallPart(id="c9", name="note", arguments={}),))
    other = AssistantMessage(
        parts=(TextPart(text="thinking"), ToolCallPart(id="c9", name="note", arguments={}))
    )
    answer = ToolResultMessage(
        results=(ToolResultPart(call_id="c9", name="note", content=(TextPart(text="x"),)),)
    )
    theirs = SessionRecord(messages=(UserMessage.of("q"), other, answer))
    merged, _ = merge_turn(
        theirs,
        base=[UserMessage.of("q")],
        current=[UserMessage.of("q"), call, answer],
        usage=Usage(),
    )
    ids = [c.id for m in merged.messages if isinstance(m, AssistantMessage) for c in m.tool_calls]
    assert ids == ["c9"]
