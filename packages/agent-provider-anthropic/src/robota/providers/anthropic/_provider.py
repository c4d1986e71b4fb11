"""The Anthropic provider: the official ``anthropic`` SDK behind Robota's provider contract
(seed 000, "Provider Contract — Dual Surface"; seed 002, "Providers and model adapters")."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterable, Mapping
from decimal import Decimal
from typing import Any, cast

import httpx
import httpx2
from robota.core.capabilities import HostedTool, ModelInfo
from robota.core.errors import MalformedResponseError, ProviderError
from robota.core.messages import TextPart, ThinkingPart, ToolCallPart
from robota.core.provider import (
    ModelRequest,
    ModelResponse,
    PayloadEvent,
    Provider,
    ResponseCompleted,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from robota.providers.anthropic._errors import classify_sdk_error
from robota.providers.anthropic._models import model_infos, spec_for
from robota.providers.anthropic._request import (
    BuiltRequest,
    CacheBreakpoint,
    build_request,
    payload_json,
)
from robota.providers.anthropic._response import decode_message
from robota.providers.anthropic._stream import StreamAssembler, iter_sse
from robota.providers.anthropic._transport import as_httpx2_client
from robota.providers.anthropic._usage import estimate_cost

import anthropic

__all__ = ["DEFAULT_BASE_URL", "AnthropicProvider"]

DEFAULT_BASE_URL = "https://api.anthropic.com"
_API = "messages"
_COUNT_KEYS = ("model", "messages", "system", "tools", "tool_choice", "thinking")


class AnthropicProvider(Provider):
    """Claude models through the Anthropic Messages API.

    The SDK client is built with ``max_retries=0`` (retries belong to
    ``robota.core.retry.RetryingProvider``), the given ``base_url`` and ``api_key``, and the
    host's ``http_client`` (``httpx.AsyncClient`` or ``httpx2.AsyncClient``); nothing is read
    from the environment except by :meth:`from_env`. The SDK's own reading of
    ``ANTHROPIC_CUSTOM_HEADERS`` is undone: those headers are often gateway credentials, and a
    credential never follows an endpoint the caller chose (issue #13) — pass
    ``default_headers`` (or use :meth:`from_env`) to send them.

    :meth:`stream` sends ``stream: true``; :meth:`complete` sends a buffered request. Either one
    decodes a response of the other kind too (a JSON body on a streaming call becomes deltas).

    Args:
        api_key: The Anthropic API key (sent as ``x-api-key``).
        base_url: API root; default :data:`DEFAULT_BASE_URL`.
        http_client: The host's HTTP client; never closed by :meth:`aclose`.
        default_model: Model used when a host names none.
        default_max_tokens: ``max_tokens`` when settings set none (tokens; the API requires
            one).
        cache_breakpoints: Where to place prompt-cache breakpoints: any of ``"system"``,
            ``"tools"``, ``"history"`` (the last user turn). Empty disables caching markers.
        hosted_tools: Hosted tools this instance may offer (default: all of
            :class:`~robota.core.capabilities.HostedTool`).
        name: Provider name used in records and as the ``extra_body`` tag.
        default_headers: Extra HTTP headers sent with every request (e.g. a gateway key).

    Example:
        >>> import httpx
        >>> provider = AnthropicProvider(api_key="sk-test", http_client=httpx.AsyncClient())
        >>> provider.model_info("claude-sonnet-4-5").context_window
        200000
        >>> provider.model_info("claude-unknown") is None
        True
    """

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str = DEFAULT_BASE_URL,
        http_client: httpx.AsyncClient | httpx2.AsyncClient | None = None,
        default_model: str | None = "claude-sonnet-4-6",
        default_max_tokens: int = 4096,
        cache_breakpoints: Iterable[CacheBreakpoint] = ("system", "tools", "history"),
        hosted_tools: Iterable[HostedTool] | None = None,
        name: str = "anthropic",
        default_headers: Mapping[str, str] | None = None,
    ) -> None:
        self.name = name
        self.default_model = default_model
        self.default_max_tokens = default_max_tokens
        self.cache_breakpoints: frozenset[CacheBreakpoint] = frozenset(cache_breakpoints)
        self.hosted_tools: frozenset[HostedTool] = (
            frozenset(hosted_tools) if hosted_tools is not None else frozenset(HostedTool)
        )
        self._owns_client = http_client is None
        client = as_httpx2_client(http_client) if http_client is not None else None
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key, base_url=base_url, http_client=client, max_retries=0
        )
        # The SDK merges ANTHROPIC_CUSTOM_HEADERS from the environment into its default headers
        # at construction; replace them with exactly what the caller gave.
        setattr(self._client, "_custom_headers", dict(default_headers or {}))  # noqa: B010

    @classmethod
    def from_env(cls, **kwargs: Any) -> AnthropicProvider:
        """Build from ``ANTHROPIC_API_KEY`` (required) and ``ANTHROPIC_BASE_URL`` (optional).

        Raises:
            robota.core.errors.ConfigurationError: when ``ANTHROPIC_API_KEY`` is not set.
        """
        from robota.core.errors import ConfigurationError

        key = os.environ.get("ANTHROPIC_API_KEY")
        if not key:
            raise ConfigurationError("ANTHROPIC_API_KEY is not set")
        base = os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL
        headers = _headers_from_env(os.environ.get("ANTHROPIC_CUSTOM_HEADERS"))
        if headers and "default_headers" not in kwargs:
            kwargs["default_headers"] = headers
        return cls(api_key=key, base_url=base, **kwargs)

    # --- metadata -----------------------------------------------------------------------

    def model_info(self, model: str) -> ModelInfo | None:
        """Metadata from the provider's table, or None for an unknown model."""
        spec = spec_for(model)
        return spec.info(model, self.name) if spec is not None else None

    def models(self) -> tuple[ModelInfo, ...]:
        """Every model id in the table (aliases and dated snapshots included)."""
        return model_infos(self.name)

    def estimate_cost(self, response: ModelResponse) -> Decimal | None:
        """USD cost of ``response`` from ``genai-prices``, or None when the model is unknown."""
        return estimate_cost(response.model or "", response.usage)

    # --- calls --------------------------------------------------------------------------

    def _build(self, request: ModelRequest) -> BuiltRequest:
        return build_request(
            request,
            provider=self.name,
            default_max_tokens=self.default_max_tokens,
            cache_breakpoints=self.cache_breakpoints,
            hosted_tools=self.hosted_tools,
        )

    def _options(self, built: BuiltRequest) -> dict[str, Any]:
        headers = dict(built.extra_headers)
        if built.betas:
            existing = [b for b in headers.get("anthropic-beta", "").split(",") if b.strip()]
            headers["anthropic-beta"] = ",".join([*existing, *built.betas])
        options: dict[str, Any] = {"extra_headers": headers}
        if built.timeout is not None:
            options["timeout"] = built.timeout
        return options

    def _emit(self, request: ModelRequest, direction: str, payload: Any, order: int) -> None:
        if request.on_payload is None:
            return
        request.on_payload(
            PayloadEvent(
                provider=self.name,
                api=_API,
                direction=cast(Any, direction),
                payload=payload,
                order=order,
            )
        )

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """One buffered Messages API call (``stream: false``).

        Raises:
            ProviderError: (subclasses) classified from the vendor's error.
            UnsupportedCapabilityError, UnsupportedSettingError, ConfigurationError: before
                any I/O, see :func:`~._request.build_request`.
        """
        built = self._build(request)
        body = {**built.body, "stream": False}
        self._emit(request, "request", payload_json(body), 0)
        try:
            raw = await self._client.messages.with_raw_response.create(
                **body, **self._options(built)
            )
            data: Any = raw.http_response.json()
        except anthropic.AnthropicError as exc:
            raise classify_sdk_error(exc, provider=self.name) from exc
        except ValueError as exc:
            raise MalformedResponseError(
                f"anthropic response is not JSON: {exc}", provider=self.name
            ) from exc
        self._emit(request, "response", data, 1)
        if not isinstance(data, Mapping):
            raise MalformedResponseError("anthropic response is not an object", provider=self.name)
        return decode_message(
            cast(Mapping[str, Any], data),
            provider=self.name,
            request_id=raw.headers.get("request-id"),
            effort=built.effort,
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Stream one Messages API call (``stream: true``): text, thinking and tool-argument
        deltas, then one :class:`ResponseCompleted`.

        Raises:
            ProviderError: (subclasses) for HTTP errors and ``error`` events mid-stream.
            MalformedResponseError: when the stream ends before ``message_stop``.
        """
        built = self._build(request)
        body = {**built.body, "stream": True}
        self._emit(request, "request", payload_json(body), 0)
        order = 1
        try:
            async with self._client.messages.with_streaming_response.create(
                **body, **self._options(built)
            ) as response:
                request_id = response.headers.get("request-id")
                content_type = response.headers.get("content-type", "")
                if "text/event-stream" not in content_type:
                    data: Any = await response.json()
                    self._emit(request, "response", data, order)
                    for event in _replay_as_stream(
                        decode_message(
                            cast(Mapping[str, Any], data),
                            provider=self.name,
                            request_id=request_id,
                            effort=built.effort,
                        )
                    ):
                        yield event
                    return
                assembler = StreamAssembler(
                    provider=self.name, request_id=request_id, effort=built.effort
                )
                async for name, payload in iter_sse(response.iter_lines()):
                    self._emit(request, "stream", payload, order)
                    order += 1
                    for event in assembler.feed(name, payload):
                        yield event
                if not assembler.done:
                    raise MalformedResponseError(
                        "anthropic stream ended before message_stop",
                        provider=self.name,
                        recoverable=True,
                    )
        except anthropic.AnthropicError as exc:
            raise classify_sdk_error(exc, provider=self.name) from exc
        except (httpx.TransportError, httpx2.TransportError) as exc:
            raise ProviderError(
                f"anthropic stream broke: {exc}", provider=self.name, recoverable=True
            ) from exc

    async def count_tokens(self, request: ModelRequest) -> int | None:
        """Exact input tokens from ``POST /v1/messages/count_tokens``.

        Raises:
            ProviderError: (subclasses) classified from the vendor's error.
        """
        built = self._build(request)
        body = {k: v for k, v in built.body.items() if k in _COUNT_KEYS}
        try:
            raw = await self._client.messages.with_raw_response.count_tokens(
                **body, **self._options(built)
            )
            data: Any = raw.http_response.json()
        except anthropic.AnthropicError as exc:
            raise classify_sdk_error(exc, provider=self.name) from exc
        tokens = data.get("input_tokens") if isinstance(data, Mapping) else None
        if not isinstance(tokens, int):
            raise MalformedResponseError(
                "anthropic count_tokens answer has no input_tokens", provider=self.name
            )
        return tokens

    async def aclose(self) -> None:
        """Close the SDK client when this provider created it (never a host's client)."""
        if self._owns_client:
            await self._client.close()


def _replay_as_stream(response: ModelResponse) -> list[StreamEvent]:
    events: list[StreamEvent] = []
    calls = 0
    for part in response.message.parts:
        if isinstance(part, TextPart):
            events.append(TextDelta(text=part.text))
        elif isinstance(part, ThinkingPart) and part.text:
            events.append(ThinkingDelta(text=part.text))
        elif isinstance(part, ToolCallPart) and not part.hosted:
            events.append(
                ToolCallDelta(
                    index=calls, id=part.id, name=part.name, arguments_delta=part.raw_arguments
                )
            )
            calls += 1
    events.append(ResponseCompleted(response=response))
    return events


def _headers_from_env(text: str | None) -> dict[str, str]:
    """``ANTHROPIC_CUSTOM_HEADERS`` (``Name: value`` lines) as a dict, as the SDK reads it."""
    headers: dict[str, str] = {}
    for line in (text or "").split("\n"):
        name, colon, value = line.partition(":")
        if colon and name.strip():
            headers[name.strip()] = value.strip()
    return headers
