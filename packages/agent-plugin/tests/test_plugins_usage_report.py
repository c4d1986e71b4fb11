"""UsageReport over real Agent runs; genai_price from the genai-prices table."""

from __future__ import annotations

from decimal import Decimal

import pytest
from robota.core.agent import Agent
from robota.core.errors import RateLimitError
from robota.core.testing.scripted import ScriptedProvider, fail, text, usage
from robota.core.usage import Usage
from robota.plugins.pricing import genai_price
from robota.plugins.usage_report import UsageReport


def _flat(model: str, used: Usage) -> Decimal | None:
    """$1 per thousand tokens for the main model; the cheap one is unknown."""
    return None if model == "cheap" else Decimal(used.total_tokens) / 1000


@pytest.mark.anyio
async def test_report_tallies_models_and_runs_with_cost() -> None:
    provider = ScriptedProvider(
        [
            [text("a"), usage(input_tokens=1200, output_tokens=300, cache_read_tokens=800)],
            [text("b"), usage(input_tokens=100, output_tokens=10)],
            [fail(RateLimitError("slow", provider="scripted"))],
        ]
    )
    report = UsageReport(price=_flat)
    agent = Agent(provider, sinks=[report], retry=None)  # run three fails, not retried

    first = await agent.run("one")
    second = await agent.run("two")
    with pytest.raises(RateLimitError):
        await agent.run("three")

    data = report.to_dict()
    assert data["total"] == {
        "requests": 2,
        "input_tokens": 1300,
        "output_tokens": 310,
        "total_tokens": 1610,
        "cache_read_tokens": 800,
        "cache_write_tokens": 0,
        "reasoning_tokens": 0,
        "cost_usd": "1.61",
        "unpriced_requests": 0,
    }
    assert list(report.models) == ["scripted-model"]
    assert [
        (report.run_status[run_id], tally.requests, tally.cost_usd)
        for run_id, tally in report.runs.items()
    ] == [
        ("completed", 1, Decimal("1.5")),
        ("completed", 1, Decimal("0.11")),
        ("failed", 0, Decimal(0)),
    ]
    assert list(report.runs)[:2] == [first.run_id, second.run_id]
    rendered = report.render().splitlines()
    assert rendered[0] == "Usage: 2 requests, 1,300 in (800 cached), 310 out, 1,610 total, $1.61"
    assert rendered[1:3] == ["By model:", "  scripted-model: " + rendered[0][len("Usage: ") :]]
    assert rendered[3] == "By run:"
    assert rendered[4] == (
        f"  {first.run_id} (completed): 1 request, 1,200 in (800 cached), 300 out, "
        "1,500 total, $1.5"
    )
    assert rendered[6].endswith("(failed): 0 requests, 0 in, 0 out, 0 total, $0")


def test_unpriced_models_are_counted_apart_and_no_price_means_no_cost() -> None:
    from robota.core.agent.events import ModelResponded
    from robota.core.events import OwnerPath
    from robota.core.messages import AssistantMessage

    priced = UsageReport(price=_flat)
    unpriced = UsageReport()
    for report in (priced, unpriced):
        report.emit(
            ModelResponded(
                owner=OwnerPath().child("agent", "a").child("run", "r1").child("round", "1"),
                message=AssistantMessage(parts=()),
                usage=Usage(input_tokens=10, output_tokens=5, requests=1),
                model="cheap",
            )
        )
    assert priced.to_dict()["total"] == {
        "requests": 1,
        "input_tokens": 10,
        "output_tokens": 5,
        "total_tokens": 15,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
        "reasoning_tokens": 0,
        "cost_usd": "0",
        "unpriced_requests": 1,
    }
    total = unpriced.to_dict()["total"]
    assert isinstance(total, dict)
    assert "cost_usd" not in total
    assert unpriced.render().splitlines()[0] == "Usage: 1 request, 10 in, 5 out, 15 total"
    assert priced.render().splitlines()[0].endswith("$0 (+1 unpriced)")
    unpriced.reset()
    assert unpriced.render() == "Usage: 0 requests, 0 in, 0 out, 0 total"


def test_genai_price_prices_known_models_and_not_unknown_ones() -> None:
    price = genai_price("anthropic")
    # claude-sonnet-4-5 up to 200k input tokens: $3 per million input, $15 per million output.
    assert price("claude-sonnet-4-5", Usage(input_tokens=100_000, output_tokens=10_000)) == (
        Decimal("0.45")
    )
    # Past 200k input tokens the long-context tier applies: $6 and $22.50 per million.
    assert price("claude-sonnet-4-5", Usage(input_tokens=1_000_000, output_tokens=100_000)) == (
        Decimal("8.25")
    )
    assert price("no-such-model", Usage(input_tokens=1)) is None
    assert price("", Usage(input_tokens=1)) is None
