"""Every response is a correct answer or a typed error (issue #14; seed 002, "Model contract"):
finish reasons on the result, truncation / incomplete tool calls / content filtering refused
before the answer is used, and a stream without a final event (real Agent loop, ScriptedProvider).
"""

from __future__ import annotations

import doctest
from collections.abc import Sequence

import pytest
from pydantic import BaseModel
from robota.core import capabilities
from robota.core.agent import (
    Agent,
    ModelResponded,
    RoundCompleted,
    RunCompleted,
    RunFailed,
    ToolCallSkipped,
)
from robota.core.agent import outcome as outcome_module
from robota.core.errors import (
    ContentFilterError,
    IncompleteToolCallError,
    MalformedResponseError,
    ProviderError,
    TruncatedResponseError,
)
from robota.core.events import Event
from robota.core.journal import MemoryJournal
from robota.core.messages import (
    AssistantMessage,
    Message,
    ToolCallPart,
    ToolResultMessage,
    UserMessage,
)
from robota.core.testing.scripted import (
    ScriptedProvider,
    cut,
    finish,
    text,
    tool_call,
    usage,
)
from robota.core.tools.function import tool

pytestmark = pytest.mark.anyio


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)


def unanswered(history: Sequence[Message]) -> list[str]:
    """Ids of tool calls in ``history`` that no tool result answers."""
    calls = [
        p.id
        for m in history
        if isinstance(m, AssistantMessage)
        for p in m.parts
        if isinstance(p, ToolCallPart) and not p.hosted
    ]
    answered = {r.call_id for m in history if isinstance(m, ToolResultMessage) for r in m.results}
    return [c for c in calls if c not in answered]


ran: list[str] = []


@tool
async def write(path: str) -> str:
    """Write a file."""
    ran.append(path)
    return f"wrote {path}"


@pytest.fixture(autouse=True)
def _reset_ran() -> None:
    ran.clear()


async def test_result_and_run_completed_carry_the_final_finish_reason() -> None:
    sink = Recorder()
    provider = ScriptedProvider(
        [[tool_call("c1", "write", {"path": "a"})], [text("done"), finish("stop", "end_turn")]]
    )
    result = await Agent(provider, tools=[write], sinks=[sink]).run("go")
    assert (result.finish_reason, result.raw_finish_reason) == ("stop", "end_turn")
    completed = [e for e in sink.events if isinstance(e, RunCompleted)]
    assert [(e.finish_reason, e.raw_finish_reason) for e in completed] == [("stop", "end_turn")]


async def test_a_truncated_answer_fails_typed_and_stays_in_history() -> None:
    sink = Recorder()
    provider = ScriptedProvider(
        [
            [
                text("The answer is"),
                usage(input_tokens=30, output_tokens=4),
                finish("length", "max_tokens"),
            ]
        ]
    )
    agent = Agent(provider, sinks=[sink])
    with pytest.raises(TruncatedResponseError) as caught:
        await agent.run("q")
    error = caught.value
    assert (error.provider, error.vendor_type, error.recoverable) == (
        "scripted",
        "max_tokens",
        True,
    )
    assert "max_tokens" in error.message
    assert "accept_truncated" in error.message
    last = agent.history[-1]
    assert isinstance(last, AssistantMessage)
    assert (last.text, last.finish_reason, last.interrupted) == ("The answer is", "length", False)
    assert [e.error for e in sink.events if isinstance(e, RunFailed)] == [error]
    assert not any(isinstance(e, RunCompleted) for e in sink.events)
    responded = [e for e in sink.events if isinstance(e, ModelResponded)]
    assert [e.usage.input_tokens for e in responded] == [30]  # the call was billed


async def test_accept_truncated_uses_the_answer_and_says_length() -> None:
    provider = ScriptedProvider([[text("Half"), finish("length", "max_tokens")]] * 2)
    result = await Agent(provider, accept_truncated=True).run("q")
    assert (result.text, result.finish_reason, result.raw_finish_reason) == (
        "Half",
        "length",
        "max_tokens",
    )
    # the per-run option overrides the agent's default, both ways
    assert (await Agent(provider).run("q", accept_truncated=True)).finish_reason == "length"
    provider.add([text("Cut"), finish("length")])
    with pytest.raises(TruncatedResponseError):
        await Agent(provider, accept_truncated=True).run("q", accept_truncated=False)


async def test_stream_honours_accept_truncated() -> None:
    provider = ScriptedProvider([[text("Cut"), finish("length")]])
    async with Agent(provider).stream("q", accept_truncated=True) as stream:
        async for _ in stream:
            pass
    assert (stream.result.text, stream.result.finish_reason) == ("Cut", "length")


async def test_a_tool_call_cut_by_the_token_limit_is_an_incomplete_tool_call() -> None:
    sink = Recorder()
    provider = ScriptedProvider(
        [
            [
                text("Writing both."),
                tool_call("c1", "write", {"path": "a"}),
                tool_call("c2", "write", '{"path": "b'),
                finish("length", "max_tokens"),
            ]
        ]
    )
    agent = Agent(provider, tools=[write], sinks=[sink], accept_truncated=True)
    with pytest.raises(IncompleteToolCallError) as caught:
        await agent.run("write a and b")
    assert (caught.value.provider, caught.value.vendor_type) == ("scripted", "max_tokens")
    assert "write (id c2)" in caught.value.message
    assert ran == []  # not even the complete call ran
    assert [m.kind for m in agent.history] == ["user", "assistant", "tool_results"]
    results = agent.history[2]
    assert isinstance(results, ToolResultMessage)
    assert [(r.call_id, r.is_error) for r in results.results] == [("c1", True), ("c2", True)]
    assert "'length'" in results.results[0].text
    assert unanswered(agent.history) == []
    skipped = [e for e in sink.events if isinstance(e, ToolCallSkipped)]
    assert [(e.call.id, e.reason) for e in skipped] == [
        ("c1", "refused_response"),
        ("c2", "refused_response"),
    ]


async def test_length_with_complete_calls_is_truncated_unless_accepted() -> None:
    turn = [tool_call("c1", "write", {"path": "a"}), finish("length")]
    refused = Agent(ScriptedProvider([turn]), tools=[write])
    with pytest.raises(TruncatedResponseError):
        await refused.run("go")
    assert ran == []
    assert unanswered(refused.history) == []

    accepted = Agent(ScriptedProvider([turn, "done"]), tools=[write], accept_truncated=True)
    result = await accepted.run("go")
    assert ran == ["a"]
    assert (result.text, result.finish_reason) == ("done", "stop")


async def test_content_filter_fails_even_when_truncation_is_accepted() -> None:
    provider = ScriptedProvider([[text("I can"), finish("content_filter", "SAFETY")]])
    agent = Agent(provider, accept_truncated=True)
    with pytest.raises(ContentFilterError) as caught:
        await agent.run("q")
    assert (caught.value.provider, caught.value.vendor_type) == ("scripted", "SAFETY")
    assert isinstance(caught.value, ProviderError)
    assert not caught.value.recoverable
    last = agent.history[-1]
    assert isinstance(last, AssistantMessage)
    assert last.finish_reason == "content_filter"


async def test_forced_summary_is_checked_before_the_empty_answer_fallback() -> None:
    looping = [tool_call("c1", "write", {"path": "a"})]
    summary = [finish("length", "max_tokens")]  # no text at all
    agent = Agent(ScriptedProvider([looping, summary]), tools=[write], max_rounds=1)
    with pytest.raises(TruncatedResponseError):
        await agent.run("go")

    accepting = Agent(
        ScriptedProvider([looping, summary]), tools=[write], max_rounds=1, accept_truncated=True
    )
    result = await accepting.run("go")
    assert result.text == accepting.texts.summary_fallback
    assert (result.finish_reason, result.raw_finish_reason) == ("length", "max_tokens")


async def test_a_truncated_structured_answer_is_not_retried_as_invalid_output() -> None:
    class City(BaseModel):
        name: str

    provider = ScriptedProvider([[text('{"name": "Os'), finish("length")], '{"name": "Oslo"}'])
    with pytest.raises(TruncatedResponseError):
        await Agent(provider).run("q", output_type=City)
    assert len(provider.requests) == 1  # no output-retry round on a cut answer


async def test_a_journaled_refused_run_records_failed() -> None:
    journal = MemoryJournal()
    provider = ScriptedProvider([[text("x"), finish("content_filter")]])
    agent = Agent(provider, journal=journal)
    with pytest.raises(ContentFilterError):
        await agent.run("q", run_id="run_refused")
    run = await journal.load_run("run_refused")
    assert run is not None
    assert run.outcome == "failed"


async def test_a_stream_without_a_final_event_is_a_malformed_response() -> None:
    sink = Recorder()
    provider = ScriptedProvider([[text("par"), cut()], "never"])
    agent = Agent(provider, sinks=[sink])
    with pytest.raises(MalformedResponseError) as caught:
        await agent.run("q")
    assert (caught.value.provider, caught.value.missing) == ("scripted", "final response event")
    assert len(provider.requests) == 1
    last = agent.history[-1]
    assert isinstance(last, AssistantMessage)
    assert last.interrupted
    assert last.text == "par"
    rounds = [e.outcome for e in sink.events if isinstance(e, RoundCompleted)]
    assert rounds == ["failure"]


async def test_other_finish_reasons_are_used_as_answers() -> None:
    provider = ScriptedProvider([[text("fine"), finish("other", "pause_turn")]])
    result = await Agent(provider).run("q")
    assert (result.text, result.finish_reason, result.raw_finish_reason) == (
        "fine",
        "other",
        "pause_turn",
    )
    assert isinstance(result.new_messages[0], UserMessage)


def test_outcome_and_capabilities_docstrings_run() -> None:
    for module in (outcome_module, capabilities):
        failures, _ = doctest.testmod(module, raise_on_error=False)
        assert failures == 0
