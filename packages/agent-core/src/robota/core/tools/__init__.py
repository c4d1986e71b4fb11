"""Tools: the contract (:mod:`robota.core.tools.base`) and tools from typed functions
(:mod:`robota.core.tools.function`)."""

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

__all__ = [
    "ArgumentKind",
    "FunctionTool",
    "PermissionArgument",
    "Residency",
    "RiskClass",
    "Tool",
    "ToolContext",
    "ToolOutput",
    "ToolReturn",
    "tool",
]
