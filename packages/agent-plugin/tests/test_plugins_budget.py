"""UsageBudget (sink + gate) and BudgetedProvider driving a real Agent."""

from __future__ import annotations

from decimal import Decimal

import pytest
from _plugin_helpers import TOOLS, Recorder  # pyright: ignore[reportImplicitRelativeImport]
from robota.core.agent import Agent
from robota.core.agent.events import RunFailed, ToolCallCompleted
from robota.core.errors import ConfigurationError, ErrorCategory, RobotaError
from robota.core.events import Event
from robota.core.testing.scripted import ScriptedProvider, text, tool_call, usage
from robota.core.usage import Usage
from robota.plugins.budget import BudgetedProvider, BudgetExceededError, UsageBudget


def _per_million(model: str, used: Usage) -> Decimal | None:
    """$3 per million input tokens and $15 per million output tokens; unknown models unpriced."""
    if model != "scripted-model":
        return None
    return (Decimal(used.input_tokens) * 3 + Decimal(used.output_tokens) * 15) / 1_000_000


@pytest.mark.anyio
async def test_spent_budget_denies_tools_and_lets_the_model_answer() -> None:
    provider = ScriptedProvider(
        [
            [tool_call("c1", "lookup", {"query": "a"}), usage(input_tokens=700, output_tokens=300)],
            [tool_call("c2", "lookup", {"query": "b"}), usage(input_tokens=900, output_tokens=50)],
            [text("Answer from what I have."), usage(input_tokens=1000, output_tokens=20)],
        ]
    )
    budget = UsageBudget(max_total_tokens=1000)
    recorder = Recorder()
    agent = Agent(provider, tools=TOOLS, gates=[budget], sinks=[budget, recorder])

    result = await agent.run("go")

    assert result.text == "Answer from what I have."
    completed = [e for e in recorder.events if isinstance(e, ToolCallCompleted)]
    # The first round used exactly 1000 tokens, so the budget was spent before any tool ran.
    assert [c.executed for c in completed] == [False, False]
    assert completed[0].result.is_error
    message = completed[0].result.content[0]
    assert "total tokens 1000 of 1000" in getattr(message, "text", "")
    assert "give your final answer now" in getattr(message, "text", "")
    assert budget.exceeded
    assert budget.exceeded_limits == ("total_tokens",)
    assert budget.used.total_tokens == 1000 + 950 + 1020
    assert budget.used.requests == 3
    assert budget.remaining.total_tokens == 0


@pytest.mark.anyio
async def test_tools_run_while_budget_remains() -> None:
    provider = ScriptedProvider(
        [
            [tool_call("c1", "lookup", {"query": "a"}), usage(input_tokens=10, output_tokens=5)],
            [text("done"), usage(input_tokens=20, output_tokens=5)],
        ]
    )
    budget = UsageBudget(max_input_tokens=100, max_output_tokens=100)
    recorder = Recorder()
    agent = Agent(provider, tools=TOOLS, gates=[budget], sinks=[budget, recorder])

    await agent.run("go")

    completed = [e for e in recorder.events if isinstance(e, ToolCallCompleted)]
    assert [c.executed for c in completed] == [True]
    assert not budget.exceeded
    remaining = budget.remaining
    assert (remaining.input_tokens, remaining.output_tokens) == (70, 90)
    assert (remaining.total_tokens, remaining.cost_usd) == (None, None)


@pytest.mark.anyio
async def test_budgeted_provider_refuses_the_next_call_before_calling_the_vendor() -> None:
    provider = ScriptedProvider(
        [
            [text("first"), usage(input_tokens=1_000_000, output_tokens=100_000)],
            [text("never sent")],
        ]
    )
    budget = UsageBudget(max_cost_usd="4.50", price=_per_million)
    recorder = Recorder()
    agent = Agent(BudgetedProvider(provider, budget, wrap_up_calls=0), sinks=[budget, recorder])

    first = await agent.run("one")
    assert first.text == "first"
    assert budget.cost_usd == Decimal("4.5")
    assert budget.remaining.cost_usd == Decimal(0)

    with pytest.raises(BudgetExceededError) as caught:
        await agent.run("two")

    error = caught.value
    assert isinstance(error, RobotaError)
    assert error.category is ErrorCategory.USER
    assert error.error_code == "budget_exceeded"
    assert error.limits == ("cost_usd",)
    assert error.cost_usd == Decimal("4.5")
    assert "cost 4.5 USD of 4.50 USD" in str(error)
    assert len(provider.requests) == 1  # the second call never reached the provider
    assert provider.remaining == 1
    failed = [e for e in recorder.events if isinstance(e, RunFailed)]
    assert len(failed) == 1


def test_unpriced_responses_are_counted_apart() -> None:
    budget = UsageBudget(max_cost_usd=1, price=_per_million)
    budget.record("other-model", Usage(input_tokens=5, requests=1))
    budget.record("scripted-model", Usage(input_tokens=1_000_000, requests=1))
    assert budget.unpriced_requests == 1
    assert budget.cost_usd == Decimal(3)
    assert budget.exceeded_limits == ("cost_usd",)


def test_a_failing_price_function_is_recorded_not_raised() -> None:
    def broken(model: str, used: Usage) -> Decimal | None:
        raise ValueError("price table unavailable")

    budget = UsageBudget(max_cost_usd=1, price=broken)
    budget.record("m", Usage(input_tokens=5, requests=1))
    assert budget.used.input_tokens == 5
    assert budget.unpriced_requests == 1
    assert [(f.plugin, f.stage, str(f.error)) for f in budget.failures] == [
        ("UsageBudget", "price", "price table unavailable")
    ]


def test_emit_never_raises_and_ignores_other_events() -> None:
    budget = UsageBudget(max_total_tokens=10)
    budget.emit(Event())
    assert budget.used == Usage()
    assert budget.failures == ()


def test_reset_restores_the_budget() -> None:
    budget = UsageBudget(max_output_tokens=10)
    budget.record("m", Usage(output_tokens=10, requests=1))
    assert budget.exceeded
    budget.reset()
    assert not budget.exceeded
    assert budget.remaining.output_tokens == 10


def test_invalid_configuration_is_refused() -> None:
    with pytest.raises(ConfigurationError):
        UsageBudget(max_cost_usd=5)
    with pytest.raises(ConfigurationError):
        UsageBudget(max_total_tokens=-1)


@pytest.mark.anyio
async def test_gate_and_provider_together_let_the_model_wrap_up_once() -> None:
    provider = ScriptedProvider(
        [
            [tool_call("c1", "lookup", {"query": "a"}), usage(input_tokens=900, output_tokens=200)],
            [text("Here is what I have."), usage(input_tokens=1000, output_tokens=30)],
            [text("never sent")],
        ]
    )
    budget = UsageBudget(max_total_tokens=1000)
    recorder = Recorder()
    agent = Agent(
        BudgetedProvider(provider, budget), tools=TOOLS, gates=[budget], sinks=[budget, recorder]
    )

    result = await agent.run("research")
    assert result.text == "Here is what I have."
    assert [e.executed for e in recorder.events if isinstance(e, ToolCallCompleted)] == [False]

    with pytest.raises(BudgetExceededError):
        await agent.run("more")
    assert len(provider.requests) == 2

    budget.reset()
    assert (await agent.run("after reset")).text == "never sent"


def test_a_negative_wrap_up_allowance_is_refused() -> None:
    with pytest.raises(ConfigurationError):
        BudgetedProvider(ScriptedProvider([]), UsageBudget(), wrap_up_calls=-1)
