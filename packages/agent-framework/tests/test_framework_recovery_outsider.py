"""Regression tests for an outside attacker's findings: a save records the log entry it was
taken at (so resume finds it in a restarted log), and a conflicting save merged onto a record
that already holds this writer's logged messages stores each message once."""

from __future__ import annotations

from pathlib import Path

import anyio
from robota.core.messages import AssistantMessage, Message, TextPart, UserMessage
from robota.core.usage import Usage
from robota.framework.interactive.recovery import save_record
from robota.session import EVENT_LOG_SEQ, EventLog, SessionRecord, SQLiteSessionStore
from robota.session.recovery import EVENT_LOG_LAST


def say(text: str) -> AssistantMessage:
    return AssistantMessage(parts=(TextPart(text=text),))


def test_a_save_records_the_last_log_entry_id(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "logs")

    async def main() -> SessionRecord:
        async with SQLiteSessionStore(tmp_path / "s.db") as store:
            record = SessionRecord(messages=(UserMessage.of("q"),))
            entry = log.append_message(record.id, record.messages[0])
            outcome = await save_record(store, record, base=(), unsaved_usage=Usage(), log=log)
            assert outcome.record.metadata[EVENT_LOG_LAST] == entry.id
            assert outcome.record.metadata[EVENT_LOG_SEQ] == entry.seq
            return await store.get(record.id)

    stored = anyio.run(main)
    assert stored.metadata[EVENT_LOG_LAST] is not None


def test_a_merged_save_stores_messages_the_other_writer_recovered_once(tmp_path: Path) -> None:
    async def main() -> list[Message]:
        async with SQLiteSessionStore(tmp_path / "s.db") as store:
            base: tuple[Message, ...] = (UserMessage.of("A1"), say("a1"))
            first = await store.create(SessionRecord(messages=base))
            mine = (*base, UserMessage.of("A2"))
            # another writer recovered A2 from the log, ran its turn and saved
            await store.save(
                SessionRecord(
                    id=first.id,
                    revision=first.revision,
                    messages=(*mine, UserMessage.of("B"), say("b")),
                )
            )
            ours = SessionRecord(id=first.id, revision=first.revision, messages=(*mine, say("a2")))
            outcome = await save_record(store, ours, base=base, unsaved_usage=Usage(), log=None)
            assert outcome.appended == 1
            return list((await store.get(first.id)).messages)

    messages = anyio.run(main)
    assert messages == [
        UserMessage.of("A1"),
        say("a1"),
        UserMessage.of("A2"),
        UserMessage.of("B"),
        say("b"),
        say("a2"),
    ]
