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

from robota.core.messages import MediaKind

__all__ = [
    "HostedTool",
    "ModelCapabilities",
    "ModelInfo",
    "ModelRegistry",
    "StructuredOutputTransport",
    "choose_output_transport",
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
