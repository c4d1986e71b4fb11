"""An MCP server tool as a Robota :class:`~robota.core.tools.base.Tool` (seed 002, "MCP
toolsets"; seed 004, ``mcp_<server>_<tool>`` namespacing).

The model-facing name is ``mcp__<server>__<tool>`` (characters outside ``[a-zA-Z0-9_-]`` become
``_``; names over 64 characters are cut and suffixed with a hash). The server's ``inputSchema``
is passed through unchanged as :attr:`parameters`. Risk is None unless the server's
configuration declares it, so permission evaluation asks; permission rules match the namespaced
name.
"""

from __future__ import annotations

import copy
import hashlib
import inspect
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult
from mcp.types import Tool as McpToolInfo
from mcp.types.jsonrpc import CONNECTION_CLOSED
from robota.core.gate import Allow, Deny
from robota.core.tools.base import RiskClass, Tool, ToolContext, ToolOutput, ToolReturn
from robota.tools.mcp._render import render_result

__all__ = ["McpTool", "McpToolGate", "namespaced_name"]

_log = logging.getLogger(__name__)

_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")
_MAX_NAME = 64

CallServer = Callable[[str, str, dict[str, Any]], Awaitable[CallToolResult]]
"""``(server, tool, arguments) -> CallToolResult``: how an :class:`McpTool` reaches its server."""

McpToolGate = Callable[[str, str, Mapping[str, Any]], Allow | Deny | Awaitable[Allow | Deny]]
"""The MCP tool gate (seed 004, ``mcp:tool:gate``): called before each ``tools/call`` with the
server name, the server's own tool name and the arguments; returns (or resolves to)
:class:`~robota.core.gate.Allow` (``arguments`` set: sent instead) or
:class:`~robota.core.gate.Deny` (the model gets ``message`` as an error result and the server
is not called). It runs inside the tool, after the loop's own gates (permissions, hooks). An
exception raised by the gate, or any other return value, denies (fail closed)."""


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
        gate: The MCP tool gate (:data:`McpToolGate`), or None.

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
        gate: McpToolGate | None = None,
    ) -> None:
        self.server = server
        self.server_tool = info.name
        self.name = namespaced_name(server, info.name)
        self.description = info.description or info.title or ""
        self.parameters = info.input_schema
        self.risk = risk
        self._call_server = call_server
        self._timeout = timeout
        self._gate = gate

    def __repr__(self) -> str:
        return f"McpTool(name={self.name!r}, risk={self.risk!r})"

    async def call(self, arguments: dict[str, Any], ctx: ToolContext[Any]) -> ToolOutput:
        """Call the server tool and render its result.

        Returns:
            The rendered result (``is_error`` when the server set ``isError``); an error
            result naming the cause when the call timed out, the server went away, or the
            server answered with a protocol error, or the MCP tool gate denied the call (the
            server is then not called). ``metadata["mcp_error"]`` is then ``"timeout"``,
            ``"connection_closed"``, ``"protocol"``, ``"not_connected"`` or ``"denied"``.
        """
        if self._gate is not None:
            verdict = await self._ask_gate(self._gate, arguments)
            if isinstance(verdict, Deny):
                return _error(verdict.message, kind="denied")
            if verdict.arguments is not None:
                arguments = dict(verdict.arguments)
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

    async def _ask_gate(self, gate: McpToolGate, arguments: dict[str, Any]) -> Allow | Deny:
        """The gate's verdict; an exception or a value that is not a verdict denies. The gate
        gets a deep copy of ``arguments``: changing it changes nothing sent."""
        try:
            verdict: object = gate(self.server, self.server_tool, copy.deepcopy(arguments))
            if inspect.isawaitable(verdict):
                verdict = await verdict
        except Exception as error:  # fail closed
            _log.warning("MCP tool gate failed for %s: %s", self.name, type(error).__name__)
            return Deny(
                message=f"MCP tool {self.name} was blocked: the MCP tool gate failed "
                f"({type(error).__name__})"
            )
        if isinstance(verdict, Allow | Deny):
            return verdict
        return Deny(message=f"MCP tool {self.name} was blocked: the MCP tool gate gave no verdict")


def _error(text: str, *, kind: str) -> ToolReturn:
    return ToolReturn(
        content=ToolReturn.text(text).content, is_error=True, metadata={"mcp_error": kind}
    )
