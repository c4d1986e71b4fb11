"""Tool search scoring: name tokens, description tokens, select: form, max_results."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from robota.core.residency import search_tools, tokens
from robota.core.tools.base import Tool, ToolContext, ToolOutput


class _Tool(Tool):
    def __init__(self, name: str, description: str = "") -> None:
        self.name = name
        self.description = description

    async def call(self, arguments: dict[str, Any], ctx: ToolContext[Any]) -> ToolOutput:
        return ""


POOL = [
    _Tool("mcp__github__create_issue", "Open a new issue."),
    _Tool("mcp__github__list_pulls", "List pull requests of a repository."),
    _Tool("mcp__jira__createIssue", "Create a Jira ticket."),
    _Tool("web_fetch", "Fetch a URL and return its text; handles github pages too."),
]


def _names(tools: list[Tool]) -> list[str]:
    return [t.name for t in tools]


def test_tokens_split_snake_kebab_and_camel_case() -> None:
    assert tokens("mcp__jira__createIssue") == ["mcp", "jira", "create", "issue"]
    assert tokens("web-fetch URL") == ["web", "fetch", "url"]


def test_name_tokens_outrank_description_tokens() -> None:
    assert _names(search_tools("github", POOL, 5)) == [
        "mcp__github__create_issue",
        "mcp__github__list_pulls",
        "web_fetch",
    ]


def test_more_matching_terms_rank_higher() -> None:
    assert _names(search_tools("create issue jira", POOL, 2)) == [
        "mcp__jira__createIssue",
        "mcp__github__create_issue",
    ]


def test_name_substring_matches() -> None:
    assert _names(search_tools("pull", POOL, 5)) == ["mcp__github__list_pulls"]


def test_select_form_is_exact_and_ordered() -> None:
    assert _names(search_tools("select:web_fetch, mcp__jira__createIssue", POOL, 5)) == [
        "web_fetch",
        "mcp__jira__createIssue",
    ]
    assert search_tools("select:web", POOL, 5) == []


def test_max_results_bounds_and_empty_query() -> None:
    assert len(search_tools("mcp", POOL, 2)) == 2
    assert search_tools("mcp", POOL, 0) == []
    assert search_tools("  ", POOL, 5) == []


@given(st.text(max_size=40), st.integers(min_value=0, max_value=6))
def test_results_are_bounded_distinct_members(query: str, max_results: int) -> None:
    found = search_tools(query, POOL, max_results)
    assert len(found) <= max_results
    assert len({id(t) for t in found}) == len(found)
    assert all(t in POOL for t in found)


@given(st.sampled_from(POOL))
def test_select_finds_every_tool_by_its_name(tool: Tool) -> None:
    assert search_tools(f"select:{tool.name}", POOL, 1) == [tool]


def test_docstring_examples_run() -> None:
    import doctest

    import robota.core.residency._search as search_module
    import robota.core.residency.catalog as catalog_module

    for module in (search_module, catalog_module):
        result = doctest.testmod(module)
        assert result.attempted > 0
        assert result.failed == 0
