"""Hosted tools from an Agent over the real OpenAI adapters: the Responses request carries
OpenAI's tool entry, the recorded answer comes back, the hosted call is reported in events and
usage; a hosted tool the model is stated not to offer, or the surface cannot encode, fails before
any HTTP request (seed 000, "Provider Capabilities")."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from _openai_recorded import cassette_root  # pyright: ignore[reportImplicitRelativeImport]
from robota.core import HostedTool
from robota.core.agent import Agent, HostedToolCalled
from robota.core.errors import UnsupportedCapabilityError
from robota.core.messages import AssistantMessage, HostedToolResultPart, ToolCallPart
from robota.core.testing.cassette import load_cassette
from robota.core.testing.recording import EventRecorder, RecordingTransport
from robota.providers.openai import OpenAIChatProvider, OpenAIResponsesProvider


def _text(answer: dict[str, Any]) -> str:
    return "".join(
        c["text"]
        for item in answer["output"]
        if item["type"] == "message"
        for c in item["content"]
        if c["type"] == "output_text"
    )


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("cassette", "hosted", "entry"),
    [
        ("test_openai_responses_model_web_search_tool.yaml", "web_search", {"type": "web_search"}),
        (
            "test_openai_responses_thinking_with_code_execution_tool.yaml",
            "code_execution",
            {"type": "code_interpreter", "container": {"type": "auto"}},
        ),
    ],
)
async def test_agent_hosted_tool_round_trip(
    cassette: str, hosted: str, entry: dict[str, Any]
) -> None:
    recorded = load_cassette(cassette_root() / "test_openai_responses" / cassette)
    transport = RecordingTransport(recorded.transport())
    provider = OpenAIResponsesProvider(
        "k",
        base_url="https://api.openai.com/v1",
        http_client=httpx.AsyncClient(transport=transport),
        streaming=False,
    )
    sink = EventRecorder()
    agent = Agent(provider, model="gpt-5", hosted_tools=[HostedTool(hosted)], sinks=[sink])

    result = await agent.run("question")

    (request,) = transport.requests
    assert json.loads(request.content)["tools"] == [entry]
    assert result.text == _text(recorded.interactions[0].json)
    (message,) = [m for m in result.new_messages if isinstance(m, AssistantMessage)]
    calls = [p for p in message.parts if isinstance(p, ToolCallPart)]
    assert [(c.name, c.hosted) for c in calls] == [(hosted, True)]
    assert any(isinstance(p, HostedToolResultPart) for p in message.parts)
    called = [e for e in sink.events if isinstance(e, HostedToolCalled)]
    assert [(e.name, e.call_id) for e in called] == [(hosted, calls[0].id)]
    assert result.usage.hosted_calls == {hosted: 1}


def _responses(transport: RecordingTransport) -> OpenAIResponsesProvider:
    return OpenAIResponsesProvider(
        "k",
        base_url="https://api.openai.com/v1",
        http_client=httpx.AsyncClient(transport=transport),
    )


def _chat(transport: RecordingTransport) -> OpenAIChatProvider:
    return OpenAIChatProvider(
        "k",
        base_url="https://api.openai.com/v1",
        http_client=httpx.AsyncClient(transport=transport),
    )


@pytest.mark.anyio
async def test_refusals_happen_before_any_request() -> None:
    transport = RecordingTransport()
    cases: list[tuple[OpenAIChatProvider | OpenAIResponsesProvider, str, HostedTool, str]] = [
        # the model table states it: the Agent refuses before the adapter is asked
        (_responses(transport), "gpt-4.1-nano", HostedTool.WEB_SEARCH, "it offers: code_execution"),
        (_responses(transport), "gpt-5", HostedTool.WEB_FETCH, "web_fetch"),
        (_chat(transport), "gpt-4o", HostedTool.WEB_SEARCH, "it offers: none"),
        # nobody stated the model's tools: the adapter refuses what its surface cannot encode
        (_chat(transport), "my-finetune", HostedTool.WEB_FETCH, "Chat Completions offers no"),
        (_responses(transport), "my-finetune", HostedTool.WEB_FETCH, "OpenAI runs no hosted"),
    ]
    for provider, model, hosted, message in cases:
        with pytest.raises(UnsupportedCapabilityError, match=message):
            await Agent(provider, model=model).run("hi", hosted_tools=[hosted])
    assert transport.requests == []


def test_chat_completions_states_no_hosted_tools_for_responses_models() -> None:
    chat = OpenAIChatProvider("k").capabilities("gpt-4.1")
    responses = OpenAIResponsesProvider("k").capabilities("gpt-4.1")
    assert chat.hosted_tools == frozenset()
    assert responses.hosted_tools == {HostedTool.WEB_SEARCH, HostedTool.CODE_EXECUTION}
