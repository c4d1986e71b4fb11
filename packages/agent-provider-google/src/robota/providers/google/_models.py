"""Gemini model metadata and the per-model thinking table (seed 000, "Provider Capabilities",
"Model Metadata Registry", "Reasoning Effort").

Every entry names its source. Numbers were taken from the Gemini API model pages and the thinking
guide, read 2026-11-30:

- https://ai.google.dev/gemini-api/docs/models (token limits, capabilities)
- https://ai.google.dev/gemini-api/docs/thinking (2.5 thinking budgets: Pro 128–32768 and cannot
  turn thinking off; Flash 0–24576; Flash-Lite 0 or 512–24576; ``-1`` = dynamic)
- https://ai.google.dev/gemini-api/docs/gemini-3 (Gemini 3 ``thinking_level``: Pro ``low``/``high``;
  Flash ``minimal``/``low``/``medium``/``high``; default ``high``; thinking cannot be turned off)

A model that is not listed has no :class:`ModelInfo` (``model_info`` returns ``None``) and no
thinking control is sent for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from robota.core.capabilities import HostedTool, ModelCapabilities, ModelInfo
from robota.core.messages import MediaKind

__all__ = ["MODELS", "THINKING", "ThinkingControl", "lookup_model", "lookup_thinking"]

MODELS_SOURCE = "https://ai.google.dev/gemini-api/docs/models (read 2026-11-30)"
THINKING_SOURCE = "https://ai.google.dev/gemini-api/docs/thinking (read 2026-11-30)"
GEMINI3_SOURCE = "https://ai.google.dev/gemini-api/docs/gemini-3 (read 2026-11-30)"

_MEDIA: frozenset[MediaKind] = frozenset({"image", "audio", "document", "binary"})
HOSTED_SOURCE = (
    "https://ai.google.dev/gemini-api/docs/google-search, .../url-context, .../code-execution "
    "and https://firebase.google.com/docs/ai-logic/url-context (supported models, read 2026-01)"
)
"""Which models run Gemini's hosted tools (``google_search`` = web search, ``url_context`` =
web fetch, ``code_execution``): URL context is listed for Gemini 3 and 2.5 only; Gemini 2.0
Flash-Lite runs none of them on the Gemini API; Gemini 1.5 searched only through the legacy
``google_search_retrieval`` tool, which this adapter does not send, so web search is not
offered there."""

_ALL_HOSTED = frozenset({HostedTool.WEB_SEARCH, HostedTool.WEB_FETCH, HostedTool.CODE_EXECUTION})
_NO_FETCH = frozenset({HostedTool.WEB_SEARCH, HostedTool.CODE_EXECUTION})
_CODE_ONLY = frozenset({HostedTool.CODE_EXECUTION})


@dataclass(frozen=True, kw_only=True, slots=True)
class ThinkingControl:
    """How one model's reasoning is controlled on the wire.

    Attributes:
        kind: ``budget`` (``thinkingConfig.thinkingBudget``, Gemini 2.5) or ``level``
            (``thinkingConfig.thinkingLevel``, Gemini 3).
        min_budget: Smallest non-zero budget in tokens (``budget`` only).
        max_budget: Largest budget in tokens (``budget`` only).
        can_disable: Whether thinking can be turned off (budget 0).
        levels: Supported levels, lowest first (``level`` only), lower-case.
        source: Source URL and read date.
    """

    kind: str
    min_budget: int = 0
    max_budget: int = 0
    can_disable: bool = False
    levels: tuple[str, ...] = ()
    source: str = ""


def _caps(*, thinking: bool, hosted: frozenset[HostedTool]) -> ModelCapabilities:
    return ModelCapabilities(
        tools=True,
        parallel_tool_calls=True,
        native_structured_output=True,
        json_mode=True,
        thinking=thinking,
        media=_MEDIA,
        hosted_tools=hosted,
    )


def _info(model: str, context: int, output: int, caps: ModelCapabilities) -> ModelInfo:
    return ModelInfo(
        provider="google",
        model=model,
        context_window=context,
        max_output_tokens=output,
        capabilities=caps,
        source=f"{MODELS_SOURCE}; hosted tools: {HOSTED_SOURCE}",
    )


_THINKING_25 = _caps(thinking=True, hosted=_ALL_HOSTED)
_NO_THINKING = _caps(thinking=False, hosted=_NO_FETCH)

MODELS: Mapping[str, ModelInfo] = {
    info.model: info
    for info in (
        _info("gemini-3-pro-preview", 1_048_576, 65_536, _THINKING_25),
        _info("gemini-3-flash-preview", 1_048_576, 65_536, _THINKING_25),
        _info("gemini-2.5-pro", 1_048_576, 65_536, _THINKING_25),
        _info("gemini-2.5-flash", 1_048_576, 65_536, _THINKING_25),
        _info("gemini-2.5-flash-lite", 1_048_576, 65_536, _THINKING_25),
        _info("gemini-2.0-flash", 1_048_576, 8_192, _NO_THINKING),
        _info("gemini-2.0-flash-lite", 1_048_576, 8_192, _caps(thinking=False, hosted=frozenset())),
        _info("gemini-1.5-pro", 2_097_152, 8_192, _caps(thinking=False, hosted=_CODE_ONLY)),
        _info("gemini-1.5-flash", 1_048_576, 8_192, _caps(thinking=False, hosted=_CODE_ONLY)),
    )
}
"""Model metadata by model id."""

THINKING: Mapping[str, ThinkingControl] = {
    "gemini-3-pro-preview": ThinkingControl(
        kind="level", levels=("low", "high"), source=GEMINI3_SOURCE
    ),
    "gemini-3-flash-preview": ThinkingControl(
        kind="level", levels=("minimal", "low", "medium", "high"), source=GEMINI3_SOURCE
    ),
    "gemini-2.5-pro": ThinkingControl(
        kind="budget", min_budget=128, max_budget=32_768, can_disable=False, source=THINKING_SOURCE
    ),
    "gemini-2.5-flash": ThinkingControl(
        kind="budget", min_budget=1, max_budget=24_576, can_disable=True, source=THINKING_SOURCE
    ),
    "gemini-2.5-flash-lite": ThinkingControl(
        kind="budget", min_budget=512, max_budget=24_576, can_disable=True, source=THINKING_SOURCE
    ),
}
"""Thinking control by model id; models absent here have no native reasoning control."""


def _base(model: str) -> str:
    """Strip a ``models/`` prefix and a pinned ``-NNN`` or dated preview suffix."""
    name = model.removeprefix("models/")
    return name


def lookup_model(model: str) -> ModelInfo | None:
    """Metadata for ``model`` (``models/`` prefix allowed), or None when not listed."""
    return MODELS.get(_base(model))


def lookup_thinking(model: str) -> ThinkingControl | None:
    """Thinking control for ``model``, or None when the model has none listed."""
    return THINKING.get(_base(model))
