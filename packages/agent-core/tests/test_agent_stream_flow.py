"""A stream consumer and the run it reads (issue #20): the run hands its events over without a
task switch per delta, and a consumer that stops reading holds back the run's provider round
after a bounded number of undelivered events (``BUFFER_EVENTS``), never an unbounded buffer.
Events keep their order and content; a consumer that leaves stops the run, journaled or not."""

from __future__ import annotations

import anyio
import pytest
from robota.core.agent import Agent, ModelTextDelta
from robota.core.agent.stream import BUFFER_EVENTS
from robota.core.events import Event
from robota.core.journal import MemoryJournal
from robota.core.testing.scripted import ScriptedProvider, text

pytestmark = pytest.mark.anyio

DELTAS = 4 * BUFFER_EVENTS


class Produced:
    """An observer sink: every text delta the run emitted, as it emitted it."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def emit(self, event: Event) -> None:
        if isinstance(event, ModelTextDelta):
            self.texts.append(event.text)


def words() -> list[str]:
    return [f"w{i} " for i in range(DELTAS)]


async def test_a_consumer_that_stops_reading_holds_the_run_after_a_bounded_buffer() -> None:
    produced = Produced()
    agent = Agent(ScriptedProvider([[text(w) for w in words()]]), sinks=[produced])
    seen: list[str] = []
    async with agent.stream("go") as stream:
        async for event in stream:
            if isinstance(event, ModelTextDelta):
                seen.append(event.text)
                break
        # the consumer now does something else: the run may only fill the buffer
        await anyio.wait_all_tasks_blocked()
        held = len(produced.texts)
        assert 1 < held <= BUFFER_EVENTS + 1
        assert not stream.done
        async for event in stream:  # reading again lets the run finish
            if isinstance(event, ModelTextDelta):
                seen.append(event.text)
    assert seen == words()  # every delta, in order, exactly once
    assert stream.result.output == "".join(words())


async def test_a_reader_keeping_up_gets_every_event_in_the_order_they_were_emitted() -> None:
    emitted: list[Event] = []

    class Everything:
        def emit(self, event: Event) -> None:
            emitted.append(event)

    agent = Agent(ScriptedProvider([[text(w) for w in words()]]), sinks=[Everything()])
    async with agent.stream("go") as stream:
        received = [event async for event in stream]
    assert received == emitted
    assert sum(isinstance(e, ModelTextDelta) for e in received) == DELTAS


@pytest.mark.parametrize("journaled", [False, True])
async def test_leaving_while_the_run_waits_for_room_stops_it(journaled: bool) -> None:
    # a journaled round is shielded while the provider settles: it must not wait for a reader
    # that left (it goes on to the end of the response, unheld)
    journal = MemoryJournal() if journaled else None
    produced = Produced()
    agent = Agent(ScriptedProvider([[text(w) for w in words()]]), sinks=[produced], journal=journal)
    with anyio.fail_after(30):  # a hang guard, not a timing assertion
        async with agent.stream("go") as stream:
            async for _ in stream:
                await anyio.wait_all_tasks_blocked()  # the run now waits for room
                break
    assert stream.done
    if journaled:  # the shielded round read the whole response, never held by the buffer
        assert len(produced.texts) == DELTAS
    else:  # the run stopped where the buffer held it
        assert len(produced.texts) <= BUFFER_EVENTS + 1
    answer = agent.history[-1]
    assert answer.kind == "assistant"


async def test_text_deltas_without_async_with_still_get_every_delta() -> None:
    agent = Agent(ScriptedProvider([[text(w) for w in words()]]))
    got = [d async for d in agent.stream("go").text_deltas()]
    assert got == words()
