"""An MCP server tool as a Robota :class:`~robota.core.tools.base.Tool` (seed 002, "MCP
toolsets"; seed 004, ``mcp_<server>_<tool>`` namespacing).

The model-facing name is ``mcp__<server>__<tool>`` (characters outside ``[a-zA-Z0-9_-]`` become
``_``; names over 64 characters are cut and suffixed with a hash). The server's ``inputSchema``
is passed through unchanged as :attr:`parameters`. Risk is None unless the server's
configuration declares it, so permission evaluation asks; permission rules match the namespaced
name.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Awaitable, Callable
from typing import Any

from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult
from mcp.types import Tool as McpToolInfo
from mcp.types.jsonrpc import CONNECTION_CLOSED
from robota.core.tools.base import RiskClass, Tool, ToolContext, ToolOutput, ToolReturn
from robota.tools.mcp._render import render_result

__all__ = ["McpTool", "namespaced_name"]

_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")
_MAX_NAME = 64

CallServer = Callable[[str, str, dict[str, Any]], Awaitable[CallToolResult]]
"""``(server, tool, arguments) -> CallToolResult``: how an :class:`McpTool` reaches its server."""


def namespaced_name(server: str, tool: str) -> str:
    """The model-facing name of server tool ``tool``.

    Example:
        >>> namespaced_name("github", "create.issue")
        'mcp__github__create_issue'
        >>> len(namespaced_name("s", "x" * 100))
        64
    """
    name = _UNSAFE.sub("_", f"mcp__{server}__{tool}")
    if len(name) <= _MAX_NAME:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[: _MAX_NAME - 9]}_{digest}"


class McpTool(Tool):
    """One tool of one MCP server.

    Args:
        server: The configured server name.
        info: The tool as the server listed it.
        call_server: Sends ``tools/call`` (connecting lazily if needed); raises
            ``TimeoutError``, ``MCPError`` or ``RuntimeError`` on failure.
        risk: Declared risk, or None (undeclared: permission evaluation asks).
        timeout: Seconds, reported in the timeout error text.

    Attributes:
        server: The configured server name.
        server_tool: The tool's own name on the server.
    """

    def __init__(
        self,
        *,
        server: str,
        info: McpToolInfo,
        call_server: CallServer,
        risk: RiskClass | None,
        timeout: float,
    ) -> None:
        self.server = server
        self.server_tool = info.name
        self.name = namespaced_name(server, info.name)
        self.description = info.description or info.title or ""
        self.parameters = info.input_schema
        self.risk = risk
        self._call_server = call_server
        self._timeout = timeout

    def __repr__(self) -> str:
        return f"McpTool(name={self.name!r}, risk={self.risk!r})"

    async def call(self, arguments: dict[str, Any], ctx: ToolContext[Any]) -> ToolOutput:
        """Call the server tool and render its result.

        Returns:
            The rendered result (``is_error`` when the server set ``isError``); an error
            result naming the cause when the call timed out, the server went away, or the
            server answered with a protocol error. ``metadata["mcp_error"]`` is then
            ``"timeout"``, ``"connection_closed"``, ``"protocol"`` or ``"not_connected"``.
        """
        try:
            result = await self._call_server(self.server, self.server_tool, arguments)
        except TimeoutError:
            return _error(
                f"MCP tool {self.name} timed out after {self._timeout:g} s", kind="timeout"
            )
        except MCPError as error:
            if error.code == CONNECTION_CLOSED:
                return _error(
                    f"MCP server {self.server!r} closed the connection during {self.name}",
                    kind="connection_closed",
                )
            return _error(f"MCP server {self.server!r} error: {error.message}", kind="protocol")
        except RuntimeError as error:
            return _error(str(error), kind="not_connected")
        return render_result(result)


def _error(text: str, *, kind: str) -> ToolReturn:
    return ToolReturn(
        content=ToolReturn.text(text).content, is_error=True, metadata={"mcp_error": kind}
    )
