"""Round budget with forced summary, context guard, tool-result budget (seed 000, "Execution
Loop and Error Handling")."""

from __future__ import annotations

import pytest
from robota.core.agent import Agent, ContextGuardTripped, RoundCompleted
from robota.core.errors import ContextWindowExceededError, RateLimitError
from robota.core.events import Event
from robota.core.messages import AssistantMessage, ToolResultMessage, UserMessage
from robota.core.testing.scripted import ScriptedProvider, fail, text, tool_call, usage
from robota.core.tools.function import tool


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)


@tool
async def echo(text: str) -> str:
    """Echo the text."""
    return f"echo:{text}"


def looping(n: int) -> list[list[object]]:
    return [[tool_call(str(i), "echo", {"text": str(i)})] for i in range(n)]


@pytest.mark.anyio
async def test_round_budget_forces_one_summary_without_tools() -> None:
    sink = Recorder()
    provider = ScriptedProvider([*looping(2), "summary of work"])  # type: ignore[list-item]
    agent = Agent(provider, tools=[echo], max_rounds=2, sinks=[sink])
    result = await agent.run("go")
    assert result.text == "summary of work"
    assert result.rounds == 3
    summary = provider.requests[2]
    assert summary.tools == ()
    assert summary.settings.tool_choice == "none"
    last = summary.messages[-1]
    assert isinstance(last, UserMessage)
    assert last.parts[0].text.startswith("The step limit for this task has been reached.")  # type: ignore[union-attr]
    # The instruction never enters history.
    assert [m.kind for m in agent.history] == [
        "user",
        "assistant",
        "tool_results",
        "assistant",
        "tool_results",
        "assistant",
    ]
    kinds = [e.kind for e in sink.events if isinstance(e, RoundCompleted)]
    assert kinds == ["normal", "normal", "summary"]


@pytest.mark.anyio
async def test_run_level_budget_wins_and_empty_summary_returns_fallback() -> None:
    provider = ScriptedProvider([*looping(1), [tool_call("x", "echo", {"text": "t"})]])  # type: ignore[list-item]
    agent = Agent(provider, tools=[echo], max_rounds=10)
    result = await agent.run("go", max_rounds=1)
    assert result.text == "The step limit was reached before a final answer was produced."
    # Tool calls in the summary are never dispatched nor kept.
    last = agent.history[-1]
    assert isinstance(last, AssistantMessage)
    assert last.tool_calls == ()
    assert sum(isinstance(m, ToolResultMessage) for m in agent.history) == 1


@pytest.mark.anyio
async def test_summary_failure_fails_the_run_with_its_error() -> None:
    error = RateLimitError("busy", provider="scripted", status=429)
    provider = ScriptedProvider([*looping(1), [fail(error)]])  # type: ignore[list-item]
    agent = Agent(provider, tools=[echo], max_rounds=1, retry=None)  # the raw failure
    with pytest.raises(RateLimitError):
        await agent.run("go")


@pytest.mark.anyio
async def test_zero_round_budget_means_no_cap() -> None:
    provider = ScriptedProvider([*looping(30), "finally"])  # type: ignore[list-item]
    agent = Agent(provider, tools=[echo], max_rounds=0, max_identical_tool_calls=0)
    result = await agent.run("go")
    assert result.text == "finally"
    assert result.rounds == 31


@pytest.mark.anyio
async def test_context_guard_refuses_an_oversized_request() -> None:
    sink = Recorder()
    provider = ScriptedProvider(["never"], context_window=100)
    agent = Agent(provider, sinks=[sink])
    with pytest.raises(ContextWindowExceededError) as caught:
        await agent.run("x" * 2000)
    assert provider.requests == []
    assert caught.value.context_window == 100
    assert caught.value.estimated_tokens is not None
    assert caught.value.estimated_tokens > 95
    assert "exceeds 95% of the 100-token context window" in caught.value.message
    tripped = [e for e in sink.events if isinstance(e, ContextGuardTripped)]
    assert [e.stage for e in tripped] == ["pre_send"]


@pytest.mark.anyio
async def test_context_guard_uses_reported_usage_not_a_sum() -> None:
    # The provider reports 900 input tokens; the next small request is estimated from that
    # report plus what was added since, and 900+ tokens crosses 95% of a 1000 window.
    provider = ScriptedProvider(
        [[text("a"), usage(input_tokens=900)], [text("b"), usage(input_tokens=10)], "c"],
        context_window=1000,
    )
    agent = Agent(provider)
    await agent.run("first")
    with pytest.raises(ContextWindowExceededError):
        await agent.run("second " + "y" * 400)
    # Without the big report, a later small request passes: usage is never summed.
    provider2 = ScriptedProvider(
        [[text("a"), usage(input_tokens=400)], [text("b"), usage(input_tokens=420)], "c"],
        context_window=1000,
    )
    agent2 = Agent(provider2)
    for prompt in ("1", "2", "3"):
        await agent2.run(prompt)
    assert len(provider2.requests) == 3


@pytest.mark.anyio
async def test_context_guard_is_off_for_an_unknown_window() -> None:
    agent = Agent(ScriptedProvider(["ok"], context_window=None))
    assert (await agent.run("x" * 100_000)).text == "ok"


@pytest.mark.anyio
async def test_tool_result_budget_replaces_later_results_and_the_loop_continues() -> None:
    sink = Recorder()

    @tool
    async def big(n: int) -> str:
        """Return a lot of text."""
        return "z" * 1000

    calls = [tool_call(str(i), "big", {"n": i}) for i in range(3)]
    provider = ScriptedProvider([calls, "saw it"], context_window=1000)
    agent = Agent(provider, tools=[big], sinks=[sink])
    result = await agent.run("go")
    assert result.text == "saw it"
    batch = agent.history[2]
    assert isinstance(batch, ToolResultMessage)
    notice = "Tool result omitted: the conversation is close to the model's context window."
    assert [r.text[:3] for r in batch.results[:2]] == ["zzz", "zzz"]
    assert [(r.text, r.is_error) for r in batch.results[2:]] == [(notice, True)]
    tripped = [e for e in sink.events if isinstance(e, ContextGuardTripped)]
    assert [e.stage for e in tripped] == ["tool_result_budget"]
