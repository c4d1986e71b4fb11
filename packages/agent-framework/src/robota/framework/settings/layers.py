"""Reading and merging settings layers (seed 003, "Settings layers merge per key, and the rule is
chosen for safety, not uniformity"; "A credential never follows a changed endpoint").

Layers are read user-first, project-later, from files the host names (none is inferred). The
later layer overrides by default, except:

- ``default_trust_level``: the most restrictive value is kept.
- ``permissions.allow`` / ``deny`` / ``ask``: unioned (order kept, duplicates dropped).
- ``permissions.default_mode``: the most restrictive value is kept (plan < default <
  accept_edits < bypass), so a checked-in project file cannot widen the user's mode.
- ``hooks``: appended per event; an inherited hook is removed only by id, through a later layer's
  ``disabled_hooks`` (which accumulates).
- ``providers``: merged per profile, field by field — but when a later layer changes a profile's
  ``base_url``, an inherited ``api_key`` / ``api_key_env`` is dropped unless that same layer
  supplies its own.
- ``env``: merged per key.

A missing file is an empty layer; an existing file that cannot be read or parsed raises
:class:`SettingsFileError` naming the file and the parse message.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TypeVar

from robota.core.errors import ConfigurationError
from robota.framework.settings.model import (
    HookEntry,
    PermissionModeName,
    PermissionSettings,
    ProviderProfile,
    Settings,
    TrustLevel,
)

__all__ = ["SettingsFileError", "load_layer", "load_settings", "merge_layers"]

_T = TypeVar("_T", bound=str)

_MODE_ORDER: tuple[PermissionModeName, ...] = ("plan", "default", "accept_edits", "bypass")
_TRUST_ORDER: tuple[TrustLevel, ...] = ("restricted", "trusted")


class SettingsFileError(ConfigurationError):
    """A settings file exists but cannot be read or parsed.

    Attributes:
        path: The file.
        detail: The read or parse message.
    """

    code = "settings_file"

    def __init__(self, path: Path, detail: str) -> None:
        super().__init__(f"settings file {path}: {detail}")
        self.path = path
        self.detail = detail


def load_layer(path: str | Path) -> Settings:
    """Read one settings file; a missing file is an empty layer.

    Raises:
        SettingsFileError: when the file exists but is unreadable, not JSON, or not a valid
            settings document.
    """
    from pydantic import ValidationError

    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Settings()
    except UnicodeDecodeError as exc:
        raise SettingsFileError(file, f"not UTF-8 text: {exc.reason} at byte {exc.start}") from exc
    except OSError as exc:
        raise SettingsFileError(file, f"cannot read: {exc.strerror or exc}") from exc
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingsFileError(file, f"invalid JSON: {exc}") from exc
    try:
        return Settings.model_validate(raw)
    except ValidationError as exc:
        issues = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}"
            for err in exc.errors()
        )
        raise SettingsFileError(file, f"invalid settings: {issues}") from exc


def _union(*lists: Iterable[str]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for items in lists:
        for item in items:
            seen.setdefault(item, None)
    return tuple(seen)


def _most_restrictive(order: Sequence[_T], a: _T | None, b: _T | None) -> _T | None:
    if a is None:
        return b
    if b is None:
        return a
    return a if order.index(a) <= order.index(b) else b


def _merge_provider(base: ProviderProfile, later: ProviderProfile) -> ProviderProfile:
    fields = later.model_fields_set
    data = base.model_dump()
    for name in fields:
        data[name] = getattr(later, name)
    endpoint_changed = "base_url" in fields and later.base_url != base.base_url
    if endpoint_changed:
        if "api_key" not in fields:
            data["api_key"] = None
        if "api_key_env" not in fields:
            data["api_key_env"] = None
    return ProviderProfile.model_validate(data)


def merge_layers(layers: Sequence[Settings]) -> Settings:
    """Merge layers, earliest (user) first, by the rules in the module docstring."""
    merged = Settings()
    for layer in layers:
        fields = layer.model_fields_set
        disabled = _union(merged.disabled_hooks, layer.disabled_hooks)
        hooks: dict[str, tuple[HookEntry, ...]] = {k: tuple(v) for k, v in merged.hooks.items()}
        for event, entries in layer.hooks.items():
            hooks[event] = (*hooks.get(event, ()), *entries)
        hooks = {
            event: tuple(h for h in entries if h.id not in disabled)
            for event, entries in hooks.items()
        }
        providers = dict(merged.providers)
        for name, profile in layer.providers.items():
            providers[name] = (
                _merge_provider(providers[name], profile) if name in providers else profile
            )
        permissions = PermissionSettings(
            allow=_union(merged.permissions.allow, layer.permissions.allow),
            deny=_union(merged.permissions.deny, layer.permissions.deny),
            ask=_union(merged.permissions.ask, layer.permissions.ask),
            default_mode=_most_restrictive(
                _MODE_ORDER, merged.permissions.default_mode, layer.permissions.default_mode
            ),
        )
        merged = Settings(
            provider=layer.provider if "provider" in fields else merged.provider,
            model=layer.model if "model" in fields else merged.model,
            default_trust_level=_most_restrictive(
                _TRUST_ORDER, merged.default_trust_level, layer.default_trust_level
            ),
            permissions=permissions,
            hooks=hooks,
            disabled_hooks=disabled,
            providers=providers,
            env={**merged.env, **layer.env},
            extra={**merged.extra, **layer.extra},
        )
    return merged


def load_settings(
    *, user: str | Path | None = None, project: str | Path | None = None, trusted: bool = False
) -> Settings:
    """Read and merge the user layer and — only when the workspace is trusted — the project
    layer. Paths come from the host; ``None`` means no such layer.

    Raises:
        SettingsFileError: for a corrupt file (never treated as missing).
    """
    layers = [load_layer(user)] if user is not None else []
    if trusted and project is not None:
        layers.append(load_layer(project))
    return merge_layers(layers)
