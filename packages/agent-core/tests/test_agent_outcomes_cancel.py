"""Cancelled rounds leave a consistent history and count what was billed (issue #14; seed 000,
"Cancellation Contract", "Conversation History Principles"): every kept tool call gets a result,
and usage the vendor reported before a cancellation counts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import anyio
import pytest
from robota.core.agent import (
    Agent,
    HistoryRepaired,
    ModelResponded,
    RunCompleted,
    ToolCallSkipped,
)
from robota.core.cancellation import CancelToken
from robota.core.events import Event
from robota.core.messages import (
    AssistantMessage,
    Message,
    ToolCallPart,
    ToolResultMessage,
)
from robota.core.testing.scripted import (
    ScriptedProvider,
    complete,
    reached,
    report_usage,
    text,
    tool_call,
    usage,
    wait_for,
)
from robota.core.tools.function import tool

pytestmark = pytest.mark.anyio


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)


def pairs(history: Sequence[Message]) -> dict[str, bool]:
    """Every local tool call id in ``history`` -> whether a tool result answers it."""
    answered = {r.call_id for m in history if isinstance(m, ToolResultMessage) for r in m.results}
    return {
        p.id: p.id in answered
        for m in history
        if isinstance(m, AssistantMessage)
        for p in m.parts
        if isinstance(p, ToolCallPart) and not p.hosted
    }


ran: list[str] = []


@tool
async def fetch(url: str) -> str:
    """Fetch a URL."""
    ran.append(url)
    return f"body of {url}"


@pytest.fixture(autouse=True)
def _reset_ran() -> None:
    ran.clear()


async def test_leaving_the_stream_after_the_response_assembled_answers_every_call() -> None:
    sink = Recorder()
    assembled = anyio.Event()
    never = anyio.Event()
    provider = ScriptedProvider(
        [
            [
                tool_call("c1", "fetch", {"url": "a"}),
                tool_call("c2", "fetch", {"url": "b"}),
                complete(),  # the final response event is out...
                reached(assembled),
                wait_for(never),  # ...and the vendor's stream is still closing
            ],
            "next run",
        ]
    )
    agent = Agent(provider, tools=[fetch], sinks=[sink])
    async with agent.stream("fetch both") as stream:
        async for _ in stream:
            if assembled.is_set():
                break
    assert stream.result.interrupted
    assert ran == []
    assert pairs(agent.history) == {"c1": True, "c2": True}
    assistant, results = agent.history[1], agent.history[2]
    assert isinstance(assistant, AssistantMessage)
    assert not assistant.interrupted
    assert isinstance(results, ToolResultMessage)
    assert [(r.call_id, r.text, r.is_error) for r in results.results] == [
        ("c1", agent.texts.interrupted_tool_result, True),
        ("c2", agent.texts.interrupted_tool_result, True),
    ]
    skipped = [(e.call.id, e.reason) for e in sink.events if isinstance(e, ToolCallSkipped)]
    assert skipped == [("c1", "interrupted"), ("c2", "interrupted")]
    assert stream.result.finish_reason == "tool_calls"  # the last complete response
    # the next request needs no pairing repair: history itself is consistent
    await agent.run("again")
    assert not any(isinstance(e, HistoryRepaired) for e in sink.events)


async def test_leaving_the_stream_at_model_responded_interrupts_the_batch() -> None:
    blocked = anyio.Event()

    @tool
    async def slow(n: int) -> str:
        """Block."""
        blocked.set()
        await anyio.sleep_forever()
        return "unreachable"

    provider = ScriptedProvider(
        [[tool_call("s1", "slow", {"n": 1}), tool_call("s2", "slow", {"n": 2})]]
    )
    agent = Agent(provider, tools=[slow], max_parallel_tools=1)
    async with agent.stream("go") as stream:
        async for event in stream:
            if isinstance(event, ModelResponded):
                break
    assert stream.result.interrupted
    assert pairs(agent.history) == {"s1": True, "s2": True}


async def test_cancel_before_any_response_has_no_finish_reason() -> None:
    started = anyio.Event()
    provider = ScriptedProvider([[reached(started), wait_for(anyio.Event())]])
    agent = Agent(provider)
    token = CancelToken()
    results: list[Any] = []
    async with anyio.create_task_group() as group:

        async def run() -> None:
            results.append(await agent.run("q", cancel=token))

        group.start_soon(run)
        await started.wait()
        token.cancel()
    assert results[0].interrupted
    assert (results[0].finish_reason, results[0].raw_finish_reason) == (None, None)


async def test_a_cancelled_round_counts_the_usage_reported_before_it() -> None:
    sink = Recorder()
    streaming = anyio.Event()
    provider = ScriptedProvider(
        [
            [tool_call("c1", "fetch", {"url": "a"}), usage(input_tokens=100, output_tokens=10)],
            [
                report_usage(input_tokens=1200, cache_read_tokens=1000),
                text("partial"),
                reached(streaming),
                wait_for(anyio.Event()),
            ],
        ]
    )
    agent = Agent(provider, tools=[fetch], sinks=[sink])
    token = CancelToken()
    results: list[Any] = []
    async with anyio.create_task_group() as group:

        async def run() -> None:
            results.append(await agent.run("q", cancel=token))

        group.start_soon(run)
        await streaming.wait()
        token.cancel()
    result = results[0]
    assert result.interrupted
    assert result.text == "partial"
    assert (result.usage.input_tokens, result.usage.output_tokens) == (1300, 10)
    assert (result.usage.cache_read_tokens, result.usage.requests) == (1000, 2)
    last = agent.history[-1]
    assert isinstance(last, AssistantMessage)
    assert last.interrupted
    assert last.usage is not None
    assert (last.usage.input_tokens, last.usage.requests) == (1200, 1)
    completed = [e for e in sink.events if isinstance(e, RunCompleted)]
    assert completed[0].usage.input_tokens == 1300


async def test_a_cancelled_round_without_a_usage_report_adds_nothing() -> None:
    streaming = anyio.Event()
    provider = ScriptedProvider([[text("partial"), reached(streaming), wait_for(anyio.Event())]])
    agent = Agent(provider)
    token = CancelToken()
    results: list[Any] = []
    async with anyio.create_task_group() as group:

        async def run() -> None:
            results.append(await agent.run("q", cancel=token))

        group.start_soon(run)
        await streaming.wait()
        token.cancel()
    assert results[0].usage.requests == 0
    last = agent.history[-1]
    assert isinstance(last, AssistantMessage)
    assert last.usage is None


async def test_reported_usage_holds_when_the_final_event_repeats_none() -> None:
    provider = ScriptedProvider([[report_usage(input_tokens=50, output_tokens=7), text("ok")]])
    result = await Agent(provider).run("q")
    assert (result.usage.input_tokens, result.usage.output_tokens, result.usage.requests) == (
        50,
        7,
        1,
    )


async def test_the_script_refuses_content_after_the_final_event() -> None:
    provider = ScriptedProvider([[text("a"), complete(), text("b")]])
    with pytest.raises(ValueError, match="cannot follow complete"):
        await Agent(provider, retry=None).run("q")
