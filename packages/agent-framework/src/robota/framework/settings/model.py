"""The settings file shape (JSON), parsed with pydantic at the edge (issue: the product;
seed 003, "Settings layers merge per key").

Example ``settings.json``::

    {
      "provider": "local",
      "model": "gemma3",
      "default_trust_level": "restricted",
      "permissions": {"allow": ["read_file"], "deny": ["shell(rm *)"], "ask": [],
                      "default_mode": "default"},
      "hooks": {"PreToolUse": [{"id": "audit", "matcher": "shell", "type": "command",
                                 "command": "./audit.sh"}]},
      "disabled_hooks": [],
      "providers": {"local": {"type": "openai-compatible", "base_url": "http://127.0.0.1:8080/v1",
                               "model": "gemma3", "compat_profile": "llamacpp"}},
      "env": {},
      "sandbox": {"network": false},
      "mcp_servers": {"files": {"command": "mcp-files", "args": ["."]}}
    }

Unknown keys are refused (a typo must not silently disable a rule).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr
from robota.framework.settings.mcp import McpServerName, McpServerSettings

__all__ = [
    "HookEntry",
    "McpScope",
    "PermissionModeName",
    "PermissionSettings",
    "ProviderProfile",
    "SandboxSettings",
    "Settings",
    "TrustLevel",
]

TrustLevel = Literal["restricted", "trusted"]
"""Workspace trust: ``restricted`` (default) reads no project settings, hooks, skills or
instruction files."""

McpScope = Literal["user", "project", "host"]
"""Who declared an MCP server: the user's layer, a project-tier layer (project or local file:
approved per server before it starts), or the host (its own layer, or a :class:`Settings` built
in code and never merged)."""

PermissionModeName = Literal["plan", "default", "accept_edits", "bypass"]
"""Permission modes, most restrictive first."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PermissionSettings(_Strict):
    """Permission rules (``Tool`` or ``Tool(pattern)``), the default mode and its ceiling."""

    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    default_mode: PermissionModeName | None = None
    max_mode: PermissionModeName | None = None
    """The most permissive mode the session may run in, whatever the host or a layer asks
    (a ceiling: the most restrictive value of every layer and the organization policy is
    kept). None: no ceiling."""


class HookEntry(_Strict):
    """One configured hook.

    Attributes:
        id: Stable id; a later layer removes an inherited hook only by listing this id in
            ``disabled_hooks``.
        matcher: Tool-name matcher for tool events (``*`` or empty: all).
        type: Executor type: ``command`` or ``http``.
        command: Shell command (``command`` type).
        url: Endpoint (``http`` type).
        timeout: Seconds.
    """

    id: str
    matcher: str = "*"
    type: Literal["command", "http"]
    command: str | None = None
    url: str | None = None
    timeout: float = 30.0


class ProviderProfile(_Strict):
    """A provider definition.

    Attributes:
        type: ``anthropic``, ``openai``, ``openai-chat``, ``openai-compatible`` or ``google``
            (may be omitted in a layer that only overrides fields of an inherited profile).
        base_url: Endpoint override (an OpenAI-compatible server, a gateway).
        api_key: The key itself (prefer ``api_key_env``).
        api_key_env: Name of the environment variable holding the key.
        model: Default model of this profile.
        compat_profile: OpenAI-compatible server profile name (``ollama``, ``llamacpp``, ...).
    """

    type: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    api_key_env: str | None = None
    model: str | None = None
    compat_profile: str | None = None


class SandboxSettings(_Strict):
    """How the ``shell`` tool's sandbox is configured (issue 11).

    Attributes:
        network: True lets shell commands that may write reach the network (all or nothing:
            bubblewrap cannot apply the egress policy per host; commands auto-approved as
            read-only never get it). Only the user layer can turn it on; a project layer can
            only turn it off. None (default): off.
    """

    network: bool | None = None


class Settings(_Strict):
    """One settings layer (user or project) or the merged result."""

    provider: str | None = None
    model: str | None = None
    default_trust_level: TrustLevel | None = None
    permissions: PermissionSettings = Field(default_factory=PermissionSettings)
    hooks: dict[str, tuple[HookEntry, ...]] = Field(
        default_factory=dict[str, tuple[HookEntry, ...]]
    )
    disabled_hooks: tuple[str, ...] = ()
    providers: dict[str, ProviderProfile] = Field(default_factory=dict[str, ProviderProfile])
    env: dict[str, str] = Field(default_factory=dict[str, str])
    """Environment variables added to the ``shell`` tool's (fresh) environment."""
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    """The shell sandbox (see :class:`SandboxSettings`)."""
    mcp_servers: dict[McpServerName, McpServerSettings] = Field(
        default_factory=dict[str, McpServerSettings]
    )
    """MCP servers by name (see :mod:`robota.framework.settings.mcp`); merged per name, and a
    project layer cannot replace a server the user's layer defines."""
    extra: dict[str, Any] = Field(default_factory=dict[str, Any])
    _mcp_scopes: dict[str, McpScope] = PrivateAttr(default_factory=dict[str, McpScope])

    def mcp_scope(self, name: str) -> McpScope:
        """Which layer declared the MCP server ``name`` in merged settings (``user`` or
        ``project``; ``host`` for the host's layer and for servers of a :class:`Settings`
        that was not produced by merging layers)."""
        return self._mcp_scopes.get(name, "host")
