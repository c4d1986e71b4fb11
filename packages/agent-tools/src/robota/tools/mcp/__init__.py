"""MCP toolsets: tools of MCP servers (stdio or streamable HTTP) as Robota tools.

Needs the ``mcp`` extra: ``pip install "robota-agent-tools[mcp]"``. Without it, importing this
package raises :class:`~robota.core.errors.MissingExtraError` (an ``ImportError``) naming that
command; the rest of ``robota.tools`` works without it.
"""

from robota.core.extras import raise_missing_extra

try:
    from robota.tools.mcp._render import render_result
    from robota.tools.mcp.config import (
        HttpServerConfig,
        McpServerConfig,
        StdioServerConfig,
        parse_server_configs,
    )
    from robota.tools.mcp.errors import McpAuthorizationRequired, McpServerError
    from robota.tools.mcp.events import McpServerConnected, McpServerFailed, McpServerNeedsLogin
    from robota.tools.mcp.tool import McpTool, namespaced_name
    from robota.tools.mcp.toolset import McpServerFailure, McpToolset
except ImportError as error:
    raise_missing_extra(error, module="mcp", distribution="robota-agent-tools", extra="mcp")

__all__ = [
    "HttpServerConfig",
    "McpAuthorizationRequired",
    "McpServerConfig",
    "McpServerConnected",
    "McpServerError",
    "McpServerFailed",
    "McpServerFailure",
    "McpServerNeedsLogin",
    "McpTool",
    "McpToolset",
    "StdioServerConfig",
    "namespaced_name",
    "parse_server_configs",
    "render_result",
]
