"""Issue 17, streaming helpers: text deltas and cumulative text in one line (with or without
``async with``), typed partial outputs, and the result after."""

from __future__ import annotations

import anyio
import pytest
from pydantic import BaseModel
from robota.core import Agent, AssistantMessage, ModelTextDelta, PartialOutput
from robota.core.testing.scripted import ScriptedProvider, text, wait_for


class City(BaseModel):
    name: str
    country: str


@pytest.mark.anyio
async def test_text_deltas_without_async_with_then_the_result() -> None:
    agent = Agent(ScriptedProvider([[text("Hel"), text("lo")]]))
    stream = agent.stream("hi")
    assert [delta async for delta in stream.text_deltas()] == ["Hel", "lo"]
    assert (stream.done, stream.result.output) == (True, "Hello")


@pytest.mark.anyio
async def test_cumulative_text_inside_async_with() -> None:
    agent = Agent(ScriptedProvider([[text("a"), text("b"), text("c")]]))
    async with agent.stream("hi") as stream:
        assert [so_far async for so_far in stream.text()] == ["a", "ab", "abc"]
    assert stream.result.text == "abc"


@pytest.mark.anyio
async def test_a_consumed_stream_cannot_be_read_twice() -> None:
    stream = Agent(ScriptedProvider(["x"])).stream("hi")
    assert [d async for d in stream.text_deltas()] == ["x"]
    with pytest.raises(RuntimeError, match="already consumed"):
        [d async for d in stream.text_deltas()]


@pytest.mark.anyio
async def test_leaving_the_loop_early_interrupts_the_run_and_frees_the_slot() -> None:
    never = anyio.Event()
    provider = ScriptedProvider([[text("one "), wait_for(never), text("two")], "next"])
    agent = Agent(provider)
    stream = agent.stream("count")
    deltas = stream.text_deltas()
    async for delta in deltas:
        assert delta == "one "
        break
    await deltas.aclose()
    result = await agent.run("again")
    assert result.output == "next"
    interrupted = next(m for m in agent.history if isinstance(m, AssistantMessage))
    assert (interrupted.interrupted, stream.result.interrupted) == (True, True)
    assert stream.result.text == "one "


@pytest.mark.anyio
async def test_the_run_error_is_raised_from_the_helper() -> None:
    agent = Agent(ScriptedProvider([]))
    with pytest.raises(Exception, match="script has only 0 turn"):
        [d async for d in agent.stream("hi").text_deltas()]


@pytest.mark.anyio
async def test_partial_outputs_are_typed_snapshots_then_the_final_result() -> None:
    chunks = ['{"name": "Os', 'lo", "coun', 'try": "Norway"}']
    agent = Agent(ScriptedProvider([[text(c) for c in chunks]]), output_type=City)
    stream = agent.stream("a city")
    partials = [p async for p in stream.partial_outputs()]
    assert partials, "no partial output was delivered"
    assert all(isinstance(p, City) for p in partials)
    assert stream.result.output == City(name="Oslo", country="Norway")


@pytest.mark.anyio
async def test_async_with_iteration_still_yields_every_event() -> None:
    agent = Agent(ScriptedProvider([[text("Hi")]]))
    async with agent.stream("hi") as stream:
        kinds = [type(e).__name__ async for e in stream]
    assert "ModelTextDelta" in kinds
    assert kinds[-1] == "RunCompleted"
    assert ModelTextDelta.type == "model.text_delta"
    assert PartialOutput.type == "output.partial"
