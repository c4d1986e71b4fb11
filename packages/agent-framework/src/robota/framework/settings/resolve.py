"""Provider resolution (seed 003, "Provider resolution order is fixed and total").

1. An explicit profile (``--provider`` or the merged settings' ``provider``) always wins.
2. Otherwise the first profile, in definition order, whose ``api_key_env`` names a set,
   non-empty environment variable and which has a default model.
3. Otherwise :class:`ProviderResolutionError`, which names what is missing (the variables
   that were looked for) without prescribing a product command: the host adds its own hint
   (seed 003, "Recovery instructions are host-owned").

The framework never builds a provider: resolution yields a :class:`ResolvedProvider` (profile
name, type, model, key, base URL) that the host turns into a provider instance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from robota.core.errors import ConfigurationError
from robota.framework.settings.builtin import BUILTIN_PROFILES
from robota.framework.settings.model import ProviderProfile, Settings

__all__ = ["BUILTIN_PROFILES", "ProviderResolutionError", "ResolvedProvider", "resolve_provider"]


class ProviderResolutionError(ConfigurationError):
    """No provider could be resolved; the message names what is missing, never a command.

    Attributes:
        profile: The profile that failed, or None when none was selected.
        missing: What is missing: ``"model"``, ``"type"``, ``"profile"``, or the API-key
            environment variables that were looked for (env-default synthesis).
    """

    code = "provider_unresolved"

    def __init__(
        self, message: str, *, profile: str | None = None, missing: tuple[str, ...] = ()
    ) -> None:
        super().__init__(message)
        self.profile = profile
        self.missing = missing


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
                f"unknown provider profile {chosen!r}; known: {', '.join(sorted(profiles))}",
                profile=chosen,
                missing=("profile",),
            )
        resolved_model = model or settings.model or found.model
        if not resolved_model:
            raise ProviderResolutionError(
                f"no model is configured for provider profile {chosen!r}: set `model` in the "
                "profile or in settings, or pass one to resolve_provider",
                profile=chosen,
                missing=("model",),
            )
        if not found.type:
            raise ProviderResolutionError(
                f"provider profile {chosen!r} has no `type` "
                "(anthropic, openai, openai-chat, openai-compatible, google)",
                profile=chosen,
                missing=("type",),
            )
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
        candidate = profiles.get(name)
        if candidate is None:
            continue
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
    wanted = tuple(
        p.api_key_env for p in (profiles[n] for n in names if n in profiles) if p.api_key_env
    )
    raise ProviderResolutionError(
        f"no provider is configured: none of {', '.join(wanted)} is set, and settings select "
        "no profile (set `provider` to a profile in settings, or define one with a `base_url` "
        "for an OpenAI-compatible server)",
        missing=wanted,
    )
