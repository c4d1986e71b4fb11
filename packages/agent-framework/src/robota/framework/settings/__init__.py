"""Settings layers and provider resolution for the framework."""

from robota.framework.settings.layers import (
    SettingsFileError,
    load_layer,
    load_settings,
    merge_layers,
)
from robota.framework.settings.model import (
    HookEntry,
    PermissionModeName,
    PermissionSettings,
    ProviderProfile,
    Settings,
    TrustLevel,
)
from robota.framework.settings.resolve import (
    BUILTIN_PROFILES,
    ProviderResolutionError,
    ResolvedProvider,
    resolve_provider,
)

__all__ = [
    "BUILTIN_PROFILES",
    "HookEntry",
    "PermissionModeName",
    "PermissionSettings",
    "ProviderProfile",
    "ProviderResolutionError",
    "ResolvedProvider",
    "Settings",
    "SettingsFileError",
    "TrustLevel",
    "load_layer",
    "load_settings",
    "merge_layers",
    "resolve_provider",
]
