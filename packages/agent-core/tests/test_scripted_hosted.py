"""The scripted provider plays hosted tool calls the way the vendor adapters report them: a
``ToolCallPart(hosted=True)`` and a ``HostedToolResultPart`` in the response, counted in usage,
never dispatched locally (issue 17)."""

from __future__ import annotations

import pytest
from robota.core.agent import Agent
from robota.core.agent.events import HostedToolCalled, ToolCallStarted
from robota.core.capabilities import HostedTool, ModelCapabilities
from robota.core.messages import AssistantMessage, HostedToolResultPart, TextPart, ToolCallPart
from robota.core.provider import ModelRequest, ResponseCompleted, StreamEvent, ToolCallDelta
from robota.core.testing.recording import EventRecorder
from robota.core.testing.scripted import (
    ScriptedProvider,
    complete,
    hosted_result,
    text,
    tool_call,
    usage,
)
from robota.core.tools import tool

SEARCH = ModelCapabilities(hosted_tools=frozenset({HostedTool.WEB_SEARCH}))


def _searching() -> ScriptedProvider:
    return ScriptedProvider(
        [
            [
                tool_call("ws_1", "web_search", {"query": "robota"}, hosted=True),
                hosted_result("ws_1", "web_search", [{"url": "https://example.com/robota"}]),
                text("Robota is an agent SDK."),
                usage(input_tokens=20, output_tokens=6),
            ]
        ],
        capabilities=SEARCH,
    )


@pytest.mark.anyio
async def test_a_scripted_hosted_call_is_committed_reported_and_counted() -> None:
    local_calls: list[str] = []

    @tool
    def web_search(query: str) -> str:
        """A local tool sharing the hosted tool's name.

        Args:
            query: What to search for.
        """
        local_calls.append(query)
        return "local"

    provider = _searching()
    events = EventRecorder()
    agent = Agent(provider, tools=[web_search], hosted_tools=["web_search"], sinks=[events])
    result = await agent.run("What is Robota?")

    assert result.text == "Robota is an agent SDK."
    assert len(provider.requests) == 1
    assert provider.requests[0].hosted_tools == {HostedTool.WEB_SEARCH}
    answer = result.new_messages[-1]
    assert isinstance(answer, AssistantMessage)
    assert answer.parts == (
        ToolCallPart(
            id="ws_1",
            name="web_search",
            arguments={"query": "robota"},
            raw_arguments='{"query": "robota"}',
            hosted=True,
            provider="scripted",
        ),
        HostedToolResultPart(
            call_id="ws_1",
            name="web_search",
            content=[{"url": "https://example.com/robota"}],
            provider="scripted",
        ),
        TextPart(text="Robota is an agent SDK."),
    )
    assert answer.finish_reason == "stop"
    assert answer.tool_calls == ()
    assert [(e.call_id, e.name, e.round) for e in events.of(HostedToolCalled)] == [
        ("ws_1", "web_search", 1)
    ]
    assert dict(result.usage.hosted_calls) == {"web_search": 1}
    assert (result.usage.input_tokens, result.usage.requests) == (20, 1)
    assert local_calls == []
    assert events.of(ToolCallStarted) == []
    assert len(result.new_messages) == 2  # the prompt and the answer: no tool message


@pytest.mark.anyio
async def test_a_hosted_call_streams_no_tool_call_delta() -> None:
    provider = ScriptedProvider(
        [
            [
                tool_call("ws_1", "web_search", hosted=True),
                tool_call("c1", "lookup", {"k": 1}),
            ]
        ]
    )
    seen: list[StreamEvent] = []
    async for event in provider.stream(ModelRequest(model="m", messages=())):
        seen.append(event)
    deltas = [e for e in seen if isinstance(e, ToolCallDelta)]
    assert [(d.index, d.id) for d in deltas] == [(0, "c1")]
    final = seen[-1]
    assert isinstance(final, ResponseCompleted)
    assert final.response.finish_reason == "tool_calls"  # the local call, not the hosted one
    assert [c.id for c in final.response.message.tool_calls] == ["c1"]


@pytest.mark.anyio
async def test_usage_the_script_states_wins_over_the_counted_calls() -> None:
    provider = ScriptedProvider(
        [
            [
                tool_call("ws_1", "web_search", hosted=True),
                tool_call("ce_1", "code_execution", hosted=True),
                tool_call("fs_1", "file_search", hosted=True),  # no neutral name: not counted
                text("ok"),
                usage(details={"hosted.web_search": 3}),
            ]
        ]
    )
    result = await Agent(provider).run("go")
    assert dict(result.usage.hosted_calls) == {"web_search": 3, "code_execution": 1}


def test_a_hosted_result_after_complete_is_refused() -> None:
    provider = ScriptedProvider([[text("a"), complete(), hosted_result("ws_1", "web_search")]])
    with pytest.raises(ValueError, match="'hosted_result' step cannot follow complete"):
        Agent(provider).run_sync("go")
