"""Errors of MCP toolsets (seed 000, "Error Taxonomy")."""

from __future__ import annotations

from robota.core.errors import ErrorCategory, RobotaError

__all__ = ["McpAuthorizationRequired", "McpServerError"]


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


class McpAuthorizationRequired(McpServerError):
    """An HTTP server answered 401 Unauthorized while connecting: it wants credentials the
    configuration does not give (a header, or an OAuth login). A host shows it as "needs login"
    rather than as a failure.

    Attributes:
        server: The configured server name.
        www_authenticate: The response's ``WWW-Authenticate`` header ('' when absent); an
            OAuth-protected server names its resource metadata there (RFC 9728).
    """

    code = "mcp_authorization_required"

    def __init__(self, *, server: str, url: str, www_authenticate: str = "") -> None:
        super().__init__(
            f"MCP server {server!r} at {url} answered 401 Unauthorized (it needs credentials)",
            server=server,
        )
        self.www_authenticate = www_authenticate
