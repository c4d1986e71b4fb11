"""Tool composition (seed 003, "Tool composition is asymmetric on purpose").

``default_tools`` replaces the default tier outright; ``additional_tools`` only appends and, on a
name clash with an already-assembled tool, the earlier entry wins and the contributed one is
dropped (reported), so a contribution can never displace a guarded built-in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from robota.core.tools.base import Tool

__all__ = ["ComposedTools", "compose_tools"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ComposedTools:
    """The assembled tool set.

    Attributes:
        tools: Tools in order, unique by name.
        dropped: Names of contributed tools dropped on a clash.
    """

    tools: tuple[Tool, ...]
    dropped: tuple[str, ...]


def compose_tools(default_tier: Sequence[Tool], additional: Sequence[Tool]) -> ComposedTools:
    """Assemble the default tier then the additional tools; first name wins."""
    tools: list[Tool] = []
    names: set[str] = set()
    dropped: list[str] = []
    for tool in (*default_tier, *additional):
        if tool.name in names:
            dropped.append(tool.name)
            continue
        names.add(tool.name)
        tools.append(tool)
    return ComposedTools(tools=tuple(tools), dropped=tuple(dropped))
