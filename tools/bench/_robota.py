"""Robota's contenders: ``Agent`` with the OpenAI providers, streamed and buffered.

A Robota ``Agent`` owns its conversation, so each run uses a fresh agent (its construction is
timed with the run); the provider and its HTTP client are shared, as a host would share them.
"""

from __future__ import annotations

import time

import httpx
from robota.core.agent import Agent, ModelTextDelta
from robota.core.provider import Provider
from robota.core.tools import FunctionTool, Tool
from robota.providers.openai import OpenAIChatProvider, OpenAIResponsesProvider

from tools.bench._common import PROMPT, Contender, get_time, get_weather

__all__ = ["ROBOTA_CONTENDERS", "RobotaRunner", "robota_tools"]


def robota_tools() -> list[Tool]:
    """The two scenario tools as Robota function tools."""
    return [FunctionTool(get_weather), FunctionTool(get_time)]


class RobotaRunner:
    """Runs the scenario with a fresh ``Agent`` on a shared provider."""

    def __init__(
        self, provider: Provider, *, stream: bool, tools: list[Tool] | None = None
    ) -> None:
        self.provider = provider
        self.stream = stream
        self.tools = robota_tools() if tools is None else tools

    async def run(self, model: str) -> float | None:
        """Run the scenario; returns the first text delta's instant (streaming only)."""
        agent = Agent(self.provider, model=model, tools=self.tools)
        if not self.stream:
            await agent.run(PROMPT)
            return None
        first: float | None = None
        async with agent.stream(PROMPT) as events:
            async for event in events:
                if first is None and isinstance(event, ModelTextDelta):
                    first = time.perf_counter()
        return first


def _chat(url: str, client: httpx.AsyncClient, *, stream: bool) -> RobotaRunner:
    provider = OpenAIChatProvider("bench", base_url=url, http_client=client, streaming=stream)
    return RobotaRunner(provider, stream=stream)


def _responses(url: str, client: httpx.AsyncClient, *, stream: bool) -> RobotaRunner:
    provider = OpenAIResponsesProvider(
        "bench", base_url=url, http_client=client, store=False, streaming=stream
    )
    return RobotaRunner(provider, stream=stream)


ROBOTA_CONTENDERS = (
    Contender(
        name="robota/chat/stream",
        family="robota",
        api="chat",
        streaming=True,
        requires=(),
        make=lambda url, client: _chat(url, client, stream=True),
    ),
    Contender(
        name="robota/chat/buffered",
        family="robota",
        api="chat",
        streaming=False,
        requires=(),
        make=lambda url, client: _chat(url, client, stream=False),
    ),
    Contender(
        name="robota/responses/stream",
        family="robota",
        api="responses",
        streaming=True,
        requires=(),
        make=lambda url, client: _responses(url, client, stream=True),
    ),
    Contender(
        name="robota/responses/buffered",
        family="robota",
        api="responses",
        streaming=False,
        requires=(),
        make=lambda url, client: _responses(url, client, stream=False),
    ),
)
