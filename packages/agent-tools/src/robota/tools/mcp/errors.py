"""Errors of MCP toolsets (seed 000, "Error Taxonomy")."""

from __future__ import annotations

from robota.core.errors import ErrorCategory, RobotaError

__all__ = [
    "McpAuthorizationRequired",
    "McpPromptArgumentsError",
    "McpPromptNotFound",
    "McpResourceNotFound",
    "McpServerError",
    "McpUnknownServer",
]


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


class McpUnknownServer(McpServerError):
    """No configured server has this name (a resource or prompt was asked of it).

    Attributes:
        server: The name asked for.
    """

    code = "mcp_unknown_server"
    default_category = ErrorCategory.USER
    default_recoverable = False

    def __init__(self, *, server: str) -> None:
        super().__init__(f"no MCP server is named {server!r}", server=server)


class McpResourceNotFound(McpServerError):
    """The server has no resource at this URI: it does not offer resources, or it answered
    ``resources/read`` with "resource not found" (-32002, MCP spec 2025-11-25 "Resources",
    "Error Handling") or "invalid params" (-32602, what the Python SDK's server sends).

    Attributes:
        server: The configured server name.
        uri: The URI asked for.
    """

    code = "mcp_resource_not_found"
    default_category = ErrorCategory.USER
    default_recoverable = False

    def __init__(self, *, server: str, uri: str, reason: str = "") -> None:
        why = f": {reason}" if reason else ""
        super().__init__(f"MCP server {server!r} has no resource {uri!r}{why}", server=server)
        self.uri = uri


class McpPromptNotFound(McpServerError):
    """The server lists no prompt of this name (or offers no prompts at all).

    Attributes:
        server: The configured server name.
        prompt: The prompt name asked for.
    """

    code = "mcp_prompt_not_found"
    default_category = ErrorCategory.USER
    default_recoverable = False

    def __init__(self, *, server: str, prompt: str) -> None:
        super().__init__(f"MCP server {server!r} has no prompt {prompt!r}", server=server)
        self.prompt = prompt


class McpPromptArgumentsError(McpServerError):
    """The arguments given to a prompt do not fit its declared arguments: a required one is
    missing, or one it does not declare was given (checked before ``prompts/get`` is sent).

    Attributes:
        server: The configured server name.
        prompt: The prompt name.
        missing: Required arguments not given, in declaration order.
        unknown: Given arguments the prompt does not declare, sorted.
    """

    code = "mcp_prompt_arguments"
    default_category = ErrorCategory.USER
    default_recoverable = False

    def __init__(
        self,
        *,
        server: str,
        prompt: str,
        missing: tuple[str, ...] = (),
        unknown: tuple[str, ...] = (),
    ) -> None:
        problems: list[str] = []
        if missing:
            problems.append(f"missing {', '.join(missing)}")
        if unknown:
            problems.append(f"unknown {', '.join(unknown)}")
        super().__init__(
            f"prompt {prompt!r} of MCP server {server!r}: {'; '.join(problems)}", server=server
        )
        self.prompt = prompt
        self.missing = missing
        self.unknown = unknown
