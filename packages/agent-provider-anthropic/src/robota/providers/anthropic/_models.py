"""Model metadata and the per-model reasoning-effort table for Anthropic (seed 000, "Model
Metadata Registry", "Provider Capabilities", "Reasoning Effort").

Numbers come from Anthropic's models overview page and the feature pages named in each entry's
``source``; the table was written on 2026-01 from those pages. A model not listed here has no
:class:`~robota.core.capabilities.ModelInfo` (its capabilities stay unknown).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from robota.core.capabilities import HostedTool, ModelCapabilities, ModelInfo

__all__ = ["MODEL_SPECS", "ModelSpec", "ThinkingControl", "model_infos", "spec_for"]

MODELS_SOURCE = "https://docs.anthropic.com/en/docs/about-claude/models/overview (read 2026-01)"
THINKING_SOURCE = (
    "https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking (read 2026-01)"
)
ADAPTIVE_SOURCE = (
    "https://platform.claude.com/docs/en/build-with-claude/effort and "
    "https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking (read 2026-01)"
)

HOSTED_SOURCE = (
    "https://docs.claude.com/en/docs/agents-and-tools/tool-use/web-search-tool, .../web-fetch-tool "
    "and .../code-execution-tool (supported models, read 2026-01)"
)
"""Which models run Anthropic's hosted tools: every model in :data:`MODEL_SPECS` is listed on
the web search, web fetch and code execution pages (Claude 3.5 Haiku and newer)."""

ThinkingControl = Literal["adaptive", "budget", "none"]
"""How a model's reasoning is controlled: ``adaptive`` (``thinking={"type": "adaptive"}`` plus
``output_config.effort``), ``budget`` (``thinking={"type": "enabled", "budget_tokens": N}``) or
``none`` (no extended thinking)."""

_ALL_HOSTED = frozenset({HostedTool.WEB_SEARCH, HostedTool.WEB_FETCH, HostedTool.CODE_EXECUTION})


@dataclass(frozen=True, kw_only=True, slots=True)
class ModelSpec:
    """One row of the Anthropic model table.

    Attributes:
        model: Canonical model id (alias form, e.g. ``claude-sonnet-4-5``).
        aliases: Other ids naming the same model (dated snapshots, ``-latest`` aliases).
        context_window: Context window in tokens (standard tier, without long-context betas).
        max_output_tokens: Maximum output tokens.
        thinking: The reasoning control the model accepts.
        efforts: ``output_config.effort`` levels accepted (adaptive models), lowest first.
        native_structured_output: Accepts ``output_config.format`` (JSON schema).
        source: Vendor documentation the numbers come from.
    """

    model: str
    aliases: tuple[str, ...] = ()
    context_window: int
    max_output_tokens: int
    thinking: ThinkingControl
    efforts: tuple[str, ...] = ()
    native_structured_output: bool = False
    source: str = MODELS_SOURCE

    def info(self, model: str, provider: str) -> ModelInfo:
        """The :class:`ModelInfo` of this row under the id ``model``."""
        return ModelInfo(
            provider=provider,
            model=model,
            context_window=self.context_window,
            max_output_tokens=self.max_output_tokens,
            capabilities=ModelCapabilities(
                tools=True,
                parallel_tool_calls=True,
                native_structured_output=self.native_structured_output,
                json_mode=False,
                thinking=self.thinking != "none",
                media=frozenset({"image", "document"}),
                hosted_tools=_ALL_HOSTED,
                unsupported_settings=frozenset({"seed"}),
            ),
            source=f"{self.source}; hosted tools: {HOSTED_SOURCE}",
        )


MODEL_SPECS: tuple[ModelSpec, ...] = (
    ModelSpec(
        model="claude-opus-4-6",
        context_window=1_000_000,
        max_output_tokens=128_000,
        thinking="adaptive",
        efforts=("low", "medium", "high", "max"),
        native_structured_output=True,
    ),
    ModelSpec(
        model="claude-sonnet-4-6",
        context_window=1_000_000,
        max_output_tokens=64_000,
        thinking="adaptive",
        efforts=("low", "medium", "high"),
        native_structured_output=True,
    ),
    ModelSpec(
        model="claude-opus-4-5",
        aliases=("claude-opus-4-5-20251101",),
        context_window=200_000,
        max_output_tokens=64_000,
        thinking="budget",
        native_structured_output=True,
    ),
    ModelSpec(
        model="claude-sonnet-4-5",
        aliases=("claude-sonnet-4-5-20250929",),
        context_window=200_000,
        max_output_tokens=64_000,
        thinking="budget",
        native_structured_output=True,
    ),
    ModelSpec(
        model="claude-haiku-4-5",
        aliases=("claude-haiku-4-5-20251001",),
        context_window=200_000,
        max_output_tokens=64_000,
        thinking="budget",
        native_structured_output=True,
    ),
    ModelSpec(
        model="claude-opus-4-1",
        aliases=("claude-opus-4-1-20250805",),
        context_window=200_000,
        max_output_tokens=32_000,
        thinking="budget",
        native_structured_output=True,
    ),
    ModelSpec(
        model="claude-opus-4-0",
        aliases=("claude-opus-4-20250514",),
        context_window=200_000,
        max_output_tokens=32_000,
        thinking="budget",
    ),
    ModelSpec(
        model="claude-sonnet-4-0",
        aliases=("claude-sonnet-4-20250514",),
        context_window=200_000,
        max_output_tokens=64_000,
        thinking="budget",
    ),
    ModelSpec(
        model="claude-3-7-sonnet-latest",
        aliases=("claude-3-7-sonnet-20250219",),
        context_window=200_000,
        max_output_tokens=64_000,
        thinking="budget",
    ),
    ModelSpec(
        model="claude-3-5-haiku-latest",
        aliases=("claude-3-5-haiku-20241022",),
        context_window=200_000,
        max_output_tokens=8_192,
        thinking="none",
    ),
)
"""The Anthropic model table (see :data:`MODELS_SOURCE`)."""


def _index() -> Mapping[str, ModelSpec]:
    table: dict[str, ModelSpec] = {}
    for spec in MODEL_SPECS:
        table[spec.model] = spec
        for alias in spec.aliases:
            table[alias] = spec
    return table


_BY_ID = _index()


def spec_for(model: str) -> ModelSpec | None:
    """The table row for ``model`` (canonical id or alias), or None when unknown."""
    return _BY_ID.get(model)


def model_infos(provider: str) -> tuple[ModelInfo, ...]:
    """Every id in the table (aliases included) as :class:`ModelInfo` under ``provider``."""
    return tuple(spec.info(model, provider) for model, spec in _BY_ID.items())
