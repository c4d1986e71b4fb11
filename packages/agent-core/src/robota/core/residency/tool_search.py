"""The model-facing ``tool_search`` tool (seed 000, "Tool Residency and Tool Search").

An ordinary function tool over a :class:`~robota.core.residency.catalog.ToolCatalog`: it searches
the withheld tools' names and descriptions, loads the matches into the catalog, and tells the
model which tools it can call from the next round on. Because it is an ordinary tool it works the
same with every provider.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from robota.core.tools.base import RiskClass, Tool, ToolContext, ToolOutput, ToolReturn

if TYPE_CHECKING:
    from robota.core.residency.catalog import ToolCatalog

__all__ = ["DEFAULT_MAX_RESULTS", "TOOL_SEARCH_NAME", "ToolSearchTool"]

TOOL_SEARCH_NAME = "tool_search"
"""The search tool's model-facing name."""

DEFAULT_MAX_RESULTS = 5
"""Matches loaded per search when the model gives no ``max_results``."""

_MAX_RESULTS_LIMIT = 50

_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": "Keywords, or 'select:<name>[,<name>...]' for exact names.",
        },
        "max_results": {
            "type": "integer",
            "minimum": 1,
            "maximum": _MAX_RESULTS_LIMIT,
            "description": f"How many tools to load at most (default {DEFAULT_MAX_RESULTS}).",
        },
    },
    "required": ["query"],
    "additionalProperties": False,
}


class ToolSearchTool(Tool):
    """Searches the catalog's withheld tools and loads the matches.

    Arguments (JSON): ``query`` (string: keywords, or ``select:<name>[,<name>...]`` for exact
    names) and optional ``max_results`` (integer 1-50, default 5).

    The result text lists each loaded tool's name and description and says they are callable
    from the next round; the loaded names are also in ``ToolReturn.metadata`` (hosts only).
    Always resident; risk INSPECT (it only changes which schemas the model sees, never what a
    tool may do: permissions decide by tool name and never consult residency).

    Args:
        catalog: The catalog to search and load into.
    """

    name = TOOL_SEARCH_NAME
    description = (
        "Search for more tools by keyword and load them. Only some tools are listed up front; "
        "the others can be found here by words from their names or descriptions. Use "
        "'select:<name>' to load a tool whose exact name you know. Loaded tools can be called "
        "from your next turn on."
    )
    risk = RiskClass.INSPECT
    residency = "resident"
    idempotent = True

    def __init__(self, catalog: ToolCatalog) -> None:
        self._catalog = catalog
        self.parameters = _PARAMETERS

    async def call(self, arguments: dict[str, Any], ctx: ToolContext[Any]) -> ToolOutput:
        """Search, load the matches, and describe them.

        Raises:
            ValueError: when ``query`` is not a string or ``max_results`` not an integer
                (the model sees an error result).
        """
        query = arguments.get("query")
        if not isinstance(query, str):
            raise ValueError("'query' must be a string")
        raw_max = arguments.get("max_results", DEFAULT_MAX_RESULTS)
        if not isinstance(raw_max, int) or isinstance(raw_max, bool):
            raise ValueError("'max_results' must be an integer")
        max_results = max(1, min(raw_max, _MAX_RESULTS_LIMIT))
        found = self._catalog.search(query, max_results)
        self._catalog.load(t.name for t in found)
        if not found:
            return ToolReturn.text(
                f"No tools matched {query!r}. Try other keywords or 'select:<name>'."
            )
        lines = [
            f"Loaded {len(found)} tool(s); they are callable from your next turn on:",
            *(f"- {t.name}: {t.description}" for t in found),
        ]
        return ToolReturn(
            content=ToolReturn.text("\n".join(lines)).content,
            metadata={"loaded": [t.name for t in found]},
        )
