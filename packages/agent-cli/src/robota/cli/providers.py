"""Building the provider instance the framework resolved (the CLI is the composition root: the
only package allowed to import provider packages)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from robota.core.errors import ConfigurationError
from robota.core.provider import Provider
from robota.core.retry import RetryingProvider, RetryPolicy
from robota.core.usage import Usage
from robota.framework.settings import ResolvedProvider

__all__ = ["build_provider", "estimate_cost"]


def build_provider(resolved: ResolvedProvider, *, retries: bool = True) -> Provider:
    """A provider for ``resolved``, wrapped with Robota's retry policy unless ``retries`` is
    False (for best-effort calls such as the session title).

    Raises:
        ConfigurationError: for an unknown provider type, or a missing key where one is needed.
    """
    kind = resolved.type
    if kind == "anthropic":
        from robota.providers.anthropic import DEFAULT_BASE_URL, AnthropicProvider

        if not resolved.api_key:
            raise ConfigurationError("the anthropic provider needs ANTHROPIC_API_KEY")
        inner: Provider = AnthropicProvider(
            api_key=resolved.api_key,
            base_url=resolved.base_url or DEFAULT_BASE_URL,
            default_model=resolved.model,
        )
    elif kind in ("openai", "openai-responses"):
        from robota.providers.openai import OpenAIResponsesProvider

        if not resolved.api_key and not resolved.base_url:
            raise ConfigurationError("the openai provider needs OPENAI_API_KEY")
        inner = OpenAIResponsesProvider(
            resolved.api_key,
            base_url=resolved.base_url or "https://api.openai.com/v1",
            default_model=resolved.model,
        )
    elif kind in ("openai-chat", "openai-compatible"):
        from robota.providers.openai import OpenAIChatProvider

        if kind == "openai-chat" and not resolved.api_key:
            raise ConfigurationError("the openai-chat provider needs OPENAI_API_KEY")
        if kind == "openai-compatible" and not resolved.base_url:
            raise ConfigurationError("an openai-compatible provider needs a base_url")
        inner = OpenAIChatProvider(
            resolved.api_key,  # None: a local server gets no Authorization header at all
            base_url=resolved.base_url or "https://api.openai.com/v1",
            profile=resolved.compat_profile or ("openai" if kind == "openai-chat" else "llamacpp"),
            name="openai" if kind == "openai-chat" else (resolved.compat_profile or "compatible"),
            default_model=resolved.model,
        )
    elif kind == "google":
        from robota.providers.google import GoogleProvider

        if not resolved.api_key:
            raise ConfigurationError("the google provider needs GEMINI_API_KEY")
        inner = GoogleProvider(
            api_key=resolved.api_key, base_url=resolved.base_url, default_model=resolved.model
        )
    else:
        raise ConfigurationError(
            f"unknown provider type {kind!r} (anthropic, openai, openai-chat, "
            "openai-compatible, google)"
        )
    return RetryingProvider(inner, RetryPolicy()) if retries else inner


def estimate_cost(provider_type: str, usage_by_model: Mapping[str, Usage]) -> Decimal | None:
    """USD cost of the usage per model, or None when any model's price is unknown."""
    total = Decimal(0)
    for model, usage in usage_by_model.items():
        cost: Decimal | None
        if provider_type == "anthropic":
            from robota.providers.anthropic import estimate_cost as anthropic_cost

            cost = anthropic_cost(model, usage)
        else:
            from robota.core.messages import AssistantMessage
            from robota.core.provider import ModelResponse

            response = ModelResponse(message=AssistantMessage(), model=model, usage=usage)
            if provider_type == "google":
                from robota.providers.google import estimate_cost as google_cost

                cost = google_cost(response)
            elif provider_type in ("openai", "openai-responses", "openai-chat"):
                from robota.providers.openai import estimate_cost as openai_cost

                cost = openai_cost(response)
            else:
                cost = None
        if cost is None:
            return None
        total += cost
    return total
