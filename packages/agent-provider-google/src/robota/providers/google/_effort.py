"""Resolve the neutral reasoning effort to Gemini's ``thinkingConfig`` (seed 000, "Reasoning
Effort").

Gemini 2.5 models take a token budget (``thinkingBudget``), Gemini 3 models a level
(``thinkingLevel``); the per-model ranges live in :mod:`._models` with their sources. Rules:

- ``auto`` or no effort: nothing is sent (model default).
- ``none``: budget 0 where the model can turn thinking off; otherwise the smallest budget/level
  (disposition ``clamped``).
- Budget models: ``minimal`` 512, ``low`` 2048, ``medium`` 8192, ``high`` 16384, ``xhigh`` 24576
  tokens, ``max`` the model's largest budget; a value outside the model's range is clamped into it.
- Level models: the same-named level when supported, else the nearest lower supported level
  (the lowest one when none is lower); ``xhigh`` and ``max`` → the highest level.
- A model with no listed control: ``not_applied`` (nothing sent).
"""

from __future__ import annotations

from dataclasses import dataclass

from robota.core.provider import EffortResolution
from robota.core.settings import ReasoningEffort
from robota.providers.google._models import ThinkingControl, lookup_thinking

from google.genai import types

__all__ = ["ResolvedThinking", "resolve_thinking"]

_BUDGETS: dict[str, int] = {
    "minimal": 512,
    "low": 2048,
    "medium": 8192,
    "high": 16_384,
    "xhigh": 24_576,
}
_ORDER = ("minimal", "low", "medium", "high", "xhigh")
_LEVELS: dict[str, types.ThinkingLevel] = {
    "minimal": types.ThinkingLevel.MINIMAL,
    "low": types.ThinkingLevel.LOW,
    "medium": types.ThinkingLevel.MEDIUM,
    "high": types.ThinkingLevel.HIGH,
    "xhigh": types.ThinkingLevel.XHIGH,
}


@dataclass(frozen=True, kw_only=True, slots=True)
class ResolvedThinking:
    """The thinking config to send (if any) and the audit record (if an effort was asked for)."""

    config: types.ThinkingConfig | None
    resolution: EffortResolution | None


def _budget(effort: str, control: ThinkingControl) -> tuple[int, bool]:
    """Return (budget, clamped)."""
    if effort == "none":
        return (0, False) if control.can_disable else (control.min_budget, True)
    if effort == "max":
        return control.max_budget, False
    wanted = _BUDGETS[effort]
    budget = min(max(wanted, control.min_budget), control.max_budget)
    return budget, budget != wanted


def _level(effort: str, control: ThinkingControl) -> tuple[str, bool]:
    """Return (level, clamped)."""
    if effort == "max":
        return control.levels[-1], False
    if effort == "none":
        return control.levels[0], True
    if effort in control.levels:
        return effort, False
    rank = _ORDER.index(effort)
    lower = [lvl for lvl in control.levels if _ORDER.index(lvl) < rank]
    return (lower[-1] if lower else control.levels[0]), True


def resolve_thinking(
    model: str, effort: ReasoningEffort | None, *, include_thoughts: bool
) -> ResolvedThinking:
    """Resolve ``effort`` for ``model``.

    Args:
        model: Gemini model id.
        effort: Neutral effort, or None when not set.
        include_thoughts: Ask for thought summaries (``includeThoughts``) when thinking is on and
            the model is known to think.

    Returns:
        The config to send and the :class:`EffortResolution` (None when no effort was set).
    """
    control = lookup_thinking(model)
    if effort is None or effort == "auto":
        config = (
            types.ThinkingConfig(include_thoughts=True)
            if include_thoughts and control is not None
            else None
        )
        resolution = (
            None
            if effort is None
            else EffortResolution(
                requested="auto",
                disposition="model_default",
                source=control.source if control else "",
            )
        )
        return ResolvedThinking(config=config, resolution=resolution)
    if control is None:
        return ResolvedThinking(
            config=None,
            resolution=EffortResolution(requested=effort, disposition="not_applied"),
        )
    if control.kind == "budget":
        budget, clamped = _budget(effort, control)
        config = types.ThinkingConfig(
            thinking_budget=budget, include_thoughts=(include_thoughts and budget > 0) or None
        )
        native: str | int = budget
    else:
        level, clamped = _level(effort, control)
        config = types.ThinkingConfig(
            thinking_level=_LEVELS[level], include_thoughts=include_thoughts or None
        )
        native = level
    return ResolvedThinking(
        config=config,
        resolution=EffortResolution(
            requested=effort,
            disposition="clamped" if clamped else "applied",
            native_value=native,
            native_control_sent=True,
            source=control.source,
        ),
    )
