"""``OpenAIChatProvider``: OpenAI Chat Completions and OpenAI-compatible servers."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import Any

import httpx
from robota.core.capabilities import ModelCapabilities, ModelInfo
from robota.core.errors import ConfigurationError
from robota.core.provider import (
    ModelRequest,
    ModelResponse,
    Provider,
    StreamEvent,
)
from robota.providers.openai._chat_request import ChatCall, build_chat_call
from robota.providers.openai._chat_response import ChatStreamAssembler, decode_chat_completion
from robota.providers.openai._client import (
    OPENAI_BASE_URL,
    PayloadRecorder,
    buffered_call,
    buffered_events,
    make_client,
    sdk_arguments,
    stream_call,
)
from robota.providers.openai._compat import CompatProfile, compat_profile
from robota.providers.openai._models import OPENAI_MODELS, openai_model_info

import openai

__all__ = ["OpenAIChatProvider"]

_API = "chat.completions"


class OpenAIChatProvider(Provider):
    """Chat Completions (``POST {base_url}/chat/completions``) through the official ``openai`` SDK.

    Works with OpenAI and with OpenAI-compatible servers (Ollama, llama.cpp, vLLM, OpenRouter,
    Groq, DeepSeek, Together, xAI, Cerebras) through a named :class:`CompatProfile`. Model
    metadata (context window, capabilities) is published only for OpenAI's own models on the
    ``openai`` profile; other servers' models are unknown (``model_info`` → None).

    Args:
        api_key: Bearer key; None sends none (local servers).
        base_url: API base URL, e.g. ``http://127.0.0.1:8080/v1`` for llama.cpp.
        http_client: An injected ``httpx.AsyncClient`` (never closed by the provider).
        profile: A profile name from :data:`COMPAT_PROFILES` or a :class:`CompatProfile`.
        name: Provider name used in records and as the ``extra_body`` tag.
        organization: OpenAI organization id header, if any.
        project: OpenAI project id header, if any.
        default_model: Model used when the host names none.
        client: A ready ``openai.AsyncOpenAI`` (overrides the connection arguments).
        streaming: False makes :meth:`stream` send one buffered request and yield the
            assembled result as deltas (servers or recordings without Server-Sent Events).

    Raises:
        ConfigurationError: for an unknown profile name.

    Example:
        >>> provider = OpenAIChatProvider(api_key=None, base_url="http://127.0.0.1:11434/v1",
        ...                               profile="ollama", name="ollama")
        >>> provider.profile.max_tokens_field, provider.model_info("llama3.2")
        ('max_tokens', None)
    """

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str = OPENAI_BASE_URL,
        http_client: httpx.AsyncClient | None = None,
        profile: str | CompatProfile = "openai",
        name: str = "openai",
        organization: str | None = None,
        project: str | None = None,
        default_model: str | None = None,
        client: openai.AsyncOpenAI | None = None,
        streaming: bool = True,
    ) -> None:
        self.streaming = streaming
        self.profile = compat_profile(profile)
        self.name = name
        self.default_model = default_model
        self._owns_client = client is None
        self._client = client or make_client(
            api_key=api_key,
            base_url=base_url,
            http_client=http_client,
            organization=organization,
            project=project,
        )
        self._injected_http = http_client is not None

    @classmethod
    def from_env(cls, **kwargs: Any) -> OpenAIChatProvider:
        """Build from ``OPENAI_API_KEY`` (and ``OPENAI_BASE_URL`` when set), only when the host
        asks for it.

        Raises:
            ConfigurationError: when ``OPENAI_API_KEY`` is not set.
        """
        key = os.environ.get("OPENAI_API_KEY")
        if not key:
            raise ConfigurationError("OPENAI_API_KEY is not set")
        base_url = os.environ.get("OPENAI_BASE_URL") or OPENAI_BASE_URL
        return cls(key, base_url=base_url, **kwargs)

    def model_info(self, model: str) -> ModelInfo | None:
        """OpenAI's table entry for ``model`` on the ``openai`` profile; None otherwise."""
        if self.profile.name != "openai":
            return None
        return openai_model_info(model)

    def capabilities(self, model: str) -> ModelCapabilities:
        """OpenAI's table on the ``openai`` profile; on another server, what its
        :class:`CompatProfile` states about the wire (structured output through
        ``response_format``, JSON mode, parallel tool calls) — the model itself stays unknown
        (``None``) for everything else."""
        if self.profile.name == "openai":
            return super().capabilities(model)
        profile = self.profile
        return ModelCapabilities(
            native_structured_output=profile.supports_response_format_json_schema,
            json_mode=profile.supports_json_object,
            parallel_tool_calls=profile.supports_parallel_tool_calls or None,
        )

    def models(self) -> tuple[ModelInfo, ...]:
        """Every OpenAI model in the table (empty for other servers)."""
        return tuple(OPENAI_MODELS.values()) if self.profile.name == "openai" else ()

    def _call(self, request: ModelRequest, *, stream: bool) -> ChatCall:
        return build_chat_call(
            request,
            provider=self.name,
            profile=self.profile,
            info=self.model_info(request.model),
            stream=stream,
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Stream one call (``stream: true``); see :meth:`Provider.stream`.

        Raises:
            ProviderError: classified vendor failures (see ``classify_error``).
            UnsupportedSettingError, UnsupportedCapabilityError: before any I/O.
        """
        if not self.streaming:
            for buffered in buffered_events(await self.complete(request)):
                yield buffered
            return
        call = self._call(request, stream=True)
        record = PayloadRecorder(request.on_payload, provider=self.name, api=_API)
        record("request", call.body)
        stream = stream_call(
            self._client.chat.completions.with_raw_response.create,
            sdk_arguments(call.body, call.extra_headers, call.timeout),
            provider=self.name,
            record=record,
            assembler=ChatStreamAssembler(provider=self.name),
            effort=call.effort,
        )
        async for event in stream:
            yield event

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """One buffered call (``stream: false``).

        Raises:
            ProviderError: classified vendor failures; MalformedResponseError for a body that is
                not a chat completion.
        """
        call = self._call(request, stream=False)
        record = PayloadRecorder(request.on_payload, provider=self.name, api=_API)
        record("request", call.body)
        document, request_id = await buffered_call(
            self._client.chat.completions.with_raw_response.create,
            sdk_arguments(call.body, call.extra_headers, call.timeout),
            provider=self.name,
            record=record,
            what="chat completion body",
        )
        return decode_chat_completion(
            document, provider=self.name, request_id=request_id, effort=call.effort
        )

    async def aclose(self) -> None:
        """Close the SDK client unless its HTTP client (or the client) was injected."""
        if self._owns_client and not self._injected_http:
            await self._client.close()
