"""Events of MCP toolsets (seed 004, ``mcp:bootstrap:end``, ``mcp:auth:required``): a server
connected, failed, or needs credentials."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from robota.core.events import Event

__all__ = ["McpServerConnected", "McpServerFailed", "McpServerNeedsLogin"]


@dataclass(frozen=True, kw_only=True, slots=True)
class McpServerConnected(Event):
    """A server started, initialized and listed its tools.

    Attributes:
        server: The configured server name.
        tool_names: Offered (namespaced) tool names after the filters.
    """

    type: ClassVar[str] = "mcp.server_connected"
    server: str
    tool_names: tuple[str, ...]


@dataclass(frozen=True, kw_only=True, slots=True)
class McpServerFailed(Event):
    """A server could not be started, initialized or listed; the run continues without it.

    Attributes:
        server: The configured server name.
        error: What went wrong (exception type and message).
    """

    type: ClassVar[str] = "mcp.server_failed"
    server: str
    error: str


@dataclass(frozen=True, kw_only=True, slots=True)
class McpServerNeedsLogin(Event):
    """An HTTP server answered 401 Unauthorized while connecting (seed 004,
    ``mcp:auth:required``): it wants credentials the configuration does not give. Emitted just
    before the matching :class:`McpServerFailed` (both fire: the bootstrap did fail, for a
    reason the user can fix by logging in or adding a header).

    Attributes:
        server: The configured server name.
        url: The server's URL.
        www_authenticate: The 401's ``WWW-Authenticate`` header ('' when absent).
    """

    type: ClassVar[str] = "mcp.server_needs_login"
    server: str
    url: str
    www_authenticate: str
