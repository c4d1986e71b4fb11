"""Tool residency and tool search (seed 000, "Tool Residency and Tool Search"): which tool
schemas a request carries, and the ``tool_search`` tool that loads withheld ones."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from robota.core.residency._search import SELECT_PREFIX, search_tools, tokens
    from robota.core.residency.catalog import (
        DEFAULT_COUNT_THRESHOLD,
        DEFAULT_SHARE_THRESHOLD,
        ToolCatalog,
        estimate_schema_tokens,
    )
    from robota.core.residency.tool_search import (
        DEFAULT_MAX_RESULTS,
        TOOL_SEARCH_NAME,
        ToolSearchTool,
    )

__all__ = [
    "DEFAULT_COUNT_THRESHOLD",
    "DEFAULT_MAX_RESULTS",
    "DEFAULT_SHARE_THRESHOLD",
    "SELECT_PREFIX",
    "TOOL_SEARCH_NAME",
    "ToolCatalog",
    "ToolSearchTool",
    "estimate_schema_tokens",
    "search_tools",
    "tokens",
]

_EXPORTS = {
    "robota.core.residency._search": ("SELECT_PREFIX", "search_tools", "tokens"),
    "robota.core.residency.catalog": (
        "DEFAULT_COUNT_THRESHOLD",
        "DEFAULT_SHARE_THRESHOLD",
        "ToolCatalog",
        "estimate_schema_tokens",
    ),
    "robota.core.residency.tool_search": (
        "DEFAULT_MAX_RESULTS",
        "TOOL_SEARCH_NAME",
        "ToolSearchTool",
    ),
}
"""Submodule → the names it gives this package, imported on first use (see
:mod:`robota.core._lazy`)."""

if not TYPE_CHECKING:
    from robota.core._lazy import lazy_exports

    __getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
