"""``OpenAIChatProvider``: OpenAI Chat Completions and OpenAI-compatible servers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from robota.core.capabilities import UNKNOWN_CAPABILITIES, ModelCapabilities, ModelInfo
from robota.core.provider import (
    EndpointProvenance,
    ModelRequest,
    ModelResponse,
    Provider,
    StreamEvent,
)
from robota.providers.openai._chat_request import ChatCall, build_chat_call
from robota.providers.openai._chat_response import (
    API,
    ChatStreamAssembler,
    decode_chat_completion,
)
from robota.providers.openai._client import (
    PayloadRecorder,
    buffered_call,
    buffered_events,
    sdk_arguments,
)
from robota.providers.openai._common import decoding
from robota.providers.openai._compat import CompatProfile, compat_profile
from robota.providers.openai._endpoint import connect, model_facts_only
from robota.providers.openai._models import OPENAI_MODELS, chat_hosted_tools, openai_model_info
from robota.providers.openai._stream import stream_call

import openai

if TYPE_CHECKING:
    import httpx

__all__ = ["OpenAIChatProvider"]


class OpenAIChatProvider(Provider):
    """Chat Completions (``POST {base_url}/chat/completions``) through the official ``openai`` SDK.

    Works with OpenAI and with OpenAI-compatible servers (Ollama, llama.cpp, vLLM, OpenRouter,
    Groq, DeepSeek, Together, xAI, Cerebras) through a named :class:`CompatProfile`.

    Outcomes: a call returns an answer only when it completed — buffered, a first choice with a
    ``message`` and a ``finish_reason``; streamed, a ``finish_reason`` and then ``data: [DONE]``
    (unless the profile states ``stream_ends_with_done=False``). Anything else raises a typed
    error: the classified vendor error (HTTP status, an error event in the stream, a 200 body
    stating an error), ``ContextWindowExceededError`` for a context overflow (also llama.cpp's,
    vLLM's and Ollama's wording), or ``MalformedResponseError`` naming what was missing (a cut
    stream, an empty / HTML / non-JSON body, a JSON body answering a streamed call, a
    ``tool_calls`` finish without a tool call, content that cannot be read as text). A refusal
    finishes ``content_filter`` (raw reason ``refusal``); a stream with no event within
    ``ModelSettings.timeout`` of the last one raises ``ProviderTimeoutError`` (see
    :mod:`._chat_response` and :mod:`._stream`).

    Endpoint and key (:mod:`robota.providers.openai._endpoint`): ``base_url`` defaults to
    ``OPENAI_BASE_URL`` when set, else OpenAI's own endpoint; ``api_key`` defaults to
    ``OPENAI_API_KEY`` for OpenAI's own endpoint (or a base URL taken from ``OPENAI_BASE_URL``).
    OpenAI's endpoint without any key raises ``ConfigurationError`` here; a custom endpoint
    without a key is sent no ``Authorization`` header.

    Capabilities follow the endpoint (:attr:`endpoint`): on OpenAI's own endpoint with the
    ``openai`` profile, OpenAI's model table applies in full. Elsewhere the table's *model facts*
    still apply by model id (context window, maximum output, settings the model rejects, whether
    it reasons), while what an *endpoint* guarantees — native structured output, JSON mode,
    strict tool schemas, parallel tool calls, hosted tools — comes only from a profile other
    than ``openai`` that states it, and is unknown (``None``) otherwise; ``strict`` is then not
    sent.

    Args:
        api_key: Bearer key; None reads ``OPENAI_API_KEY`` as described above.
        base_url: API base URL, e.g. ``http://127.0.0.1:8080/v1`` for llama.cpp; None reads
            ``OPENAI_BASE_URL``, else ``https://api.openai.com/v1``.
        http_client: An injected ``httpx.AsyncClient`` (never closed by the provider).
        profile: A profile name from :data:`COMPAT_PROFILES` or a :class:`CompatProfile`.
        name: Provider name used in records and as the ``extra_body`` tag.
        organization: OpenAI organization id header, if any.
        project: OpenAI project id header, if any.
        default_model: Model used when the host names none.
        client: A ready ``openai.AsyncOpenAI`` (overrides the connection arguments and the key
            resolution).
        streaming: False makes :meth:`stream` send one buffered request and yield the
            assembled result as deltas (servers or recordings without Server-Sent Events).

    Raises:
        ConfigurationError: for an unknown profile name, or no API key for OpenAI's endpoint.

    Example:
        >>> provider = OpenAIChatProvider(base_url="http://127.0.0.1:11434/v1",
        ...                               profile="ollama", name="ollama")
        >>> provider.profile.max_tokens_field, provider.model_info("llama3.2")
        ('max_tokens', None)
        >>> provider.endpoint.vendor, provider.capabilities("llama3.2").native_structured_output
        (False, True)
        >>> gateway = OpenAIChatProvider("sk-test", base_url="https://gateway.example/v1")
        >>> info = gateway.model_info("gpt-4o")
        >>> info.context_window, info.capabilities.native_structured_output
        (128000, None)
    """

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
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
        connection = connect(
            api_key,
            base_url=base_url,
            http_client=http_client,
            organization=organization,
            project=project,
            client=client,
            provider=name,
        )
        self._client = connection.client
        self._endpoint = connection.endpoint
        self._sends_key = connection.sends_key
        self._owns_client = client is None and http_client is None
        vendor_table = bool(connection.endpoint.vendor) and self.profile.name == "openai"
        self._vendor_table = vendor_table
        self._stated = self.profile.name != "openai"
        self._wire_profile = (
            self.profile
            if vendor_table or self._stated
            else replace(self.profile, supports_strict_tools=False)
        )

    @classmethod
    def from_env(cls, **kwargs: Any) -> OpenAIChatProvider:
        """The same as ``OpenAIChatProvider(**kwargs)`` (the constructor reads ``OPENAI_API_KEY``
        and ``OPENAI_BASE_URL``); kept for existing callers.

        Raises:
            ConfigurationError: no key for OpenAI's own endpoint.
        """
        return cls(**kwargs)

    @property
    def endpoint(self) -> EndpointProvenance:
        """The base URL in use and whether it is OpenAI's own endpoint."""
        return self._endpoint

    def _profile_capabilities(self) -> ModelCapabilities:
        profile = self.profile
        return ModelCapabilities(
            native_structured_output=profile.supports_response_format_json_schema,
            json_mode=profile.supports_json_object,
            parallel_tool_calls=profile.supports_parallel_tool_calls or None,
        )

    def model_info(self, model: str) -> ModelInfo | None:
        """OpenAI's table entry for ``model``: in full on OpenAI's endpoint with the ``openai``
        profile, else its model facts only (class docstring); None for a model not in the
        table."""
        info = openai_model_info(model)
        if info is not None and self._vendor_table:
            hosted = chat_hosted_tools(model)  # Chat Completions runs fewer than Responses
            return replace(info, capabilities=replace(info.capabilities, hosted_tools=hosted))
        if info is None:
            return info
        return model_facts_only(info, self._profile_capabilities() if self._stated else None)

    def capabilities(self, model: str) -> ModelCapabilities:
        """What :meth:`model_info` says; for a model not in the table, what a non-``openai``
        profile states about the endpoint (else unknown)."""
        info = self.model_info(model)
        if info is not None:
            return info.capabilities
        return self._profile_capabilities() if self._stated else UNKNOWN_CAPABILITIES

    def models(self) -> tuple[ModelInfo, ...]:
        """Every OpenAI model in the table on the ``openai`` profile (model facts only on a
        custom endpoint); empty for other profiles."""
        if self.profile.name != "openai":
            return ()
        return tuple(info for name in OPENAI_MODELS if (info := self.model_info(name)))

    def _call(self, request: ModelRequest, *, stream: bool) -> ChatCall:
        return build_chat_call(
            request,
            provider=self.name,
            profile=self._wire_profile,
            info=openai_model_info(request.model),
            stream=stream,
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Stream one call (``stream: true``); see :meth:`Provider.stream` and the class
        docstring for what completes a stream.

        Raises:
            ProviderError: classified vendor failures (see ``classify_error``).
            ContextWindowExceededError: the prompt does not fit the model's context window.
            MalformedResponseError: the stream did not complete, or was not a stream.
            UnsupportedSettingError, UnsupportedCapabilityError: before any I/O.
        """
        if not self.streaming:
            for buffered in buffered_events(await self.complete(request)):
                yield buffered
            return
        call = self._call(request, stream=True)
        record = PayloadRecorder(request.on_payload, provider=self.name, api=API)
        record("request", call.body)
        stream = stream_call(
            self._client.chat.completions.with_raw_response.create,
            sdk_arguments(call.body, call.extra_headers, call.timeout, send_key=self._sends_key),
            provider=self.name,
            api=API,
            record=record,
            assembler=ChatStreamAssembler(
                provider=self.name, requires_done=self.profile.stream_ends_with_done
            ),
            effort=call.effort,
            event_timeout=call.timeout,
        )
        async for event in stream:
            yield event

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """One buffered call (``stream: false``).

        Raises:
            ProviderError: classified vendor failures, including a 200 body stating an error.
            ContextWindowExceededError: the prompt does not fit the model's context window.
            MalformedResponseError: a body that is not a complete chat completion.
        """
        call = self._call(request, stream=False)
        record = PayloadRecorder(request.on_payload, provider=self.name, api=API)
        record("request", call.body)
        document, request_id = await buffered_call(
            self._client.chat.completions.with_raw_response.create,
            sdk_arguments(call.body, call.extra_headers, call.timeout, send_key=self._sends_key),
            provider=self.name,
            api=API,
            record=record,
        )
        with decoding(self.name, API, request_id):
            return decode_chat_completion(
                document, provider=self.name, request_id=request_id, effort=call.effort
            )

    async def aclose(self) -> None:
        """Close the SDK client unless its HTTP client (or the client) was injected."""
        if self._owns_client:
            await self._client.close()
