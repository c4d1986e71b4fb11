"""The type parameters of :class:`~robota.core.agent.agent.Agent` and the shapes its options take
(output types, hosted tools).

``Agent[DepsT, OutputT]``: ``DepsT`` is the type of the dependencies tool bodies receive
(``ToolContext[DepsT].deps``; default ``None``), ``OutputT`` the type of ``RunResult.output``
(default ``str``: a run without an output type has its final text as output).

Typing limits (a strict checker lets these pass; workarounds given):

- Tool deps are not tied to ``DepsT``: ``tools=`` items are ``Tool``/functions/toolsets, not
  typed by the agent's deps, so ``Agent(p, tools=[t])`` where ``t`` takes
  ``ToolContext[Deps]`` type-checks with another ``deps=`` or none (``ctx.deps`` is then not a
  ``Deps`` at run time). Keep one deps type per agent and pass it to the constructor.
- An output function's ``OutputContext[D]`` is not tied to ``DepsT`` either:
  :data:`OutputTypeSpec`'s callable arm is ``Callable[..., T]`` (any parameters).
- ``output_type=Literal["a", "b"]`` is a special form, not a ``type[T]``: the output is typed
  as the bare ``Literal``. Annotate the agent and pass the form through ``cast``:
  ``agent: Agent[None, Literal["a", "b"]] = Agent(p, output_type=cast(Any, Literal["a",
  "b"]))`` (``Agent[None, Literal[...]](...)`` is refused by the checker), or use a
  ``StrEnum``. The same holds for a union held in an alias (see :data:`OutputTypeSpec`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Literal, TypeAlias

from robota.core.capabilities import HostedTool
from robota.core.errors import ConfigurationError
from typing_extensions import TypeVar

__all__ = [
    "DepsT",
    "HostedToolLike",
    "OutputT",
    "OutputTypeSpec",
    "RunOutputT",
    "hosted_tool_set",
]

DepsT = TypeVar("DepsT", default=None)
"""The agent's dependencies type (``ToolContext[DepsT].deps``)."""

OutputT = TypeVar("OutputT", default=str)
"""The agent's output type (``RunResult[OutputT].output``)."""

RunOutputT = TypeVar("RunOutputT")
"""One run's output type when the run overrides the agent's (``output_type=`` on the run)."""

T = TypeVar("T")

OutputTypeSpec: TypeAlias = type[T] | Callable[..., Awaitable[T]] | Callable[..., T]
"""What ``output_type=`` takes for a typed output ``T``:

- a type pydantic can validate: a pydantic model, a dataclass, a ``TypedDict``, a primitive
  (``int``, ``str``…), ``list[A]``, a union written in place (``A | B``: the agent is then
  ``Agent[..., A] | Agent[..., B]`` and ``result.output`` is ``A | B``);
- an output function, sync or async: the model's output is passed to it and the run's output is
  what it returns (``T`` is its return type);
- ``StructuredDict(...)`` (a ``dict[str, Any]`` output with the given JSON Schema).

A raw JSON Schema ``dict`` still works at run time; it types the output as ``Any`` (use
``StructuredDict`` to name it). A union held in a type alias (``U = A | B``) is not a ``type[T]``
to a type checker: cast it, ``Agent(p, output_type=cast("type[A | B]", U))`` (an
``Agent[None, A | B]``), or write the union in place.
"""

HostedToolLike: TypeAlias = HostedTool | Literal["web_search", "web_fetch", "code_execution"]
"""A hosted tool: a :class:`~robota.core.capabilities.HostedTool` or its value
(``"web_search"``, ``"web_fetch"``, ``"code_execution"``; a type checker reports a misspelled
one, and at run time it raises ``ConfigurationError``)."""


def hosted_tool_set(tools: Iterable[HostedToolLike]) -> frozenset[HostedTool]:
    """Coerce ``tools`` to :class:`HostedTool` members.

    Raises:
        ConfigurationError: a string that names no hosted tool (the message lists the known
            ones), or an item that is neither a ``HostedTool`` nor a string.

    Example:
        >>> sorted(hosted_tool_set(["web_search", HostedTool.CODE_EXECUTION]))
        [<HostedTool.CODE_EXECUTION: 'code_execution'>, <HostedTool.WEB_SEARCH: 'web_search'>]
    """
    items: Iterable[object] = (tools,) if isinstance(tools, str) else tools
    known = ", ".join(t.value for t in HostedTool)
    result: set[HostedTool] = set()
    for item in items:
        if isinstance(item, HostedTool):
            result.add(item)
            continue
        if not isinstance(item, str):
            raise ConfigurationError(
                f"hosted_tools items must be HostedTool or str, got {type(item).__name__} "
                f"({item!r}); known: {known}"
            )
        try:
            result.add(HostedTool(item))
        except ValueError:
            raise ConfigurationError(f"unknown hosted tool {item!r}; known: {known}") from None
    return frozenset(result)
