"""``OpenAIResponsesProvider``: the OpenAI Responses API (``POST {base_url}/responses``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Literal

from robota.core.capabilities import ModelInfo
from robota.core.provider import (
    EndpointProvenance,
    ModelRequest,
    ModelResponse,
    Provider,
    StreamEvent,
)
from robota.providers.openai._client import (
    PayloadRecorder,
    buffered_call,
    buffered_events,
    sdk_arguments,
)
from robota.providers.openai._common import decoding
from robota.providers.openai._endpoint import connect, model_facts_only
from robota.providers.openai._models import OPENAI_MODELS, openai_model_info
from robota.providers.openai._responses_request import ResponsesCall, build_responses_call
from robota.providers.openai._responses_response import API, decode_response
from robota.providers.openai._responses_stream import ResponsesStreamAssembler
from robota.providers.openai._stream import stream_call

import openai

if TYPE_CHECKING:
    import httpx

__all__ = ["OpenAIResponsesProvider"]


class OpenAIResponsesProvider(Provider):
    """The Responses API through the official ``openai`` SDK.

    Reasoning items come back as thinking parts carrying the item id and (with ``store=False``)
    the ``encrypted_content``, and are sent back on the next turn followed by the items they
    belong to, with their ids (``fc_…`` function calls, ``msg_…`` messages); hosted web search
    and code interpreter calls appear as hosted tool calls with their results and never reach
    local dispatch; native structured output uses ``text.format`` ``json_schema``.

    Outcomes: an answer only from a ``completed`` (or ``incomplete``: finish ``length`` /
    ``content_filter`` from ``incomplete_details.reason``) response — streamed, only from the
    ``response.completed`` / ``response.incomplete`` event. A ``failed`` response, a
    ``response.failed`` or ``error`` event and a 200 body stating an error raise the classified
    error; any other status, a cut stream, an empty / HTML / non-JSON body raise
    ``MalformedResponseError`` naming what was missing. A final event without ``output``
    answers with what the stream delivered; a refusal finishes ``content_filter`` (raw reason
    ``refusal``); a stream with no event within ``ModelSettings.timeout`` of the last one raises
    ``ProviderTimeoutError``.

    Endpoint, key and capabilities follow the same rules as :class:`OpenAIChatProvider`:
    ``base_url`` defaults to ``OPENAI_BASE_URL``, else OpenAI's endpoint; ``api_key`` to
    ``OPENAI_API_KEY`` for OpenAI's endpoint (``ConfigurationError`` without one); a custom
    endpoint without a key is sent no ``Authorization`` header. On a custom endpoint (Azure,
    OpenRouter, a proxy) only the model table's *model facts* apply (context window, maximum
    output, settings the model rejects, whether it reasons); native structured output, JSON
    mode, hosted tools, parallel tool calls are unknown, and function tools are sent with
    ``strict: false``.

    Args:
        api_key: Bearer key; None reads ``OPENAI_API_KEY`` as described above.
        base_url: API base URL (Azure: ``https://<resource>.openai.azure.com/openai/v1``); None
            reads ``OPENAI_BASE_URL``, else ``https://api.openai.com/v1``.
        http_client: An injected ``httpx.AsyncClient`` (never closed by the provider).
        name: Provider name used in records and as the ``extra_body`` tag.
        store: ``False`` asks OpenAI not to keep responses and to return encrypted reasoning for
            the round-trip; ``None`` sends nothing (OpenAI's default is to store).
        reasoning_summary: Ask for reasoning summaries (``auto``, ``concise``, ``detailed``).
        organization: OpenAI organization id header, if any.
        project: OpenAI project id header, if any.
        default_model: Model used when the host names none.
        client: A ready ``openai.AsyncOpenAI`` (overrides the connection arguments and the key
            resolution).
        streaming: False makes :meth:`stream` send one buffered request and yield the
            assembled result as deltas (servers or recordings without Server-Sent Events).

    Raises:
        ConfigurationError: no API key for OpenAI's own endpoint.

    Example:
        >>> provider = OpenAIResponsesProvider(
        ...     "sk-test", base_url="https://api.openai.com/v1", store=False)
        >>> provider.model_info("gpt-5").context_window, provider.endpoint.vendor
        (400000, True)
        >>> azure = OpenAIResponsesProvider("k", base_url="https://r.openai.azure.com/openai/v1")
        >>> azure.endpoint.vendor, azure.capabilities("gpt-5").native_structured_output
        (False, None)
    """

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
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

    @classmethod
    def from_env(cls, **kwargs: Any) -> OpenAIResponsesProvider:
        """The same as ``OpenAIResponsesProvider(**kwargs)`` (the constructor reads
        ``OPENAI_API_KEY`` and ``OPENAI_BASE_URL``); kept for existing callers.

        Raises:
            ConfigurationError: no key for OpenAI's own endpoint.
        """
        return cls(**kwargs)

    @property
    def endpoint(self) -> EndpointProvenance:
        """The base URL in use and whether it is OpenAI's own endpoint."""
        return self._endpoint

    def model_info(self, model: str) -> ModelInfo | None:
        """OpenAI's table entry for ``model`` (dated snapshots included) — its model facts only
        on a custom endpoint — or None."""
        info = openai_model_info(model)
        if info is None or self._endpoint.vendor:
            return info
        return model_facts_only(info)

    def models(self) -> tuple[ModelInfo, ...]:
        """Every model in OpenAI's table (model facts only on a custom endpoint)."""
        return tuple(info for name in OPENAI_MODELS if (info := self.model_info(name)))

    def _call(self, request: ModelRequest, *, stream: bool) -> ResponsesCall:
        return build_responses_call(
            request,
            provider=self.name,
            info=openai_model_info(request.model),
            stream=stream,
            store=self.store,
            reasoning_summary=self.reasoning_summary,
            strict_tools=bool(self._endpoint.vendor),
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Stream one call (``stream: true``); see :meth:`Provider.stream` and the class
        docstring for what completes a stream.

        Raises:
            ProviderError: classified vendor failures, including ``error`` stream events and a
                ``failed`` response.
            ContextWindowExceededError: the prompt does not fit the model's context window.
            MalformedResponseError: the stream ended before its final event, or was not one.
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
            self._client.responses.with_raw_response.create,
            sdk_arguments(call.body, call.extra_headers, call.timeout, send_key=self._sends_key),
            provider=self.name,
            api=API,
            record=record,
            assembler=ResponsesStreamAssembler(provider=self.name),
            effort=call.effort,
            event_timeout=call.timeout,
        )
        async for event in stream:
            yield event

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """One buffered call (``stream: false``).

        Raises:
            ProviderError: classified vendor failures, a ``failed`` response, a 200 body stating
                an error.
            ContextWindowExceededError: the prompt does not fit the model's context window.
            MalformedResponseError: a body that is not a completed response object.
        """
        call = self._call(request, stream=False)
        record = PayloadRecorder(request.on_payload, provider=self.name, api=API)
        record("request", call.body)
        document, request_id = await buffered_call(
            self._client.responses.with_raw_response.create,
            sdk_arguments(call.body, call.extra_headers, call.timeout, send_key=self._sends_key),
            provider=self.name,
            api=API,
            record=record,
        )
        with decoding(self.name, API, request_id):
            return decode_response(
                document, provider=self.name, request_id=request_id, effort=call.effort
            )

    async def aclose(self) -> None:
        """Close the SDK client unless its HTTP client (or the client) was injected."""
        if self._owns_client:
            await self._client.close()
