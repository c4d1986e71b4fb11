"""Toolsets and what ``Agent(tools=...)`` accepts.

A :class:`Toolset` is anything with a ``tools`` attribute holding :class:`~robota.core.tools.base.Tool`
objects (``robota.tools.BuiltinToolset`` and ``robota.tools.mcp.McpToolset`` are toolsets). The
agent's ``tools=`` takes :data:`ToolLike` items: tools, plain functions (sync or async, wrapped
as with :func:`~robota.core.tools.function.tool`), toolsets, and iterables of tools;
:func:`resolve_tools` flattens them in order.

Example:
    >>> from robota.core.tools.function import tool
    >>> def shout(text: str) -> str:
    ...     '''Upper-case a text.'''
    ...     return text.upper()
    >>> [t.name for t in resolve_tools([shout])]
    ['shout']
    >>> resolve_tools([42])
    Traceback (most recent call last):
    ...
    TypeError: tools= item 0 is int (42); expected a Tool, a function, a toolset (an object \
with a `tools` attribute) or an iterable of tools
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Sequence
from types import CodeType
from typing import Protocol, runtime_checkable

from robota.core.tools.base import Tool

__all__ = ["ToolFunction", "ToolLike", "Toolset", "resolve_tools"]


@runtime_checkable
class Toolset(Protocol):
    """A group of tools handed to an agent as one item of ``tools=``.

    Attributes:
        tools: The group's tools, in the order the agent registers them.
    """

    @property
    def tools(self) -> Sequence[Tool]:
        """The group's tools."""
        ...


class ToolFunction(Protocol):
    """A plain Python function or bound method (what has ``__code__``): what ``tools=`` wraps
    as with ``@tool``. A class, a ``functools.partial`` or another callable object is none: a
    type checker reports it, and at run time ``tools=`` raises ``TypeError`` (so it does for a
    builtin such as ``len``, which type checkers see as a function). Wrap it in a ``def`` or
    make it a :class:`~robota.core.tools.base.Tool`. (No ``__call__`` here on purpose: a
    checker would then match a class through its constructor.)"""

    @property
    def __code__(self) -> CodeType:
        """The function's code object."""
        ...


ToolLike = Tool | Toolset | ToolFunction | Iterable[Tool]
"""One item of ``Agent(tools=...)``: a :class:`Tool`, a plain function or bound method (sync or
async; wrapped as with ``@tool``; see :class:`ToolFunction`), a :class:`Toolset`, or an
iterable of tools."""

_ACCEPTED = (
    "expected a Tool, a function, a toolset (an object with a `tools` attribute) or an "
    "iterable of tools"
)


def _describe(item: object) -> str:
    if isinstance(item, type):
        return f"the class {item.__qualname__} (pass an instance or a function)"
    text = repr(item)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(item).__name__} ({text})"


def _bound(tool: Tool) -> Tool:
    from robota.core.tools.function import FunctionTool, unbound_method_message

    if isinstance(tool, FunctionTool) and tool.method_of is not None:
        raise TypeError(unbound_method_message(tool))
    return tool


def resolve_tools(items: Iterable[ToolLike]) -> list[Tool]:
    """Flatten ``items`` into tools, in order.

    Args:
        items: :data:`ToolLike` items.

    Returns:
        The tools (functions wrapped as :class:`~robota.core.tools.function.FunctionTool`).

    Raises:
        TypeError: ``items`` is a string or not iterable (e.g. None); an item (or an element
            of an iterable item) is none of the accepted shapes (the message names its
            position, its type — a class by its qualified name — and what is accepted; a
            string or a class is never taken as an iterable or a function); a method tool read
            through its class (see :class:`~robota.core.tools.function.FunctionTool`).
        ConfigurationError, SchemaConversionError: a function cannot be wrapped (see
            :class:`~robota.core.tools.function.FunctionTool`).
    """
    from robota.core.tools.function import FunctionTool

    if isinstance(items, str | bytes):
        raise TypeError(
            f"tools= is the string {items!r}; it takes an iterable of tools, functions or "
            "toolsets (e.g. tools=[search]), not a tool's name"
        )
    if not isinstance(items, Iterable):
        raise TypeError(
            f"tools= takes an iterable of tools, functions or toolsets (e.g. tools=[search]), "
            f"got {_describe(items)}"
        )
    resolved: list[Tool] = []
    for index, item in enumerate(items):
        if isinstance(item, Tool):
            resolved.append(_bound(item))
        elif isinstance(item, str | bytes | type):
            raise TypeError(f"tools= item {index} is {_describe(item)}; {_ACCEPTED}")
        elif inspect.isfunction(item) or inspect.ismethod(item):
            resolved.append(_bound(FunctionTool(item)))
        elif isinstance(item, Toolset):
            resolved.extend(_members(item.tools, f"{index} ({type(item).__name__}.tools)"))
        elif isinstance(item, Iterable):
            members: Iterable[object] = item
            resolved.extend(_members(members, str(index)))
        else:
            raise TypeError(f"tools= item {index} is {_describe(item)}; {_ACCEPTED}")
    return resolved


def _members(members: Iterable[object], where: str) -> list[Tool]:
    tools: list[Tool] = []
    for position, member in enumerate(members):
        if not isinstance(member, Tool):
            raise TypeError(
                f"tools= item {where}, element {position} is {_describe(member)}; "
                "a toolset or iterable item must hold Tool objects"
            )
        tools.append(_bound(member))
    return tools
