"""Reading and merging settings layers (seed 003, "Settings layers merge per key, and the rule is
chosen for safety, not uniformity"; "A credential never follows a changed endpoint";
"Organization policy is host-located and fail-closed"; issue #13).

Layers, highest authority first: the organization **policy**, the **host** (the operator's
explicit choice: command-line options, an embedding's code), the **user** layer, and the
lower-trust **project** layers (the project file and the project-local file — both live in the
repository, so both are project tier). Files are read user-first, project-later; the host
layer is merged after them and the policy on top of everything. The per-key rules (the table
in ``docs/guides/settings.md``):

- ``provider`` / ``model`` / ``extra``: a later layer overrides.
- ``default_trust_level``: the most restrictive value is kept.
- ``permissions.allow`` / ``deny`` / ``ask``: unioned (order kept, duplicates dropped); the
  policy adds deny and ask rules.
- ``permissions.default_mode``: the user layer sets it; a project layer may only narrow it —
  from the user's mode, or from ``default`` when the user named none (plan < default <
  accept_edits < bypass); the host sets it outright; ``permissions.max_mode`` (any layer,
  most restrictive kept, the policy's included) caps the result.
- ``hooks``: appended per event. ``disabled_hooks`` accumulates, but a layer may disable only
  hooks declared by itself or by later (lower-trust) layers: the user can turn off a project
  hook, never the reverse. The host may disable any file layer's hook; only the policy can
  disable anything, and nothing disables a policy hook.
- ``providers``: merged per profile, field by field, onto the built-in profile of the same
  name. A project layer that changes a profile's endpoint (``base_url`` or ``type``) drops
  the inherited ``api_key`` / ``api_key_env``, so a user credential is sent only to the
  endpoint the user's layer (or the built-in default) names; and a project layer may not set
  ``api_key_env`` at all (it would name the user's own variable):
  :class:`UntrustedSettingError`. A project's own literal ``api_key`` is its own secret.
- ``env``: merged per key; a variable that changes how programs start or what they load
  (:mod:`robota.framework.settings.startup_env`) is refused from a project layer.
- ``sandbox.network``: only the user layer or the host can turn it on; a project layer or the
  policy can only turn it off.
- ``mcp_servers``: merged per server name, a later layer replacing the whole entry; a
  project-tier layer cannot replace a server the user's layer (or the host) defines (its entry
  is ignored, with a warning), and may not declare ``tool_risk``
  (:class:`UntrustedSettingError`). The merged settings remember each server's tier
  (:meth:`Settings.mcp_scope`): a project server starts only once the user approved it
  (:mod:`robota.framework.mcp`).

A missing file is an empty layer; an existing file that cannot be read or parsed raises
:class:`SettingsFileError` naming the file and the parse message.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar

from robota.core.permissions import PermissionMode
from robota.framework.settings.builtin import BUILTIN_PROFILES
from robota.framework.settings.errors import SettingsFileError, UntrustedSettingError
from robota.framework.settings.mcp import McpServerSettings, StdioMcpServer
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
from robota.framework.settings.startup_env import is_startup_variable

if TYPE_CHECKING:
    from robota.framework.policy.model import OrganizationPolicy

__all__ = [
    "LayerTier",
    "SettingsFileError",
    "UntrustedSettingError",
    "cap_mode",
    "check_project_layer",
    "load_layer",
    "load_settings",
    "merge_layers",
]

_log = logging.getLogger(__name__)

_T = TypeVar("_T", bound=str)

LayerTier = Literal["user", "project", "host", "policy"]
"""Who a layer speaks for (the project-local file is ``project`` tier)."""

_MODE_ORDER: tuple[PermissionModeName, ...] = ("plan", "default", "accept_edits", "bypass")
_TRUST_ORDER: tuple[TrustLevel, ...] = ("restricted", "trusted")


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
    except RecursionError as exc:
        raise SettingsFileError(file, "invalid JSON: nested too deeply") from exc
    try:
        return Settings.model_validate(raw)
    except RecursionError as exc:
        raise SettingsFileError(file, "invalid settings: nested too deeply") from exc
    except ValidationError as exc:
        issues = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}"
            for err in exc.errors()
        )
        raise SettingsFileError(file, f"invalid settings: {issues}") from exc


def check_project_layer(layer: Settings, *, path: Path | None = None) -> None:
    """Refuse the keys a project-tier layer may not set.

    Raises:
        UntrustedSettingError: ``env`` names a start-up variable (``BASH_ENV``, ``LD_PRELOAD``,
            ``PATH``...), a provider profile sets ``api_key_env``, or an MCP server declares
            ``tool_risk`` or sets a start-up variable in its ``env``.
    """
    for name in layer.env:
        if is_startup_variable(name):
            raise UntrustedSettingError(
                f"env.{name}",
                "it changes how programs start or what they load; only the user's own "
                "settings or the host may set it",
                path=path,
            )
    for profile_name, profile in layer.providers.items():
        if profile.api_key_env is not None:
            raise UntrustedSettingError(
                f"providers.{profile_name}.api_key_env",
                "a project cannot choose which of the user's environment variables is sent "
                "as a credential; bind keys in the user's own settings",
                path=path,
            )
    for server_name, server in layer.mcp_servers.items():
        for name in server.env if isinstance(server, StdioMcpServer) else ():
            if is_startup_variable(name):
                raise UntrustedSettingError(
                    f"mcp_servers.{server_name}.env.{name}",
                    "it changes which program the server's command runs or what it loads; "
                    "only the user's own settings or the host may set it",
                    path=path,
                )
        if server.tool_risk:
            raise UntrustedSettingError(
                f"mcp_servers.{server_name}.tool_risk",
                "a declared risk decides whether the tool's calls ask; only the user's own "
                "settings or the host may declare it",
                path=path,
            )


def cap_mode(mode: PermissionMode, ceiling: PermissionModeName | None) -> PermissionMode:
    """``mode``, or ``ceiling`` when ``mode`` is more permissive (plan < default <
    accept_edits < bypass); the session applies it to every mode it is asked for, the host's
    explicit one included.

    >>> cap_mode(PermissionMode.BYPASS, "default").value
    'default'
    """
    if ceiling is None:
        return mode
    wanted = _MODE_ORDER.index(mode.value)
    return mode if wanted <= _MODE_ORDER.index(ceiling) else PermissionMode(ceiling)


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


def _merge_provider(
    base: ProviderProfile | None, later: ProviderProfile, *, tier: LayerTier
) -> ProviderProfile:
    if base is None:
        return later
    fields = later.model_fields_set
    data = base.model_dump()
    for name in fields:
        data[name] = getattr(later, name)
    endpoint_changed = ("base_url" in fields and later.base_url != base.base_url) or (
        "type" in fields and later.type is not None and later.type != base.type
    )
    if endpoint_changed and tier == "project":
        if "api_key" not in fields:
            data["api_key"] = None
        if "api_key_env" not in fields:
            data["api_key_env"] = None
    return ProviderProfile.model_validate(data)


def _merge_sandbox(
    base: SandboxSettings, later: SandboxSettings, *, tier: LayerTier
) -> bool | None:
    if tier in ("user", "host") and "network" in later.model_fields_set:
        return later.network
    if later.network is False:
        return False
    return base.network


@dataclass(frozen=True, slots=True)
class _Hook:
    index: int
    tier: LayerTier
    event: str
    entry: HookEntry


@dataclass(frozen=True, slots=True)
class _Disable:
    index: int
    tier: LayerTier
    hook_id: str


def _may_disable(by: _Disable, hook: _Hook) -> bool:
    if by.hook_id != hook.entry.id:
        return False
    if by.tier == "policy":
        return True
    if hook.tier == "policy":
        return False
    if by.tier == "host":
        return True
    return by.index <= hook.index


def _merge(
    tagged: Sequence[tuple[LayerTier, Settings]], policy: OrganizationPolicy | None
) -> Settings:
    provider: str | None = None
    model: str | None = None
    trust: TrustLevel | None = None
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    mode: PermissionModeName | None = None
    max_mode: PermissionModeName | None = None
    hooks: list[_Hook] = []
    disables: list[_Disable] = []
    providers: dict[str, ProviderProfile] = {}
    env: dict[str, str] = {}
    network: bool | None = None
    servers: dict[str, McpServerSettings] = {}
    scopes: dict[str, McpScope] = {}
    extra: dict[str, object] = {}
    for index, (tier, layer) in enumerate(tagged):
        fields = layer.model_fields_set
        if "provider" in fields:
            provider = layer.provider
        if "model" in fields:
            model = layer.model
        trust = _most_restrictive(_TRUST_ORDER, trust, layer.default_trust_level)
        perms = layer.permissions
        allow = _union(allow, perms.allow)
        deny = _union(deny, perms.deny)
        ask = _union(ask, perms.ask)
        if perms.default_mode is not None:
            if tier == "project":
                mode = _most_restrictive(_MODE_ORDER, mode or "default", perms.default_mode)
            else:
                mode = perms.default_mode
        max_mode = _most_restrictive(_MODE_ORDER, max_mode, perms.max_mode)
        for event, entries in layer.hooks.items():
            hooks.extend(_Hook(index, tier, event, entry) for entry in entries)
        disables.extend(_Disable(index, tier, hook_id) for hook_id in layer.disabled_hooks)
        for name, profile in layer.providers.items():
            base = providers.get(name) or BUILTIN_PROFILES.get(name)
            providers[name] = _merge_provider(base, profile, tier=tier)
        env.update(layer.env)
        network = _merge_sandbox(SandboxSettings(network=network), layer.sandbox, tier=tier)
        _merge_servers(servers, scopes, layer, tier=tier)
        extra.update(layer.extra)
    if policy is not None:
        index = len(tagged)
        deny = _union(deny, policy.permissions.deny)
        ask = _union(ask, policy.permissions.ask)
        max_mode = _most_restrictive(_MODE_ORDER, max_mode, policy.permissions.max_mode)
        for event, entries in policy.hooks.items():
            hooks.extend(_Hook(index, "policy", event, entry) for entry in entries)
        disables.extend(_Disable(index, "policy", hook_id) for hook_id in policy.disabled_hooks)
        if policy.sandbox.network is False:
            network = False
    if mode is not None and max_mode is not None:
        mode = _most_restrictive(_MODE_ORDER, mode, max_mode)
    merged_hooks: dict[str, tuple[HookEntry, ...]] = {}
    for hook in hooks:
        merged_hooks.setdefault(hook.event, ())
        if any(_may_disable(d, hook) for d in disables):
            continue
        if any(d.hook_id == hook.entry.id for d in disables):
            _log.warning(
                "hook %r (%s layer) stays enabled: a lower-trust layer cannot disable it",
                hook.entry.id,
                hook.tier,
            )
        merged_hooks[hook.event] = (*merged_hooks[hook.event], hook.entry)
    merged = Settings(
        provider=provider,
        model=model,
        default_trust_level=trust,
        permissions=PermissionSettings(
            allow=allow, deny=deny, ask=ask, default_mode=mode, max_mode=max_mode
        ),
        hooks=merged_hooks,
        disabled_hooks=_union(*([d.hook_id] for d in disables)),
        providers=providers,
        env=env,
        sandbox=SandboxSettings(network=network),
        mcp_servers=servers,
        extra=extra,
    )
    merged._mcp_scopes = scopes  # pyright: ignore[reportPrivateUsage]  # the merge's own record
    return merged


def _merge_servers(
    servers: dict[str, McpServerSettings],
    scopes: dict[str, McpScope],
    layer: Settings,
    *,
    tier: LayerTier,
) -> None:
    for name, server in layer.mcp_servers.items():
        if tier == "project" and scopes.get(name) in ("user", "host"):
            _log.warning(
                "project MCP server %r is ignored: the user's settings define a server of that "
                "name",
                name,
            )
            continue
        servers[name] = server
        scopes[name] = "project" if tier == "project" else "user" if tier == "user" else "host"


def merge_layers(
    layers: Sequence[Settings],
    *,
    host: Settings | None = None,
    policy: OrganizationPolicy | None = None,
) -> Settings:
    """Merge layers by the rules in the module docstring.

    Args:
        layers: File layers, user first; every later one is project tier.
        host: The host's own layer (the operator's explicit choices), merged after the file
            layers with the user's privileges; it sets ``default_mode`` outright.
        policy: The organization policy, merged on top of everything.

    Raises:
        UntrustedSettingError: a project-tier layer sets a key only the user, the host or the
            policy may set (see :func:`check_project_layer`).
    """
    tagged: list[tuple[LayerTier, Settings]] = []
    for index, layer in enumerate(layers):
        if index > 0:
            check_project_layer(layer)
        tagged.append(("user" if index == 0 else "project", layer))
    if host is not None:
        tagged.append(("host", host))
    return _merge(tagged, policy)


def load_settings(
    *,
    user: str | Path | None = None,
    project: str | Path | None = None,
    local: str | Path | None = None,
    trusted: bool = False,
    host: Settings | None = None,
    policy: OrganizationPolicy | None = None,
) -> Settings:
    """Read and merge the user layer and — only when the workspace is trusted and the policy
    allows project settings — the project and project-local layers; then the host layer and
    the policy. Paths come from the host; ``None`` means no such layer.

    Args:
        user: The user's settings file.
        project: The project's checked-in settings file.
        local: The project-local settings file (inside the repository, so project tier).
        trusted: Whether the workspace is trusted (restricted reads no project file).
        host: The host's own layer (see :func:`merge_layers`).
        policy: The organization policy (see :func:`robota.framework.policy.load_policy`).

    Raises:
        SettingsFileError: for a corrupt file (never treated as missing).
        UntrustedSettingError: a project or project-local file sets a key it may not; the
            error names the file and the key.
    """
    tagged: list[tuple[LayerTier, Settings]] = [
        ("user", load_layer(user) if user is not None else Settings())
    ]
    if trusted and (policy is None or policy.project_settings):
        for path in (project, local):
            if path is None:
                continue
            layer = load_layer(path)
            check_project_layer(layer, path=Path(path))
            tagged.append(("project", layer))
    if host is not None:
        tagged.append(("host", host))
    return _merge(tagged, policy)
