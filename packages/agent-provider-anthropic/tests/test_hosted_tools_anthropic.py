"""Hosted tools from an Agent over the real Anthropic adapter: the request carries Anthropic's
tool entry, the recorded answer comes back, the hosted call is reported in events and usage;
a hosted tool the instance has not enabled fails before any HTTP request (seed 000, "Provider
Capabilities")."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from _anthropic_wire import cassette_root  # pyright: ignore[reportImplicitRelativeImport]
from robota.core import HostedTool
from robota.core.agent import Agent, HostedToolCalled
from robota.core.errors import UnsupportedCapabilityError
from robota.core.messages import AssistantMessage, HostedToolResultPart, ToolCallPart
from robota.core.testing.cassette import load_cassette
from robota.core.testing.recording import EventRecorder, RecordingTransport
from robota.providers.anthropic import AnthropicProvider


def _recorded(name: str) -> tuple[RecordingTransport, dict[str, Any]]:
    cassette = load_cassette(cassette_root() / "test_anthropic" / name)
    return RecordingTransport(cassette.transport()), cassette.interactions[0].json


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("cassette", "hosted", "entry", "beta"),
    [
        ("test_anthropic_web_search_tool.yaml", HostedTool.WEB_SEARCH, "web_search_20250305", None),
        (
            "test_anthropic_web_fetch_tool.yaml",
            HostedTool.WEB_FETCH,
            "web_fetch_20250910",
            "web-fetch-2025-09-10",
        ),
    ],
)
async def test_agent_hosted_tool_round_trip(
    cassette: str, hosted: HostedTool, entry: str, beta: str | None
) -> None:
    transport, answer = _recorded(cassette)
    provider = AnthropicProvider(api_key="k", http_client=httpx.AsyncClient(transport=transport))
    sink = EventRecorder()
    agent = Agent(provider, model="claude-sonnet-4-0", hosted_tools=[hosted], sinks=[sink])

    result = await agent.run("question")

    (request,) = transport.requests
    body = json.loads(request.content)
    tools = [{k: v for k, v in t.items() if k != "cache_control"} for t in body["tools"]]
    assert tools == [{"type": entry, "name": str(hosted)}]
    assert request.headers.get("anthropic-beta") == beta
    want = "".join(b["text"] for b in answer["content"] if b["type"] == "text")
    assert result.text == want
    (message,) = [m for m in result.new_messages if isinstance(m, AssistantMessage)]
    calls = [p for p in message.parts if isinstance(p, ToolCallPart)]
    assert [(c.name, c.hosted) for c in calls] == [(str(hosted), True)]
    assert any(isinstance(p, HostedToolResultPart) for p in message.parts)
    called = [e for e in sink.events if isinstance(e, HostedToolCalled)]
    assert [(e.name, e.call_id) for e in called] == [(str(hosted), calls[0].id)]
    # Anthropic states both counters on every answer (usage.server_tool_use)
    other = "web_fetch" if hosted is HostedTool.WEB_SEARCH else "web_search"
    assert result.usage.hosted_calls == {str(hosted): 1, other: 0}


@pytest.mark.anyio
async def test_a_hosted_tool_the_instance_has_not_enabled_fails_before_any_request() -> None:
    transport = RecordingTransport()
    provider = AnthropicProvider(
        api_key="k",
        http_client=httpx.AsyncClient(transport=transport),
        hosted_tools=[HostedTool.WEB_SEARCH],
    )
    agent = Agent(provider, model="claude-sonnet-4-5", hosted_tools=[HostedTool.CODE_EXECUTION])
    with pytest.raises(UnsupportedCapabilityError, match="code_execution"):
        await agent.run("hi")
    with pytest.raises(UnsupportedCapabilityError, match="web_fetch"):
        await Agent(provider, model="claude-sonnet-4-5").run("hi", hosted_tools=["web_fetch"])
    assert transport.requests == []


def test_every_listed_model_states_its_hosted_tools_with_a_source() -> None:
    provider = AnthropicProvider(api_key="k")
    infos = provider.models()
    assert infos
    for info in infos:
        assert info.capabilities.hosted_tools == frozenset(HostedTool), info.model
        assert "web-fetch-tool" in info.source
