"""Baseline-versus-candidate comparison (seed 002, "Evaluations"): joins by (case name,
repetition) and evaluator name, the regression and improvement rules, signed usage deltas, and
a CI document that is byte-identical for identical inputs."""

from __future__ import annotations

import doctest
import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest
import robota.evals.comparison.join as join_module
from hypothesis import given, settings
from hypothesis import strategies as st
from robota.core.usage import Usage
from robota.evals import (
    Case,
    CaseError,
    CaseResult,
    Dataset,
    EvaluationReport,
    EvaluatorResult,
    ReportAnalysis,
    ReportFileError,
    SpanRecord,
)
from robota.evals.comparison import compare, save_comparison
from robota.evals.evaluators.builtin import ExactMatch

ERROR = CaseError(type="builtins.RuntimeError", message="boom")
_ERROR = object()  # a marker: the evaluator failed


def result(name: str, value: Any, source: str = "case") -> EvaluatorResult:
    if value is _ERROR:
        return EvaluatorResult(name=name, source=source, error=ERROR)  # type: ignore[arg-type]
    return EvaluatorResult(name=name, source=source, value=value)  # type: ignore[arg-type]


def case(
    index: int = 0,
    *results: EvaluatorResult,
    repetition: int = 0,
    name: str | None = None,
    error: CaseError | None = None,
) -> CaseResult:
    return CaseResult(
        case_index=index,
        name=name or f"case{index}",
        repetition=repetition,
        error=error,
        results=results,
    )


def report(
    *cases: CaseResult,
    analyses: tuple[ReportAnalysis, ...] = (),
    usage: Usage | None = None,
    name: str = "run",
) -> EvaluationReport:
    return EvaluationReport(
        name=name, dataset="capitals", cases=cases, analyses=analyses, usage=usage or Usage()
    )


NAN = float("nan")
RESULT_RULES: list[tuple[Any, Any, str]] = [
    (True, False, "regression"),
    (False, True, "improvement"),
    (True, True, "unchanged"),
    (False, False, "unchanged"),
    (True, _ERROR, "regression"),  # an evaluator that fails counts as failing
    (_ERROR, True, "improvement"),
    (_ERROR, _ERROR, "unchanged"),
    (False, _ERROR, "changed"),  # still failing, another way
    (0.9, 0.7, "changed"),  # a score moved
    (0.7, 0.7, "unchanged"),
    (1, 1.0, "unchanged"),
    (NAN, NAN, "unchanged"),
    (0.5, _ERROR, "regression"),  # a score that is now an error ranks lower
    ("fr", "en", "changed"),  # a label moved
    ("1", 1, "changed"),
    (0.5, True, "improvement"),  # null (no assertion) ranks between false and true
    (True, 0.5, "regression"),
]


@pytest.mark.parametrize(("old", "new", "status"), RESULT_RULES)
def test_result_rules(old: Any, new: Any, status: str) -> None:
    comparison = compare(
        report(case(0, result("Check", old))), report(case(0, result("Check", new)))
    )
    (change,) = comparison.cases[0].results
    assert change.status == status
    assert comparison.has_regressions is (status == "regression")
    assert bool(comparison.improvements) is (status == "improvement")
    assert comparison.cases[0].status == status


def test_score_delta_is_signed_and_rounded_in_ci_json() -> None:
    comparison = compare(report(case(0, result("S", 0.9))), report(case(0, result("S", 0.7))))
    change = comparison.cases[0].results[0]
    assert change.delta == pytest.approx(-0.2)
    document = json.loads(comparison.to_ci_json())
    assert document["cases"][0]["results"][0]["delta"] == -0.2  # not -0.20000000000000007


def test_a_removed_check_is_a_regression_and_an_added_one_is_not() -> None:
    baseline = report(case(0, result("A", True), result("B", True)))
    removed = compare(baseline, report(case(0, result("A", True))))
    assert [r.status for r in removed.cases[0].results] == ["unchanged", "removed"]
    assert removed.cases[0].results[1].is_regression
    assert [f.describe() for f in removed.regressions] == ["case 'case0' #0 rep 0: B removed"]

    added = compare(report(case(0, result("A", True))), baseline)
    assert [r.status for r in added.cases[0].results] == ["unchanged", "added"]
    assert not added.has_regressions
    assert added.conclusion == "unchanged"


def test_a_case_only_in_the_baseline_removes_its_checks() -> None:
    baseline = report(case(0, result("A", True)), case(1, result("A", False), result("B", 2)))
    comparison = compare(baseline, report(case(0, result("A", True))))
    row = comparison.cases[1]
    assert (row.status, row.baseline_name, row.candidate_name) == ("removed", "case1", None)
    assert [(r.evaluator, r.status, r.is_regression) for r in row.results] == [
        ("A", "removed", True),
        ("B", "removed", True),
    ]
    # one finding for the lost case; its checks are in its row
    assert [(f.level, f.status, f.case) for f in comparison.regressions] == [
        ("case", "removed", "case1")
    ]


def test_a_case_only_in_the_candidate_is_added_not_a_regression() -> None:
    comparison = compare(report(), report(case(0, result("A", False))))
    assert comparison.cases[0].status == "added"
    assert comparison.conclusion == "unchanged"


def test_a_task_that_fails_only_in_the_candidate_is_a_regression() -> None:
    baseline = report(case(0, result("A", False)))
    failed = compare(baseline, report(case(0, error=ERROR)))
    assert failed.cases[0].status == "task_failed"
    assert failed.cases[0].candidate_error == ERROR
    assert [(f.level, f.status) for f in failed.regressions] == [("case", "task_failed")]
    assert failed.regressions[0].describe() == "case 'case0' #0 rep 0: task failed"

    recovered = compare(report(case(0, error=ERROR)), baseline)
    assert recovered.cases[0].status == "task_recovered"
    assert recovered.conclusion == "improved"

    both = compare(report(case(0, error=ERROR)), report(case(0, error=ERROR)))
    assert both.cases[0].status == "unchanged"
    assert both.conclusion == "unchanged"


def analysis(assertion: Any, value: float | None = None) -> ReportAnalysis:
    if assertion is _ERROR:
        return ReportAnalysis(name="Gate", error=ERROR)
    return ReportAnalysis(name="Gate", assertion=assertion, value=value)


ANALYSIS_RULES: list[tuple[Any, Any, str]] = [
    (True, False, "regression"),
    (False, True, "improvement"),
    (True, None, "regression"),  # null ranks between false and true
    (None, True, "improvement"),
    (False, None, "improvement"),
    (None, False, "regression"),
    (None, None, "unchanged"),
    (True, _ERROR, "regression"),  # a failed report evaluator counts as failing
    (_ERROR, None, "improvement"),
]


@pytest.mark.parametrize(("old", "new", "status"), ANALYSIS_RULES)
def test_analysis_rules(old: Any, new: Any, status: str) -> None:
    comparison = compare(report(analyses=(analysis(old),)), report(analyses=(analysis(new),)))
    assert comparison.analyses[0].status == status
    assert comparison.has_regressions is (status == "regression")


def test_analysis_value_moves_and_removals() -> None:
    moved = compare(
        report(analyses=(analysis(True, 0.9),)), report(analyses=(analysis(True, 0.95),))
    )
    assert (moved.analyses[0].status, moved.analyses[0].delta) == ("changed", pytest.approx(0.05))
    removed = compare(report(analyses=(analysis(True),)), report())
    assert removed.analyses[0].status == "removed"
    assert [f.describe() for f in removed.regressions] == ["report analysis: Gate removed"]
    flipped = compare(report(analyses=(analysis(True),)), report(analyses=(analysis(None),)))
    assert flipped.regressions[0].describe() == "report analysis: Gate True -> none (regression)"


def test_rows_keep_baseline_order_then_candidate_only_rows_in_candidate_order() -> None:
    baseline = report(
        case(0, result("A", True), result("B", True)),
        case(1),
        case(1, repetition=1),
    )
    candidate = report(
        case(4),
        case(1, repetition=1),
        case(0, result("C", True), result("B", True), result("A", True)),
        case(3),
    )
    comparison = compare(baseline, candidate)
    assert [(r.case_index, r.repetition) for r in comparison.cases] == [
        (0, 0),
        (1, 0),
        (1, 1),
        (4, 0),
        (3, 0),
    ]
    assert [r.evaluator for r in comparison.cases[0].results] == ["A", "B", "C"]
    assert [r.status for r in comparison.cases] == [
        "changed",
        "removed",
        "unchanged",
        "added",
        "added",
    ]


def test_rows_join_on_case_name_and_repetition_not_index() -> None:
    # A case renamed at the same index is another case: the old one removed, the new one added.
    comparison = compare(
        report(case(0, result("A", True), name="france")),
        report(case(0, result("A", False), name="renamed")),
    )
    assert [
        (row.baseline_name, row.candidate_name, row.status, row.case_index)
        for row in comparison.cases
    ] == [("france", None, "removed", 0), (None, "renamed", "added", 0)]
    # The same case at another index is the same case.
    moved = compare(
        report(case(0, result("A", True), name="france")),
        report(case(1, result("A", False), name="france")),
    )
    [row] = moved.cases
    assert (row.status, row.baseline_case_index, row.candidate_case_index) == ("regression", 0, 1)


def test_usage_delta_is_signed_per_field() -> None:
    comparison = compare(
        report(usage=Usage(input_tokens=10, output_tokens=5, requests=2, details={"x": 1})),
        report(
            usage=Usage(
                input_tokens=7,
                output_tokens=9,
                cache_read_tokens=3,
                requests=2,
                details={"y": 2},
                partial=True,
            )
        ),
    )
    delta = comparison.usage_delta
    assert (delta.input_tokens, delta.output_tokens, delta.total_tokens) == (-3, 4, 1)
    assert (delta.cache_read_tokens, delta.requests) == (3, 0)
    assert dict(delta.details) == {"x": -1, "y": 2}
    assert delta.partial is True


def test_pass_rates_and_their_delta() -> None:
    baseline = report(case(0, result("A", True)), case(1, result("A", True)))
    candidate = report(case(0, result("A", True)), case(1, result("A", False)))
    comparison = compare(baseline, candidate)
    assert (comparison.baseline_pass_rate, comparison.candidate_pass_rate) == (1.0, 0.5)
    assert comparison.pass_rate_delta == -0.5
    assert comparison.conclusion == "regressed"


def test_ci_json_is_versioned_sorted_and_free_of_clocks(tmp_path: Path) -> None:
    baseline = replace(
        report(case(0, result("A", True), result("S", NAN))),
        started_at="2026-12-02T10:00:00Z",
        duration=12.5,
    )
    candidate = replace(
        report(case(0, result("A", False), result("S", math.inf))),
        started_at="2026-12-03T11:00:00Z",
        duration=99.0,
    )
    text = compare(baseline, candidate).to_ci_json()
    document = json.loads(text)
    assert (document["version"], document["kind"]) == (1, "robota.evals.comparison")
    assert (document["conclusion"], document["has_regressions"]) == ("regressed", True)
    assert text == json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    for clock in ("2026-12", "12.5", "99.0"):
        assert clock not in text
    score = document["cases"][0]["results"][1]
    assert (score["baseline"], score["candidate"]) == ({"nonfinite": "nan"}, {"nonfinite": "inf"})
    assert document["regressions"][0]["description"] == (
        "case 'case0' #0 rep 0: A True -> False (regression)"
    )

    path = tmp_path / "comparison.json"
    save_comparison(compare(baseline, candidate), path)
    assert path.read_text(encoding="utf-8") == text
    with pytest.raises(ReportFileError, match=r"use a \.json file"):
        save_comparison(compare(baseline, candidate), tmp_path / "comparison.yaml")


# --- byte stability ---------------------------------------------------------------------------

_VALUES = st.none() | st.booleans() | st.integers(-3, 3) | st.floats() | st.sampled_from("ab")
_RESULTS = st.lists(
    st.builds(
        EvaluatorResult,
        name=st.sampled_from(["A", "B", "C"]),
        source=st.sampled_from(["case", "trace"]),
        value=_VALUES,
        error=st.none() | st.just(ERROR),
    ),
    max_size=3,
).map(tuple)
_CASES = st.lists(
    st.builds(
        CaseResult,
        case_index=st.integers(0, 3),
        name=st.sampled_from(["france", "japan", "ünïcode"]),
        repetition=st.integers(0, 1),
        error=st.none() | st.just(ERROR),
        results=_RESULTS,
        usage=st.builds(Usage, input_tokens=st.integers(0, 50), output_tokens=st.integers(0, 50)),
    ),
    max_size=4,
).map(tuple)
_ANALYSES = st.lists(
    st.builds(
        ReportAnalysis,
        name=st.sampled_from(["G", "H"]),
        assertion=st.none() | st.booleans(),
        value=st.none() | st.floats(allow_nan=False, allow_infinity=False),
    ),
    max_size=2,
).map(tuple)
REPORTS = st.builds(
    EvaluationReport,
    name=st.just("run"),
    dataset=st.just("capitals"),
    cases=_CASES,
    analyses=_ANALYSES,
    usage=st.builds(Usage, input_tokens=st.integers(0, 99), requests=st.integers(0, 9)),
)
_SPAN = SpanRecord(name="chat", trace_id="1" * 32, span_id="2" * 16)


def retimed(report: EvaluationReport, seed: int) -> EvaluationReport:
    """The same results run at another time, for another duration, with other span times."""
    return replace(
        report,
        started_at=f"2027-01-{seed % 28 + 1:02d}T00:00:00Z",
        duration=report.duration + seed + 0.5,
        cases=tuple(
            replace(
                c,
                duration=c.duration + seed * 0.25,
                spans=(replace(_SPAN, start_time_ns=seed, end_time_ns=seed * 7),),
            )
            for c in report.cases
        ),
    )


@settings(max_examples=150)
@given(baseline=REPORTS, candidate=REPORTS, seed=st.integers(1, 10_000))
def test_ci_json_is_byte_identical_for_identical_results(
    baseline: EvaluationReport, candidate: EvaluationReport, seed: int
) -> None:
    text = compare(baseline, candidate).to_ci_json()
    assert compare(baseline, candidate).to_ci_json() == text
    assert compare(retimed(baseline, seed), retimed(candidate, seed + 1)).to_ci_json() == text
    json.loads(text)  # strict JSON: allow_nan=False would have refused NaN tokens


@pytest.mark.anyio
async def test_completion_order_does_not_change_the_ci_json() -> None:
    dataset = Dataset(
        name="capitals",
        cases=tuple(Case(name=f"c{i}", inputs=i, expected_output=i) for i in range(4)),
        evaluators=(ExactMatch(),),
    )

    finished: list[int] = []

    def answering(order: list[int]) -> Any:
        """A task whose runs finish in ``order`` (each waits for the one before it)."""
        done = {i: anyio.Event() for i in order}

        async def task(inputs: int) -> int:
            position = order.index(inputs)
            if position:
                await done[order[position - 1]].wait()
            finished.append(inputs)
            done[inputs].set()
            return inputs if inputs != 2 else -1

        return task

    baseline = await dataset.evaluate(answering([0, 1, 2, 3]))
    finished.clear()
    forward = await dataset.evaluate(answering([0, 1, 2, 3]), max_concurrency=4)
    assert finished == [0, 1, 2, 3]
    finished.clear()
    backward = await dataset.evaluate(answering([3, 1, 2, 0]), max_concurrency=4)
    assert finished == [3, 1, 2, 0]
    assert [c.name for c in backward.cases] == ["c0", "c1", "c2", "c3"]
    text = compare(baseline, backward).to_ci_json()
    assert compare(baseline, forward).to_ci_json() == text
    assert json.loads(text)["conclusion"] == "unchanged"


def test_compare_docstring_example_runs() -> None:
    result = doctest.testmod(join_module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
