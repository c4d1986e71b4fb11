"""The peers: PydanticAI and the OpenAI Agents SDK on the same server with the same tools.

Both are optional (the ``bench`` dependency group); their modules are imported lazily and typed
``Any`` so that the workspace type-checks without them. Their agents are stateless configuration,
so one agent per model id is reused across runs (their idiomatic use); nothing is tuned down,
except that the OpenAI Agents SDK's trace export is disabled because it would post traces to
OpenAI's servers, which this offline benchmark must not reach.
"""

from __future__ import annotations

import time
from typing import Any

import httpx

from tools.bench._common import (
    PROMPT,
    Contender,
    get_time,
    get_weather,
    openai_client,
    optional_module,
)

__all__ = ["PEER_CONTENDERS", "agents_session", "pydantic_ai_session"]


class PydanticAIRunner:
    """PydanticAI ``Agent`` with ``OpenAIChatModel`` or ``OpenAIResponsesModel``."""

    def __init__(self, base_url: str, client: httpx.AsyncClient, *, api: str, stream: bool) -> None:
        self.pa = optional_module("pydantic_ai")
        self.messages = optional_module("pydantic_ai.messages")
        self.models = optional_module("pydantic_ai.models.openai")
        providers = optional_module("pydantic_ai.providers.openai")
        self.provider = providers.OpenAIProvider(openai_client=openai_client(base_url, client))
        self.api = api
        self.stream = stream
        self.agents: dict[str, Any] = {}

    def agent(self, model: str) -> Any:
        """The (cached) agent for ``model``."""
        if model not in self.agents:
            kind = (
                self.models.OpenAIChatModel
                if self.api == "chat"
                else self.models.OpenAIResponsesModel
            )
            self.agents[model] = self.pa.Agent(
                kind(model, provider=self.provider), tools=[get_weather, get_time]
            )
        return self.agents[model]

    async def run(self, model: str) -> float | None:
        """Run the scenario; returns the first text delta's instant (streaming only)."""
        agent = self.agent(model)
        if not self.stream:
            await agent.run(PROMPT)
            return None
        first: float | None = None
        text_start, text_delta = self.messages.TextPart, self.messages.TextPartDelta
        start_event, delta_event = self.messages.PartStartEvent, self.messages.PartDeltaEvent
        async with agent.run_stream_events(PROMPT) as events:
            async for event in events:
                if first is None and (
                    (isinstance(event, delta_event) and isinstance(event.delta, text_delta))
                    or (isinstance(event, start_event) and isinstance(event.part, text_start))
                ):
                    first = time.perf_counter()
        return first


class AgentsRunner:
    """OpenAI Agents SDK ``Agent`` with ``OpenAIChatCompletionsModel`` or
    ``OpenAIResponsesModel``, run by ``Runner.run`` / ``Runner.run_streamed``."""

    def __init__(self, base_url: str, client: httpx.AsyncClient, *, api: str, stream: bool) -> None:
        self.ag = optional_module("agents")
        self.ag.set_tracing_disabled(True)
        self.client = openai_client(base_url, client)
        self.api = api
        self.stream = stream
        self.tools = [self.ag.function_tool(get_weather), self.ag.function_tool(get_time)]
        self.agents: dict[str, Any] = {}

    def agent(self, model: str) -> Any:
        """The (cached) agent for ``model``."""
        if model not in self.agents:
            if self.api == "chat":
                llm = self.ag.OpenAIChatCompletionsModel(model=model, openai_client=self.client)
            else:
                llm = self.ag.OpenAIResponsesModel(model=model, openai_client=self.client)
            self.agents[model] = self.ag.Agent(name="bench", model=llm, tools=self.tools)
        return self.agents[model]

    async def run(self, model: str) -> float | None:
        """Run the scenario; returns the first text delta's instant (streaming only)."""
        agent = self.agent(model)
        if not self.stream:
            await self.ag.Runner.run(agent, PROMPT)
            return None
        first: float | None = None
        result = self.ag.Runner.run_streamed(agent, PROMPT)
        async for event in result.stream_events():
            if (
                first is None
                and event.type == "raw_response_event"
                and event.data.type == "response.output_text.delta"
            ):
                first = time.perf_counter()
        return first


def pydantic_ai_session(base_url: str, client: httpx.AsyncClient) -> Any:
    """One idle PydanticAI session: an agent plus four messages of history."""
    pa = optional_module("pydantic_ai")
    msgs = optional_module("pydantic_ai.messages")
    models = optional_module("pydantic_ai.models.openai")
    providers = optional_module("pydantic_ai.providers.openai")
    provider = providers.OpenAIProvider(openai_client=openai_client(base_url, client))
    model = models.OpenAIChatModel("bench-r0", provider=provider)

    def make() -> Any:
        history = []
        for i in range(2):
            history.append(msgs.ModelRequest(parts=[msgs.UserPromptPart(content=f"question {i}")]))
            history.append(msgs.ModelResponse(parts=[msgs.TextPart(content=f"answer {i} " * 20)]))
        return (pa.Agent(model, tools=[get_weather, get_time]), history)

    return make


def agents_session(base_url: str, client: httpx.AsyncClient) -> Any:
    """One idle OpenAI Agents SDK session: an agent plus four input items of history."""
    ag = optional_module("agents")
    ag.set_tracing_disabled(True)
    llm = ag.OpenAIChatCompletionsModel(
        model="bench-r0", openai_client=openai_client(base_url, client)
    )

    def make() -> Any:
        history: list[dict[str, str]] = []
        for i in range(2):
            history.append({"role": "user", "content": f"question {i}"})
            history.append({"role": "assistant", "content": f"answer {i} " * 20})
        tools = [ag.function_tool(get_weather), ag.function_tool(get_time)]
        return (ag.Agent(name="bench", model=llm, tools=tools), history)

    return make


def _peer(family: str, module: str, runner: Any, api: str, stream: bool) -> Contender:
    mode = "stream" if stream else "buffered"
    return Contender(
        name=f"{family}/{api}/{mode}",
        family=family,
        api="chat" if api == "chat" else "responses",
        streaming=stream,
        requires=(module,),
        make=lambda url, client: runner(url, client, api=api, stream=stream),
    )


PEER_CONTENDERS = (
    _peer("pydantic_ai", "pydantic_ai", PydanticAIRunner, "chat", True),
    _peer("pydantic_ai", "pydantic_ai", PydanticAIRunner, "chat", False),
    _peer("pydantic_ai", "pydantic_ai", PydanticAIRunner, "responses", True),
    _peer("pydantic_ai", "pydantic_ai", PydanticAIRunner, "responses", False),
    _peer("openai_agents", "agents", AgentsRunner, "chat", True),
    _peer("openai_agents", "agents", AgentsRunner, "chat", False),
    _peer("openai_agents", "agents", AgentsRunner, "responses", True),
    _peer("openai_agents", "agents", AgentsRunner, "responses", False),
)
