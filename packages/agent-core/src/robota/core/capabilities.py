"""Model capabilities and the model metadata registry (seed 000, "Provider Capabilities",
"Model Metadata Registry").

A capability is tri-state: ``True`` (stated supported), ``False`` (stated unsupported) or ``None``
(unknown — nobody said). Unknown is never coerced into ``False``; callers that must act on silence
state their own assumption. A model nobody registered has no :class:`ModelInfo`: the registry
returns ``None`` rather than borrowing another model's numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from robota.core.messages import MediaKind, ToolCallPart

__all__ = [
    "HostedTool",
    "ModelCapabilities",
    "ModelInfo",
    "ModelRegistry",
    "StructuredOutputTransport",
    "check_hosted_tools",
    "choose_output_transport",
    "hosted_call_counts",
]


class HostedTool(StrEnum):
    """Tools the vendor runs itself (seed 000, "Provider Capabilities"). Never dispatched
    locally."""

    WEB_SEARCH = "web_search"
    WEB_FETCH = "web_fetch"
    CODE_EXECUTION = "code_execution"


class StructuredOutputTransport(StrEnum):
    """How a structured-output schema reaches the model (seed 000, "Structured Output
    Contract")."""

    NATIVE = "native"
    """A native schema parameter (OpenAI ``text.format``/``response_format``, Gemini
    ``response_schema``, Anthropic output format)."""
    JSON_MODE = "json_mode"
    """A "valid JSON" flag plus the schema stated as an instruction."""
    PROMPTED = "prompted"
    """The schema stated as an instruction only."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ModelCapabilities:
    """What one model supports. ``None`` means unknown.

    Attributes:
        tools: Function tool calling.
        parallel_tool_calls: Several tool calls in one response.
        native_structured_output: A native JSON-schema output parameter.
        json_mode: A "respond with valid JSON" flag.
        thinking: Reasoning / extended thinking.
        media: Media kinds accepted as input, or None when unknown.
        hosted_tools: Vendor-run tools available, or None when unknown.
        unsupported_settings: :class:`~robota.core.settings.ModelSettings` field names the
            model is stated NOT to accept (e.g. ``temperature`` on some reasoning models).
    """

    tools: bool | None = None
    parallel_tool_calls: bool | None = None
    native_structured_output: bool | None = None
    json_mode: bool | None = None
    thinking: bool | None = None
    media: frozenset[MediaKind] | None = None
    hosted_tools: frozenset[HostedTool] | None = None
    unsupported_settings: frozenset[str] = field(default_factory=frozenset[str])


UNKNOWN_CAPABILITIES = ModelCapabilities()


def choose_output_transport(caps: ModelCapabilities) -> StructuredOutputTransport:
    """Pick the structured-output transport: native schema → JSON mode → prompted.

    Silence is not a denial (seed 000, "Structured Output Contract": a provider that declares no
    capability table is sent the request unchanged): the schema goes natively unless the native
    parameter is stated unsupported (``native_structured_output`` is False). Only then does the
    run fall back, to JSON mode when that is stated supported, else to the schema stated as an
    instruction (a substitute is chosen on stated facts only: a JSON flag nobody said the model
    takes could be refused, while an instruction works everywhere).

    Example:
        >>> choose_output_transport(ModelCapabilities()).value
        'native'
        >>> choose_output_transport(
        ...     ModelCapabilities(native_structured_output=False, json_mode=True)
        ... ).value
        'json_mode'
        >>> choose_output_transport(ModelCapabilities(native_structured_output=False)).value
        'prompted'
    """
    if caps.native_structured_output is not False:
        return StructuredOutputTransport.NATIVE
    if caps.json_mode:
        return StructuredOutputTransport.JSON_MODE
    return StructuredOutputTransport.PROMPTED


def check_hosted_tools(
    caps: ModelCapabilities, requested: Iterable[HostedTool], *, provider: str, model: str
) -> None:
    """Refuse hosted tools the model is stated not to offer, before any request is sent (seed
    000, "Provider Capabilities").

    A model whose ``hosted_tools`` is None (unknown) is not refused here: silence is not a
    denial, and the provider adapter still refuses, before its transport, a tool it cannot
    encode or the instance has not enabled.

    Raises:
        UnsupportedCapabilityError: naming the tools, the model and what it offers.

    Example:
        >>> caps = ModelCapabilities(hosted_tools=frozenset({HostedTool.WEB_SEARCH}))
        >>> check_hosted_tools(caps, [HostedTool.WEB_SEARCH], provider="p", model="m")
        >>> check_hosted_tools(caps, [HostedTool.CODE_EXECUTION], provider="p", model="m")
        Traceback (most recent call last):
        ...
        robota.core.errors.UnsupportedCapabilityError: hosted tool(s) code_execution are not \
available on p model 'm' (it offers: web_search)
    """
    offered = caps.hosted_tools
    if offered is None:
        return
    missing = sorted(str(t) for t in requested if t not in offered)
    if missing:
        from robota.core.errors import UnsupportedCapabilityError

        offers = ", ".join(sorted(str(t) for t in offered)) or "none"
        raise UnsupportedCapabilityError(
            f"hosted tool(s) {', '.join(missing)} are not available on {provider} model "
            f"{model!r} (it offers: {offers})"
        )


def hosted_call_counts(parts: Iterable[object]) -> dict[str, int]:
    """Count the hosted tool calls among one response's ``parts``, by
    :class:`HostedTool` value — what an adapter reports in usage when its vendor states no count
    of its own (see :meth:`robota.core.usage.Usage.with_hosted_calls`). Calls of vendor tools
    with no neutral name (file search, MCP) are not counted.

    Example:
        >>> call = ToolCallPart(id="ws_1", name="web_search", arguments={}, hosted=True)
        >>> hosted_call_counts([call, call])
        {'web_search': 2}
    """
    known = {str(t) for t in HostedTool}
    counts: dict[str, int] = {}
    for part in parts:
        if isinstance(part, ToolCallPart) and part.hosted and part.name in known:
            counts[part.name] = counts.get(part.name, 0) + 1
    return counts


@dataclass(frozen=True, kw_only=True, slots=True)
class ModelInfo:
    """Metadata one provider package publishes for one model.

    Attributes:
        provider: Provider name, e.g. ``"openai"``.
        model: Model id as sent on the wire.
        context_window: Context window in tokens, or None when unknown.
        max_output_tokens: Maximum output tokens, or None when unknown.
        capabilities: The model's capabilities.
        source: Where the numbers come from (a vendor documentation URL).
    """

    provider: str
    model: str
    context_window: int | None = None
    max_output_tokens: int | None = None
    capabilities: ModelCapabilities = UNKNOWN_CAPABILITIES
    source: str = ""


class ModelRegistry:
    """The one aggregation point of model metadata; providers contribute their tables.

    A registry instance is built by the host (no module-level registry). A model nobody
    registered reports ``None``.

    Example:
        >>> reg = ModelRegistry([ModelInfo(provider="p", model="m", context_window=1000)])
        >>> reg.lookup("p", "m").context_window, reg.lookup("p", "other")
        (1000, None)
    """

    def __init__(self, infos: Iterable[ModelInfo] = ()) -> None:
        self._infos: dict[tuple[str, str], ModelInfo] = {}
        self.register(infos)

    def register(self, infos: Iterable[ModelInfo]) -> None:
        """Add (or replace) entries."""
        for info in infos:
            self._infos[(info.provider, info.model)] = info

    def lookup(self, provider: str, model: str) -> ModelInfo | None:
        """Return the entry for ``(provider, model)``, or None when nobody registered it."""
        return self._infos.get((provider, model))

    def models(self) -> Mapping[tuple[str, str], ModelInfo]:
        """All entries by ``(provider, model)``."""
        return dict(self._infos)
