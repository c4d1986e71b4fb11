"""Tool aliases and description overrides, applied once per run (seed 004, ``toolAliases`` and
``toolDescriptions``).

Aliasing is LLM-boundary-only: the alias is the name the model sees and calls; the canonical
name is what the tool is known by everywhere else. :func:`with_overrides` returns
:class:`OverriddenTool` wrappers whose ``name`` is the alias and whose ``canonical_name`` is
the wrapped tool's canonical name. **Permission rules must match the canonical name**:
permission evaluation should read :func:`canonical_name_of` (``tool.canonical_name`` when
present, else ``tool.name``), so a rule ``shell(git *)`` still applies when the model calls
``bash``. The tool body receives a context whose ``tool_name`` is the canonical name.

Keys of both maps are canonical names; keys matching no tool are ignored (an MCP server may be
offline for the run). A description override is a string (replaces the text) or a callable
receiving the current text and returning the new one.

Example:
    >>> from robota.tools.builtin.todo import TodoWriteTool
    >>> [tool] = with_overrides(
    ...     [TodoWriteTool()],
    ...     aliases={"todo_write": "TodoWrite"},
    ...     descriptions={"todo_write": lambda cur: cur + " Keep it short."},
    ... )
    >>> tool.name, tool.canonical_name, tool.description.endswith("Keep it short.")
    ('TodoWrite', 'todo_write', True)
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from robota.core.errors import ConfigurationError
from robota.core.tools.base import Tool, ToolContext, ToolOutput

__all__ = ["DescriptionOverride", "OverriddenTool", "canonical_name_of", "with_overrides"]

DescriptionOverride = str | Callable[[str], str]
"""A replacement description, or a function from the current description to the new one."""

_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def canonical_name_of(tool: Tool) -> str:
    """The tool's canonical name (:attr:`Tool.canonical_name`; the alias target for an
    :class:`OverriddenTool`). Permission rules, journals and hooks key on this."""
    return tool.canonical_name


class OverriddenTool(Tool):
    """A tool seen by the model under another name and/or description.

    Every attribute (parameters, risk, permission argument, timeout, residency ...) is the
    wrapped tool's; only ``name`` and ``description`` differ. Calls reach the wrapped tool.

    Args:
        inner: The wrapped tool.
        name: The model-facing name (the alias, or the inner name).
        description: The model-facing description.

    Attributes:
        canonical_name: The canonical name of the wrapped tool (permission rules match it).
        inner: The wrapped tool.
    """

    def __init__(self, inner: Tool, *, name: str, description: str) -> None:
        self.inner = inner
        self._canonical = canonical_name_of(inner)
        self.name = name
        self.description = description
        self.parameters = inner.parameters
        self.risk = inner.risk
        self.permission_argument = inner.permission_argument
        self.sequential = inner.sequential
        self.timeout = inner.timeout
        self.max_retries = inner.max_retries
        self.residency = inner.residency
        self.idempotent = inner.idempotent
        self.strict = inner.strict

    @property
    def canonical_name(self) -> str:
        """The canonical name of the wrapped tool (permission rules match it)."""
        return self._canonical

    def __repr__(self) -> str:
        return f"OverriddenTool(name={self.name!r}, canonical_name={self.canonical_name!r})"

    async def call(self, arguments: dict[str, Any], ctx: ToolContext[Any]) -> ToolOutput:
        """Call the wrapped tool with a context naming the canonical tool."""
        return await self.inner.call(
            arguments, dataclasses.replace(ctx, tool_name=self.canonical_name)
        )


def with_overrides(
    tools: Iterable[Tool],
    *,
    aliases: Mapping[str, str] | None = None,
    descriptions: Mapping[str, DescriptionOverride] | None = None,
) -> list[Tool]:
    """Apply aliases and description overrides to ``tools``, in order.

    Args:
        tools: The tools of the run.
        aliases: Canonical name to model-facing name.
        descriptions: Canonical name to a replacement string or a ``current -> new`` function.

    Returns:
        The tools in the same order; each one with an override becomes an
        :class:`OverriddenTool`, the others are returned as they are.

    Raises:
        ConfigurationError: An alias is not a valid tool name (``^[a-zA-Z0-9_-]{1,64}$``), or
            two tools would share a model-facing name.
    """
    aliases = aliases or {}
    descriptions = descriptions or {}
    result: list[Tool] = []
    for tool in tools:
        canonical = canonical_name_of(tool)
        alias = aliases.get(canonical)
        override = descriptions.get(canonical)
        if alias is None and override is None:
            result.append(tool)
            continue
        if alias is not None and not _NAME.match(alias):
            raise ConfigurationError(
                f"alias {alias!r} for {canonical!r} must match {_NAME.pattern}"
            )
        description = tool.description
        if override is not None:
            description = override if isinstance(override, str) else override(description)
        result.append(
            OverriddenTool(
                tool, name=alias if alias is not None else tool.name, description=description
            )
        )
    seen: dict[str, str] = {}
    for tool in result:
        other = seen.get(tool.name)
        if other is not None:
            raise ConfigurationError(
                f"tools {other!r} and {canonical_name_of(tool)!r} would both be called {tool.name!r}"
            )
        seen[tool.name] = canonical_name_of(tool)
    return result
