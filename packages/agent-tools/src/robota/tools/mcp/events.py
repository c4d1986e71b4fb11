"""Events of MCP toolsets (seed 004, ``mcp:bootstrap:end``): a server connected or failed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from robota.core.events import Event

__all__ = ["McpServerConnected", "McpServerFailed"]


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
