"""Built-in checks of how a case ran (seed 002, "Evaluations": tool-called with arguments, max
cost / tokens / duration), on the messages and usage of real ``Agent`` runs."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from robota.core.agent import Agent
from robota.core.errors import MissingExtraError
from robota.core.messages import AssistantMessage, Message, TextPart, ToolCallPart, UserMessage
from robota.core.testing.scripted import ScriptedProvider, text, tool_call, usage
from robota.core.tools.base import RiskClass
from robota.core.tools.function import tool
from robota.core.usage import Usage
from robota.evals import Case, EvaluationReason, EvaluatorContext
from robota.evals.evaluators.base import run_evaluator
from robota.evals.evaluators.run_checks import (
    MaxCost,
    MaxDuration,
    MaxTokens,
    ToolCalled,
    ToolNotCalled,
)


@tool(risk=RiskClass.INSPECT)
def search(q: str, opts: dict[str, Any] | None = None) -> str:
    """Search.

    Args:
        q: The query.
        opts: Options.
    """
    return f"results for {q}"


def make_ctx(
    messages: tuple[Message, ...] = (),
    *,
    usage: Usage | None = None,
    duration: float = 0.5,
) -> EvaluatorContext[Any, Any]:
    return EvaluatorContext(
        case=Case(name="case-1", inputs="q"),
        case_index=0,
        repetition=0,
        output="done",
        duration=duration,
        usage=usage or Usage(),
        messages=messages,
    )


async def searched_twice() -> EvaluatorContext[Any, Any]:
    """A real run: two ``search`` calls in one turn, then the answer."""
    provider = ScriptedProvider(
        [
            [
                tool_call("c1", "search", {"q": "paris", "opts": {"limit": 5, "lang": "fr"}}),
                tool_call("c2", "search", {"q": "lyon"}),
                usage(input_tokens=100, output_tokens=20),
            ],
            [text("Paris."), usage(input_tokens=150, output_tokens=5)],
        ]
    )
    result = await Agent(provider, tools=[search]).run("Where?")
    return make_ctx(result.new_messages, usage=result.usage)


# --- ToolCalled / ToolNotCalled ---------------------------------------------------------------


@pytest.mark.anyio
async def test_tool_called_counts_the_calls_of_a_real_run() -> None:
    ctx = await searched_twice()
    assert [c.name for c in ctx.tool_calls] == ["search", "search"]
    assert await run_evaluator(ToolCalled("search"), ctx) == EvaluationReason(
        value=True, reason="'search' was called 2 times"
    )
    assert (await run_evaluator(ToolCalled("search", times=2), ctx)).value is True
    once = await run_evaluator(ToolCalled("search", times=1), ctx)
    assert once == EvaluationReason(
        value=False, reason="'search' was called 2 times, expected once"
    )


@pytest.mark.anyio
async def test_tool_called_matches_nested_argument_subsets() -> None:
    ctx = await searched_twice()
    nested = ToolCalled("search", {"opts": {"lang": "fr"}})
    assert await run_evaluator(nested, ctx) == EvaluationReason(
        value=True, reason='\'search\' with arguments {"opts": {"lang": "fr"}} was called once'
    )
    assert (await run_evaluator(ToolCalled("search", {"q": "lyon"}, times=1), ctx)).value is True
    wrong = await run_evaluator(ToolCalled("search", {"opts": {"lang": "en"}}), ctx)
    assert wrong == EvaluationReason(
        value=False,
        reason='\'search\' with arguments {"opts": {"lang": "en"}} was called 0 times; its calls '
        'had arguments [{"q": "paris", "opts": {"limit": 5, "lang": "fr"}}, {"q": "lyon"}]',
    )
    # values compare as data: 5 is not "5"
    assert (await run_evaluator(ToolCalled("search", {"opts": {"limit": "5"}}), ctx)).value is False


@pytest.mark.anyio
async def test_tool_called_names_the_tools_that_were_called_instead() -> None:
    ctx = await searched_twice()
    verdict = await run_evaluator(ToolCalled("fetch"), ctx)
    assert verdict == EvaluationReason(
        value=False, reason="'fetch' was called 0 times; tools called: [\"search\"]"
    )
    empty = await run_evaluator(ToolCalled("fetch"), make_ctx())
    assert empty.reason == "'fetch' was called 0 times; tools called: none"
    assert (await run_evaluator(ToolCalled("fetch", times=0), make_ctx())).value is True


@pytest.mark.anyio
async def test_unparsed_arguments_count_for_the_name_but_never_match_arguments() -> None:
    cut = ToolCallPart(id="c1", name="write", arguments=None, raw_arguments='{"path": "a')
    ctx = make_ctx((UserMessage.of("q"), AssistantMessage(parts=(TextPart(text="ok"), cut))))
    assert (await run_evaluator(ToolCalled("write"), ctx)).value is True
    verdict = await run_evaluator(ToolCalled("write", {"path": "a"}), ctx)
    assert verdict.value is False
    assert verdict.reason is not None
    assert verdict.reason.endswith('its calls had arguments ["{\\"path\\": \\"a"]')


@pytest.mark.anyio
async def test_tool_not_called() -> None:
    ctx = await searched_twice()
    assert await run_evaluator(ToolNotCalled("shell"), ctx) == EvaluationReason(
        value=True, reason="'shell' was not called"
    )
    called = await run_evaluator(ToolNotCalled("search"), ctx)
    assert called.value is False
    assert called.reason is not None
    assert called.reason.startswith("'search' was called 2 times")


def test_tool_called_refuses_a_negative_count() -> None:
    with pytest.raises(ValueError, match="times must be 0 or more"):
        ToolCalled("search", times=-1)


# --- MaxTokens / MaxDuration ------------------------------------------------------------------


@pytest.mark.anyio
async def test_max_tokens_on_the_usage_of_a_real_run() -> None:
    ctx = await searched_twice()
    assert ctx.usage.total_tokens == 275
    assert await run_evaluator(MaxTokens(total=275), ctx) == EvaluationReason(
        value=True, reason="total 275 <= 275 tokens"
    )
    over = await run_evaluator(MaxTokens(input=200, output=30), ctx)
    assert over == EvaluationReason(
        value=False, reason="input 250 > 200 tokens, output 25 <= 30 tokens"
    )


@pytest.mark.anyio
async def test_max_tokens_says_when_usage_is_partial() -> None:
    ctx = make_ctx(usage=Usage(input_tokens=10, output_tokens=5, partial=True))
    assert await run_evaluator(MaxTokens(20), ctx) == EvaluationReason(
        value=True,
        reason="total 15 <= 20 tokens (usage is partial: the provider did not attest complete "
        "counts)",
    )


def test_max_tokens_needs_a_bound() -> None:
    with pytest.raises(ValueError, match="at least one bound"):
        MaxTokens()
    with pytest.raises(ValueError, match="output must be a finite number of 0 or more"):
        MaxTokens(output=-1)


@pytest.mark.anyio
async def test_max_duration() -> None:
    assert await run_evaluator(MaxDuration(1), make_ctx(duration=0.25)) == EvaluationReason(
        value=True, reason="took 0.250 s <= 1 s"
    )
    assert (await run_evaluator(MaxDuration(0.1), make_ctx(duration=0.25))).value is False
    with pytest.raises(ValueError, match="seconds must be a finite number"):
        MaxDuration(float("nan"))


# --- MaxCost ----------------------------------------------------------------------------------


def priced(model: str | None, usage: Usage) -> EvaluatorContext[Any, Any]:
    return make_ctx((AssistantMessage(parts=(TextPart(text="ok"),), model=model),), usage=usage)


@pytest.mark.anyio
async def test_max_cost_prices_the_usage_at_the_models_rates() -> None:
    pytest.importorskip("genai_prices")
    ctx = priced("claude-sonnet-4-5", Usage(input_tokens=100_000, output_tokens=10_000))
    # $3 / M input, $15 / M output (genai-prices, anthropic)
    assert await run_evaluator(MaxCost(0.5, provider_id="anthropic"), ctx) == EvaluationReason(
        value=True, reason="cost $0.45 <= $0.5 (model claude-sonnet-4-5)"
    )
    over = await run_evaluator(MaxCost(0.4, provider_id="anthropic"), ctx)
    assert over == EvaluationReason(
        value=False, reason="cost $0.45 > $0.4 (model claude-sonnet-4-5)"
    )


@pytest.mark.anyio
async def test_max_cost_fails_closed_without_a_price() -> None:
    pytest.importorskip("genai_prices")
    unknown = await run_evaluator(MaxCost(1.0), priced("no-such-model", Usage(input_tokens=1)))
    assert unknown == EvaluationReason(value=False, reason="no price for model 'no-such-model'")
    nameless = await run_evaluator(MaxCost(1.0, provider_id="openai"), make_ctx())
    assert nameless == EvaluationReason(
        value=False,
        reason="no price for model None: the run names no model at provider 'openai'",
    )


@pytest.mark.anyio
async def test_max_cost_without_genai_prices_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(sys.modules, "robota.plugins.pricing", raising=False)
    monkeypatch.setitem(sys.modules, "genai_prices", None)  # import fails as if not installed
    with pytest.raises(MissingExtraError, match=r"robota-agent-plugin\[prices\]"):
        await run_evaluator(MaxCost(1.0), priced("gpt-5", Usage(input_tokens=1)))


def test_max_cost_refuses_a_negative_bound() -> None:
    with pytest.raises(ValueError, match="usd must be a finite number of 0 or more"):
        MaxCost(-0.01)
