"""The child tool filter (seed 003, "Subagent tool filtering has a fixed order, and subagents
cannot spawn subagents"): unwrap any tool-call-handoff wrapper, then apply the definition's
denylist, then its allowlist, and finally always remove agent-spawning tools."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from robota.core.tools.base import Tool
from robota.framework.subagents.definition import AgentDefinition

__all__ = ["HandoffWrapper", "filter_child_tools", "spawns_agents", "unwrap_handoff"]


@runtime_checkable
class HandoffWrapper(Protocol):
    """A tool that wraps another to hand long calls to a background runner. A child never
    inherits the wrapper; it gets :attr:`handoff_inner`."""

    @property
    def handoff_inner(self) -> Tool:
        """The wrapped tool."""
        ...


def unwrap_handoff(tool: Tool) -> Tool:
    """``tool`` with every handoff wrapper removed."""
    current: object = tool
    while isinstance(current, HandoffWrapper):
        current = current.handoff_inner
    assert isinstance(current, Tool)
    return current


def spawns_agents(tool: Tool) -> bool:
    """True when ``tool`` declares ``spawns_agents = True`` (the spawn tool does)."""
    return getattr(tool, "spawns_agents", False) is True


def filter_child_tools(tools: Sequence[Tool], definition: AgentDefinition) -> list[Tool]:
    """The tools a child defined by ``definition`` gets from its parent's ``tools``.

    Order (fixed): unwrap handoff → drop ``disallowed_tools`` → keep only ``tools`` (when the
    definition has an allowlist) → drop agent-spawning tools, whatever the lists say.

    Example:
        >>> from robota.core.tools.function import FunctionTool
        >>> def read_file(path: str) -> str: return ""
        >>> def shell(command: str) -> str: return ""
        >>> d = AgentDefinition(name="r", description="d", prompt="", disallowed_tools=("shell",))
        >>> [t.name for t in filter_child_tools([FunctionTool(read_file), FunctionTool(shell)], d)]
        ['read_file']
    """
    unwrapped = [unwrap_handoff(tool) for tool in tools]
    denied = set(definition.disallowed_tools)
    kept = [tool for tool in unwrapped if tool.name not in denied]
    if definition.tools is not None:
        allowed = set(definition.tools)
        kept = [tool for tool in kept if tool.name in allowed]
    return [tool for tool in kept if not spawns_agents(tool)]
