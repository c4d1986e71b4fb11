"""MCP servers from settings in a session (issue #18): approvals for a project's servers,
``${VAR}`` references, statuses and the per-session hub.

The settings shape is :mod:`robota.framework.settings.mcp`; the connections are
:mod:`robota.tools.mcp` (the ``robota-agent-tools[mcp]`` extra, imported only when a server is
started).
"""

from robota.framework.mcp.approvals import (
    McpApprovalError,
    McpApprovalStore,
    McpDecision,
    server_digest,
)
from robota.framework.mcp.context import (
    McpPrompt,
    McpPromptArgument,
    McpResource,
    McpServerUnavailable,
)
from robota.framework.mcp.gate import McpToolGate
from robota.framework.mcp.hub import McpHub
from robota.framework.mcp.status import (
    McpApprovalRequest,
    McpApprover,
    McpServerSkipped,
    McpServerStatus,
    McpState,
    McpToolFilter,
    approval_request,
    describe_target,
)
from robota.framework.mcp.variables import (
    McpVariableError,
    expand,
    expand_server,
    referenced_variables,
)

__all__ = [
    "McpApprovalError",
    "McpApprovalRequest",
    "McpApprovalStore",
    "McpApprover",
    "McpDecision",
    "McpHub",
    "McpPrompt",
    "McpPromptArgument",
    "McpResource",
    "McpServerSkipped",
    "McpServerStatus",
    "McpServerUnavailable",
    "McpState",
    "McpToolFilter",
    "McpToolGate",
    "McpVariableError",
    "approval_request",
    "describe_target",
    "expand",
    "expand_server",
    "referenced_variables",
    "server_digest",
]
