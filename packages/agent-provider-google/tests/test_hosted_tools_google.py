"""Hosted tools from an Agent over the real Gemini adapter: the request carries Gemini's tool
entry, the recorded answer comes back, the hosted call is reported in events and usage; a
hosted tool the model is stated not to offer fails before any HTTP request (seed 000,
"Provider Capabilities")."""

from __future__ import annotations

import json

import httpx
import pytest
from _google_cassette_reader import cassette_root  # pyright: ignore[reportImplicitRelativeImport]
from robota.core import HostedTool
from robota.core.agent import Agent, HostedToolCalled
from robota.core.errors import UnsupportedCapabilityError
from robota.core.messages import AssistantMessage, HostedToolResultPart, ToolCallPart
from robota.core.testing.cassette import load_cassette
from robota.core.testing.recording import EventRecorder, RecordingTransport
from robota.providers.google import GoogleProvider


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("cassette", "model", "hosted", "entry", "streaming"),
    [
        (
            "test_google_model_web_search_tool.yaml",
            "gemini-2.5-pro",
            HostedTool.WEB_SEARCH,
            {"googleSearch": {}},
            False,
        ),
        (
            "test_google_model_web_fetch_tool_stream.yaml",
            "gemini-2.5-flash",
            HostedTool.WEB_FETCH,
            {"urlContext": {}},
            True,
        ),
    ],
)
async def test_agent_hosted_tool_round_trip(
    cassette: str, model: str, hosted: HostedTool, entry: dict[str, object], streaming: bool
) -> None:
    recorded = load_cassette(cassette_root() / "test_google" / cassette)
    transport = RecordingTransport(recorded.transport())
    provider = GoogleProvider(
        api_key="k", http_client=httpx.AsyncClient(transport=transport), streaming=streaming
    )
    sink = EventRecorder()
    agent = Agent(provider, model=model, hosted_tools=[hosted], sinks=[sink])

    result = await agent.run("question")

    (request,) = transport.requests
    assert json.loads(request.content)["tools"] == [entry]
    assert result.text
    (message,) = [m for m in result.new_messages if isinstance(m, AssistantMessage)]
    calls = [p for p in message.parts if isinstance(p, ToolCallPart)]
    assert calls
    assert all(c.hosted and c.name == hosted for c in calls)
    assert any(isinstance(p, HostedToolResultPart) for p in message.parts)
    called = [e for e in sink.events if isinstance(e, HostedToolCalled)]
    assert [(e.name, e.call_id) for e in called] == [(str(hosted), c.id) for c in calls]
    assert result.usage.hosted_calls == {str(hosted): len(calls)}


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("model", "hosted"),
    [
        ("gemini-2.0-flash-lite", HostedTool.WEB_SEARCH),
        ("gemini-2.0-flash", HostedTool.WEB_FETCH),
        ("gemini-1.5-pro", HostedTool.WEB_SEARCH),
    ],
)
async def test_a_hosted_tool_the_model_does_not_offer_fails_before_any_request(
    model: str, hosted: HostedTool
) -> None:
    transport = RecordingTransport()
    provider = GoogleProvider(api_key="k", http_client=httpx.AsyncClient(transport=transport))
    with pytest.raises(UnsupportedCapabilityError, match=str(hosted)):
        await Agent(provider, model=model, hosted_tools=[hosted]).run("hi")
    assert transport.requests == []
