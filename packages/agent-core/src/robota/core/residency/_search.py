"""Scored keyword matching of a query against tool names and descriptions (seed 000,
"Tool Residency and Tool Search").

The score is deliberately simple and explainable: for each query term, an exact match with a
token of the tool's name scores 3, a term that is a substring of the name scores 2, and an exact
match with a token of the description scores 1. The query ``select:<name>[,<name>...]`` selects
tools by exact name instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from robota.core.tools.base import Tool

__all__ = ["SELECT_PREFIX", "score_tool", "search_tools", "tokens"]

SELECT_PREFIX = "select:"
"""Query prefix naming tools exactly: ``select:mcp__github__create_issue,read_file``."""

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SPLIT = re.compile(r"[^a-zA-Z0-9]+")


def tokens(text: str) -> list[str]:
    """Lower-case word tokens of ``text``; snake_case, kebab-case and camelCase are split.

    Example:
        >>> tokens("mcp__github__createIssue: open an issue")
        ['mcp', 'github', 'create', 'issue', 'open', 'an', 'issue']
    """
    spaced = _CAMEL.sub(" ", text)
    return [t.lower() for t in _SPLIT.split(spaced) if t]


def score_tool(terms: Sequence[str], tool: Tool) -> int:
    """The keyword score of ``tool`` for the query ``terms`` (lower-case tokens).

    Returns:
        3 per term equal to a name token, else 2 per term contained in the name, plus 1 per
        term equal to a description token; 0 means no match.
    """
    name = tool.name.lower()
    name_tokens = set(tokens(tool.name))
    description_tokens = set(tokens(tool.description))
    score = 0
    for term in terms:
        if term in name_tokens:
            score += 3
        elif term in name:
            score += 2
        if term in description_tokens:
            score += 1
    return score


def search_tools(query: str, candidates: Iterable[Tool], max_results: int) -> list[Tool]:
    """The best ``max_results`` of ``candidates`` for ``query``, best first.

    Args:
        query: Free keywords, or ``select:<name>[,<name>...]`` for exact names (in the order
            given; unknown names are skipped).
        candidates: Tools to search, in a stable order (ties keep this order).
        max_results: Upper bound on the result length (values below 1 return nothing).

    Returns:
        Matching tools with a positive score, highest score first.
    """
    if max_results < 1:
        return []
    pool = list(candidates)
    stripped = query.strip()
    if stripped.lower().startswith(SELECT_PREFIX):
        by_name = {t.name: t for t in pool}
        wanted = [n.strip() for n in stripped[len(SELECT_PREFIX) :].split(",")]
        picked: list[Tool] = []
        for name in wanted:
            tool = by_name.get(name)
            if tool is not None and tool not in picked:
                picked.append(tool)
        return picked[:max_results]
    terms = list(dict.fromkeys(tokens(stripped)))
    if not terms:
        return []
    scored = [(score_tool(terms, tool), index, tool) for index, tool in enumerate(pool)]
    ranked = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))
    return [tool for _, _, tool in ranked[:max_results]]
