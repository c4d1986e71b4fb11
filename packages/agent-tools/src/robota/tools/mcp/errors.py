"""Errors of MCP toolsets (seed 000, "Error Taxonomy")."""

from __future__ import annotations

from robota.core.errors import ErrorCategory, RobotaError

__all__ = ["McpServerError"]


class McpServerError(RobotaError):
    """An MCP server could not be started, initialized or listed, or its connection ended.

    Attributes:
        server: The configured server name.
    """

    code = "mcp_server"
    default_category = ErrorCategory.SYSTEM
    default_recoverable = True

    def __init__(self, message: str, *, server: str) -> None:
        super().__init__(message)
        self.server = server
