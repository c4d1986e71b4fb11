"""Tool residency: the catalog's offered list, thresholds, invariants, tool_search, bytes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from robota.core.errors import ConfigurationError
from robota.core.residency import TOOL_SEARCH_NAME, ToolCatalog, estimate_schema_tokens
from robota.core.tools.base import Residency, RiskClass, Tool, ToolContext, ToolOutput, ToolReturn


class _Tool(Tool):
    def __init__(self, name: str, description: str = "", residency: Residency = "auto") -> None:
        self.name = name
        self.description = description
        self.residency = residency
        self.parameters = {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": f"Path argument of {name}."},
                "limit": {"type": "integer", "description": "How many items to return."},
                "recursive": {"type": "boolean", "description": "Descend into folders."},
            },
            "required": ["path"],
        }

    async def call(self, arguments: dict[str, Any], ctx: ToolContext[Any]) -> ToolOutput:
        return f"{self.name} ran"


def _ctx() -> ToolContext[None]:
    return ToolContext(
        run_id="r", call_id="c", tool_call_id="t", tool_name="tool_search", deps=None
    )


def _names(tools: list[Tool]) -> list[str]:
    return [t.name for t in tools]


def _wire(tools: list[Tool]) -> str:
    """What the request's tool list would serialize to."""
    defs = [t.definition() for t in tools]
    return json.dumps(
        [{"name": d.name, "description": d.description, "parameters": d.parameters} for d in defs]
    )


def _many(n: int) -> list[Tool]:
    return [
        _Tool(f"service{i}_action{i % 7}", f"Performs action {i % 7} on service {i}.")
        for i in range(n)
    ]


def test_small_catalog_is_unaffected() -> None:
    tools = _many(5)
    catalog = ToolCatalog(tools)
    assert not catalog.engaged
    assert _names(catalog.offered()) == [t.name for t in tools]
    assert catalog.withheld == frozenset()
    assert TOOL_SEARCH_NAME not in catalog.all()
    assert catalog.search_tool is None


def test_count_threshold_engages_above_40_auto_tools() -> None:
    at_threshold = ToolCatalog([_Tool("keep", residency="resident"), *_many(40)])
    assert not at_threshold.engaged
    past = ToolCatalog([_Tool("keep", residency="resident"), *_many(41)])
    assert past.engaged
    assert _names(past.offered()) == ["keep", TOOL_SEARCH_NAME]
    assert len(past.withheld) == 41


def test_share_threshold_engages_past_ten_percent_of_context_window() -> None:
    tools = [_Tool("keep", residency="resident"), *_many(10)]
    estimated = sum(estimate_schema_tokens(t) for t in tools[1:])
    below = ToolCatalog(tools, context_window=estimated * 10)
    assert not below.engaged
    above = ToolCatalog(tools, context_window=estimated * 10 - 10)
    assert above.engaged
    assert len(above.withheld) == 10


def test_explicit_defer_overrides_threshold_both_ways() -> None:
    forced_off = ToolCatalog(_many(100), defer=False)
    assert len(forced_off.offered()) == 100
    assert forced_off.withheld == frozenset()
    forced_on = ToolCatalog([_Tool("keep", residency="resident"), *_many(3)], defer=True)
    assert _names(forced_on.offered()) == ["keep", TOOL_SEARCH_NAME]


def test_per_tool_residency_beats_catalog_setting() -> None:
    catalog = ToolCatalog(
        [_Tool("always", residency="resident"), _Tool("later", residency="deferred"), _Tool("a")],
        defer=False,
    )
    assert _names(catalog.offered()) == ["always", "a", TOOL_SEARCH_NAME]
    assert catalog.withheld == frozenset({"later"})
    assert catalog.residency_of("later") == "deferred"
    assert catalog.residency_of("always") == "resident"


def test_deferring_everything_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="at least one tool must remain resident"):
        ToolCatalog(_many(3), defer=True)
    with pytest.raises(ConfigurationError, match="at least one tool must remain resident"):
        ToolCatalog([_Tool("x", residency="deferred")])
    with pytest.raises(ConfigurationError, match="at least one tool must remain resident"):
        ToolCatalog(_many(41))


def test_tool_search_name_is_reserved_when_deferring() -> None:
    with pytest.raises(ConfigurationError, match="reserved"):
        ToolCatalog([_Tool(TOOL_SEARCH_NAME), _Tool("x", residency="deferred")])


def test_duplicate_names_are_refused() -> None:
    with pytest.raises(ConfigurationError, match="two tools"):
        ToolCatalog([_Tool("a"), _Tool("a")])


def test_all_holds_withheld_tools_for_dispatch() -> None:
    catalog = ToolCatalog([_Tool("keep", residency="resident"), *_many(3)], defer=True)
    assert sorted(catalog.all()) == sorted(
        ["keep", TOOL_SEARCH_NAME, "service0_action0", "service1_action1", "service2_action2"]
    )


@pytest.mark.anyio
async def test_tool_loaded_in_round_n_is_offered_in_round_n_plus_1() -> None:
    issue = _Tool("github_create_issue", "Open a new issue in a GitHub repository.")
    catalog = ToolCatalog([_Tool("read_file", residency="resident"), issue, *_many(50)])
    round_1 = catalog.offered()
    assert "github_create_issue" not in _names(round_1)
    search = next(t for t in round_1 if t.name == TOOL_SEARCH_NAME)
    result = await search.call({"query": "github issue", "max_results": 1}, _ctx())
    assert isinstance(result, ToolReturn)
    text = result.content[0]
    assert text.kind == "text"
    assert text.text == (
        "Loaded 1 tool(s); they are callable from your next turn on:\n"
        "- github_create_issue: Open a new issue in a GitHub repository."
    )
    assert result.metadata == {"loaded": ["github_create_issue"]}
    round_2 = catalog.offered()
    assert _names(round_2)[:2] == ["read_file", "github_create_issue"]
    assert _names(round_2)[-1] == TOOL_SEARCH_NAME
    assert catalog.loaded == ("github_create_issue",)
    assert catalog.residency_of("github_create_issue") == "loaded"


@pytest.mark.anyio
async def test_select_form_loads_exact_names_and_search_disappears_when_nothing_withheld() -> None:
    catalog = ToolCatalog(
        [_Tool("keep", residency="resident"), _Tool("a_tool"), _Tool("b_tool")], defer=True
    )
    search = catalog.all()[TOOL_SEARCH_NAME]
    await search.call({"query": "select:b_tool,a_tool,nope"}, _ctx())
    assert catalog.loaded == ("b_tool", "a_tool")
    assert _names(catalog.offered()) == ["keep", "b_tool", "a_tool"]


@pytest.mark.anyio
async def test_no_match_says_so_and_loads_nothing() -> None:
    catalog = ToolCatalog([_Tool("keep", residency="resident"), _Tool("zeta")], defer=True)
    result = await catalog.all()[TOOL_SEARCH_NAME].call({"query": "kubernetes"}, _ctx())
    assert isinstance(result, ToolReturn)
    assert result.content[0].kind == "text"
    assert result.content[0].text.startswith("No tools matched 'kubernetes'")
    assert catalog.loaded == ()


@pytest.mark.anyio
async def test_bad_arguments_raise_for_an_error_result() -> None:
    catalog = ToolCatalog([_Tool("keep", residency="resident"), _Tool("zeta")], defer=True)
    search = catalog.all()[TOOL_SEARCH_NAME]
    with pytest.raises(ValueError, match="'query' must be a string"):
        await search.call({"query": 3}, _ctx())
    with pytest.raises(ValueError, match="'max_results' must be an integer"):
        await search.call({"query": "x", "max_results": "3"}, _ctx())


def test_search_tool_is_resident_inspect() -> None:
    catalog = ToolCatalog([_Tool("keep", residency="resident"), _Tool("zeta")], defer=True)
    search = catalog.all()[TOOL_SEARCH_NAME]
    assert search.risk is RiskClass.INSPECT
    assert search.residency == "resident"
    assert search.definition().parameters["required"] == ["query"]


def test_residency_bytes_200_tools() -> None:
    tools: list[Tool] = [_Tool("read_file", "Read a text file.", residency="resident")]
    tools += _many(199)
    resident = _wire(ToolCatalog(tools, defer=False).offered())
    deferred = _wire(ToolCatalog(tools).offered())
    r, d = len(resident.encode()), len(deferred.encode())
    print(f"residency: resident_bytes={r} deferred_bytes={d} ratio={r / d:.1f}")
    assert d < r / 5
