"""ToolCallBudget as a gate of a real Agent."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from _plugin_helpers import TOOLS, Recorder  # pyright: ignore[reportImplicitRelativeImport]
from robota.core.agent import Agent
from robota.core.agent.events import ToolCallCompleted
from robota.core.errors import ConfigurationError
from robota.core.events import Event
from robota.core.testing.scripted import ScriptedProvider, text, tool_call
from robota.plugins.tool_budget import ToolBudgetExceeded, ToolCallBudget


def _texts(events: Sequence[Event]) -> list[tuple[str, bool, str]]:
    """(tool, executed, result text) of each completed call, sorted (a batch runs in parallel)."""
    out: list[tuple[str, bool, str]] = []
    for event in events:
        if isinstance(event, ToolCallCompleted):
            body = "".join(getattr(p, "text", "") for p in event.result.content)
            out.append((event.result.name, event.executed, body))
    return sorted(out)


@pytest.mark.anyio
async def test_calls_past_a_tools_limit_are_blocked_and_reported() -> None:
    provider = ScriptedProvider(
        [
            [
                tool_call("a", "web_fetch", {"url": "u1"}),
                tool_call("b", "web_fetch", {"url": "u2"}),
            ],
            [tool_call("c", "web_fetch", {"url": "u3"}), tool_call("d", "lookup", {"query": "q"})],
            [text("done")],
        ]
    )
    budget = ToolCallBudget({"web_fetch": 2, "*": 5})
    recorder = Recorder()
    agent = Agent(provider, tools=TOOLS, gates=[budget], sinks=[budget, recorder])

    await agent.run("go")

    assert _texts(recorder.events) == [
        ("lookup", True, "found q"),
        (
            "web_fetch",
            False,
            "Blocked: web_fetch may be called at most 2 times per run and this run has used "
            "all 2. Continue without calling web_fetch again.",
        ),
        ("web_fetch", True, "page u1"),
        ("web_fetch", True, "page u2"),
    ]
    exceeded = [e for e in recorder.events if isinstance(e, ToolBudgetExceeded)]
    assert [(e.tool, e.limit, e.count) for e in exceeded] == [("web_fetch", 2, 2)]
    assert exceeded[0].owner.find("tool_call") == exceeded[0].call_id


@pytest.mark.anyio
async def test_limits_start_over_in_each_run() -> None:
    provider = ScriptedProvider(
        [
            [tool_call("a", "lookup", {"query": "1"})],
            [text("one")],
            [tool_call("b", "lookup", {"query": "2"})],
            [text("two")],
        ]
    )
    budget = ToolCallBudget({"*": 1})
    recorder = Recorder()
    agent = Agent(provider, tools=TOOLS, gates=[budget], sinks=[budget, recorder])

    first = await agent.run("first")
    assert budget.count(first.run_id, "lookup") == 0  # forgotten once the run ended
    await agent.run("second")

    assert [executed for _, executed, _ in _texts(recorder.events)] == [True, True]


@pytest.mark.anyio
async def test_a_zero_limit_blocks_every_call_and_unlisted_tools_are_free() -> None:
    provider = ScriptedProvider(
        [
            [tool_call("a", "web_fetch", {"url": "u"}), tool_call("b", "lookup", {"query": "q"})],
            [text("done")],
        ]
    )
    budget = ToolCallBudget({"web_fetch": 0})
    recorder = Recorder()
    agent = Agent(provider, tools=TOOLS, gates=[budget], sinks=[recorder])

    result = await agent.run("go")

    assert [(name, executed) for name, executed, _ in _texts(recorder.events)] == [
        ("lookup", True),
        ("web_fetch", False),
    ]
    assert budget.count(result.run_id, "lookup") == 0  # unlimited tools are not counted
    assert budget.limit_for("lookup") is None


def test_negative_limits_are_refused() -> None:
    with pytest.raises(ConfigurationError):
        ToolCallBudget({"web_fetch": -1})
