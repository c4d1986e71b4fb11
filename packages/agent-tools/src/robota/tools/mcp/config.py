"""MCP server configuration (seed 002, "MCP toolsets"; seed 004, MCP server config).

Parsed at the edge with pydantic: a stdio server is started from ``command``/``args``/``env``;
a streamable HTTP server is reached at ``url`` with extra ``headers``. Both carry the tool
filters, per-tool risk declarations and timeouts.

Example:
    >>> [cfg] = parse_server_configs(
    ...     [{"name": "files", "transport": "stdio", "command": "python", "args": ["srv.py"],
    ...       "tool_risk": {"read": "inspect"}}])
    >>> cfg.transport, cfg.tool_risk["read"].value, cfg.call_timeout
    ('stdio', 'inspect', 60.0)
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator
from robota.core.tools.base import RiskClass

__all__ = [
    "HttpServerConfig",
    "McpServerConfig",
    "StdioServerConfig",
    "parse_server_configs",
]

_SERVER_NAME = re.compile(r"[a-zA-Z0-9-]+(?:_[a-zA-Z0-9-]+)*")


class _ServerBase(BaseModel):
    """Fields shared by every transport.

    Attributes:
        name: Server name used in tool names ``mcp__<name>__<tool>``: letters, digits, ``-``
            and single ``_`` (no ``__``, so the name splits back unambiguously).
        enabled_tools: When set, only these server tool names (the server's own names) are
            offered; None offers all.
        disabled_tools: Server tool names never offered (applied after ``enabled_tools``).
        tool_risk: Declared :class:`RiskClass` per server tool name; undeclared tools have risk
            None, so permission evaluation asks.
        connect_timeout: Seconds allowed to start, initialize and list tools.
        call_timeout: Seconds one ``tools/call`` may take before it becomes an error result.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    enabled_tools: tuple[str, ...] | None = None
    disabled_tools: tuple[str, ...] = ()
    tool_risk: dict[str, RiskClass] = Field(default_factory=dict[str, RiskClass])
    connect_timeout: float = 30.0
    call_timeout: float = 60.0

    @field_validator("name")
    @classmethod
    def _check_name(cls, value: str) -> str:
        if not _SERVER_NAME.fullmatch(value):
            raise ValueError(
                f"server name must be letters, digits, '-' and single '_' (no '__'), got {value!r}"
            )
        return value

    def offers(self, tool_name: str) -> bool:
        """True when the filters let the server tool ``tool_name`` through."""
        if self.enabled_tools is not None and tool_name not in self.enabled_tools:
            return False
        return tool_name not in self.disabled_tools


class StdioServerConfig(_ServerBase):
    """A server started as a child process speaking MCP over stdin/stdout.

    Attributes:
        command: Executable (looked up on PATH).
        args: Its arguments.
        env: Extra environment variables (merged over the SDK's safe default environment).
        cwd: Working directory, or None for the current one.
        stderr: ``"discard"`` (default) drops the server's stderr; ``"inherit"`` passes it to
            this process's stderr.
    """

    transport: Literal["stdio"] = "stdio"
    command: str
    args: tuple[str, ...] = ()
    env: dict[str, str] | None = None
    cwd: str | None = None
    stderr: Literal["discard", "inherit"] = "discard"


class HttpServerConfig(_ServerBase):
    """A server reached over MCP streamable HTTP.

    Attributes:
        url: The MCP endpoint, e.g. ``http://127.0.0.1:8000/mcp``.
        headers: Extra HTTP headers sent with every request (e.g. ``Authorization``).
        auth: An ``httpx2.Auth`` applied to every request, e.g. the ``mcp`` SDK's
            ``OAuthClientProvider`` (which adds the bearer token and refreshes it); given in
            code only (never parsed from settings, never serialized). None: no auth flow.
    """

    transport: Literal["http"] = "http"
    url: str
    headers: dict[str, str] = Field(default_factory=dict[str, str])
    auth: Any = Field(default=None, exclude=True, repr=False)

    @field_validator("auth")
    @classmethod
    def _check_auth(cls, value: object) -> object:
        if value is not None and not callable(getattr(value, "async_auth_flow", None)):
            raise ValueError("auth must be an httpx2.Auth (e.g. an OAuthClientProvider)")
        return value


McpServerConfig = Annotated[StdioServerConfig | HttpServerConfig, Field(discriminator="transport")]
"""One server's configuration, discriminated by ``transport`` (``"stdio"`` or ``"http"``)."""

_ADAPTER: TypeAdapter[StdioServerConfig | HttpServerConfig] = TypeAdapter(McpServerConfig)


def parse_server_configs(data: object) -> list[StdioServerConfig | HttpServerConfig]:
    """Parse a list of server configurations (e.g. from a settings file). An entry without
    ``transport`` is ``"http"`` when it has a ``url``, else ``"stdio"``.

    Raises:
        pydantic.ValidationError: when an entry is malformed.
    """
    if not isinstance(data, list):
        raise TypeError("MCP server configuration must be a list")
    configs: list[StdioServerConfig | HttpServerConfig] = []
    for item in data:
        if isinstance(item, dict) and "transport" not in item:
            item = {**item, "transport": "http" if "url" in item else "stdio"}
        configs.append(_ADAPTER.validate_python(item))
    return configs
