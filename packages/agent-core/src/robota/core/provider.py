"""The provider contract (seed 000, "Provider Contract — Dual Surface", "Provider-Native Replay
Payloads", "Provider Capabilities"; seed 002, "Model contract").

A provider package implements :class:`Provider`: a streaming call that yields neutral
:data:`StreamEvent` values and ends with exactly one :class:`ResponseCompleted` carrying the
assembled :class:`ModelResponse`, plus a buffered convenience :meth:`Provider.complete`. Core never
imports a vendor SDK; vendor payloads reach hosts through the neutral :data:`PayloadCallback`.

Cancellation is structured (anyio): cancelling the task that iterates the stream cancels the
request.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from robota.core.capabilities import (
    UNKNOWN_CAPABILITIES,
    HostedTool,
    ModelCapabilities,
    ModelInfo,
    StructuredOutputTransport,
)
from robota.core.errors import MalformedResponseError
from robota.core.messages import AssistantMessage, FinishReason, JsonValue, Message
from robota.core.settings import ModelSettings
from robota.core.usage import Usage

__all__ = [
    "UNKNOWN_ENDPOINT",
    "DelegatingProvider",
    "EffortResolution",
    "EndpointProvenance",
    "ModelRequest",
    "ModelResponse",
    "OutputSchema",
    "PayloadCallback",
    "PayloadEvent",
    "Provider",
    "ResponseCompleted",
    "StreamEvent",
    "TextDelta",
    "ThinkingDelta",
    "ToolCallDelta",
    "ToolDefinition",
    "UsageReported",
]


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolDefinition:
    """A function tool as offered to a provider.

    Attributes:
        name: Model-facing tool name.
        description: Model-facing description.
        parameters: JSON Schema of the arguments (object root) in Robota's one normalized shape;
            providers project it for their wire (see ``robota.core.schema``).
        strict: Ask for vendor-side strict argument adherence where supported (None: provider
            default).
    """

    name: str
    description: str
    parameters: Mapping[str, Any]
    strict: bool | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class OutputSchema:
    """A structured-output request.

    Attributes:
        name: Schema name (vendors require one, e.g. ``"final_result"``).
        schema: JSON Schema of the expected value (object root).
        transport: How to carry it; chosen by the agent from capabilities.
        description: Optional description sent with the schema.
        strict: Vendor strict mode where supported.
    """

    name: str
    schema: Mapping[str, Any]
    transport: StructuredOutputTransport
    description: str | None = None
    strict: bool | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class PayloadEvent:
    """A native request/response/stream payload reported for replay capture.

    Attributes:
        provider: Provider name (opaque to core).
        api: API surface, e.g. ``"chat.completions"``, ``"responses"``, ``"messages"``.
        direction: ``request``, ``response`` or ``stream``.
        payload: The JSON payload as sent/received.
        order: Position within this call's payloads (0-based).
    """

    provider: str
    api: str
    direction: Literal["request", "response", "stream"]
    payload: JsonValue
    order: int


PayloadCallback = Callable[[PayloadEvent], None]
"""Receives native payloads; must be cheap and must not raise."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ModelRequest:
    """Everything one provider call needs.

    Attributes:
        model: Model id.
        messages: The provider-facing conversation; a :class:`~robota.core.messages.SystemMessage`
            may only appear first.
        tools: Function tools offered this round (empty when ``tool_choice == "none"``).
        settings: Resolved settings.
        output: Structured output request, if any.
        hosted_tools: Vendor-run tools requested for this call.
        on_payload: Replay capture callback, if the host wants payloads.
    """

    model: str
    messages: tuple[Message, ...]
    tools: tuple[ToolDefinition, ...] = ()
    settings: ModelSettings = field(default_factory=ModelSettings)
    output: OutputSchema | None = None
    hosted_tools: frozenset[HostedTool] = frozenset()
    on_payload: PayloadCallback | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class EffortResolution:
    """Audit record of how a neutral reasoning effort was resolved (seed 000, "Reasoning Effort").

    Attributes:
        requested: The neutral effort asked for.
        disposition: ``applied`` exactly, ``clamped`` down to the nearest supported level,
            ``model_default`` (left to the model), or ``not_applied`` (model has no control).
        native_value: The vendor value sent (e.g. ``"high"``, a budget in tokens), if any.
        native_control_sent: True only when a native control was put on the wire.
        source: Source of the per-model table (vendor doc URL and date).
    """

    requested: str
    disposition: Literal["applied", "clamped", "model_default", "not_applied"]
    native_value: str | int | None = None
    native_control_sent: bool = False
    source: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class ModelResponse:
    """The assembled result of one provider call.

    Attributes:
        message: The assistant message (parts, model, usage, finish reasons).
        usage: Token usage of this call.
        finish_reason: Normalized finish reason.
        raw_finish_reason: The vendor's finish reason.
        model: The model that actually answered.
        request_id: Vendor request id, if any.
        effort: How reasoning effort was resolved, if a provider did so.
    """

    message: AssistantMessage
    usage: Usage = field(default_factory=Usage)
    finish_reason: FinishReason = "stop"
    raw_finish_reason: str | None = None
    model: str = ""
    request_id: str | None = None
    effort: EffortResolution | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class TextDelta:
    """A piece of answer text."""

    kind: Literal["text_delta"] = "text_delta"
    text: str


@dataclass(frozen=True, kw_only=True, slots=True)
class ThinkingDelta:
    """A piece of reasoning text."""

    kind: Literal["thinking_delta"] = "thinking_delta"
    text: str


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCallDelta:
    """A piece of a tool call being streamed.

    Attributes:
        index: Position of the call within the response (keeps parallel calls apart).
        id: The call id, when known (usually on the first delta).
        name: The tool name, when known (usually on the first delta).
        arguments_delta: A fragment of the raw argument string.
    """

    kind: Literal["tool_call_delta"] = "tool_call_delta"
    index: int
    id: str | None = None
    name: str | None = None
    arguments_delta: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class UsageReported:
    """Usage the vendor reported before the response completed (Anthropic ``message_start``,
    a Gemini chunk's ``usageMetadata``): the cumulative usage of this call so far, not a delta.

    A round cancelled before :class:`ResponseCompleted` counts the last one it saw, so input
    tokens the vendor already billed are not lost. Providers that learn usage only at the end
    need not emit it.
    """

    kind: Literal["usage_reported"] = "usage_reported"
    usage: Usage


@dataclass(frozen=True, kw_only=True, slots=True)
class ResponseCompleted:
    """The final event of every successful stream."""

    kind: Literal["response_completed"] = "response_completed"
    response: ModelResponse


StreamEvent = TextDelta | ThinkingDelta | ToolCallDelta | UsageReported | ResponseCompleted
"""What :meth:`Provider.stream` yields. Consumers ignore event kinds they do not handle."""


@dataclass(frozen=True, kw_only=True, slots=True)
class EndpointProvenance:
    """Where a provider instance sends its requests (seed 000, "Structured Output Contract":
    endpoint provenance is a fact independent of the capability table).

    Attributes:
        base_url: The API base URL in use, or None when the provider has no single one.
        vendor: True when it is the vendor's own endpoint (the vendor's stated guarantees and
            capability table apply); False for a custom base URL (a gateway, a proxy, a local
            compatible server), whose guarantees nobody stated; None when unknown.
    """

    base_url: str | None = None
    vendor: bool | None = None


UNKNOWN_ENDPOINT = EndpointProvenance()


class Provider(ABC):
    """Base class every provider package implements.

    Subclasses implement :meth:`stream` and may override :meth:`model_info`,
    :meth:`capabilities` and :meth:`aclose`. Providers must raise
    :class:`~robota.core.errors.ProviderError` subclasses (never vendor exceptions) and must pass
    through tool calls whose names are not registered (the agent decides).

    Attributes:
        name: Provider name, e.g. ``"anthropic"`` (opaque to core, used in records and
            ``extra_body`` tags).
        default_model: The model used when the host names none, if the provider has one.
    """

    name: str = "provider"
    default_model: str | None = None

    @property
    def endpoint(self) -> EndpointProvenance:
        """Where this instance sends requests (unknown unless the provider says)."""
        return UNKNOWN_ENDPOINT

    @abstractmethod
    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Stream one model call.

        Yields deltas as they arrive and then exactly one :class:`ResponseCompleted`.

        Raises:
            ProviderError: (subclasses) for vendor and transport failures.
            UnsupportedCapabilityError: for a hosted tool or setting the model cannot honour,
                before any network I/O.
        """

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Buffered convenience: run :meth:`stream` and return the final response.

        Raises:
            MalformedResponseError: if the stream ended without a :class:`ResponseCompleted`.
        """
        final: ModelResponse | None = None
        async for event in self.stream(request):
            if isinstance(event, ResponseCompleted):
                final = event.response
        if final is None:
            raise MalformedResponseError(
                "provider stream ended without a final response", provider=self.name
            )
        return final

    def model_info(self, model: str) -> ModelInfo | None:
        """Metadata of ``model`` from this provider's table, or None when unknown."""
        return None

    def capabilities(self, model: str) -> ModelCapabilities:
        """Capabilities of ``model``; unknown fields are ``None``."""
        info = self.model_info(model)
        return info.capabilities if info is not None else UNKNOWN_CAPABILITIES

    def models(self) -> tuple[ModelInfo, ...]:
        """Every model this provider has metadata for (its contribution to a
        :class:`~robota.core.capabilities.ModelRegistry`)."""
        return ()

    async def count_tokens(self, request: ModelRequest) -> int | None:
        """Exact input token count from a vendor endpoint, or None when the vendor has none."""
        return None

    async def aclose(self) -> None:  # noqa: B027 - optional hook with a no-op default
        """Release network resources the provider owns (never an injected client)."""

    async def __aenter__(self) -> Provider:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class DelegatingProvider(Provider):
    """Base of a provider that wraps another one (retrying, journaling, budgeting, recovering
    from overflow): ``name`` and ``default_model`` are copied from ``inner``, and
    :attr:`endpoint`, :meth:`model_info`, :meth:`capabilities`, :meth:`models`,
    :meth:`count_tokens` and :meth:`aclose` are forwarded to it, so a wrapper changes only how
    a call is made, never what is known about the model or where requests go. Subclasses
    implement :meth:`stream`; a wrapper that does not own ``inner`` overrides :meth:`aclose`.

    Args:
        inner: The wrapped provider.
    """

    def __init__(self, inner: Provider) -> None:
        self.inner = inner
        self.name = inner.name
        self.default_model = inner.default_model

    @property
    def endpoint(self) -> EndpointProvenance:
        """The inner provider's endpoint (a wrapper does not change where requests go)."""
        return self.inner.endpoint

    def model_info(self, model: str) -> ModelInfo | None:
        return self.inner.model_info(model)

    def capabilities(self, model: str) -> ModelCapabilities:
        return self.inner.capabilities(model)

    def models(self) -> tuple[ModelInfo, ...]:
        return self.inner.models()

    async def count_tokens(self, request: ModelRequest) -> int | None:
        return await self.inner.count_tokens(request)

    async def aclose(self) -> None:
        await self.inner.aclose()
