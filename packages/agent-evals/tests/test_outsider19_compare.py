"""Outsider attacks on baseline-versus-candidate comparison (``robota.evals.compare``), issue #19.

A CI that diffs artifacts: the seed's rules (join by (case name, repetition), baseline order
then candidate-only rows, removed checks and pass->fail are regressions, fail->pass
improvements, a null analysis assertion between false and true, signed usage deltas) and a CI
JSON that is byte-identical for identical inputs whatever the clocks, durations, paths or
completion order. ``# HELD``: the code resisted. ``# HOLE``: a strict xfail documents the bug.
``# HELD (fixed)``: a hole that was fixed; the test now guards the fix.
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from robota.core.usage import Usage
from robota.evals import (
    Case,
    CaseError,
    CaseResult,
    Comparison,
    Dataset,
    EvaluationReport,
    EvaluatorResult,
    ExactMatch,
    ReportAnalysis,
    SpanRecord,
    compare,
    load_report,
    save_comparison,
    save_report,
)
from robota.evals.evaluators.base import EvaluationValue

BOOM = CaseError(type="builtins.RuntimeError", message="boom")


def _result(
    name: str, value: EvaluationValue | None, *, error: CaseError | None = None
) -> EvaluatorResult:
    return EvaluatorResult(name=name, value=value, error=error)


def _case(
    index: int,
    *results: EvaluatorResult,
    name: str | None = None,
    repetition: int = 0,
    error: CaseError | None = None,
) -> CaseResult:
    return CaseResult(
        case_index=index,
        name=name if name is not None else f"c{index}",
        repetition=repetition,
        error=error,
        results=results,
    )


def _report(
    *cases: CaseResult, analyses: tuple[ReportAnalysis, ...] = (), usage: Usage | None = None
) -> EvaluationReport:
    return EvaluationReport(
        name="run", dataset="d", cases=cases, analyses=analyses, usage=usage or Usage()
    )


def _statuses(comparison: Comparison) -> list[tuple[int, int, str]]:
    return [(row.case_index, row.repetition, row.status) for row in comparison.cases]


# --- the join -----------------------------------------------------------------------------------


def test_reordered_candidate_rows_join_by_key_and_keep_baseline_order() -> None:
    # HELD: a candidate in another order joins the same rows; baseline order kept, candidate-only
    # rows appended in candidate order.
    base = _report(*(_case(i, _result("E", True)) for i in range(4)))
    shuffled = _report(
        _case(9, _result("E", True)),
        _case(3, _result("E", False)),
        _case(0, _result("E", True)),
        _case(7, _result("E", True)),
        _case(2, _result("E", True)),
        _case(1, _result("E", True)),
    )
    in_order = _report(
        *(_case(i, _result("E", i != 3)) for i in range(4)),
        _case(9, _result("E", True)),
        _case(7, _result("E", True)),
    )
    result = compare(base, shuffled)
    assert _statuses(result) == [
        (0, 0, "unchanged"),
        (1, 0, "unchanged"),
        (2, 0, "unchanged"),
        (3, 0, "regression"),
        (9, 0, "added"),
        (7, 0, "added"),
    ]
    assert result.to_ci_json() == compare(base, in_order).to_ci_json()
    assert [f.case_index for f in result.regressions] == [3]


def test_a_renamed_case_at_the_same_index_is_removed_and_added() -> None:
    # HELD (rows join by case name): the old name is removed (a regression: its
    # checks were lost), the new one added; the CI JSON names both.
    result = compare(
        _report(_case(0, _result("E", True), name="france")),
        _report(_case(0, _result("E", False), name="germany")),
    )
    assert [(row.baseline_name, row.candidate_name, row.status) for row in result.cases] == [
        ("france", None, "removed"),
        (None, "germany", "added"),
    ]
    assert result.has_regressions
    document = json.loads(result.to_ci_json())
    assert document["cases"][0]["baseline_name"] == "france"
    assert document["cases"][1]["candidate_name"] == "germany"


def test_repetition_counts_that_differ() -> None:
    # HELD: lost repetitions are removed (regressions), extra ones are added (neither).
    three = _report(*(_case(0, _result("E", True), repetition=r) for r in range(3)))
    one = _report(_case(0, _result("E", True)))
    fewer = compare(three, one)
    assert _statuses(fewer) == [(0, 0, "unchanged"), (0, 1, "removed"), (0, 2, "removed")]
    assert [(f.level, f.status, f.repetition) for f in fewer.regressions] == [
        ("case", "removed", 1),
        ("case", "removed", 2),
    ]
    more = compare(one, three)
    assert _statuses(more) == [(0, 0, "unchanged"), (0, 1, "added"), (0, 2, "added")]
    assert more.conclusion == "unchanged"


def test_a_renamed_evaluator_is_a_removed_check() -> None:
    # HELD
    result = compare(
        _report(_case(0, _result("ExactMatch", True))),
        _report(_case(0, _result("Equals", True))),
    )
    [row] = result.cases
    assert [(r.evaluator, r.status) for r in row.results] == [
        ("ExactMatch", "removed"),
        ("Equals", "added"),
    ]
    assert result.has_regressions


def test_duplicate_evaluator_names_pair_by_occurrence() -> None:
    # HELD
    result = compare(
        _report(_case(0, _result("E", True), _result("E", False))),
        _report(_case(0, _result("E", True), _result("E", True))),
    )
    assert [r.status for r in result.cases[0].results] == ["unchanged", "improvement"]


# --- the verdicts -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "status", "regressed"),
    [
        (True, False, "regression", True),
        (False, True, "improvement", False),
        (0.9, 0.1, "changed", False),  # documented: a score moving is "changed"
        (0.9, 0.9, "unchanged", False),
        (1, 1.0, "unchanged", False),
        (float("nan"), float("nan"), "unchanged", False),
        (float("nan"), 1.0, "changed", False),
        ("good", "bad", "changed", False),
        ("1", 1, "changed", False),
        (True, 1, "regression", True),  # an assertion became a score: ranks lower
        (1, True, "improvement", False),
        (0.5, None, "regression", True),  # None here = the evaluator errored (see below)
        (True, True, "unchanged", False),
    ],
)
def test_result_verdicts(old: Any, new: Any, status: str, regressed: bool) -> None:
    # HELD: the rank rule of ChangeStatus, including a score-only evaluator (a drop is
    # "changed", which the module documents; CI gates scores with ScoreMeanAtLeast).
    def one(value: Any) -> EvaluationReport:
        error = BOOM if value is None else None
        return _report(_case(0, _result("E", value, error=error)))

    result = compare(one(old), one(new))
    assert result.cases[0].results[0].status == status
    assert result.has_regressions is regressed


def test_task_failures() -> None:
    # HELD
    ok = _report(_case(0, _result("E", True)))
    failed = _report(_case(0, error=BOOM))
    failed_other = _report(_case(0, error=CaseError(type="builtins.ValueError", message="other")))
    assert _statuses(compare(ok, failed)) == [(0, 0, "task_failed")]
    assert [f.status for f in compare(ok, failed).regressions] == ["task_failed"]
    recovered = compare(failed, ok)
    assert _statuses(recovered) == [(0, 0, "task_recovered")]
    assert recovered.conclusion == "improved"
    both = compare(failed, failed_other)
    assert both.regressions == ()
    assert both.improvements == ()
    assert both.cases[0].candidate_error == failed_other.cases[0].error


def test_empty_reports_and_one_side_empty() -> None:
    # HELD
    empty = _report()
    nothing = compare(empty, empty)
    assert nothing.conclusion == "unchanged"
    assert json.loads(nothing.to_ci_json())["baseline"]["pass_rate"] == 1.0
    some = _report(_case(0, _result("E", True)))
    assert compare(some, empty).has_regressions
    assert not compare(empty, some).has_regressions


@pytest.mark.parametrize(
    ("old", "new", "status"),
    [
        (False, None, "improvement"),
        (None, True, "improvement"),
        (False, True, "improvement"),
        (True, None, "regression"),
        (None, False, "regression"),
        (True, False, "regression"),
        (None, None, "unchanged"),
        ("error", None, "improvement"),
        (True, "error", "regression"),
        (False, "error", "changed"),
    ],
)
def test_analysis_ranks_null_between_false_and_true(old: Any, new: Any, status: str) -> None:
    # HELD: a failed report evaluator ranks as false.
    def analysis(assertion: Any) -> ReportAnalysis:
        if assertion == "error":
            return ReportAnalysis(name="A", error=BOOM)
        return ReportAnalysis(name="A", assertion=assertion)

    result = compare(_report(analyses=(analysis(old),)), _report(analyses=(analysis(new),)))
    assert result.analyses[0].status == status


def test_a_removed_analysis_is_a_regression_and_an_added_one_is_not() -> None:
    # HELD
    with_a = _report(analyses=(ReportAnalysis(name="A", assertion=True),))
    assert compare(with_a, _report()).has_regressions
    assert compare(_report(), with_a).conclusion == "unchanged"


def test_usage_deltas_are_signed_over_the_union_of_details() -> None:
    # HELD
    base = _report(
        usage=Usage(input_tokens=100, output_tokens=50, requests=4, details={"a": 3, "b": 1})
    )
    cand = _report(
        usage=Usage(
            input_tokens=70, output_tokens=60, requests=2, details={"b": 5, "c": 2}, partial=True
        )
    )
    delta = compare(base, cand).usage_delta
    assert (delta.input_tokens, delta.output_tokens, delta.total_tokens, delta.requests) == (
        -30,
        10,
        -20,
        -2,
    )
    assert dict(delta.details) == {"a": -3, "b": 4, "c": 2}
    assert delta.partial
    document = json.loads(compare(base, cand).to_ci_json())
    assert document["usage_delta"]["details"] == {"a": -3, "b": 4, "c": 2}


# --- properties ---------------------------------------------------------------------------------

_VALUES = st.one_of(
    st.booleans(),
    st.integers(min_value=-(10**6), max_value=10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["good", "bad", ""]),
    st.none(),
)


@st.composite
def _reports(draw: st.DrawFn) -> EvaluationReport:
    names = ["A", "B", "C"]
    cases: list[CaseResult] = []
    for index in range(draw(st.integers(0, 4))):
        for repetition in range(draw(st.integers(1, 2))):
            results = tuple(
                _result(n, value, error=BOOM if value is None else None)
                for n in draw(st.lists(st.sampled_from(names), unique=True, max_size=3))
                for value in [draw(_VALUES)]
            )
            error = BOOM if draw(st.integers(0, 9)) == 0 else None
            cases.append(_case(index, *results, repetition=repetition, error=error))
    analyses = tuple(
        ReportAnalysis(name=n, assertion=draw(st.sampled_from([True, False, None])))
        for n in draw(st.lists(st.sampled_from(names), unique=True, max_size=3))
    )
    usage = Usage(input_tokens=draw(st.integers(0, 1000)), output_tokens=draw(st.integers(0, 1000)))
    return _report(*cases, analyses=analyses, usage=usage)


def _retimed(report: EvaluationReport, seed: int) -> EvaluationReport:
    rng = random.Random(seed)
    span = SpanRecord(
        name="s",
        trace_id=f"{rng.getrandbits(128):032x}",
        span_id=f"{rng.getrandbits(64):016x}",
        parent_span_id=None,
        kind="INTERNAL",
        start_time_ns=rng.randrange(10**18),
        end_time_ns=rng.randrange(10**18),
        status="OK",
        status_description=None,
        attributes={"t": rng.random()},
    )
    cases = tuple(
        dataclasses.replace(case, duration=rng.random() * 10, attempts=case.attempts, spans=(span,))
        for case in report.cases
    )
    return dataclasses.replace(
        report,
        cases=cases,
        started_at=f"2026-0{rng.randrange(1, 9)}-01T00:00:00Z",
        duration=rng.random(),
    )


@settings(max_examples=150, deadline=None)
@given(report=_reports(), seed=st.integers(0, 2**32))
def test_a_report_against_itself_has_nothing_to_say(report: EvaluationReport, seed: int) -> None:
    # HELD: compare(a, a) has no findings, and the CI JSON ignores clocks, durations, span times.
    result = compare(report, report)
    assert result.regressions == ()
    assert result.improvements == ()
    assert result.conclusion == "unchanged"
    text = result.to_ci_json()
    assert text == compare(report, report).to_ci_json()
    assert compare(_retimed(report, seed), _retimed(report, seed + 1)).to_ci_json() == text
    json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in CI JSON"))


@settings(max_examples=150, deadline=None)
@given(base=_reports(), cand=_reports())
def test_swapping_sides_swaps_regressions_and_improvements(
    base: EvaluationReport, cand: EvaluationReport
) -> None:
    # HELD: over rows and results both sides hold (removed/added are deliberately asymmetric).
    forward = compare(base, cand)
    backward = compare(cand, base)
    swap = {
        "regression": "improvement",
        "improvement": "regression",
        "task_failed": "task_recovered",
        "task_recovered": "task_failed",
    }

    def shared(findings: tuple[Any, ...]) -> set[tuple[Any, ...]]:
        return {
            (f.level, f.case_index, f.repetition, f.evaluator, f.status)
            for f in findings
            if f.status not in ("removed", "added")
        }

    assert {(lv, i, r, e, swap[s]) for lv, i, r, e, s in shared(forward.regressions)} == shared(
        backward.improvements
    )
    assert {(lv, i, r, e, swap[s]) for lv, i, r, e, s in shared(forward.improvements)} == shared(
        backward.regressions
    )


def test_ci_json_is_independent_of_completion_order(tmp_path: Path) -> None:
    # HELD: two concurrent runs finishing in different orders give byte-identical CI JSON, also
    # after a trip through report files in another folder and format.
    dataset = Dataset(
        name="d",
        cases=tuple(Case(name=f"c{i}", inputs=i, expected_output=i % 3) for i in range(12)),
        evaluators=(ExactMatch(),),
    )

    def task_for(seed: int) -> Any:
        rng = random.Random(seed)
        delays = [rng.random() / 50 for _ in range(40)]

        async def task(inputs: int) -> int:
            await anyio.sleep(delays[inputs])
            return inputs % 3 if inputs != 5 else -1

        return task

    baseline = dataset.evaluate_sync(task_for(1), max_concurrency=4, repetitions=2)
    first = dataset.evaluate_sync(task_for(2), max_concurrency=4, repetitions=2)
    second = dataset.evaluate_sync(task_for(3), max_concurrency=6, repetitions=2)
    text = compare(baseline, first).to_ci_json()
    assert text == compare(baseline, second).to_ci_json()
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    save_report(baseline, tmp_path / "a" / "base.json")
    save_report(second, tmp_path / "b" / "cand.yaml")
    reloaded = compare(
        load_report(tmp_path / "a" / "base.json"), load_report(tmp_path / "b" / "cand.yaml")
    )
    assert reloaded.to_ci_json() == text
    assert str(tmp_path) not in text
    save_comparison(reloaded, tmp_path / "c.json")
    assert (tmp_path / "c.json").read_text(encoding="utf-8") == text
    assert "id" not in {k.lower() for k in json.loads(text)}


def test_ci_json_is_the_same_for_a_report_and_its_saved_copy(tmp_path: Path) -> None:
    # HELD (fixed): an analysis value is a float in the comparison and in the report file.
    # Was: a report evaluator returning ``len(...)`` (an int) gave "baseline_value": 3 in memory
    # and 3.0 once the report went through a file, so the CI document of a fresh run and of
    # its stored artifact differed (and re-saving the report changed its bytes).
    report = _report(analyses=(ReportAnalysis(name="Count", value=3, unit="cases"),))
    save_report(report, tmp_path / "r.json")
    reloaded = load_report(tmp_path / "r.json")
    assert reloaded == report
    assert compare(reloaded, reloaded).to_ci_json() == compare(report, report).to_ci_json()
    [analysis] = json.loads(compare(report, report).to_ci_json())["analyses"]
    assert type(analysis["baseline_value"]) is float
    save_report(reloaded, tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == (tmp_path / "r.json").read_bytes()


def test_a_huge_integer_score_does_not_crash_the_comparison() -> None:
    # HELD (fixed): isnan is asked of floats only and a delta that overflows a float is None.
    # Was: compare() called math.isnan()/float() on a 10**400 score and raised OverflowError.
    report = _report(_case(0, _result("Digits", 10**400)))
    assert compare(report, report).conclusion == "unchanged"
    assert compare(report, report).cases[0].results[0].status == "unchanged"
    assert compare(_report(_case(0, _result("Digits", 1.0))), report).conclusion == "unchanged"
    [change] = compare(_report(_case(0, _result("Digits", 1.0))), report).cases[0].results
    assert (change.status, change.delta) == ("changed", None)
    [near] = compare(_report(_case(0, _result("Digits", 10**400 - 1))), report).cases[0].results
    assert (near.status, near.delta) == ("changed", 1.0)
    assert (
        json.loads(compare(report, report).to_ci_json())["cases"][0]["results"][0]["baseline"]
        == 10**400
    )


def test_labels_and_descriptions_with_control_characters_stay_one_json_line() -> None:
    # HELD: a label holding newlines/escapes is escaped in the CI JSON and its description.
    nasty = "ok\n\x1b[2J\u2028</script>"
    result = compare(
        _report(_case(0, _result("E", True), name=nasty)),
        _report(_case(0, _result("E", False), name=nasty)),
    )
    text = result.to_ci_json()
    assert "\x1b" not in text
    assert all(line.startswith(" ") or line in ("{", "}") for line in text.rstrip("\n").split("\n"))
    [finding] = json.loads(text)["regressions"]
    assert repr(nasty) in finding["description"]  # repr: no raw escape reaches a terminal


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(report=_reports())
def test_ci_json_survives_a_report_file_round_trip(
    tmp_path: Path, report: EvaluationReport
) -> None:
    # HELD: for runner-shaped reports (float analysis values) the file trip changes nothing.
    path = tmp_path / "r.yaml"
    save_report(report, path)
    assert compare(load_report(path), report).to_ci_json() == compare(report, report).to_ci_json()
