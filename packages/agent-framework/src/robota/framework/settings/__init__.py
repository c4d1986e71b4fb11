"""Settings layers and provider resolution for the framework."""

from robota.framework.settings.builtin import BUILTIN_PROFILES
from robota.framework.settings.errors import SettingsFileError, UntrustedSettingError
from robota.framework.settings.layers import (
    LayerTier,
    cap_mode,
    check_project_layer,
    load_layer,
    load_settings,
    merge_layers,
)
from robota.framework.settings.mcp import (
    HttpMcpServer,
    McpServerSettings,
    StdioMcpServer,
    check_server_name,
)
from robota.framework.settings.model import (
    HookEntry,
    McpScope,
    PermissionModeName,
    PermissionSettings,
    ProviderProfile,
    SandboxSettings,
    Settings,
    TrustLevel,
)
from robota.framework.settings.resolve import (
    ProviderResolutionError,
    ResolvedProvider,
    resolve_provider,
)
from robota.framework.settings.startup_env import is_startup_variable

__all__ = [
    "BUILTIN_PROFILES",
    "HookEntry",
    "HttpMcpServer",
    "LayerTier",
    "McpScope",
    "McpServerSettings",
    "PermissionModeName",
    "PermissionSettings",
    "ProviderProfile",
    "ProviderResolutionError",
    "ResolvedProvider",
    "SandboxSettings",
    "Settings",
    "SettingsFileError",
    "StdioMcpServer",
    "TrustLevel",
    "UntrustedSettingError",
    "cap_mode",
    "check_project_layer",
    "check_server_name",
    "is_startup_variable",
    "load_layer",
    "load_settings",
    "merge_layers",
    "resolve_provider",
]
