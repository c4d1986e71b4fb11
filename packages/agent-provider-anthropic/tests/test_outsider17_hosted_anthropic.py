"""Outsider attack (issue 17): a model nobody describes (hosted tools unknown) behind the
Agent's default retrying wrapper still fails before any HTTP request when the Anthropic instance
has not enabled the hosted tool; the refusal is not retried."""

from __future__ import annotations

import httpx
import pytest
from robota.core import HostedTool
from robota.core.agent import Agent
from robota.core.errors import UnsupportedCapabilityError
from robota.core.testing.recording import RecordingTransport
from robota.providers.anthropic import AnthropicProvider


@pytest.mark.anyio
async def test_unknown_model_and_a_tool_not_enabled_sends_zero_requests() -> None:
    # HELD: caps unknown (None) pass the Agent's check; the adapter refuses before transport,
    # and the default RetryingProvider does not retry the refusal.
    transport = RecordingTransport()
    provider = AnthropicProvider(
        api_key="k",
        http_client=httpx.AsyncClient(transport=transport),
        hosted_tools=[HostedTool.WEB_SEARCH],
    )
    assert provider.capabilities("my-finetune").hosted_tools is None
    agent = Agent(provider, model="my-finetune")
    for _ in range(2):
        with pytest.raises(UnsupportedCapabilityError, match="code_execution"):
            await agent.run("hi", hosted_tools=[HostedTool.CODE_EXECUTION])
    assert transport.requests == []
