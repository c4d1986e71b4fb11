"""Which tool schemas a request carries: resident, deferred and loaded tools (seed 000,
"Tool Residency and Tool Search").

A :class:`ToolCatalog` holds every registered tool. Resident tools are offered on every request;
deferred ones are withheld from the request entirely (not merely hidden from the model) until the
``tool_search`` tool loads them. The agent loop reads :meth:`ToolCatalog.offered` fresh every
round, so a tool loaded in round N is callable in round N+1, and dispatches calls through
:meth:`ToolCatalog.all`, which always holds every tool.

Resolution of a tool's residency, most specific first:

1. The tool's own ``residency`` of ``"resident"`` or ``"deferred"`` always wins.
2. Otherwise (``"auto"``), the catalog's ``defer=True`` defers it and ``defer=False`` keeps it
   resident.
3. With ``defer=None`` (default), deferral of ``"auto"`` tools engages automatically when the
   ``"auto"`` tools number more than ``count_threshold`` (default 40), or when their estimated
   schema tokens (``len(json.dumps(definition)) / 4``) exceed ``share_threshold`` (default 0.1)
   of ``context_window`` tokens (only when the context window is known).

Two invariants are refused with :class:`~robota.core.errors.ConfigurationError` rather than
repaired: at least one registered tool must remain resident (``tool_search`` does not count: it
is the loader, and the seed lists "a search tool is offered" as a separate invariant, so a model
offered nothing but the search tool is the "defers everything" configuration the vendors reject),
and when anything is withheld the ``tool_search`` tool is offered (guaranteed here by
construction, so a registered tool may not take its name).

Example:
    >>> from robota.core.tools import FunctionTool
    >>> def read_file(path: str) -> str:
    ...     '''Read a text file.'''
    ...     return ""
    >>> def create_issue(title: str) -> str:
    ...     '''Open a GitHub issue.'''
    ...     return ""
    >>> catalog = ToolCatalog([FunctionTool(read_file), FunctionTool(create_issue,
    ...     residency="deferred")])
    >>> [t.name for t in catalog.offered()], sorted(catalog.withheld)
    (['read_file', 'tool_search'], ['create_issue'])
    >>> catalog.load(["create_issue"])
    ['create_issue']
    >>> [t.name for t in catalog.offered()]
    ['read_file', 'create_issue']
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Literal

from robota.core.errors import ConfigurationError
from robota.core.residency._search import search_tools
from robota.core.residency.tool_search import TOOL_SEARCH_NAME, ToolSearchTool
from robota.core.tools.base import Tool

__all__ = [
    "DEFAULT_COUNT_THRESHOLD",
    "DEFAULT_SHARE_THRESHOLD",
    "ToolCatalog",
    "estimate_schema_tokens",
]

DEFAULT_COUNT_THRESHOLD = 40
"""Automatic deferral engages above this many ``"auto"`` tools."""

DEFAULT_SHARE_THRESHOLD = 0.1
"""Automatic deferral engages above this share of the context window (estimated tokens)."""

_CHARS_PER_TOKEN = 4


def estimate_schema_tokens(tool: Tool) -> int:
    """Estimated tokens of ``tool``'s definition on the wire: JSON characters / 4 (rounded up).

    The estimate is the common chars-per-token heuristic, not a tokenizer count; it is only used
    to decide whether deferral pays off.
    """
    definition = tool.definition()
    text = json.dumps(
        {
            "name": definition.name,
            "description": definition.description,
            "parameters": definition.parameters,
        },
        default=str,
    )
    return -(-len(text) // _CHARS_PER_TOKEN)


class ToolCatalog:
    """Every registered tool plus the residency state of one agent.

    Args:
        tools: Registered tools (names must be unique; ``"tool_search"`` is reserved when
            anything is deferred).
        defer: ``True``/``False`` forces deferral of ``"auto"`` tools on/off; ``None`` (default)
            decides by the thresholds.
        count_threshold: Automatic deferral engages when more than this many tools are
            ``"auto"``.
        share_threshold: Automatic deferral engages when the ``"auto"`` tools' estimated schema
            tokens exceed this fraction of ``context_window``.
        context_window: The model's context window in tokens (``ModelInfo.context_window``), or
            None when unknown (then only the count threshold applies).

    Raises:
        ConfigurationError: for duplicate names, a registered tool named ``tool_search`` while
            something is deferred, or a configuration under which no registered tool remains
            resident.
    """

    def __init__(
        self,
        tools: Sequence[Tool],
        *,
        defer: bool | None = None,
        count_threshold: int = DEFAULT_COUNT_THRESHOLD,
        share_threshold: float = DEFAULT_SHARE_THRESHOLD,
        context_window: int | None = None,
    ) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            if tool.name in self._tools:
                raise ConfigurationError(f"two tools are named {tool.name!r}")
            self._tools[tool.name] = tool
        self.count_threshold = count_threshold
        self.share_threshold = share_threshold
        self.context_window = context_window
        self.engaged: bool = self._engaged(defer)
        """True when ``"auto"`` tools are deferred (forced or past a threshold)."""
        self._deferred: dict[str, Tool] = {
            name: tool for name, tool in self._tools.items() if self._resolve(tool) == "deferred"
        }
        self._loaded: dict[str, Tool] = {}
        self._search_tool: ToolSearchTool | None = None
        if self._deferred:
            if TOOL_SEARCH_NAME in self._tools:
                raise ConfigurationError(
                    f"the name {TOOL_SEARCH_NAME!r} is reserved for the tool search tool while "
                    "tools are deferred"
                )
            if len(self._deferred) == len(self._tools):
                raise ConfigurationError(
                    "at least one tool must remain resident: this configuration defers all "
                    f"{len(self._tools)} tools; mark one residency='resident' or pass defer=False"
                )
            self._search_tool = ToolSearchTool(self)

    # --- configuration ------------------------------------------------------------------------

    def _engaged(self, defer: bool | None) -> bool:
        if defer is not None:
            return defer
        auto = [t for t in self._tools.values() if t.residency == "auto"]
        if len(auto) > self.count_threshold:
            return True
        if self.context_window is None or not auto:
            return False
        estimated = sum(estimate_schema_tokens(t) for t in auto)
        return estimated > self.share_threshold * self.context_window

    def _resolve(self, tool: Tool) -> Literal["resident", "deferred"]:
        if tool.residency == "resident":
            return "resident"
        if tool.residency == "deferred":
            return "deferred"
        return "deferred" if self.engaged else "resident"

    # --- state --------------------------------------------------------------------------------

    @property
    def search_tool(self) -> ToolSearchTool | None:
        """The ``tool_search`` tool, or None when nothing is deferred."""
        return self._search_tool

    @property
    def loaded(self) -> tuple[str, ...]:
        """Names of deferred tools loaded so far, in load order."""
        return tuple(self._loaded)

    @property
    def withheld(self) -> frozenset[str]:
        """Names of deferred tools not loaded yet (their schemas are not sent)."""
        return frozenset(n for n in self._deferred if n not in self._loaded)

    @property
    def deferred(self) -> frozenset[str]:
        """Names of every tool that resolved deferred, loaded or not."""
        return frozenset(self._deferred)

    def residency_of(self, name: str) -> Literal["resident", "deferred", "loaded"]:
        """How the tool ``name`` stands now.

        Raises:
            KeyError: when no tool of that name is registered.
        """
        if name == TOOL_SEARCH_NAME and self._search_tool is not None:
            return "resident"
        tool = self._tools[name]
        if name in self._loaded:
            return "loaded"
        return self._resolve(tool)

    # --- the loop's API -----------------------------------------------------------------------

    def offered(self, loaded: Iterable[str] | None = None) -> list[Tool]:
        """The tools this round's request carries, read fresh each round.

        Args:
            loaded: Compute the offer as if exactly these deferred tools were loaded (in this
                order; other names are ignored) without changing the catalog — what a journal
                continuation compares before it restores residency. None: the current loads.

        Returns:
            Resident tools (registration order), then loaded tools (load order), then the
            ``tool_search`` tool when anything is still withheld.
        """
        if loaded is None:
            loads = list(self._loaded.values())
        else:
            names = list(dict.fromkeys(n for n in loaded if n in self._deferred))
            loads = [self._deferred[n] for n in names]
        offered = [t for n, t in self._tools.items() if n not in self._deferred]
        offered.extend(loads)
        if self._search_tool is not None and len(loads) < len(self._deferred):
            offered.append(self._search_tool)
        return offered

    def all(self) -> dict[str, Tool]:
        """Every tool by name, for dispatch and direct invocation: registered tools (withheld
        ones included) plus ``tool_search`` when anything is deferred."""
        tools = dict(self._tools)
        if self._search_tool is not None:
            tools[TOOL_SEARCH_NAME] = self._search_tool
        return tools

    def load(self, names: Iterable[str]) -> list[str]:
        """Load deferred tools so :meth:`offered` includes them from now on.

        Args:
            names: Tool names; resident, already loaded and unknown names are ignored.

        Returns:
            The names newly loaded, in the order given.
        """
        newly: list[str] = []
        for name in names:
            tool = self._deferred.get(name)
            if tool is not None and name not in self._loaded:
                self._loaded[name] = tool
                newly.append(name)
        return newly

    def unload_all(self) -> None:
        """Forget every load (e.g. when a new conversation starts)."""
        self._loaded.clear()

    def restore(self, loaded: Iterable[str]) -> None:
        """Make exactly ``loaded`` the loaded tools, in that order (names that are not deferred
        are ignored): a journal continuation or a resumed pause restores the residency the run
        had (seed 000, "Execution Journal and Continuation": continuation keeps the tool
        residency the execution started with)."""
        self._loaded.clear()
        self.load(loaded)

    def search(self, query: str, max_results: int = 5) -> list[Tool]:
        """Search the withheld tools' names and descriptions (see
        :func:`robota.core.residency._search.search_tools` for the scoring).

        Args:
            query: Keywords, or ``select:<name>[,<name>...]`` for exact names.
            max_results: Upper bound on the number of tools returned.

        Returns:
            Withheld tools that match, best first (nothing is loaded here).
        """
        withheld = self.withheld
        candidates = [t for n, t in self._deferred.items() if n in withheld]
        return search_tools(query, candidates, max_results)
