"""Model settings (seed 002, "Model contract"; seed 000, "Reasoning Effort").

:class:`ModelSettings` holds every per-request knob. Unset fields are ``None``; layers merge
model → agent → run with :func:`merge_settings`, later layers winning per field (``extra_headers``
and ``extra_body`` merge per key). Which providers honour each field is listed in
:data:`SETTING_SUPPORT`; a setting the model's capability profile declares unsupported fails with
:class:`~robota.core.errors.UnsupportedSettingError` before any request is sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, Literal

__all__ = [
    "SETTING_SUPPORT",
    "ModelSettings",
    "ReasoningEffort",
    "ServiceTier",
    "ToolChoice",
    "ToolChoiceName",
    "merge_settings",
]

ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max", "auto"]
"""Neutral effort vocabulary, ``none`` … ``max`` plus ``auto`` (a selection state meaning "let
the provider's table pick"; never itself sent as a native control)."""

ServiceTier = Literal["auto", "default", "flex", "priority"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolChoiceName:
    """Force the model to call the named tool."""

    name: str


ToolChoice = Literal["auto", "none", "required"] | ToolChoiceName
"""``auto``: the model decides; ``none``: no tool calls (local schemas are not sent);
``required``: at least one tool call; :class:`ToolChoiceName`: that tool."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ModelSettings:
    """Per-request model settings; ``None`` means "not set at this layer".

    Attributes:
        max_tokens: Maximum output tokens.
        temperature: Sampling temperature (vendor range, typically 0–2).
        top_p: Nucleus sampling probability mass (0–1).
        stop: Stop sequences.
        seed: Sampling seed (OpenAI, Gemini).
        reasoning_effort: Neutral effort; providers resolve it per model.
        tool_choice: See :data:`ToolChoice`.
        parallel_tool_calls: Allow several tool calls in one response.
        service_tier: Vendor service tier (OpenAI, Anthropic).
        timeout: Request timeout in seconds; on a streamed call it also bounds the wait for each
            next event (keep-alive comments and pings do not count), so a stalled stream ends
            with :class:`~robota.core.errors.ProviderTimeoutError`.
        extra_headers: Extra HTTP headers sent with each request.
        extra_body: Provider-only request fields under the provider's own tag, e.g.
            ``{"openai": {"logprobs": True}}``; a provider reads only its own tag.
    """

    max_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    stop: tuple[str, ...] | None = None
    seed: int | None = None
    reasoning_effort: ReasoningEffort | None = None
    tool_choice: ToolChoice | None = None
    parallel_tool_calls: bool | None = None
    service_tier: ServiceTier | None = None
    timeout: float | None = None
    extra_headers: Mapping[str, str] | None = None
    extra_body: Mapping[str, Mapping[str, Any]] | None = None

    def set_fields(self) -> frozenset[str]:
        """Names of the fields that are set (not None)."""
        return frozenset(f.name for f in fields(self) if getattr(self, f.name) is not None)


SETTING_SUPPORT: Mapping[str, frozenset[str]] = {
    "max_tokens": frozenset({"anthropic", "openai", "google"}),
    "temperature": frozenset({"anthropic", "openai", "google"}),
    "top_p": frozenset({"anthropic", "openai", "google"}),
    "stop": frozenset({"anthropic", "openai", "google"}),
    "seed": frozenset({"openai", "google"}),
    "reasoning_effort": frozenset({"anthropic", "openai", "google"}),
    "tool_choice": frozenset({"anthropic", "openai", "google"}),
    "parallel_tool_calls": frozenset({"anthropic", "openai"}),
    "service_tier": frozenset({"anthropic", "openai"}),
    "timeout": frozenset({"anthropic", "openai", "google"}),
    "extra_headers": frozenset({"anthropic", "openai", "google"}),
    "extra_body": frozenset({"anthropic", "openai", "google"}),
}
"""Which providers honour each setting (by provider name). Providers' tests keep it true."""


def merge_settings(*layers: ModelSettings | None) -> ModelSettings:
    """Merge settings layers, later layers winning per field.

    ``extra_headers`` merge per header name; ``extra_body`` merges per provider tag and then per
    key. ``None`` layers are skipped.

    Example:
        >>> merge_settings(ModelSettings(temperature=0.2, max_tokens=100),
        ...                ModelSettings(temperature=0.7)).temperature
        0.7
    """
    result = ModelSettings()
    for layer in layers:
        if layer is None:
            continue
        updates: dict[str, Any] = {}
        for name in layer.set_fields():
            value = getattr(layer, name)
            if name == "extra_headers" and result.extra_headers is not None:
                value = {**result.extra_headers, **value}
            elif name == "extra_body" and result.extra_body is not None:
                merged: dict[str, Mapping[str, Any]] = dict(result.extra_body)
                for tag, body in value.items():
                    merged[tag] = {**merged.get(tag, {}), **body}
                value = merged
            updates[name] = value
        result = replace(result, **updates)
    return result
