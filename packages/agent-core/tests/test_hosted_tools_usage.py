"""Hosted tool calls in usage: neutral ``hosted.<tool>`` counts that sum across requests, a
vendor-stated count winning over one derived from the response's parts."""

from __future__ import annotations

from robota.core.capabilities import hosted_call_counts
from robota.core.messages import TextPart, ToolCallPart
from robota.core.usage import Usage, hosted_detail


def _call(name: str, *, hosted: bool = True) -> ToolCallPart:
    return ToolCallPart(id=f"id-{name}", name=name, arguments={}, hosted=hosted)


def test_counts_only_hosted_calls_with_a_neutral_name() -> None:
    parts = [
        _call("web_search"),
        _call("web_search"),
        _call("code_execution"),
        _call("file_search"),  # a vendor tool with no neutral name
        _call("web_search", hosted=False),  # a local function tool of the same name
        TextPart(text="answer"),
    ]
    assert hosted_call_counts(parts) == {"web_search": 2, "code_execution": 1}


def test_run_usage_sums_hosted_counts_per_tool() -> None:
    first = Usage(requests=1, details={hosted_detail("web_search"): 1, "other": 5})
    second = Usage(requests=1).with_hosted_calls({"web_search": 2, "code_execution": 1})
    total = first + second
    assert total.hosted_calls == {"web_search": 3, "code_execution": 1}
    assert total.details["other"] == 5


def test_a_vendor_stated_count_wins_over_a_derived_one() -> None:
    stated = Usage(details={"hosted.web_fetch": 0})
    assert stated.with_hosted_calls({"web_fetch": 1}).hosted_calls == {"web_fetch": 0}
    assert stated.with_hosted_calls({}) is stated
