"""Property (issue #20): whatever sequence of histories is saved (appends, truncations, edits in
the middle, compactions, short and long messages on both sides of the spill threshold), the
SQLite session store's ``get`` returns exactly the last one saved, and its listing counts it."""

from __future__ import annotations

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st
from robota.core.messages import (
    AssistantMessage,
    Message,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    ToolResultPart,
    UserMessage,
)
from robota.session import SessionRecord, SQLiteSessionStore

POOL: tuple[Message, ...] = (
    UserMessage.of("hi"),
    UserMessage.of("é中文🙂 " * 40),
    AssistantMessage(parts=(TextPart(text="hello"),), model="m"),
    AssistantMessage(parts=(TextPart(text="x" * 3000),), model="m"),
    AssistantMessage(parts=(ToolCallPart(id="c1", name="f", arguments={"a": [1, "b"]}),)),
    ToolResultMessage(
        results=(ToolResultPart(call_id="c1", name="f", content=(TextPart(text="ok " * 90),)),)
    ),
    UserMessage.of('q"\\\t\n'),
)

# Each step keeps a prefix of the previous history (any length, clipped) and appends messages.
steps = st.lists(
    st.tuples(st.integers(0, 60), st.lists(st.sampled_from(POOL), max_size=25)),
    min_size=1,
    max_size=8,
)


@settings(max_examples=60, deadline=None)
@given(steps=steps)
def test_get_returns_exactly_the_history_last_saved(
    steps: list[tuple[int, list[Message]]],
) -> None:
    async def main() -> None:
        async with SQLiteSessionStore(":memory:") as store:
            rec = await store.create(SessionRecord(model="m"))
            history: tuple[Message, ...] = ()
            for keep, added in steps:
                history = (*history[:keep], *added)
                rec = await store.save(rec.with_messages(history))
                got = await store.get(rec.id)
                assert got.messages == history
                assert got.revision == rec.revision
                (summary,) = await store.list()
                assert summary.message_count == len(history)

    anyio.run(main)
