"""Cancellation and run concurrency (seed 000, "Cancellation Contract", "Run Concurrency
Contract"). Checkpoints are anyio events, never timing."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from robota.core.agent import Agent, RoundCompleted, ToolCallSkipped
from robota.core.cancellation import CancelToken
from robota.core.errors import RunCancelledError
from robota.core.events import Event
from robota.core.messages import AssistantMessage, ToolResultMessage
from robota.core.testing.scripted import (
    ScriptedProvider,
    reached,
    text,
    tool_call,
    wait_for,
)
from robota.core.tools.base import ToolContext
from robota.core.tools.function import tool


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)


@pytest.mark.anyio
async def test_already_cancelled_token_raises_without_touching_provider_or_history() -> None:
    provider = ScriptedProvider(["never"])
    agent = Agent(provider)
    token = CancelToken()
    token.cancel("changed my mind")
    with pytest.raises(RunCancelledError) as caught:
        await agent.run("q", cancel=token)
    assert caught.value.reason == "changed my mind"
    assert provider.requests == []
    assert agent.history == ()


@pytest.mark.anyio
async def test_token_cancelled_while_queued_is_refused_when_its_turn_comes() -> None:
    release = anyio.Event()
    started = anyio.Event()
    provider = ScriptedProvider([[reached(started), wait_for(release), text("first")]])
    agent = Agent(provider)
    token = CancelToken()
    outcomes: list[Any] = []

    async def second() -> None:
        try:
            await agent.run("second", cancel=token)
        except RunCancelledError as exc:
            outcomes.append(exc)

    async with anyio.create_task_group() as tg:
        tg.start_soon(agent.run, "first")
        await started.wait()
        tg.start_soon(second)
        await anyio.wait_all_tasks_blocked()
        token.cancel()
        release.set()
    assert len(outcomes) == 1
    assert isinstance(outcomes[0], RunCancelledError)
    assert len(provider.requests) == 1
    assert [m.kind for m in agent.history] == ["user", "assistant"]


@pytest.mark.anyio
async def test_cancel_mid_stream_commits_partial_text_as_interrupted() -> None:
    sink = Recorder()
    mid = anyio.Event()
    never = anyio.Event()
    provider = ScriptedProvider([[text("partial answer"), reached(mid), wait_for(never)]])
    agent = Agent(provider, sinks=[sink])
    token = CancelToken()
    results: list[Any] = []

    async def run() -> None:
        results.append(await agent.run("q", cancel=token))

    async with anyio.create_task_group() as tg:
        tg.start_soon(run)
        await mid.wait()
        token.cancel()
    result = results[0]
    assert result.interrupted
    assert result.text == "partial answer"
    last = agent.history[-1]
    assert isinstance(last, AssistantMessage)
    assert last.interrupted
    assert last.text == "partial answer"
    rounds = [e for e in sink.events if isinstance(e, RoundCompleted)]
    assert [r.outcome for r in rounds] == ["interrupted"]
    assert any(e.type == "run.completed" for e in sink.events)


@pytest.mark.anyio
async def test_cancel_during_tools_keeps_finished_results_and_interrupts_running_and_queued() -> (
    None
):
    sink = Recorder()
    running = anyio.Event()
    observed_cancel: list[str] = []

    @tool
    async def quick(n: int) -> str:
        """Finish at once."""
        return f"quick {n}"

    @tool
    async def slow(ctx: ToolContext[Any], n: int) -> str:
        """Block until cancelled."""
        running.set()
        try:
            await anyio.sleep_forever()
        finally:
            observed_cancel.append(f"slow {n} saw cancel={ctx.cancelled}")
        return "unreachable"

    provider = ScriptedProvider(
        [
            [
                tool_call("a", "quick", {"n": 1}),
                tool_call("b", "slow", {"n": 2}),
                tool_call("c", "quick", {"n": 3}),
            ]
        ]
    )
    agent = Agent(provider, tools=[quick, slow], max_parallel_tools=1, sinks=[sink])
    token = CancelToken()
    results: list[Any] = []

    async def run() -> None:
        results.append(await agent.run("q", cancel=token))

    async with anyio.create_task_group() as tg:
        tg.start_soon(run)
        await running.wait()
        await anyio.wait_all_tasks_blocked()
        token.cancel()
    assert results[0].interrupted
    batch = agent.history[-1]
    assert isinstance(batch, ToolResultMessage)
    assert [(r.call_id, r.text, r.is_error) for r in batch.results] == [
        ("a", "quick 1", False),
        ("b", "interrupted by user", True),
        ("c", "interrupted by user", True),
    ]
    assert observed_cancel == ["slow 2 saw cancel=True"]
    skipped = [e for e in sink.events if isinstance(e, ToolCallSkipped)]
    assert [(e.call.id, e.reason) for e in skipped] == [("b", "interrupted"), ("c", "interrupted")]


@pytest.mark.anyio
async def test_three_queued_runs_execute_in_fifo_order() -> None:
    release = anyio.Event()
    started = anyio.Event()
    provider = ScriptedProvider(
        [[reached(started), wait_for(release), text("r1")], "r2", "r3", "r4"]
    )
    agent = Agent(provider)
    finished: list[str] = []

    async def run(prompt: str) -> None:
        finished.append((await agent.run(prompt)).text)

    async with anyio.create_task_group() as tg:
        tg.start_soon(run, "p1")
        await started.wait()
        for prompt in ("p2", "p3", "p4"):
            tg.start_soon(run, prompt)
            await anyio.wait_all_tasks_blocked()
        release.set()
    assert finished == ["r1", "r2", "r3", "r4"]
    users = [m.parts[0].text for m in agent.history if m.kind == "user"]  # type: ignore[union-attr]
    assert users == ["p1", "p2", "p3", "p4"]
    # Strictly sequential history: every request saw all earlier turns.
    assert [len(r.messages) for r in provider.requests] == [1, 3, 5, 7]


@pytest.mark.anyio
async def test_separate_agents_run_concurrently() -> None:
    a_in = anyio.Event()
    b_in = anyio.Event()
    agent_a = Agent(ScriptedProvider([[reached(a_in), wait_for(b_in), text("a")]]))
    agent_b = Agent(ScriptedProvider([[reached(b_in), wait_for(a_in), text("b")]]))
    texts: list[str] = []

    async def run(agent: Agent) -> None:
        texts.append((await agent.run("go")).text)

    # Each provider waits for the other to be mid-stream: this only finishes when both run at
    # the same time.
    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(run, agent_a)
            tg.start_soon(run, agent_b)
    assert sorted(texts) == ["a", "b"]


@pytest.mark.anyio
async def test_stream_consumer_breaking_out_cancels_the_run() -> None:
    never = anyio.Event()
    provider = ScriptedProvider([[text("first words"), wait_for(never)], "next run"])
    agent = Agent(provider)
    async with agent.stream("q") as stream:
        async for event in stream:
            if event.type == "model.text_delta":
                break
    assert stream.result.interrupted
    last = agent.history[-1]
    assert isinstance(last, AssistantMessage)
    assert last.interrupted
    assert last.text == "first words"
    # The slot was released: a later run proceeds.
    assert (await agent.run("again")).text == "next run"


@pytest.mark.anyio
async def test_never_iterated_stream_never_takes_the_slot() -> None:
    provider = ScriptedProvider(["only run"])
    agent = Agent(provider)
    async with agent.stream("abandoned"):
        result = await agent.run("real")
    assert result.text == "only run"
    assert [m.kind for m in agent.history] == ["user", "assistant"]
    assert len(provider.requests) == 1


@pytest.mark.anyio
async def test_stream_waits_for_its_turn_when_iterated() -> None:
    release = anyio.Event()
    started = anyio.Event()
    provider = ScriptedProvider([[reached(started), wait_for(release), text("one")], "two"])
    agent = Agent(provider)
    order: list[str] = []

    async def first() -> None:
        order.append((await agent.run("1")).text)

    async with anyio.create_task_group() as tg:
        tg.start_soon(first)
        await started.wait()
        async with agent.stream("2") as stream:
            release.set()
            async for _ in stream:
                pass
        order.append(stream.result.text)
    assert order == ["one", "two"]


def test_cancel_token_basics() -> None:
    token = CancelToken()
    calls: list[str] = []
    remove = token.on_cancel(lambda: calls.append("a"))
    token.on_cancel(lambda: calls.append("b"))
    remove()
    token.cancel("r1")
    token.cancel("r2")
    assert calls == ["b"]
    assert token.reason == "r1"
    late: list[str] = []
    token.on_cancel(lambda: late.append("late"))
    assert late == ["late"]


@pytest.mark.anyio
async def test_cancel_token_wait_wakes_waiters() -> None:
    token = CancelToken()
    woke: list[bool] = []

    async def waiter() -> None:
        await token.wait()
        woke.append(token.cancelled)

    async with anyio.create_task_group() as tg:
        tg.start_soon(waiter)
        await anyio.wait_all_tasks_blocked()
        assert woke == []
        token.cancel()
    assert woke == [True]
    await token.wait()  # already cancelled: returns at once
