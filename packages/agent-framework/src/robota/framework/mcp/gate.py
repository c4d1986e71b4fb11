"""The MCP tool gate seam (seed 004, ``mcp:tool:gate``): a host's last word on each MCP tool
call, inside the MCP tool, after the loop's own gates (permissions, hooks, host gates) allowed it.

Use it for MCP-specific refusals (per-server routing, transport-aware rules); budgets and
de-duplication belong to the loop's :class:`~robota.core.gate.ToolGate`. Configured on
:class:`~robota.framework.interactive.SessionConfig` as ``mcp_tool_gate``, next to the
``mcp:tools:filter`` seam (:data:`~robota.framework.mcp.McpToolFilter`).

Example:
    >>> from robota.core.gate import Allow, Deny
    >>> def no_deletes(server: str, tool: str, arguments: Mapping[str, Any]) -> Allow | Deny:
    ...     if tool.startswith("delete"):
    ...         return Deny(message=f"{server}: deleting is not allowed here")
    ...     return Allow()
    >>> no_deletes("github", "delete_repo", {}).message
    'github: deleting is not allowed here'
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from robota.core.gate import Allow, Deny

__all__ = ["McpToolGate"]

McpToolGate = Callable[[str, str, Mapping[str, Any]], Allow | Deny | Awaitable[Allow | Deny]]
"""Called before each MCP ``tools/call`` with the server name, the server's own tool name (not
the namespaced ``mcp__<server>__<tool>``) and the arguments (a copy); returns, or resolves to,
:class:`~robota.core.gate.Allow` (with ``arguments`` set, those are sent instead) or
:class:`~robota.core.gate.Deny` (the model gets ``message`` as an error result with
``metadata["mcp_error"] == "denied"``, and the server is not called). An exception raised by
the gate, or a value that is not a verdict, denies the call (fail closed). Same shape as
:data:`robota.tools.mcp.McpToolGate`."""
