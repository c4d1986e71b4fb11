"""Outsider attacks on issue 17's hosted tools (checked before any request, run-level
overrides, wrappers, summary rounds, usage) and on tool ``ModelRetry`` budgets and texts.

``# HOLE:`` marks a test that fails now; ``# HELD`` an attack the code withstood.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest
from pydantic import BaseModel
from robota.core.agent import Agent
from robota.core.agent.events import HostedToolCalled
from robota.core.capabilities import HostedTool, ModelCapabilities
from robota.core.errors import ConfigurationError, ModelRetry, UnsupportedCapabilityError
from robota.core.messages import HostedToolResultPart, ToolCallPart, ToolResultMessage
from robota.core.provider import ModelRequest, ResponseCompleted, StreamEvent
from robota.core.retry import RetryingProvider
from robota.core.testing.recording import EventRecorder
from robota.core.testing.scripted import ScriptedProvider, tool_call, usage
from robota.core.tools.function import tool
from robota.core.usage import Usage

SEARCH_ONLY = ModelCapabilities(hosted_tools=frozenset({HostedTool.WEB_SEARCH}))
NONE_OFFERED = ModelCapabilities(hosted_tools=frozenset())


class Searching(ScriptedProvider):
    """Every response carries one hosted web search the vendor ran, counted in its usage."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        async for event in super().stream(request):
            if isinstance(event, ResponseCompleted):
                message = event.response.message
                n = len(self.requests)
                parts = (
                    ToolCallPart(id=f"ws_{n}", name="web_search", arguments={}, hosted=True),
                    HostedToolResultPart(call_id=f"ws_{n}", name="web_search", content=[]),
                    *message.parts,
                )
                used = (message.usage or Usage()).with_hosted_calls({"web_search": 1})
                message = replace(message, parts=parts, usage=used)
                response = replace(event.response, message=message, usage=used)
                event = ResponseCompleted(response=response)
            yield event


# --- refusal before any request -------------------------------------------------------------


def test_unknown_hosted_tool_name_fails_at_construction() -> None:
    # HELD: a misspelled name is a ConfigurationError naming the known tools.
    with pytest.raises(ConfigurationError, match="web_search"):
        Agent(ScriptedProvider(["x"]), hosted_tools=["web_serch"])  # pyright: ignore[reportArgumentType]
    with pytest.raises(ConfigurationError):
        Agent(ScriptedProvider(["x"]), hosted_tools=[42])  # type: ignore[list-item]


@pytest.mark.anyio
async def test_unknown_hosted_tool_name_per_run_sends_nothing() -> None:
    # HELD
    provider = ScriptedProvider(["x"])
    agent = Agent(provider)
    with pytest.raises(ConfigurationError):
        await agent.run("q", hosted_tools=["WEB_SEARCH "])  # pyright: ignore[reportArgumentType]
    assert provider.requests == []
    assert agent.history == ()


@pytest.mark.anyio
async def test_refused_hosted_tool_sends_zero_requests() -> None:
    # HELD: a tool the model is stated not to offer fails before the transport.
    provider = ScriptedProvider(["x"], capabilities=SEARCH_ONLY)
    agent = Agent(provider, hosted_tools=[HostedTool.CODE_EXECUTION])
    with pytest.raises(UnsupportedCapabilityError, match="code_execution"):
        await agent.run("q")
    assert provider.requests == []


@pytest.mark.anyio
async def test_refused_hosted_tool_leaves_history_untouched_like_a_refused_setting() -> None:
    # HOLE: an unsupported setting is refused before the prompt is committed (history stays
    # empty), but an unsupported hosted tool is checked only when the first request is built,
    # after the prompt was appended: a run that never reached the network leaves a dangling
    # user message, and the next run sends it as if it had been asked.
    provider = ScriptedProvider(["x", "y"], capabilities=NONE_OFFERED)
    agent = Agent(provider)
    with pytest.raises(UnsupportedCapabilityError):
        await agent.run("first", hosted_tools=[HostedTool.WEB_SEARCH])
    assert provider.requests == []
    assert agent.history == ()


@pytest.mark.anyio
async def test_retrying_wrapper_does_not_hide_stated_capabilities() -> None:
    # HELD: DelegatingProvider forwards capabilities: a wrapped provider refuses too.
    inner = ScriptedProvider(["x"], capabilities=NONE_OFFERED)
    agent = Agent(RetryingProvider(inner), hosted_tools=["web_fetch"], retry=None)
    with pytest.raises(UnsupportedCapabilityError):
        await agent.run("q")
    assert inner.requests == []


@pytest.mark.anyio
async def test_unknown_caps_send_the_tools_and_run_override_replaces_them() -> None:
    # HELD: silence is not a denial; a run's hosted_tools= replaces the agent's, [] clears them.
    provider = ScriptedProvider(["a", "b", "c"])
    agent = Agent(provider, hosted_tools=[HostedTool.WEB_SEARCH])
    await agent.run("1")
    await agent.run("2", hosted_tools=[])
    await agent.run("3", hosted_tools=["code_execution"])
    assert [r.hosted_tools for r in provider.requests] == [
        frozenset({HostedTool.WEB_SEARCH}),
        frozenset(),
        frozenset({HostedTool.CODE_EXECUTION}),
    ]


@pytest.mark.anyio
async def test_run_override_to_an_unsupported_tool_is_refused_before_any_request() -> None:
    # HELD
    provider = ScriptedProvider(["a"], capabilities=SEARCH_ONLY)
    agent = Agent(provider, hosted_tools=[HostedTool.WEB_SEARCH])
    with pytest.raises(UnsupportedCapabilityError):
        await agent.run("q", hosted_tools=[HostedTool.WEB_SEARCH, HostedTool.WEB_FETCH])
    assert provider.requests == []


@pytest.mark.anyio
async def test_summary_round_carries_no_hosted_tools() -> None:
    # HELD: the forced summary (tool_choice none) drops hosted tools.
    @tool
    def step() -> str:
        """Step."""
        return "ok"

    provider = ScriptedProvider([[tool_call("c1", "step")], "summary"], capabilities=SEARCH_ONLY)
    agent = Agent(provider, tools=[step], hosted_tools=["web_search"], max_rounds=1)
    result = await agent.run("q")
    assert result.text == "summary"
    assert [r.hosted_tools for r in provider.requests] == [
        frozenset({HostedTool.WEB_SEARCH}),
        frozenset(),
    ]


# --- usage and events -------------------------------------------------------------------------


class Answer(BaseModel):
    city: str


@pytest.mark.anyio
async def test_hosted_calls_are_counted_once_per_round_across_output_retries() -> None:
    # HELD: two rounds (one output retry), one hosted search each: usage says 2, events say 2.
    provider = Searching(
        [["not json", usage(input_tokens=5, output_tokens=1)], ['{"city": "Oslo"}']],
        capabilities=SEARCH_ONLY,
    )
    sink = EventRecorder()
    agent = Agent(provider, output_type=Answer, hosted_tools=["web_search"], sinks=[sink])
    result = await agent.run("q")
    assert result.output == Answer(city="Oslo")
    assert dict(result.usage.hosted_calls) == {"web_search": 2}
    assert result.usage.requests == 2
    assert all(v >= 0 for v in result.usage.details.values())
    events = [e for e in sink.events if isinstance(e, HostedToolCalled)]
    assert [(e.round, e.call_id) for e in events] == [(1, "ws_1"), (2, "ws_2")]


# --- tool ModelRetry ------------------------------------------------------------------------------


def texts_of(agent: Agent[Any, Any]) -> list[list[str]]:
    return [[r.text for r in m.results] for m in agent.history if isinstance(m, ToolResultMessage)]


def says_both(text: str) -> bool:
    return "again" in text and "stop" in text


@pytest.mark.anyio
async def test_invalid_arguments_and_model_retry_share_one_budget() -> None:
    # HELD: one invalid call + one ModelRetry with max_retries=1: "1 left" then only "stop".
    @tool(max_retries=1)
    def pick(n: int) -> str:
        """Pick."""
        raise ModelRetry("nope")

    provider = ScriptedProvider(
        [[tool_call("a", "pick", {"n": "x"})], [tool_call("b", "pick", {"n": 1})], "done"]
    )
    agent = Agent(provider, tools=[pick])
    await agent.run("q")
    (first,), (second,) = texts_of(agent)
    assert "1 retry(s) left" in first
    assert "stop" not in first
    assert second.endswith("stop calling it.")
    assert "again" not in second


@pytest.mark.anyio
async def test_one_batch_never_tells_the_model_both_to_call_again_and_to_stop() -> None:
    # HOLE: three parallel calls of one tool in one response, each raising ModelRetry, with
    # max_retries=1: the single tool-result message the model reads says "call 'pick' again
    # (1 retry(s) left)" for the first call and "stop calling it" for the others — the two
    # contradicting instructions issue 17 set out to remove, now side by side in one turn.
    @tool(max_retries=1)
    async def pick(n: int) -> str:
        """Pick."""
        raise ModelRetry(f"{n} is wrong")

    provider = ScriptedProvider([[tool_call(str(i), "pick", {"n": i}) for i in range(3)], "done"])
    agent = Agent(provider, tools=[pick])
    await agent.run("q")
    (batch,) = texts_of(agent)
    assert not any(says_both(t) for t in batch)  # each result alone is consistent (HELD)
    joined = "\n".join(batch)
    assert not ("again" in joined and "stop calling" in joined), batch


@pytest.mark.anyio
async def test_huge_model_retry_from_a_tool_is_kept_whole_and_the_advice_follows() -> None:
    # HELD: a 200 kB ModelRetry message is passed through; the advice is still appended.
    huge = "z" * 200_000

    @tool(max_retries=0)
    def pick(n: int) -> str:
        """Pick."""
        raise ModelRetry(huge)

    provider = ScriptedProvider([[tool_call("a", "pick", {"n": 1})], "done"])
    agent = Agent(provider, tools=[pick])
    await agent.run("q")
    ((text,),) = texts_of(agent)
    assert huge in text
    assert text.endswith("stop calling it.")
