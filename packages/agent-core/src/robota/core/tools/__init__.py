"""Tools: the contract (:mod:`robota.core.tools.base`), tools from typed functions
(:mod:`robota.core.tools.function`) and toolsets (:mod:`robota.core.tools.toolset`)."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
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

_EXPORTS = {
    "robota.core.tools.base": (
        "ArgumentKind",
        "PermissionArgument",
        "Residency",
        "RiskClass",
        "Tool",
        "ToolContext",
        "ToolOutput",
        "ToolReturn",
    ),
    "robota.core.tools.function": ("FunctionTool", "tool"),
    "robota.core.tools.toolset": ("ToolLike", "Toolset", "resolve_tools"),
}
"""Submodule → the names it gives this package, imported on first use (see
:mod:`robota.core._lazy`)."""

if not TYPE_CHECKING:
    from robota.core._lazy import lazy_exports

    __getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
