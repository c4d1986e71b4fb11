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
from robota.core.errors import MalformedResponseError, ProviderError, ProviderTimeoutError
from robota.core.messages import TextPart, ThinkingPart, ToolCallPart
from robota.core.provider import (
    EndpointProvenance,
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
from robota.core.wire import decode_json_object, malformed
from robota.providers.anthropic._endpoint import (
    DEFAULT_BASE_URL,
    build_client,
    is_anthropic_endpoint,
    model_facts_only,
    resolve_key,
)
from robota.providers.anthropic._errors import (
    classify_sdk_error,
    error_in_body,
    undecodable_body,
)
from robota.providers.anthropic._models import model_infos, spec_for
from robota.providers.anthropic._request import (
    BuiltRequest,
    CacheBreakpoint,
    build_request,
    payload_json,
)
from robota.providers.anthropic._response import API, decode_message
from robota.providers.anthropic._sse import read_events
from robota.providers.anthropic._stream import StreamAssembler
from robota.providers.anthropic._usage import estimate_cost

import anthropic

__all__ = ["DEFAULT_BASE_URL", "AnthropicProvider"]

_COUNT_KEYS = ("model", "messages", "system", "tools", "tool_choice", "thinking")


class AnthropicProvider(Provider):
    """Claude models through the Anthropic Messages API.

    The SDK client is built with ``max_retries=0`` (retries belong to
    ``robota.core.retry.RetryingProvider``), the given ``base_url`` and key, and the host's
    ``http_client`` (``httpx.AsyncClient`` or ``httpx2.AsyncClient``). The SDK's own reading of
    ``ANTHROPIC_CUSTOM_HEADERS`` and its credential discovery are undone: those headers are
    often gateway credentials, and a credential never follows an endpoint the caller chose
    (issue #13) — pass ``default_headers`` (or use :meth:`from_env`) to send them.

    Outcomes (issue #14): :meth:`complete` and :meth:`stream` return a complete answer or raise
    a typed :class:`~robota.core.errors.RobotaError` — an error body is classified by its type
    even with HTTP 200, and a body that is not a complete message (cut stream, HTML page, empty
    body, broken event order) is :class:`~robota.core.errors.MalformedResponseError`.

    :meth:`stream` sends ``stream: true``; :meth:`complete` sends a buffered request. Either one
    decodes a response of the other kind too (a JSON body on a streaming call becomes deltas).

    Args:
        api_key: The Anthropic API key. None: ``ANTHROPIC_API_KEY`` when ``base_url`` is
            Anthropic's own endpoint; for a custom ``base_url`` the environment is not read
            and no credential header is sent (see :mod:`~._endpoint`).
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

    Raises:
        ConfigurationError: when there is no key for Anthropic's own endpoint.

    Example:
        >>> import httpx
        >>> provider = AnthropicProvider("sk-test", http_client=httpx.AsyncClient())
        >>> provider.model_info("claude-sonnet-4-5").context_window
        200000
        >>> provider.model_info("claude-unknown") is None
        True
        >>> provider.endpoint.vendor
        True
        >>> gateway = AnthropicProvider(base_url="http://127.0.0.1:4000")
        >>> gateway.endpoint.vendor, gateway.capabilities("claude-sonnet-4-5").thinking
        (False, None)
    """

    def __init__(
        self,
        api_key: str | None = None,
        *,
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
        self._endpoint = EndpointProvenance(
            base_url=base_url, vendor=is_anthropic_endpoint(base_url)
        )
        key = resolve_key(api_key, base_url=base_url, provider=name)
        self._owns_client = http_client is None
        self._client = build_client(
            api_key=key,
            base_url=base_url,
            http_client=http_client,
            default_headers=default_headers,
        )

    @classmethod
    def from_env(cls, **kwargs: Any) -> AnthropicProvider:
        """Build from ``ANTHROPIC_API_KEY``, ``ANTHROPIC_BASE_URL`` and
        ``ANTHROPIC_CUSTOM_HEADERS`` (``Name: value`` lines), all read from the user's own
        environment together (so the key may go to the base URL set beside it).

        Raises:
            robota.core.errors.ConfigurationError: when ``ANTHROPIC_API_KEY`` is not set and
                the endpoint is Anthropic's own.
        """
        base = os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL
        headers = _headers_from_env(os.environ.get("ANTHROPIC_CUSTOM_HEADERS"))
        if headers and "default_headers" not in kwargs:
            kwargs["default_headers"] = headers
        return cls(os.environ.get("ANTHROPIC_API_KEY") or None, base_url=base, **kwargs)

    @property
    def endpoint(self) -> EndpointProvenance:
        """The base URL in use; ``vendor`` is True only for Anthropic's own endpoint."""
        return self._endpoint

    # --- metadata -----------------------------------------------------------------------

    def model_info(self, model: str) -> ModelInfo | None:
        """Metadata from the provider's table, or None for an unknown model. On a custom
        endpoint only the model facts (context window, maximum output) are kept; the
        capabilities are unknown (see :func:`~._endpoint.model_facts_only`)."""
        spec = spec_for(model)
        if spec is None:
            return None
        info = spec.info(model, self.name)
        return info if self._endpoint.vendor else model_facts_only(info)

    def models(self) -> tuple[ModelInfo, ...]:
        """Every model id in the table (aliases and dated snapshots included)."""
        infos = model_infos(self.name)
        return infos if self._endpoint.vendor else tuple(model_facts_only(i) for i in infos)

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
                api=API,
                direction=cast(Any, direction),
                payload=payload,
                order=order,
            )
        )

    def _json_object(
        self, body: bytes, *, api: str, status: int, request_id: str | None
    ) -> dict[str, Any]:
        """``body`` as one JSON object (:func:`robota.core.wire.decode_json_object`), JSON nested
        deeper than the decoder can follow included.

        Raises:
            MalformedResponseError: ``missing="JSON object body"``.
        """
        try:
            return decode_json_object(
                body, provider=self.name, api=api, status=status, request_id=request_id
            )
        except RecursionError as exc:
            raise MalformedResponseError(
                f"{self.name} {api}: the JSON body is nested too deeply to decode",
                provider=self.name,
                api=api,
                missing="JSON object body",
                status=status,
                request_id=request_id,
            ) from exc

    def _answer(
        self,
        request: ModelRequest,
        body: bytes,
        *,
        status: int,
        request_id: str | None,
        order: int,
    ) -> dict[str, Any]:
        """A 2xx body as a JSON object that is no error (recorded before it is judged)."""
        data = self._json_object(body, api=API, status=status, request_id=request_id)
        self._emit(request, "response", data, order)
        error = error_in_body(data, provider=self.name, request_id=request_id)
        if error is not None:
            raise error
        return data

    def _broken_transport(
        self, exc: Exception, missing: str, request_id: str | None = None
    ) -> ProviderError:
        undecodable = undecodable_body(exc, provider=self.name, api=API, request_id=request_id)
        if undecodable is not None:
            return undecodable
        if isinstance(exc, httpx.TimeoutException | httpx2.TimeoutException):
            return ProviderTimeoutError(
                f"{self.name} response timed out: {exc}", provider=self.name
            )
        return malformed(self.name, API, missing, detail=f"the connection broke: {exc}")

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """One buffered Messages API call (``stream: false``); an event-stream answer (a gateway
        that always streams) is decoded by the same rules as :meth:`stream`, the per-call
        ``timeout`` bounding the wait for each of its events.

        Raises:
            ProviderError: (subclasses) classified from the vendor's error — an HTTP error
                status, or an error body in a 200.
            ContextWindowExceededError: when the vendor says the prompt is too long.
            MalformedResponseError: when the body is not a complete message (not JSON, an HTML
                page, empty, no ``content`` list or ``stop_reason``, ``tool_use`` without a
                tool call) or cannot be decoded (its ``content-encoding``).
            ProviderTimeoutError: when the response did not arrive within the timeout.
            UnsupportedCapabilityError, UnsupportedSettingError, ConfigurationError: before
                any I/O, see :func:`~._request.build_request`.
        """
        final: ModelResponse | None = None
        async for event in self._call(request, streaming=False):
            if isinstance(event, ResponseCompleted):
                final = event.response
        if final is None:  # _call ends with ResponseCompleted or raises
            raise malformed(self.name, API, "message_stop event")
        return final

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Stream one Messages API call (``stream: true``): text, thinking and tool-argument
        deltas, :class:`~robota.core.provider.UsageReported` as usage arrives, then one
        :class:`ResponseCompleted`.

        The stream is read by this package (:func:`~._sse.read_events`): always as UTF-8,
        whatever charset the response declares, and with a per-call ``timeout`` bounding the
        wait for each next event — keep-alive comments and ``ping`` events do not count.

        Raises:
            ProviderError: (subclasses) for HTTP errors, error bodies and ``error`` events.
            ContextWindowExceededError: when the vendor says the prompt is too long.
            MalformedResponseError: when the body is not a complete stream (see
                :mod:`~._stream`), cannot be decoded (its ``content-encoding``) or, for a JSON
                answer, is not a complete message.
            ProviderTimeoutError: when no event (or no more of the body) arrived within the
                timeout.
        """
        async for event in self._call(request, streaming=True):
            yield event

    async def _call(self, request: ModelRequest, *, streaming: bool) -> AsyncIterator[StreamEvent]:
        """One call (``stream`` as given); a JSON answer or an event stream, whichever came back,
        as neutral stream events ending with :class:`ResponseCompleted`."""
        built = self._build(request)
        body = {**built.body, "stream": streaming}
        self._emit(request, "request", payload_json(body), 0)
        request_id: str | None = None
        missing = "the rest of the body"
        try:
            async with self._client.messages.with_streaming_response.create(
                **body, **self._options(built)
            ) as response:
                request_id = response.headers.get("request-id")
                if "text/event-stream" not in response.headers.get("content-type", ""):
                    data = self._answer(
                        request,
                        await response.read(),
                        status=response.http_response.status_code,
                        request_id=request_id,
                        order=1,
                    )
                    answer = decode_message(
                        data, provider=self.name, request_id=request_id, effort=built.effort
                    )
                    for event in _replay_as_stream(answer):
                        yield event
                    return
                missing = "message_stop event"
                events = read_events(
                    response.http_response.aiter_bytes(),
                    provider=self.name,
                    api=API,
                    request_id=request_id,
                    event_timeout=built.timeout,
                )
                async for event in self._decode_sse(request, events, request_id, built):
                    yield event
        except anthropic.AnthropicError as exc:
            raise classify_sdk_error(exc, provider=self.name) from exc
        except (httpx.RequestError, httpx2.RequestError) as exc:
            raise self._broken_transport(exc, missing, request_id) from exc

    async def _decode_sse(
        self,
        request: ModelRequest,
        events: AsyncIterator[tuple[str, Any]],
        request_id: str | None,
        built: BuiltRequest,
    ) -> AsyncIterator[StreamEvent]:
        """Events of an event-stream body, ending with its :class:`ResponseCompleted`; reading
        stops at ``message_stop``.

        Raises:
            MalformedResponseError: when the body ends before the answer completed.
        """
        assembler = StreamAssembler(provider=self.name, request_id=request_id, effort=built.effort)
        order = 1
        async for name, payload in events:
            self._emit(request, "stream", payload, order)
            order += 1
            for event in assembler.feed(name, payload):
                yield event
            if assembler.done:
                return
        assembler.close()

    async def count_tokens(self, request: ModelRequest) -> int | None:
        """Exact input tokens from ``POST /v1/messages/count_tokens``.

        Raises:
            ProviderError: (subclasses) classified from the vendor's error.
            MalformedResponseError: when the answer is not a JSON object with ``input_tokens``.
        """
        built = self._build(request)
        body = {k: v for k, v in built.body.items() if k in _COUNT_KEYS}
        try:
            raw = await self._client.messages.with_raw_response.count_tokens(
                **body, **self._options(built)
            )
            content = raw.http_response.content
        except anthropic.AnthropicError as exc:
            raise classify_sdk_error(exc, provider=self.name) from exc
        except (httpx.TransportError, httpx2.TransportError) as exc:
            raise self._broken_transport(exc, "the rest of the body") from exc
        request_id = raw.headers.get("request-id")
        data = self._json_object(
            content,
            api="messages.count_tokens",
            status=raw.http_response.status_code,
            request_id=request_id,
        )
        error = error_in_body(data, provider=self.name, request_id=request_id)
        if error is not None:
            raise error
        tokens = data.get("input_tokens")
        if not isinstance(tokens, int) or isinstance(tokens, bool):
            raise malformed(
                self.name, "messages.count_tokens", "input_tokens", request_id=request_id
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
