"""Provider resolution (seed 003, "Provider resolution order is fixed and total").

1. An explicit profile (``--provider`` or the merged settings' ``provider``) always wins.
2. Otherwise the first profile, in definition order, whose ``api_key_env`` names a set,
   non-empty environment variable and which has a default model.
3. Otherwise :class:`ProviderResolutionError`, which says what to set.

The framework never builds a provider: resolution yields a :class:`ResolvedProvider` (profile
name, type, model, key, base URL) that the host turns into a provider instance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from robota.core.errors import ConfigurationError
from robota.framework.settings.model import ProviderProfile, Settings

__all__ = ["BUILTIN_PROFILES", "ProviderResolutionError", "ResolvedProvider", "resolve_provider"]

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
them field by field."""


class ProviderResolutionError(ConfigurationError):
    """No provider could be resolved; the message names what to set."""

    code = "provider_unresolved"


@dataclass(frozen=True, kw_only=True, slots=True)
class ResolvedProvider:
    """What the host needs to build the provider.

    Attributes:
        profile: Profile name.
        type: Provider type (see :class:`~robota.framework.settings.model.ProviderProfile`).
        model: Model id.
        api_key: The key, or None (a local server may need none).
        base_url: Endpoint override, or None.
        compat_profile: OpenAI-compatible server profile name, if any.
    """

    profile: str
    type: str
    model: str
    api_key: str | None
    base_url: str | None
    compat_profile: str | None


def _profiles(settings: Settings) -> dict[str, ProviderProfile]:
    profiles = dict(BUILTIN_PROFILES)
    for name, profile in settings.providers.items():
        if name in profiles:
            data = profiles[name].model_dump()
            data.update({k: getattr(profile, k) for k in profile.model_fields_set})
            profiles[name] = ProviderProfile.model_validate(data)
        else:
            profiles[name] = profile
    return profiles


def _key(profile: ProviderProfile, env: Mapping[str, str]) -> str | None:
    if profile.api_key:
        return profile.api_key
    if profile.api_key_env:
        return env.get(profile.api_key_env) or None
    return None


def resolve_provider(
    settings: Settings,
    env: Mapping[str, str],
    *,
    profile: str | None = None,
    model: str | None = None,
    order: Sequence[str] | None = None,
) -> ResolvedProvider:
    """Resolve the provider to use.

    Args:
        settings: Merged settings.
        env: The environment to read keys from (the host passes ``os.environ`` deliberately).
        profile: Explicit profile name (wins over settings).
        model: Explicit model (wins over the profile's default).
        order: Profile names in resolution order for step 2 (default: built-ins, then settings
            profiles in definition order).

    Raises:
        ProviderResolutionError: when nothing resolves, or an explicit profile is unknown or
            lacks a model.
    """
    profiles = _profiles(settings)
    chosen = profile or settings.provider
    if chosen is not None:
        found = profiles.get(chosen)
        if found is None:
            raise ProviderResolutionError(
                f"unknown provider profile {chosen!r}; known: {', '.join(sorted(profiles))}"
            )
        resolved_model = model or settings.model or found.model
        if not resolved_model:
            raise ProviderResolutionError(f"provider profile {chosen!r} has no model; pass --model")
        if not found.type:
            raise ProviderResolutionError(f"provider profile {chosen!r} has no type")
        return ResolvedProvider(
            profile=chosen,
            type=found.type,
            model=resolved_model,
            api_key=_key(found, env),
            base_url=found.base_url,
            compat_profile=found.compat_profile,
        )
    names = list(order) if order is not None else list(profiles)
    for name in names:
        candidate = profiles[name]
        if (
            candidate.type
            and candidate.api_key_env
            and env.get(candidate.api_key_env)
            and candidate.model
        ):
            return ResolvedProvider(
                profile=name,
                type=candidate.type,
                model=model or settings.model or candidate.model,
                api_key=env[candidate.api_key_env],
                base_url=candidate.base_url,
                compat_profile=candidate.compat_profile,
            )
    wanted = ", ".join(p.api_key_env for p in (profiles[n] for n in names) if p.api_key_env)
    raise ProviderResolutionError(
        f"no provider configured: set one of {wanted}, or point at an OpenAI-compatible server "
        "(e.g. --base-url http://127.0.0.1:8080/v1 for llama.cpp or Ollama), or name a profile"
    )
