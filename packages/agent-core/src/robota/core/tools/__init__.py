"""Tools: the contract (:mod:`robota.core.tools.base`), tools from typed functions
(:mod:`robota.core.tools.function`) and toolsets (:mod:`robota.core.tools.toolset`)."""

from robota.core.tools.base import (
    ArgumentKind,
    PermissionArgument,
    Residency,
    RiskClass,
    Tool,
    ToolContext,
    ToolOutput,
    ToolReturn,
)
from robota.core.tools.function import FunctionTool, tool
from robota.core.tools.toolset import ToolLike, Toolset, resolve_tools

__all__ = [
    "ArgumentKind",
    "FunctionTool",
    "PermissionArgument",
    "Residency",
    "RiskClass",
    "Tool",
    "ToolContext",
    "ToolLike",
    "ToolOutput",
    "ToolReturn",
    "Toolset",
    "resolve_tools",
    "tool",
]
