"""Built-in report evaluators (seed 002, "Evaluations": analyses over the finished run with an
assertion, a value, a unit and a reason), run through ``run_report_evaluator``."""

from __future__ import annotations

import pytest
from robota.core.usage import Usage
from robota.evals import (
    CaseError,
    CaseResult,
    EvaluationReport,
    EvaluatorResult,
    ReportAnalysis,
    ReportView,
)
from robota.evals.evaluators.report import run_report_evaluator
from robota.evals.evaluators.reports import (
    CaseCount,
    MaxTotalTokens,
    PassRateAtLeast,
    ScoreMeanAtLeast,
)

PASS = EvaluatorResult(name="ExactMatch", value=True)
FAIL = EvaluatorResult(name="ExactMatch", value=False)


def view(*cases: CaseResult, usage: Usage | None = None) -> ReportView:
    return ReportView(
        EvaluationReport(name="run", dataset="d", cases=cases, usage=usage or Usage())
    )


def outcomes(*passed: bool) -> tuple[CaseResult, ...]:
    return tuple(
        CaseResult(case_index=i, name=f"c{i}", results=(PASS if ok else FAIL,))
        for i, ok in enumerate(passed)
    )


@pytest.mark.anyio
async def test_pass_rate_at_least() -> None:
    seven_of_ten = view(*outcomes(*[True] * 7, *[False] * 3))
    assert await run_report_evaluator(PassRateAtLeast(0.7), seven_of_ten) == ReportAnalysis(
        name="PassRateAtLeast",
        assertion=True,
        value=0.7,
        unit="ratio",
        reason="7/10 case repetitions passed (70.0%), at least 70.0%",
    )
    below = await run_report_evaluator(PassRateAtLeast(0.75), seven_of_ten)
    assert (below.assertion, below.reason) == (
        False,
        "7/10 case repetitions passed (70.0%), below 75.0%",
    )


@pytest.mark.anyio
async def test_a_failed_task_counts_against_the_pass_rate() -> None:
    crashed = CaseResult(case_index=1, name="c1", error=CaseError(type="x.Boom", message="boom"))
    analysis = await run_report_evaluator(PassRateAtLeast(1.0), view(*outcomes(True), crashed))
    assert (analysis.assertion, analysis.value) == (False, 0.5)


def test_pass_rate_minimum_is_a_ratio() -> None:
    with pytest.raises(ValueError, match=r"a ratio in \[0, 1\], not 70"):
        PassRateAtLeast(70)
    with pytest.raises(ValueError, match="finite"):
        PassRateAtLeast(float("nan"))


def scored(*scores: float) -> tuple[CaseResult, ...]:
    return tuple(
        CaseResult(
            case_index=0,
            name="c0",
            repetition=r,
            results=(PASS, EvaluatorResult(name="quality", value=score)),
        )
        for r, score in enumerate(scores)
    )


@pytest.mark.anyio
async def test_score_mean_at_least_leaves_out_non_finite_scores() -> None:
    report = view(*scored(0.9, 0.6, float("nan"), float("inf")))
    analysis = await run_report_evaluator(ScoreMeanAtLeast("quality", 0.75), report)
    assert analysis == ReportAnalysis(
        name="ScoreMeanAtLeast",
        assertion=True,
        value=0.75,
        unit="score",
        reason="mean of 2 finite 'quality' scores is 0.75, at least 0.75 (2 non-finite left out)",
    )
    higher = await run_report_evaluator(ScoreMeanAtLeast("quality", 0.8), report)
    assert higher.assertion is False


@pytest.mark.anyio
async def test_score_mean_without_scores_fails() -> None:
    only_nan = await run_report_evaluator(
        ScoreMeanAtLeast("quality", 0.5), view(*scored(float("nan")))
    )
    assert only_nan == ReportAnalysis(
        name="ScoreMeanAtLeast",
        assertion=False,
        unit="score",
        reason="no finite scores from evaluator 'quality' (1 non-finite left out)",
    )
    unknown = await run_report_evaluator(ScoreMeanAtLeast("typo", 0.5), view(*scored(0.9)))
    assert (unknown.assertion, unknown.value, unknown.reason) == (
        False,
        None,
        "no finite scores from evaluator 'typo'",
    )


@pytest.mark.anyio
async def test_max_total_tokens() -> None:
    usage = Usage(input_tokens=700, output_tokens=300)
    assert await run_report_evaluator(MaxTotalTokens(1000), view(usage=usage)) == ReportAnalysis(
        name="MaxTotalTokens",
        assertion=True,
        value=1000.0,
        unit="tokens",
        reason="1000 tokens <= 1000",
    )
    partial = Usage(input_tokens=700, output_tokens=301, partial=True)
    over = await run_report_evaluator(MaxTotalTokens(1000), view(usage=partial))
    assert (over.assertion, over.reason) == (
        False,
        "1001 tokens > 1000 (usage is partial: a provider did not attest complete counts)",
    )
    with pytest.raises(ValueError, match="0 or more"):
        MaxTotalTokens(-1)


@pytest.mark.anyio
async def test_case_count_is_a_value_only_analysis() -> None:
    analysis = await run_report_evaluator(CaseCount(), view(*scored(0.1, 0.2, 0.3)))
    assert analysis == ReportAnalysis(
        name="CaseCount", value=3.0, unit="cases", reason="3 case repetitions of 1 case"
    )
    empty = await run_report_evaluator(CaseCount(), view())
    assert (empty.assertion, empty.value) == (None, 0.0)


@pytest.mark.anyio
async def test_evaluation_name_names_the_analysis() -> None:
    check = ScoreMeanAtLeast("quality", 0.1, evaluation_name="quality floor")
    analysis = await run_report_evaluator(check, view(*scored(0.5)))
    assert (analysis.name, analysis.assertion) == ("quality floor", True)
