"""A real Agent runs recorded multi-round Gemini conversations (tool call → tool result → answer)
and ends with the recorded final text."""

from __future__ import annotations

import pytest
from _google_cassette_reader import (  # pyright: ignore[reportImplicitRelativeImport]
    cassette_root,
    expected_of,
    is_google_host,
    model_of,
)
from robota.core.agent import Agent
from robota.core.testing.cassette import load_cassette
from robota.core.tools.function import tool
from robota.providers.google.replay import provider_for_cassette


@tool
def get_capital(country: str) -> str:
    """Get the capital of a country."""
    return "Paris"


@pytest.mark.anyio
@pytest.mark.parametrize(
    "relative",
    ["test_google/test_google_model_retry.yaml", "test_openai/test_multiple_agent_tool_calls.yaml"],
)
async def test_agent_reaches_the_recorded_final_answer(relative: str) -> None:
    cassette = load_cassette(cassette_root() / relative)
    google = [i for i in cassette.interactions if is_google_host(i.host)]
    final_text = expected_of(google[-1]).text
    assert final_text
    provider = provider_for_cassette(cassette)
    agent = Agent(provider, model=model_of(google[0].uri), tools=(get_capital,))
    result = await agent.run("What is the capital of France?")
    assert result.text == final_text
    assert cassette.served == len(google)
    assert result.usage.requests == len(google)
