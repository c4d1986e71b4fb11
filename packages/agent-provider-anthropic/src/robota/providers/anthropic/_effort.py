"""Neutral reasoning effort → Anthropic thinking controls (seed 000, "Reasoning Effort").

Two vendor controls exist (see :mod:`._models` for which model takes which):

- ``budget`` models: ``thinking={"type": "enabled", "budget_tokens": N}``; ``N`` ≥ 1024 and
  ``N`` < ``max_tokens`` (extended-thinking docs). The neutral level picks ``N`` from
  :data:`BUDGET_TOKENS`; when the caller fixed ``max_tokens`` too small the budget is clamped down
  to ``max_tokens - 1`` (disposition ``clamped``), and below 1024 no thinking is sent
  (``not_applied``). When the caller did not set ``max_tokens`` it is raised to
  ``budget + default_max_tokens`` (bounded by the model's maximum output) so the answer keeps room.
- ``adaptive`` models: ``thinking={"type": "adaptive"}`` plus ``output_config.effort`` with the
  model's levels; a level above the model's top is clamped down, ``minimal`` is clamped up to
  ``low`` (the lowest level Anthropic offers).

``none`` sends ``thinking={"type": "disabled"}``; ``auto`` sends nothing (model default).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from robota.core.provider import EffortResolution
from robota.core.settings import ReasoningEffort
from robota.providers.anthropic._models import ADAPTIVE_SOURCE, THINKING_SOURCE, ModelSpec

__all__ = ["BUDGET_TOKENS", "EffortPlan", "resolve_effort"]

BUDGET_TOKENS: Mapping[str, int] = {
    "minimal": 1024,
    "low": 2048,
    "medium": 8192,
    "high": 16384,
    "xhigh": 32768,
    "max": 63999,
}
"""Thinking budget (tokens) per neutral level for ``budget`` models. 1024 is the documented
minimum; the others are Robota's spacing (doubling, then the largest budget a 64K-output model
accepts)."""

_MIN_BUDGET = 1024
_ORDER = ("minimal", "low", "medium", "high", "xhigh", "max")


@dataclass(frozen=True, kw_only=True, slots=True)
class EffortPlan:
    """What to put on the wire for one request.

    Attributes:
        thinking: The ``thinking`` request field, or None to omit it.
        output_effort: The ``output_config.effort`` value, or None to omit it.
        max_tokens: The ``max_tokens`` to send.
        resolution: The audit record for :attr:`ModelResponse.effort`, or None when no effort
            was requested.
    """

    thinking: Mapping[str, Any] | None
    output_effort: str | None
    max_tokens: int
    resolution: EffortResolution | None


def resolve_effort(
    effort: ReasoningEffort | None,
    spec: ModelSpec | None,
    *,
    max_tokens: int | None,
    default_max_tokens: int,
) -> EffortPlan:
    """Resolve ``effort`` for the model described by ``spec`` (None: unknown model).

    Args:
        effort: The neutral effort, or None when not requested.
        spec: The model's table row; an unknown model gets no native control
            (``not_applied``), since nothing says which control it accepts.
        max_tokens: The caller's ``max_tokens`` setting, if set.
        default_max_tokens: The provider's default answer budget (tokens).

    Returns:
        The :class:`EffortPlan`.
    """
    base_max = max_tokens if max_tokens is not None else default_max_tokens
    if effort is None:
        return EffortPlan(thinking=None, output_effort=None, max_tokens=base_max, resolution=None)
    if effort == "auto":
        return EffortPlan(
            thinking=None,
            output_effort=None,
            max_tokens=base_max,
            resolution=EffortResolution(
                requested=effort, disposition="model_default", source=THINKING_SOURCE
            ),
        )
    if spec is None or spec.thinking == "none":
        return EffortPlan(
            thinking=None,
            output_effort=None,
            max_tokens=base_max,
            resolution=EffortResolution(
                requested=effort, disposition="not_applied", source=THINKING_SOURCE
            ),
        )
    source = ADAPTIVE_SOURCE if spec.thinking == "adaptive" else THINKING_SOURCE
    if effort == "none":
        return EffortPlan(
            thinking={"type": "disabled"},
            output_effort=None,
            max_tokens=base_max,
            resolution=EffortResolution(
                requested=effort,
                disposition="applied",
                native_value="disabled",
                native_control_sent=True,
                source=source,
            ),
        )
    if spec.thinking == "adaptive":
        return _adaptive(effort, spec, base_max, source)
    return _budget(effort, spec, max_tokens, default_max_tokens, source)


def _adaptive(effort: str, spec: ModelSpec, max_tokens: int, source: str) -> EffortPlan:
    if effort in spec.efforts:
        level, disposition = effort, "applied"
    elif effort == "minimal":
        level, disposition = spec.efforts[0], "clamped"
    else:
        wanted = _ORDER.index(effort)
        below = [e for e in spec.efforts if e in _ORDER and _ORDER.index(e) <= wanted]
        level, disposition = (below[-1] if below else spec.efforts[0]), "clamped"
    return EffortPlan(
        thinking={"type": "adaptive"},
        output_effort=level,
        max_tokens=max_tokens,
        resolution=EffortResolution(
            requested=effort,
            disposition=disposition,
            native_value=level,
            native_control_sent=True,
            source=source,
        ),
    )


def _budget(
    effort: str,
    spec: ModelSpec,
    max_tokens: int | None,
    default_max_tokens: int,
    source: str,
) -> EffortPlan:
    budget = BUDGET_TOKENS[effort]
    disposition: str = "applied"
    if max_tokens is None:
        if budget >= spec.max_output_tokens:
            budget, disposition = spec.max_output_tokens - 1, "clamped"
        send_max = min(budget + default_max_tokens, spec.max_output_tokens)
    else:
        send_max = max_tokens
        if budget >= max_tokens:
            budget, disposition = max_tokens - 1, "clamped"
    if budget < _MIN_BUDGET:
        return EffortPlan(
            thinking=None,
            output_effort=None,
            max_tokens=send_max,
            resolution=EffortResolution(requested=effort, disposition="not_applied", source=source),
        )
    return EffortPlan(
        thinking={"type": "enabled", "budget_tokens": budget},
        output_effort=None,
        max_tokens=send_max,
        resolution=EffortResolution(
            requested=effort,
            disposition="applied" if disposition == "applied" else "clamped",
            native_value=budget,
            native_control_sent=True,
            source=source,
        ),
    )
