"""``OpenAIResponsesProvider``: the OpenAI Responses API (``POST {base_url}/responses``)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import Any, Literal

import httpx
from robota.core.capabilities import ModelInfo
from robota.core.errors import ConfigurationError
from robota.core.provider import (
    ModelRequest,
    ModelResponse,
    Provider,
    StreamEvent,
)
from robota.providers.openai._client import (
    OPENAI_BASE_URL,
    PayloadRecorder,
    buffered_call,
    buffered_events,
    make_client,
    sdk_arguments,
    stream_call,
)
from robota.providers.openai._models import OPENAI_MODELS, openai_model_info
from robota.providers.openai._responses_request import ResponsesCall, build_responses_call
from robota.providers.openai._responses_response import ResponsesStreamAssembler, decode_response

import openai

__all__ = ["OpenAIResponsesProvider"]

_API = "responses"


class OpenAIResponsesProvider(Provider):
    """The Responses API through the official ``openai`` SDK.

    Reasoning items come back as thinking parts carrying the item id and (with ``store=False``)
    the ``encrypted_content``, and are sent back on the next turn; hosted web search and code
    interpreter calls appear as hosted tool calls with their results and never reach local
    dispatch; native structured output uses ``text.format`` ``json_schema``.

    Args:
        api_key: Bearer key.
        base_url: API base URL (Azure: ``https://<resource>.openai.azure.com/openai/v1``).
        http_client: An injected ``httpx.AsyncClient`` (never closed by the provider).
        name: Provider name used in records and as the ``extra_body`` tag.
        store: ``False`` asks OpenAI not to keep responses and to return encrypted reasoning for
            the round-trip; ``None`` sends nothing (OpenAI's default is to store).
        reasoning_summary: Ask for reasoning summaries (``auto``, ``concise``, ``detailed``).
        organization: OpenAI organization id header, if any.
        project: OpenAI project id header, if any.
        default_model: Model used when the host names none.
        client: A ready ``openai.AsyncOpenAI`` (overrides the connection arguments).
        streaming: False makes :meth:`stream` send one buffered request and yield the
            assembled result as deltas (servers or recordings without Server-Sent Events).

    Example:
        >>> provider = OpenAIResponsesProvider("sk-test", store=False)
        >>> provider.model_info("gpt-5").context_window
        400000
    """

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str = OPENAI_BASE_URL,
        http_client: httpx.AsyncClient | None = None,
        name: str = "openai",
        store: bool | None = None,
        reasoning_summary: Literal["auto", "concise", "detailed"] | None = None,
        organization: str | None = None,
        project: str | None = None,
        default_model: str | None = None,
        client: openai.AsyncOpenAI | None = None,
        streaming: bool = True,
    ) -> None:
        self.streaming = streaming
        self.name = name
        self.default_model = default_model
        self.store = store
        self.reasoning_summary = reasoning_summary
        self._owns_client = client is None and http_client is None
        self._client = client or make_client(
            api_key=api_key,
            base_url=base_url,
            http_client=http_client,
            organization=organization,
            project=project,
        )

    @classmethod
    def from_env(cls, **kwargs: Any) -> OpenAIResponsesProvider:
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
        """OpenAI's table entry for ``model`` (dated snapshots included), or None."""
        return openai_model_info(model)

    def models(self) -> tuple[ModelInfo, ...]:
        """Every model in OpenAI's table."""
        return tuple(OPENAI_MODELS.values())

    def _call(self, request: ModelRequest, *, stream: bool) -> ResponsesCall:
        return build_responses_call(
            request,
            provider=self.name,
            info=self.model_info(request.model),
            stream=stream,
            store=self.store,
            reasoning_summary=self.reasoning_summary,
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Stream one call (``stream: true``); see :meth:`Provider.stream`.

        Raises:
            ProviderError: classified vendor failures, including ``error`` stream events and a
                ``failed`` response.
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
            self._client.responses.with_raw_response.create,
            sdk_arguments(call.body, call.extra_headers, call.timeout),
            provider=self.name,
            record=record,
            assembler=ResponsesStreamAssembler(provider=self.name),
            effort=call.effort,
        )
        async for event in stream:
            yield event

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """One buffered call (``stream: false``).

        Raises:
            ProviderError: classified vendor failures; MalformedResponseError for a body that is
                not a response object.
        """
        call = self._call(request, stream=False)
        record = PayloadRecorder(request.on_payload, provider=self.name, api=_API)
        record("request", call.body)
        document, request_id = await buffered_call(
            self._client.responses.with_raw_response.create,
            sdk_arguments(call.body, call.extra_headers, call.timeout),
            provider=self.name,
            record=record,
            what="Responses API body",
        )
        return decode_response(
            document, provider=self.name, request_id=request_id, effort=call.effort
        )

    async def aclose(self) -> None:
        """Close the SDK client unless its HTTP client (or the client) was injected."""
        if self._owns_client:
            await self._client.close()
