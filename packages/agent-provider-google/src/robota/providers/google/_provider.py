"""The Gemini provider: wraps the official ``google-genai`` SDK (seed 000, "Provider Contract —
Dual Surface"; seed 002, "Providers and model adapters")."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import httpx
from robota.core.capabilities import ModelCapabilities, ModelInfo
from robota.core.errors import ConfigurationError, UnsupportedCapabilityError
from robota.core.messages import JsonValue
from robota.core.provider import (
    ModelRequest,
    ModelResponse,
    PayloadEvent,
    Provider,
    ResponseCompleted,
    StreamEvent,
)
from robota.providers.google._cost import estimate_cost
from robota.providers.google._effort import resolve_thinking
from robota.providers.google._errors import classify_error
from robota.providers.google._models import MODELS, lookup_model
from robota.providers.google._request import (
    PROVIDER_NAME,
    build_config,
    build_contents,
    build_tools,
)
from robota.providers.google._response import ResponseAssembler

from google import genai
from google.auth.credentials import Credentials
from google.genai import types

__all__ = ["GEMINI_BASE_URL", "GoogleProvider", "VertexTarget"]

GEMINI_BASE_URL = "https://generativelanguage.googleapis.com/"
"""The Gemini Developer API endpoint (https://ai.google.dev/api, read 2026-11-30)."""


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

    Nothing is read from the environment unless the host calls :meth:`from_env`. The SDK's own
    retries are off (``HttpRetryOptions(attempts=1)``); wrap the provider in
    ``robota.core.retry.RetryingProvider`` for retries.

    :meth:`stream` uses ``streamGenerateContent?alt=sse``; :meth:`complete` uses
    ``generateContent``. Both yield the same neutral shapes (see ``_response`` for the rules).

    Args:
        api_key: Gemini API key (``x-goog-api-key``). Required unless ``vertex`` is given.
        http_client: The ``httpx.AsyncClient`` to send with; when None the provider creates one
            and closes it in :meth:`aclose` (an injected client is never closed).
        base_url: Endpoint override (default: the Gemini API, or the Vertex regional endpoint).
        vertex: Target Vertex AI instead of the Gemini Developer API.
        default_model: Model used when a host names none.
        include_thoughts: Ask thinking models for thought summaries (``includeThoughts``).
        streaming: When False, :meth:`stream` calls ``generateContent`` and yields the deltas of
            the whole response at once (for hosts or recordings without SSE).
        api_version: API version path segment (default ``v1beta`` for the Gemini API — the
            surface with thinking, URL context and JSON-schema output — and ``v1beta1`` on
            Vertex).

    Raises:
        ConfigurationError: when neither an API key nor a Vertex target is given.

    Example:
        >>> import httpx
        >>> provider = GoogleProvider(api_key="k", http_client=httpx.AsyncClient())
        >>> provider.model_info("gemini-2.5-pro").context_window
        1048576
    """

    name = PROVIDER_NAME

    def __init__(
        self,
        *,
        api_key: str | None = None,
        http_client: httpx.AsyncClient | None = None,
        base_url: str | None = None,
        vertex: VertexTarget | None = None,
        default_model: str | None = "gemini-2.5-flash",
        include_thoughts: bool = True,
        api_version: str | None = None,
        streaming: bool = True,
    ) -> None:
        if not api_key and vertex is None:
            raise ConfigurationError("GoogleProvider needs api_key= or vertex=")
        if vertex is not None and vertex.credentials is None:
            raise ConfigurationError("VertexTarget needs credentials= (none are looked up)")
        self.default_model = default_model
        self._include_thoughts = include_thoughts
        self._streaming = streaming
        self._owns_client = http_client is None
        self._http = http_client if http_client is not None else httpx.AsyncClient()
        url = base_url or (vertex.base_url if vertex is not None else GEMINI_BASE_URL)
        options = types.HttpOptions(
            base_url=url,
            api_version=api_version or ("v1beta1" if vertex is not None else "v1beta"),
            httpx_async_client=self._http,
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
            self._client = genai.Client(vertexai=False, api_key=api_key, http_options=options)
        self._vertex = vertex is not None

    @classmethod
    def from_env(
        cls, *, http_client: httpx.AsyncClient | None = None, **kwargs: Any
    ) -> GoogleProvider:
        """Build from ``GEMINI_API_KEY`` (or ``GOOGLE_API_KEY``) — only when the host asks.

        Raises:
            ConfigurationError: when neither variable is set.
        """
        key = os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY")
        if not key:
            raise ConfigurationError("set GEMINI_API_KEY or GOOGLE_API_KEY")
        return cls(api_key=key, http_client=http_client, **kwargs)

    # --- metadata -----------------------------------------------------------------------

    def model_info(self, model: str) -> ModelInfo | None:
        """Metadata from the source-dated table in ``_models``; None for unlisted models."""
        return lookup_model(model)

    def models(self) -> tuple[ModelInfo, ...]:
        """Every listed Gemini model."""
        return tuple(MODELS.values())

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

        Raises:
            ProviderError: (subclasses) classified from the SDK/httpx failure.
            ContentFilterError: when the prompt is blocked outright.
            UnsupportedCapabilityError: for a hosted tool the model does not support (before
                any I/O).
        """
        if not self._streaming:
            async for event in self._buffered_stream(request):
                yield event
            return
        contents, config, effort = self._prepare(request)
        report = self._report(request, "streamGenerateContent")
        report("request", self._request_payload(request.model, contents, config))
        assembler = ResponseAssembler(model=request.model)
        try:
            chunks = await self._client.aio.models.generate_content_stream(
                model=request.model, contents=list[types.ContentUnion](contents), config=config
            )
            async for chunk in chunks:
                report("stream", _dump(chunk.model_copy(update={"sdk_http_response": None})))
                for event in assembler.feed(chunk):
                    yield event
        except Exception as exc:
            classified = classify_error(exc)
            if classified is None:
                raise
            raise classified from exc
        yield ResponseCompleted(response=assembler.finish(effort=effort))

    async def _buffered_stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        response, events = await self._generate(request)
        for event in events:
            yield event
        yield ResponseCompleted(response=response)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """One buffered call through ``generateContent``.

        Raises:
            ProviderError: (subclasses) classified from the SDK/httpx failure.
            ContentFilterError: when the prompt is blocked outright.
            UnsupportedCapabilityError: for a hosted tool the model does not support (before
                any I/O).
        """
        response, _ = await self._generate(request)
        return response

    async def _generate(self, request: ModelRequest) -> tuple[ModelResponse, list[StreamEvent]]:
        contents, config, effort = self._prepare(request)
        report = self._report(request, "generateContent")
        report("request", self._request_payload(request.model, contents, config))
        assembler = ResponseAssembler(model=request.model)
        try:
            response = await self._client.aio.models.generate_content(
                model=request.model, contents=list[types.ContentUnion](contents), config=config
            )
        except Exception as exc:
            classified = classify_error(exc)
            if classified is None:
                raise
            raise classified from exc
        report("response", _dump(response.model_copy(update={"sdk_http_response": None})))
        events = assembler.feed(response)
        return assembler.finish(effort=effort), events

    async def count_tokens(self, request: ModelRequest) -> int | None:
        """Input tokens from ``models.countTokens``.

        On Vertex the system instruction and function tools are counted too. The Gemini
        Developer API's ``countTokens`` (through the SDK) takes contents only, so there the
        system prompt is counted as a leading user turn and tool schemas are not counted.

        Raises:
            ProviderError: (subclasses) classified from the SDK/httpx failure.
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
            classified = classify_error(exc)
            if classified is None:
                raise
            raise classified from exc
        return result.total_tokens

    async def aclose(self) -> None:
        """Close the HTTP client if this provider created it."""
        if self._owns_client:
            await self._http.aclose()
