"""MCP toolsets: tools of MCP servers (stdio or streamable HTTP) as Robota tools."""

from robota.tools.mcp._render import render_result
from robota.tools.mcp.config import (
    HttpServerConfig,
    McpServerConfig,
    StdioServerConfig,
    parse_server_configs,
)
from robota.tools.mcp.errors import McpServerError
from robota.tools.mcp.events import McpServerConnected, McpServerFailed
from robota.tools.mcp.tool import McpTool, namespaced_name
from robota.tools.mcp.toolset import McpServerFailure, McpToolset

__all__ = [
    "HttpServerConfig",
    "McpServerConfig",
    "McpServerConnected",
    "McpServerError",
    "McpServerFailed",
    "McpServerFailure",
    "McpTool",
    "McpToolset",
    "StdioServerConfig",
    "namespaced_name",
    "parse_server_configs",
    "render_result",
]
