"""Host control of a running run: steering, cancelling one tool, and tool residency wired into
the loop (a tool loaded by tool_search in round N is callable in round N+1)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from robota.core import Agent, ToolContext, tool
from robota.core.agent.events import ToolCallStarted
from robota.core.events import Event
from robota.core.messages import ToolResultMessage, UserMessage
from robota.core.residency import TOOL_SEARCH_NAME
from robota.core.testing.scripted import ScriptedProvider, reached, text, tool_call, wait_for

pytestmark = pytest.mark.anyio


async def test_steer_adds_a_user_message_before_the_next_model_call() -> None:
    answering = anyio.Event()
    release = anyio.Event()

    @tool
    async def noop() -> str:
        """Does nothing."""
        return "done"

    provider = ScriptedProvider(
        [
            [reached(answering), wait_for(release), tool_call("c1", "noop")],
            [text("ok, using blue")],
        ]
    )
    agent = Agent(provider, tools=[noop])
    results: list[Any] = []
    async with anyio.create_task_group() as group:

        async def run() -> None:
            results.append(await agent.run("paint it"))

        group.start_soon(run)
        await answering.wait()
        agent.steer("use blue")
        release.set()
    assert results[0].text == "ok, using blue"
    second = provider.requests[1].messages
    assert isinstance(second[-1], UserMessage)
    assert second[-1].parts[0].text == "use blue"  # type: ignore[union-attr]
    assert isinstance(second[-2], ToolResultMessage)


async def test_steer_during_the_final_answer_keeps_the_run_going() -> None:
    answering = anyio.Event()
    release = anyio.Event()
    provider = ScriptedProvider(
        [[reached(answering), wait_for(release), text("first")], [text("second")]]
    )
    agent = Agent(provider)
    results: list[Any] = []
    async with anyio.create_task_group() as group:

        async def run() -> None:
            results.append(await agent.run("go"))

        group.start_soon(run)
        await answering.wait()
        agent.steer("and one more thing")
        release.set()
    assert results[0].text == "second"
    assert len(provider.requests) == 2


def test_steer_without_a_run_returns_false() -> None:
    assert Agent(ScriptedProvider([])).steer("x") is False


async def test_cancel_one_tool_keeps_the_run_and_the_other_results() -> None:
    started: list[str] = []
    both_running = anyio.Event()

    class Sink:
        def emit(self, event: Event) -> None:
            if isinstance(event, ToolCallStarted):
                started.append(event.call_id)

    slow_started = anyio.Event()

    @tool
    async def slow(ctx: ToolContext[Any]) -> str:
        """Sleeps."""
        slow_started.set()
        await anyio.sleep_forever()
        return "never"

    @tool
    async def quick() -> str:
        """Returns at once."""
        return "quick result"

    provider = ScriptedProvider(
        [[tool_call("a", "slow"), tool_call("b", "quick")], [text("finished")]]
    )
    agent = Agent(provider, tools=[slow, quick], sinks=[Sink()])
    results: list[Any] = []
    async with anyio.create_task_group() as group:

        async def run() -> None:
            results.append(await agent.run("go"))

        group.start_soon(run)
        await slow_started.wait()
        both_running.set()
        slow_id = started[0]
        assert agent.cancel_tool(slow_id) is True
    assert agent.cancel_tool("call_unknown") is False
    assert results[0].text == "finished"
    batch = provider.requests[1].messages[-1]
    assert isinstance(batch, ToolResultMessage)
    assert batch.results[0].is_error
    assert "cancelled" in batch.results[0].text
    assert batch.results[1].text == "quick result"


async def test_a_tool_loaded_by_search_is_offered_next_round() -> None:
    tools = []
    for i in range(45):

        async def body(n: int = i) -> str:
            return f"tool {n}"

        tools.append(
            tool(name=f"lookup_{i}", residency="auto")(body)  # pyright: ignore[reportCallIssue]
        )

    @tool(residency="resident")
    async def ping() -> str:
        """Resident."""
        return "pong"

    provider = ScriptedProvider(
        [
            [tool_call("s", TOOL_SEARCH_NAME, {"query": "select:lookup_7"})],
            [tool_call("c", "lookup_7")],
            [text("done")],
        ]
    )
    agent = Agent(provider, tools=[ping, *tools])
    result = await agent.run("find the tool")
    first_names = [t.name for t in provider.requests[0].tools]
    second_names = [t.name for t in provider.requests[1].tools]
    assert first_names == ["ping", TOOL_SEARCH_NAME]
    assert "lookup_7" in second_names
    assert "lookup_8" not in second_names
    final = provider.requests[2].messages[-1]
    assert isinstance(final, ToolResultMessage)
    assert final.results[0].text == "tool 7"
    assert result.text == "done"
