"""The Gemini provider: wraps the official ``google-genai`` SDK (seed 000, "Provider Contract —
Dual Surface"; seed 002, "Providers and model adapters")."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import httpx
from robota.core.capabilities import ModelCapabilities, ModelInfo
from robota.core.errors import ConfigurationError, UnsupportedCapabilityError
from robota.core.messages import JsonValue
from robota.core.provider import (
    EndpointProvenance,
    ModelRequest,
    ModelResponse,
    PayloadEvent,
    Provider,
    ResponseCompleted,
    StreamEvent,
)
from robota.core.wire import malformed
from robota.providers.google._cost import estimate_cost
from robota.providers.google._effort import resolve_thinking
from robota.providers.google._endpoint import (
    API_KEY_ENV,
    GEMINI_BASE_URL,
    gemini_client,
    is_google_endpoint,
    model_facts_only,
    resolve_key,
)
from robota.providers.google._errors import classify_error, classify_read_error
from robota.providers.google._models import MODELS, lookup_model
from robota.providers.google._request import (
    PROVIDER_NAME,
    build_config,
    build_contents,
    build_tools,
)
from robota.providers.google._response import ResponseAssembler
from robota.providers.google._transport import sending_through
from robota.providers.google._wire import decode_body, read_chunks

from google import genai
from google.auth.credentials import Credentials
from google.genai import types

__all__ = ["GEMINI_BASE_URL", "GoogleProvider", "VertexTarget"]

_STREAM_API = "streamGenerateContent"
_BUFFERED_API = "generateContent"


@dataclass(frozen=True, kw_only=True, slots=True)
class VertexTarget:
    """Where a Vertex AI (Gemini Enterprise Agent Platform) call goes.

    Attributes:
        project: Google Cloud project id.
        location: Region, e.g. ``"us-central1"``, or ``"global"``.
        credentials: ``google.auth`` credentials supplied by the host (required: this package
            never looks them up from the environment).

    Example:
        >>> from google.auth.credentials import AnonymousCredentials
        >>> VertexTarget(project="p", location="global", credentials=AnonymousCredentials()).base_url
        'https://aiplatform.googleapis.com/'
    """

    project: str
    location: str
    credentials: Credentials | None = None

    @property
    def base_url(self) -> str:
        """The regional endpoint (``https://{location}-aiplatform.googleapis.com/``)."""
        if self.location == "global":
            return "https://aiplatform.googleapis.com/"
        return f"https://{self.location}-aiplatform.googleapis.com/"


def _dump(value: Any) -> JsonValue:
    return value.model_dump(mode="json", by_alias=True, exclude_none=True)


class GoogleProvider(Provider):
    """Gemini models through ``google-genai``, over a host-supplied ``httpx.AsyncClient``.

    The SDK's own retries are off (``HttpRetryOptions(attempts=1)``); wrap the provider in
    ``robota.core.retry.RetryingProvider`` for retries.

    :meth:`stream` uses ``streamGenerateContent?alt=sse``; :meth:`complete` uses
    ``generateContent``. Both yield the same neutral shapes (see ``_response`` for the rules).
    Every response is a complete answer or a typed error (see ``_outcome`` and ``_wire``).

    Args:
        api_key: Gemini API key (``x-goog-api-key``). When None: ``GEMINI_API_KEY``, then
            ``GOOGLE_API_KEY`` — read only for Google's own endpoint (see ``_endpoint``); a
            custom ``base_url`` without a key sends no key header. Not used with ``vertex``.
        http_client: The ``httpx.AsyncClient`` to send with; when None the provider creates one
            and closes it in :meth:`aclose` (an injected client is never closed).
        base_url: Endpoint override (default: the Gemini API, or the Vertex regional endpoint).
            A custom endpoint reports ``endpoint.vendor=False`` and publishes model facts only
            (capabilities unknown) — see ``_endpoint``.
        vertex: Target Vertex AI instead of the Gemini Developer API.
        default_model: Model used when a host names none.
        include_thoughts: Ask thinking models for thought summaries (``includeThoughts``).
        streaming: When False, :meth:`stream` calls ``generateContent`` and yields the deltas of
            the whole response at once (for hosts or recordings without SSE).
        api_version: API version path segment (default ``v1beta`` for the Gemini API — the
            surface with thinking, URL context and JSON-schema output — and ``v1beta1`` on
            Vertex).

    Raises:
        ConfigurationError: when no API key is given or found for Google's own endpoint and no
            Vertex target is given; when a Vertex target has no credentials.

    Example:
        >>> import httpx
        >>> provider = GoogleProvider("k", http_client=httpx.AsyncClient())
        >>> provider.model_info("gemini-2.5-pro").context_window
        1048576
        >>> provider.endpoint.vendor
        True
    """

    name = PROVIDER_NAME

    def __init__(
        self,
        api_key: str | None = None,
        *,
        http_client: httpx.AsyncClient | None = None,
        base_url: str | None = None,
        vertex: VertexTarget | None = None,
        default_model: str | None = "gemini-2.5-flash",
        include_thoughts: bool = True,
        api_version: str | None = None,
        streaming: bool = True,
    ) -> None:
        if vertex is not None and vertex.credentials is None:
            raise ConfigurationError("VertexTarget needs credentials= (none are looked up)")
        url = base_url or (vertex.base_url if vertex is not None else GEMINI_BASE_URL)
        key = resolve_key(api_key, base_url=url, vertex=vertex is not None, provider=self.name)
        self.default_model = default_model
        self._include_thoughts = include_thoughts
        self._streaming = streaming
        self._endpoint = EndpointProvenance(base_url=url, vendor=is_google_endpoint(url))
        self._owns_client = http_client is None
        self._http = http_client if http_client is not None else httpx.AsyncClient()
        # The SDK sends through this client, which forwards to ``self._http`` (see _transport).
        self._sdk_http = sending_through(self._http)
        options = types.HttpOptions(
            base_url=url,
            api_version=api_version or ("v1beta1" if vertex is not None else "v1beta"),
            httpx_async_client=self._sdk_http,
            retry_options=types.HttpRetryOptions(attempts=1),
        )
        if vertex is not None:
            self._client = genai.Client(
                vertexai=True,
                credentials=vertex.credentials,
                project=vertex.project,
                location=vertex.location,
                http_options=options,
            )
        else:
            self._client = gemini_client(api_key=key, options=options)
        self._vertex = vertex is not None

    @classmethod
    def from_env(
        cls, *, http_client: httpx.AsyncClient | None = None, **kwargs: Any
    ) -> GoogleProvider:
        """Build with the key from ``GEMINI_API_KEY`` (or ``GOOGLE_API_KEY``), read even for a
        custom ``base_url`` — the host asked for ambient configuration.

        Raises:
            ConfigurationError: when neither variable is set.
        """
        key = next((os.environ[n] for n in API_KEY_ENV if os.environ.get(n)), None)
        if not key:
            raise ConfigurationError(f"set {' or '.join(API_KEY_ENV)}")
        return cls(key, http_client=http_client, **kwargs)

    @property
    def endpoint(self) -> EndpointProvenance:
        """Where this instance sends requests; ``vendor`` is True only for Google's own
        endpoint (the Gemini API or Vertex AI), see ``_endpoint``."""
        return self._endpoint

    # --- metadata -----------------------------------------------------------------------

    def model_info(self, model: str) -> ModelInfo | None:
        """Metadata from the source-dated table in ``_models``; None for unlisted models. On a
        custom endpoint only the model facts (context window, maximum output) are kept and the
        capabilities are unknown (see ``_endpoint``)."""
        info = lookup_model(model)
        if info is None or self._endpoint.vendor:
            return info
        return model_facts_only(info)

    def models(self) -> tuple[ModelInfo, ...]:
        """Every listed Gemini model (as :meth:`model_info` reports it)."""
        if self._endpoint.vendor:
            return tuple(MODELS.values())
        return tuple(model_facts_only(info) for info in MODELS.values())

    def estimate_cost(self, response: ModelResponse) -> Decimal | None:
        """USD cost of ``response`` from ``genai-prices``; None when the model is unknown."""
        return estimate_cost(response)

    # --- calls --------------------------------------------------------------------------

    def _check(self, request: ModelRequest) -> ModelCapabilities:
        caps = self.capabilities(request.model)
        if request.hosted_tools and caps.hosted_tools is not None:
            missing = request.hosted_tools - caps.hosted_tools
            if missing:
                names = ", ".join(sorted(t.value for t in missing))
                raise UnsupportedCapabilityError(
                    f"{request.model} does not support hosted tool(s): {names}"
                )
        return caps

    def _prepare(
        self, request: ModelRequest
    ) -> tuple[list[types.Content], types.GenerateContentConfig, Any]:
        self._check(request)
        resolved = resolve_thinking(
            request.model,
            request.settings.reasoning_effort,
            include_thoughts=self._include_thoughts,
        )
        contents, system = build_contents(request.messages)
        config = build_config(request, system=system, thinking=resolved.config)
        return contents, config, resolved.resolution

    def _report(self, request: ModelRequest, api: str) -> Callable[[str, JsonValue], None]:
        order = 0

        def report(direction: str, payload: JsonValue) -> None:
            nonlocal order
            callback = request.on_payload
            if callback is None:
                return
            callback(
                PayloadEvent(
                    provider=PROVIDER_NAME,
                    api=api,
                    direction="request"
                    if direction == "request"
                    else ("stream" if direction == "stream" else "response"),
                    payload=payload,
                    order=order,
                )
            )
            order += 1

        return report

    @staticmethod
    def _request_payload(
        model: str, contents: list[types.Content], config: types.GenerateContentConfig
    ) -> JsonValue:
        body = _dump(config.model_copy(update={"http_options": None}))
        return {"model": model, "contents": [_dump(c) for c in contents], "config": body}

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Stream one call through ``streamGenerateContent`` (SSE).

        Yields deltas, a :class:`~robota.core.provider.UsageReported` for each chunk with usage
        before the last one, then one :class:`ResponseCompleted`.

        Raises:
            ProviderError: (subclasses) classified from the SDK/httpx failure, an ``error``
                chunk, or the response itself (see ``_outcome``).
            MalformedResponseError: the stream ended before a chunk with ``finishReason``, a
                chunk is not JSON, no candidate came back, ``MALFORMED_FUNCTION_CALL`` ….
            ContentFilterError: when the prompt is blocked outright.
            UnsupportedCapabilityError: for a hosted tool the model does not support (before
                any I/O).
        """
        if not self._streaming:
            async for event in self._buffered_stream(request):
                yield event
            return
        contents, config, effort = self._prepare(request)
        report = self._report(request, _STREAM_API)
        report("request", self._request_payload(request.model, contents, config))
        assembler = ResponseAssembler(model=request.model, api=_STREAM_API)
        try:
            chunks = await self._client.aio.models.generate_content_stream(
                model=request.model, contents=list[types.ContentUnion](contents), config=config
            )
        except Exception as exc:
            classified = classify_error(exc)
            if classified is None:
                raise
            raise classified from exc
        async with aclosing(read_chunks(chunks, api=_STREAM_API)) as reader:
            async for chunk in reader:
                report("stream", _dump(chunk.model_copy(update={"sdk_http_response": None})))
                for event in assembler.feed(chunk):
                    yield event
        yield ResponseCompleted(response=assembler.finish(effort=effort))

    async def _buffered_stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        response, events = await self._generate(request)
        for event in events:
            yield event
        yield ResponseCompleted(response=response)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """One buffered call through ``generateContent``.

        Raises:
            ProviderError: (subclasses) classified from the SDK/httpx failure, or from a body
                that carries ``error``.
            MalformedResponseError: an empty, HTML or non-object body; no candidate; no
                ``finishReason``; ``MALFORMED_FUNCTION_CALL`` … (see ``_outcome``).
            ContentFilterError: when the prompt is blocked outright.
            UnsupportedCapabilityError: for a hosted tool the model does not support (before
                any I/O).
        """
        response, _ = await self._generate(request)
        return response

    async def _generate(self, request: ModelRequest) -> tuple[ModelResponse, list[StreamEvent]]:
        contents, config, effort = self._prepare(request)
        report = self._report(request, _BUFFERED_API)
        report("request", self._request_payload(request.model, contents, config))
        assembler = ResponseAssembler(model=request.model, api=_BUFFERED_API)
        try:
            raw = await self._client.aio.models.generate_content(
                model=request.model,
                contents=list[types.ContentUnion](contents),
                config=config.model_copy(update={"should_return_http_response": True}),
            )
        except Exception as exc:
            classified = classify_error(exc)
            if classified is None:
                raise
            raise classified from exc
        http = raw.sdk_http_response
        data, response = decode_body(
            http.body if http is not None else None,
            http.headers if http is not None else None,
            api=_BUFFERED_API,
            vertex=self._vertex,
        )
        report("response", data)
        events = assembler.feed(response)
        return assembler.finish(effort=effort), events

    async def count_tokens(self, request: ModelRequest) -> int | None:
        """Input tokens from ``models.countTokens``.

        On Vertex the system instruction and function tools are counted too. The Gemini
        Developer API's ``countTokens`` (through the SDK) takes contents only, so there the
        system prompt is counted as a leading user turn and tool schemas are not counted.

        Raises:
            ProviderError: (subclasses) classified from the SDK/httpx failure.
            MalformedResponseError: a body that is not JSON, or one without ``totalTokens``.
        """
        contents, system = build_contents(request.messages)
        config: types.CountTokensConfig | None = None
        if self._vertex:
            config = types.CountTokensConfig(
                system_instruction=system, tools=build_tools(request) or None
            )
        elif system is not None:
            contents = [system, *contents]
        try:
            result = await self._client.aio.models.count_tokens(
                model=request.model, contents=list[types.ContentUnion](contents), config=config
            )
        except Exception as exc:
            classified = classify_read_error(exc, api="countTokens")
            if classified is None:
                raise
            raise classified from exc
        if result.total_tokens is None:
            raise malformed(PROVIDER_NAME, "countTokens", "totalTokens")
        return result.total_tokens

    async def aclose(self) -> None:
        """Close the HTTP client if this provider created it (never a host's client)."""
        await self._sdk_http.aclose()
        if self._owns_client:
            await self._http.aclose()
