"""Tool retry texts say one thing (issue 17) and a tool body may raise ModelRetry; both count
against the tool's ``max_retries`` (the real loop, reading the committed result text)."""

from __future__ import annotations

import pytest
from robota.core.agent import Agent
from robota.core.errors import ModelRetry
from robota.core.messages import ToolResultMessage
from robota.core.testing.scripted import ScriptedProvider, tool_call
from robota.core.tools.function import tool


def result_texts(agent: Agent) -> list[str]:
    return [m.results[0].text for m in agent.history if isinstance(m, ToolResultMessage)]


@pytest.mark.anyio
async def test_invalid_arguments_say_retry_then_only_stop() -> None:
    @tool(max_retries=1)
    async def echo(text: str) -> str:
        """Echo."""
        return text

    provider = ScriptedProvider(
        [[tool_call(str(i), "echo", {"wrong": i})] for i in range(3)] + ["done"]
    )
    agent = Agent(provider, tools=[echo])
    await agent.run("go")
    first, second, third = result_texts(agent)
    assert first.startswith("Invalid arguments for tool 'echo':\n- ")
    assert "call 'echo' again (1 retry(s) left" in first
    assert "stop" not in first
    for spent in (second, third):
        assert spent.endswith("The retry limit for tool 'echo' is spent: stop calling it.")
        assert "again" not in spent
        assert "Correct" not in spent


@pytest.mark.anyio
async def test_model_retry_in_a_tool_body_counts_against_its_budget() -> None:
    seen: list[int] = []

    @tool(max_retries=2)
    async def pick(n: int) -> str:
        """Pick a number."""
        seen.append(n)
        if n < 3:
            raise ModelRetry(f"{n} is too small")
        return f"picked {n}"

    provider = ScriptedProvider(
        [[tool_call(str(n), "pick", {"n": n})] for n in (1, 2, 0, 5)] + ["done"]
    )
    agent = Agent(provider, tools=[pick])
    await agent.run("go")
    texts = result_texts(agent)
    assert seen == [1, 2, 0, 5]  # the body runs; ModelRetry only shapes the result
    assert texts[0] == (
        "Tool 'pick' asks for a retry:\n1 is too small\n"
        "Fix the problem and call 'pick' again (2 retry(s) left for this tool)."
    )
    assert "(1 retry(s) left" in texts[1]
    assert texts[2].endswith("stop calling it.")
    assert "again" not in texts[2]
    assert texts[3] == "picked 5"
    errors = [m.results[0].is_error for m in agent.history if isinstance(m, ToolResultMessage)]
    assert errors == [True, True, True, False]
