"""OpenAI model metadata and the reasoning-effort table (seed 000, "Model Metadata Registry",
"Reasoning Effort", "Provider Capabilities").

Every entry names its source: the model's page on ``platform.openai.com/docs/models``. Dated
snapshots (``gpt-4o-mini-2024-07-18``) resolve to their family entry; a model not listed here is
unknown (``None``), never borrowed from a neighbour.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from robota.core.capabilities import HostedTool, ModelCapabilities, ModelInfo
from robota.core.messages import MediaKind
from robota.core.provider import EffortResolution
from robota.core.settings import ReasoningEffort

__all__ = [
    "EFFORT_SOURCE",
    "HOSTED_SOURCE",
    "OPENAI_MODELS",
    "EffortProfile",
    "chat_hosted_tools",
    "effort_profile",
    "openai_model_info",
    "resolve_effort",
]

_DOCS = "https://platform.openai.com/docs/models/"
EFFORT_SOURCE = (
    "https://platform.openai.com/docs/api-reference/responses/create#reasoning-effort "
    "(reasoning.effort enum notes, read 2026-11-30)"
)
"""Source of the effort table: OpenAI API reference, ``reasoning.effort`` notes: models before
gpt-5.1 default to ``medium`` and reject ``none``; gpt-5.1 accepts none/low/medium/high
(default none); gpt-5-pro accepts only ``high``; ``xhigh`` exists on models after
gpt-5.1-codex-max; o-series accepts low/medium/high."""

HOSTED_SOURCE = (
    "https://platform.openai.com/docs/guides/tools-web-search, "
    "https://platform.openai.com/docs/guides/tools-code-interpreter (read 2026-01)"
)
"""Source of the hosted-tool facts. Responses API: ``web_search`` and ``code_interpreter`` on the
listed models, except web search on ``gpt-4.1-nano`` (the web search guide's limitations).
OpenAI has no separate web fetch tool — opening a page is an action inside ``web_search`` — so
no model offers :attr:`HostedTool.WEB_FETCH`. Chat Completions runs no hosted tool except web
search on the ``*-search-*`` models (``web_search_options``), see :func:`chat_hosted_tools`."""

_TEXT_IMAGE: frozenset[MediaKind] = frozenset({"image"})
_TEXT_IMAGE_DOC: frozenset[MediaKind] = frozenset({"image", "document"})
_SEARCH_AND_CODE = frozenset({HostedTool.WEB_SEARCH, HostedTool.CODE_EXECUTION})
_CODE_ONLY = frozenset({HostedTool.CODE_EXECUTION})
_REASONING_UNSUPPORTED = frozenset({"temperature", "top_p"})
"""Sampling settings reasoning models reject ("Unsupported parameter: 'temperature'")."""


@dataclass(frozen=True, kw_only=True, slots=True)
class EffortProfile:
    """Which native ``reasoning_effort`` values one model accepts.

    Attributes:
        levels: Accepted values, lowest first (``none`` < ``minimal`` < ``low`` < ``medium`` <
            ``high`` < ``xhigh``).
        default: The value the model uses when none is sent.
    """

    levels: tuple[str, ...]
    default: str


_O_SERIES = EffortProfile(levels=("low", "medium", "high"), default="medium")
_GPT5 = EffortProfile(levels=("minimal", "low", "medium", "high"), default="medium")
_GPT5_PRO = EffortProfile(levels=("high",), default="high")
_GPT51 = EffortProfile(levels=("none", "low", "medium", "high"), default="none")
_GPT5_XHIGH = EffortProfile(levels=("none", "low", "medium", "high", "xhigh"), default="none")
_CODEX_MAX = EffortProfile(levels=("low", "medium", "high", "xhigh"), default="medium")
_PRO_XHIGH = EffortProfile(levels=("medium", "high", "xhigh"), default="high")


def _chat(
    model: str,
    context: int,
    output: int,
    *,
    media: frozenset[MediaKind] = _TEXT_IMAGE_DOC,
    hosted: frozenset[HostedTool] = _SEARCH_AND_CODE,
) -> ModelInfo:
    return ModelInfo(
        provider="openai",
        model=model,
        context_window=context,
        max_output_tokens=output,
        capabilities=ModelCapabilities(
            tools=True,
            parallel_tool_calls=True,
            native_structured_output=True,
            json_mode=True,
            thinking=False,
            media=media,
            hosted_tools=hosted,
        ),
        source=_DOCS + model,
    )


def _reasoning(
    model: str,
    context: int,
    output: int,
    *,
    media: frozenset[MediaKind] = _TEXT_IMAGE_DOC,
    hosted: frozenset[HostedTool] = _SEARCH_AND_CODE,
    structured: bool = True,
    tools: bool = True,
) -> ModelInfo:
    return ModelInfo(
        provider="openai",
        model=model,
        context_window=context,
        max_output_tokens=output,
        capabilities=ModelCapabilities(
            tools=tools,
            parallel_tool_calls=tools,
            native_structured_output=structured,
            json_mode=structured,
            thinking=True,
            media=media,
            hosted_tools=hosted,
            unsupported_settings=_REASONING_UNSUPPORTED,
        ),
        source=_DOCS + model,
    )


OPENAI_MODELS: Mapping[str, ModelInfo] = {
    info.model: info
    for info in (
        _chat("gpt-4o", 128_000, 16_384),
        _chat("gpt-4o-mini", 128_000, 16_384),
        _chat("chatgpt-4o-latest", 128_000, 16_384, hosted=frozenset()),
        _chat("gpt-4.1", 1_047_576, 32_768),
        _chat("gpt-4.1-mini", 1_047_576, 32_768),
        _chat("gpt-4.1-nano", 1_047_576, 32_768, hosted=_CODE_ONLY),
        _chat("gpt-4.5-preview", 128_000, 16_384, hosted=frozenset()),
        _chat("gpt-4-turbo", 128_000, 4_096, media=_TEXT_IMAGE, hosted=frozenset()),
        _chat("gpt-3.5-turbo", 16_385, 4_096, media=frozenset(), hosted=frozenset()),
        _chat("gpt-5-chat-latest", 128_000, 16_384, hosted=frozenset()),
        _reasoning("o1", 200_000, 100_000),
        _reasoning("o1-pro", 200_000, 100_000),
        _reasoning(
            "o1-mini",
            128_000,
            65_536,
            media=frozenset(),
            hosted=frozenset(),
            structured=False,
            tools=False,
        ),
        _reasoning("o3", 200_000, 100_000),
        _reasoning("o3-pro", 200_000, 100_000),
        _reasoning("o3-mini", 200_000, 100_000, media=frozenset(), hosted=frozenset()),
        _reasoning("o4-mini", 200_000, 100_000),
        _reasoning("gpt-5", 400_000, 128_000),
        _reasoning("gpt-5-mini", 400_000, 128_000),
        _reasoning("gpt-5-nano", 400_000, 128_000),
        _reasoning("gpt-5-pro", 400_000, 272_000),
        _reasoning("gpt-5-codex", 400_000, 128_000),
        _reasoning("gpt-5.1", 400_000, 128_000),
        _reasoning("gpt-5.1-codex", 400_000, 128_000),
        _reasoning("gpt-5.1-codex-max", 400_000, 128_000),
        _reasoning("gpt-5.2", 400_000, 128_000),
        _reasoning("gpt-5.2-pro", 400_000, 128_000),
    )
}
"""Model metadata by model id (context window and max output in tokens)."""

_EFFORT: Mapping[str, EffortProfile] = {
    "o1": _O_SERIES,
    "o1-pro": _O_SERIES,
    "o3": _O_SERIES,
    "o3-pro": _O_SERIES,
    "o3-mini": _O_SERIES,
    "o4-mini": _O_SERIES,
    "gpt-5": _GPT5,
    "gpt-5-mini": _GPT5,
    "gpt-5-nano": _GPT5,
    "gpt-5-codex": _O_SERIES,
    "gpt-5-pro": _GPT5_PRO,
    "gpt-5.1": _GPT51,
    "gpt-5.1-codex": _O_SERIES,
    "gpt-5.1-codex-max": _CODEX_MAX,
    "gpt-5.2": _GPT5_XHIGH,
    "gpt-5.2-pro": _PRO_XHIGH,
}
"""Per-model native effort values (see :data:`EFFORT_SOURCE`). Models absent here have no
native effort control (``o1-mini`` rejects ``reasoning_effort``; chat models have none)."""

_SNAPSHOT = re.compile(r"^(?P<base>.+?)(?:-\d{4}-\d{2}-\d{2}|-\d{4})$")
_ORDER: tuple[str, ...] = ("none", "minimal", "low", "medium", "high", "xhigh", "max")


def _canonical(model: str) -> str:
    name = model.rsplit("/", 1)[-1] if model.startswith("openai/") else model
    if name in OPENAI_MODELS:
        return name
    match = _SNAPSHOT.match(name)
    if match and match.group("base") in OPENAI_MODELS:
        return match.group("base")
    return name


def openai_model_info(model: str) -> ModelInfo | None:
    """Metadata for ``model`` (dated snapshots resolve to their family), or None when unknown.

    Example:
        >>> openai_model_info("gpt-4o-mini-2024-07-18").context_window
        128000
        >>> openai_model_info("my-finetune") is None
        True
    """
    info = OPENAI_MODELS.get(_canonical(model))
    if info is None or info.model == model:
        return info
    return ModelInfo(
        provider=info.provider,
        model=model,
        context_window=info.context_window,
        max_output_tokens=info.max_output_tokens,
        capabilities=info.capabilities,
        source=info.source,
    )


def chat_hosted_tools(model: str) -> frozenset[HostedTool]:
    """Hosted tools ``model`` runs through Chat Completions (see :data:`HOSTED_SOURCE`): web
    search on a ``*-search-*`` model (e.g. ``gpt-4o-search-preview``), else none.

    Example:
        >>> [str(t) for t in chat_hosted_tools("gpt-4o-mini-search-preview")], chat_hosted_tools("o3")
        (['web_search'], frozenset())
    """
    return frozenset({HostedTool.WEB_SEARCH}) if "-search-" in model else frozenset()


def effort_profile(model: str) -> EffortProfile | None:
    """The native effort values ``model`` accepts, or None when it has no effort control."""
    return _EFFORT.get(_canonical(model))


def resolve_effort(
    model: str, requested: ReasoningEffort | None, *, profile: EffortProfile | None = None
) -> EffortResolution | None:
    """Resolve a neutral effort to the native ``reasoning_effort`` value for ``model``.

    Rules (seed 000, "Reasoning Effort"): ``auto`` leaves the model default (nothing sent); a
    value the model accepts is applied; ``max`` maps to the model's highest value; any other
    value the model lacks is clamped down to the highest accepted value below it, or — when
    none lies below — to the lowest accepted value; a model without a control reports
    ``not_applied`` and nothing is sent.

    Args:
        model: Model id.
        requested: Neutral effort, or None (returns None: nothing to resolve).
        profile: Override the table (e.g. a compatible server's own levels).

    Example:
        >>> resolve_effort("gpt-5.1", "minimal").native_value
        'none'
        >>> resolve_effort("o3", "minimal").native_value
        'low'
        >>> resolve_effort("gpt-4o", "high").disposition
        'not_applied'
    """
    if requested is None:
        return None
    table = profile if profile is not None else effort_profile(model)
    if table is None:
        return EffortResolution(
            requested=requested, disposition="not_applied", source=EFFORT_SOURCE
        )
    if requested == "auto":
        return EffortResolution(
            requested=requested,
            disposition="model_default",
            native_value=table.default,
            source=EFFORT_SOURCE,
        )
    if requested in table.levels:
        return EffortResolution(
            requested=requested,
            disposition="applied",
            native_value=requested,
            native_control_sent=True,
            source=EFFORT_SOURCE,
        )
    rank = _ORDER.index(requested)
    below = [level for level in table.levels if _ORDER.index(level) <= rank]
    chosen = below[-1] if below else table.levels[0]
    return EffortResolution(
        requested=requested,
        disposition="clamped",
        native_value=chosen,
        native_control_sent=True,
        source=EFFORT_SOURCE,
    )
