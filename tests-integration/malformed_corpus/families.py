"""The real adapters under test, each over an injected ``httpx.AsyncClient`` whose
``httpx.MockTransport`` serves whatever response the current case sets (no network)."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx
from robota.core.agent import Agent
from robota.core.messages import AssistantMessage, UserMessage
from robota.core.provider import ModelRequest, Provider
from robota.core.retry import RetryPolicy
from robota.providers.anthropic import AnthropicProvider
from robota.providers.google import GoogleProvider
from robota.providers.openai._compat import COMPAT_PROFILES
from robota.providers.openai.chat import OpenAIChatProvider
from robota.providers.openai.responses import OpenAIResponsesProvider

from malformed_corpus.model import Answer, Case, answer_of

__all__ = ["API_KEY", "COMPAT_FAMILIES", "VENDOR_FAMILIES", "Adapters", "Served"]

API_KEY = "corpus-test-key"
CALL_TIMEOUT = 30.0
PROMPT = "Say hello."

VENDOR_FAMILIES = ("openai-chat", "openai-responses", "anthropic", "gemini")
COMPAT_BASE_URLS: Mapping[str, str] = {
    "llamacpp": "http://127.0.0.1:8080/v1",
    "ollama": "http://127.0.0.1:11434/v1",
    "vllm": "http://127.0.0.1:8000/v1",
    "openrouter": "https://openrouter.ai/api/v1",
    "groq": "https://api.groq.com/openai/v1",
    "deepseek": "https://api.deepseek.com/v1",
    "together": "https://api.together.xyz/v1",
    "xai": "https://api.x.ai/v1",
    "cerebras": "https://api.cerebras.ai/v1",
}
COMPAT_FAMILIES = tuple(f"compat:{name}" for name in COMPAT_PROFILES if name != "openai")


@dataclass(kw_only=True, slots=True)
class Served:
    """The response the mock transport serves next, and what it saw."""

    status: int = 200
    headers: Mapping[str, str] = field(default_factory=lambda: {})
    body: bytes = b""
    requests: int = 0

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        return httpx.Response(
            self.status, headers=dict(self.headers), content=self.body, request=request
        )


def _build(family: str, client: httpx.AsyncClient, *, streaming: bool) -> Provider:
    """A provider built the way the package's ``replay`` module builds one, with an explicit
    key and the injected client."""
    if family == "openai-chat":
        return OpenAIChatProvider(API_KEY, http_client=client, streaming=streaming)
    if family.startswith("compat:"):
        profile = family.split(":", 1)[1]
        base_url = COMPAT_BASE_URLS.get(profile, "http://127.0.0.1:8080/v1")
        return OpenAIChatProvider(
            API_KEY,
            base_url=base_url,
            http_client=client,
            profile=profile,
            name=profile,
            streaming=streaming,
        )
    if family == "openai-responses":
        return OpenAIResponsesProvider(API_KEY, http_client=client, streaming=streaming)
    if family == "anthropic":
        return AnthropicProvider(api_key=API_KEY, http_client=client)
    if family == "gemini":
        return GoogleProvider(api_key=API_KEY, http_client=client, streaming=streaming)
    raise ValueError(f"unknown family {family}")


def _agent_options() -> dict[str, Any]:
    """Agent keyword arguments turning retries off, when the Agent has a ``retry=`` option
    (``retry=None``: off; a one-attempt policy if None is not accepted)."""
    parameter = inspect.signature(Agent.__init__).parameters.get("retry")
    if parameter is None:
        return {}
    annotation = str(parameter.annotation)
    return {"retry": None if "None" in annotation else RetryPolicy(max_attempts=1)}


class Adapters:
    """One provider per (family, streaming) over its own :class:`Served` slot; calls are made
    one at a time."""

    def __init__(self) -> None:
        self._built: dict[tuple[str, bool], tuple[Provider, Served, httpx.AsyncClient]] = {}
        self.agent_options = _agent_options()

    def _get(self, family: str, *, streaming: bool) -> tuple[Provider, Served]:
        key = (family, streaming)
        if key not in self._built:
            served = Served()
            client = httpx.AsyncClient(transport=httpx.MockTransport(served.handler))
            self._built[key] = (_build(family, client, streaming=streaming), served, client)
        provider, served, _ = self._built[key]
        return provider, served

    async def call(self, case: Case) -> tuple[Answer | BaseException, int]:
        """Run ``case`` through its adapter; return the answer or the raised exception, and how
        many HTTP requests the adapter sent."""
        streaming = case.mode in ("stream", "agent-stream")
        provider, served = self._get(case.family, streaming=streaming)
        served.status = case.status
        served.headers = case.headers
        served.body = case.body
        served.requests = 0
        request = ModelRequest(model=case.model, messages=(UserMessage.of(PROMPT),))
        try:
            with anyio.fail_after(CALL_TIMEOUT):
                if case.mode == "stream":
                    # The core contract's buffered convenience over the adapter's own stream().
                    response = await Provider.complete(provider, request)
                    outcome: Answer | BaseException = answer_of(response.message, response)
                elif case.mode == "buffered":
                    response = await provider.complete(request)
                    outcome = answer_of(response.message, response)
                else:
                    outcome = await self._agent(provider, case)
        except Exception as error:
            outcome = error
        return outcome, served.requests

    async def _agent(self, provider: Provider, case: Case) -> Answer:
        agent = Agent(provider, model=case.model, max_rounds=1, **self.agent_options)
        result = await agent.run(PROMPT)
        messages = [m for m in result.new_messages if isinstance(m, AssistantMessage)]
        if not messages:
            return Answer(text=result.text, thinking="", tool_calls=(), finish_reason=None)
        found = answer_of(messages[-1], usage=False)
        return Answer(
            text=result.text,
            thinking=found.thinking,
            tool_calls=found.tool_calls,
            finish_reason=found.finish_reason,
            raw_finish_reason=found.raw_finish_reason,
        )

    async def aclose(self) -> None:
        """Close every client (the providers never close an injected one)."""
        for provider, _, client in self._built.values():
            await provider.aclose()
            await client.aclose()
        self._built.clear()
