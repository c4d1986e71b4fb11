"""MCP toolsets: tools of MCP servers (stdio or streamable HTTP) as Robota tools.

Needs the ``mcp`` extra: ``pip install "robota-agent-tools[mcp]"``. Without it, importing this
package raises :class:`~robota.core.errors.MissingExtraError` (an ``ImportError``) naming that
command; the rest of ``robota.tools`` works without it.
"""

from robota.core.extras import raise_missing_extra

try:
    from robota.tools.mcp._context import (
        ATTACHABLE_IMAGE_TYPES,
        MAX_MEDIA_BYTES,
        render_prompt,
        render_resource,
    )
    from robota.tools.mcp._render import render_result
    from robota.tools.mcp.config import (
        HttpServerConfig,
        McpServerConfig,
        StdioServerConfig,
        parse_server_configs,
    )
    from robota.tools.mcp.errors import (
        McpAuthorizationRequired,
        McpPromptArgumentsError,
        McpPromptNotFound,
        McpResourceNotFound,
        McpServerError,
        McpUnknownServer,
    )
    from robota.tools.mcp.events import McpServerConnected, McpServerFailed, McpServerNeedsLogin
    from robota.tools.mcp.tool import McpTool, McpToolGate, namespaced_name
    from robota.tools.mcp.toolset import McpServerFailure, McpToolset
except ImportError as error:
    raise_missing_extra(error, module="mcp", distribution="robota-agent-tools", extra="mcp")

__all__ = [
    "ATTACHABLE_IMAGE_TYPES",
    "MAX_MEDIA_BYTES",
    "HttpServerConfig",
    "McpAuthorizationRequired",
    "McpPromptArgumentsError",
    "McpPromptNotFound",
    "McpResourceNotFound",
    "McpServerConfig",
    "McpServerConnected",
    "McpServerError",
    "McpServerFailed",
    "McpServerFailure",
    "McpServerNeedsLogin",
    "McpTool",
    "McpToolGate",
    "McpToolset",
    "McpUnknownServer",
    "StdioServerConfig",
    "namespaced_name",
    "parse_server_configs",
    "render_prompt",
    "render_resource",
    "render_result",
]
