"""The built-in provider profiles (env-default synthesis, seed 003 "Provider resolution order
is fixed and total").

They are the base every settings layer's profile of the same name is merged onto, so a layer
that changes a built-in profile's endpoint is judged against the built-in default endpoint
(seed 003, "A credential never follows a changed endpoint").
"""

from __future__ import annotations

from collections.abc import Mapping

from robota.framework.settings.model import ProviderProfile

__all__ = ["BUILTIN_PROFILES"]

BUILTIN_PROFILES: Mapping[str, ProviderProfile] = {
    "anthropic": ProviderProfile(
        type="anthropic", api_key_env="ANTHROPIC_API_KEY", model="claude-sonnet-4-6"
    ),
    "openai": ProviderProfile(type="openai", api_key_env="OPENAI_API_KEY", model="gpt-5-mini"),
    "google": ProviderProfile(
        type="google", api_key_env="GEMINI_API_KEY", model="gemini-2.5-flash"
    ),
}
"""Env-default profiles, in resolution order; settings profiles of the same name override
them field by field. Their endpoint is the provider type's default (``base_url`` None)."""
