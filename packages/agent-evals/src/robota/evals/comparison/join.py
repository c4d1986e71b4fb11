"""Comparing two reports (seed 002, "Evaluations": eval_compare joins baseline and candidate
runs case by case and repetition by repetition, then joins ordinary and trace results by
evaluator name; it preserves baseline order and appends candidate-only values in candidate
order, making output independent of execution completion order).

The case key is the case's **name** (unique within a dataset, which :class:`~robota.evals.Dataset`
enforces) with the repetition, not its position: a case inserted at the top of a dataset moves
every other case down one index, and an index join would compare each case with its
predecessor (false regressions, and the last case reported as added). The seed's words are
``(case_index, repetition)``; the name is the stable identity of a case in a dataset that
evolves, so this module joins on ``(name, repetition)`` and keeps both reports' indexes on each
row. A case renamed between the two runs is one case removed and one added.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

from robota.core.usage import Usage
from robota.evals.comparison.model import (
    IMPROVEMENTS,
    REGRESSIONS,
    AnalysisChange,
    CaseChange,
    CaseStatus,
    ChangeStatus,
    Comparison,
    Finding,
    ResultChange,
    UsageDelta,
)
from robota.evals.evaluators.base import EvaluationValue
from robota.evals.report.model import CaseResult, EvaluationReport, EvaluatorResult, ReportAnalysis

__all__ = ["compare"]

_T = TypeVar("_T")


def compare(baseline: EvaluationReport, candidate: EvaluationReport) -> Comparison:
    """Compare ``candidate`` with ``baseline``.

    Rows join on (case name, repetition) — not on the case's position, so inserting, removing or
    reordering cases changes nothing for the others — and results on evaluator name; the
    baseline's order is kept and candidate-only rows and results follow in the candidate's order
    (a key that repeats within one report pairs by occurrence). Each row carries the case's index
    in both reports. A renamed case is ``"removed"`` under its old name (a regression: its checks
    were lost) and ``"added"`` under its new one. Timing (``started_at``, durations, span times)
    is never read.

    Returns:
        The comparison; :attr:`~robota.evals.comparison.model.Comparison.has_regressions` is the
        CI verdict.

    Example:
        >>> from robota.evals import CaseResult, EvaluationReport, EvaluatorResult
        >>> def report(passed):
        ...     case = CaseResult(case_index=0, name="france",
        ...                       results=(EvaluatorResult(name="ExactMatch", value=passed),))
        ...     return EvaluationReport(name="run", dataset="capitals", cases=(case,))
        >>> result = compare(report(True), report(False))
        >>> result.conclusion, [f.describe() for f in result.regressions]
        ('regressed', ["case 'france' #0 rep 0: ExactMatch True -> False (regression)"])
    """
    rows = tuple(
        _case_change(old, new)
        for old, new in _join(
            baseline.cases, candidate.cases, lambda case: (case.name, case.repetition)
        )
    )
    analyses = tuple(
        _analysis_change(old, new)
        for old, new in _join(baseline.analyses, candidate.analyses, lambda a: a.name)
    )
    findings = _findings(rows, analyses)
    return Comparison(
        baseline_name=baseline.name,
        candidate_name=candidate.name,
        baseline_dataset=baseline.dataset,
        candidate_dataset=candidate.dataset,
        baseline_pass_rate=baseline.pass_rate(),
        candidate_pass_rate=candidate.pass_rate(),
        cases=rows,
        analyses=analyses,
        usage_delta=_usage_delta(baseline.usage, candidate.usage),
        regressions=tuple(f for f in findings if f.status in REGRESSIONS),
        improvements=tuple(f for f in findings if f.status in IMPROVEMENTS),
    )


def _join(
    baseline: Sequence[_T], candidate: Sequence[_T], key: Callable[[_T], Hashable]
) -> list[tuple[_T | None, _T | None]]:
    """Pairs by key (and occurrence of the key): baseline order, then candidate-only items in
    candidate order."""

    def keyed(items: Sequence[_T]) -> list[tuple[tuple[Hashable, int], _T]]:
        seen: dict[Hashable, int] = {}
        out: list[tuple[tuple[Hashable, int], _T]] = []
        for item in items:
            k = key(item)
            out.append(((k, seen.get(k, 0)), item))
            seen[k] = seen.get(k, 0) + 1
        return out

    old = keyed(baseline)
    new = keyed(candidate)
    by_key = dict(new)
    old_keys = {k for k, _ in old}
    pairs: list[tuple[_T | None, _T | None]] = [(item, by_key.get(k)) for k, item in old]
    pairs += [(None, item) for k, item in new if k not in old_keys]
    return pairs


def _rank(passed: bool | None) -> int:
    """False < None < True (seed 002: a null assertion ranks between false and true)."""
    return 1 if passed is None else (2 if passed else 0)


def _is_nan(value: object) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _same(left: EvaluationValue | None, right: EvaluationValue | None) -> bool:
    """Equal values of one kind: numbers by exact value (1 is 1.0, NaN is NaN, an int of any
    size compares without overflow), but True is not 1 and "1" is not 1."""
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right
    if isinstance(left, int | float) and isinstance(right, int | float):
        if _is_nan(left) or _is_nan(right):
            return _is_nan(left) and _is_nan(right)
        return left == right
    return type(left) is type(right) and left == right


def _delta(left: object, right: object) -> float | None:
    """``right - left`` as a float when both are numbers (not bools) and it is finite; None
    otherwise, also when an int is too large for a float (``10**400``)."""
    numbers = (int, float)
    if isinstance(left, bool) or isinstance(right, bool):
        return None
    if not isinstance(left, numbers) or not isinstance(right, numbers):
        return None
    try:
        delta = float(right - left)
    except OverflowError:
        return None
    return delta if math.isfinite(delta) else None


def _analysis_value(value: float | None) -> float | None:
    """An analysis value as a float (an int from a report evaluator reads back from a report
    file as a float: the comparison must not tell the two apart)."""
    return None if value is None else float(value)


def _moved(old_rank: int, new_rank: int, same: bool) -> ChangeStatus:
    if new_rank < old_rank:
        return "regression"
    if new_rank > old_rank:
        return "improvement"
    return "unchanged" if same else "changed"


def _result_change(old: EvaluatorResult | None, new: EvaluatorResult | None) -> ResultChange:
    if old is None or new is None:
        only = new if old is None else old
        assert only is not None
        return ResultChange(
            evaluator=only.name,
            source=only.source,
            status="added" if old is None else "removed",
            baseline=None if old is None else old.value,
            candidate=None if new is None else new.value,
            baseline_error=None if old is None else old.error,
            candidate_error=None if new is None else new.error,
        )
    same = _same(old.value, new.value) and (old.error is None) == (new.error is None)
    return ResultChange(
        evaluator=new.name,
        source=new.source,
        status=_moved(_rank(old.passed), _rank(new.passed), same),
        baseline=old.value,
        candidate=new.value,
        baseline_error=old.error,
        candidate_error=new.error,
        delta=_delta(old.value, new.value),
    )


def _case_change(old: CaseResult | None, new: CaseResult | None) -> CaseChange:
    only = new if old is None else old
    assert only is not None
    results = tuple(
        _result_change(a, b)
        for a, b in _join(
            old.results if old is not None else (),
            new.results if new is not None else (),
            lambda r: r.name,
        )
    )
    status: CaseStatus
    if old is None:
        status = "added"
    elif new is None:
        status = "removed"
    elif new.error is not None and old.error is None:
        status = "task_failed"
    elif old.error is not None and new.error is None:
        status = "task_recovered"
    else:
        statuses = {r.status for r in results}
        if statuses & REGRESSIONS:
            status = "regression"
        elif statuses & IMPROVEMENTS:
            status = "improvement"
        elif statuses - {"unchanged"}:
            status = "changed"
        else:
            status = "unchanged"
    return CaseChange(
        case_index=only.case_index if new is None else new.case_index,
        repetition=only.repetition,
        baseline_case_index=None if old is None else old.case_index,
        candidate_case_index=None if new is None else new.case_index,
        status=status,
        baseline_name=None if old is None else old.name,
        candidate_name=None if new is None else new.name,
        baseline_passed=None if old is None else old.passed,
        candidate_passed=None if new is None else new.passed,
        baseline_error=None if old is None else old.error,
        candidate_error=None if new is None else new.error,
        results=results,
    )


def _analysis_rank(analysis: ReportAnalysis) -> int:
    return _rank(False if analysis.error is not None else analysis.assertion)


def _analysis_change(old: ReportAnalysis | None, new: ReportAnalysis | None) -> AnalysisChange:
    only = new if old is None else old
    assert only is not None
    if old is None or new is None:
        status: ChangeStatus = "added" if old is None else "removed"
    else:
        same = (
            old.assertion is new.assertion
            and _same(old.value, new.value)
            and (old.error is None) == (new.error is None)
        )
        status = _moved(_analysis_rank(old), _analysis_rank(new), same)
    return AnalysisChange(
        name=only.name,
        status=status,
        baseline_assertion=None if old is None else old.assertion,
        candidate_assertion=None if new is None else new.assertion,
        baseline_value=None if old is None else _analysis_value(old.value),
        candidate_value=None if new is None else _analysis_value(new.value),
        unit=new.unit if new is not None and new.unit is not None else only.unit,
        baseline_error=None if old is None else old.error,
        candidate_error=None if new is None else new.error,
        delta=None if old is None or new is None else _delta(old.value, new.value),
    )


def _findings(rows: tuple[CaseChange, ...], analyses: tuple[AnalysisChange, ...]) -> list[Finding]:
    found: list[Finding] = []
    for row in rows:
        if row.status in ("removed", "task_failed", "task_recovered"):
            found.append(
                Finding(
                    level="case",
                    status=row.status,
                    case_index=row.case_index,
                    repetition=row.repetition,
                    case=row.name,
                    baseline=row.baseline_passed,
                    candidate=row.candidate_passed,
                )
            )
            continue
        if row.status == "added":
            continue
        for result in row.results:
            if result.status in REGRESSIONS or result.status in IMPROVEMENTS:
                found.append(
                    Finding(
                        level="result",
                        status=result.status,
                        case_index=row.case_index,
                        repetition=row.repetition,
                        case=row.name,
                        evaluator=result.evaluator,
                        baseline=result.baseline,
                        candidate=result.candidate,
                    )
                )
    for analysis in analyses:
        if analysis.status in REGRESSIONS or analysis.status in IMPROVEMENTS:
            found.append(
                Finding(
                    level="analysis",
                    status=analysis.status,
                    evaluator=analysis.name,
                    baseline=analysis.baseline_assertion,
                    candidate=analysis.candidate_assertion,
                )
            )
    return found


def _usage_delta(old: Usage, new: Usage) -> UsageDelta:
    keys = sorted(set(old.details) | set(new.details))
    return UsageDelta(
        input_tokens=new.input_tokens - old.input_tokens,
        output_tokens=new.output_tokens - old.output_tokens,
        total_tokens=new.total_tokens - old.total_tokens,
        cache_read_tokens=new.cache_read_tokens - old.cache_read_tokens,
        cache_write_tokens=new.cache_write_tokens - old.cache_write_tokens,
        reasoning_tokens=new.reasoning_tokens - old.reasoning_tokens,
        requests=new.requests - old.requests,
        details={k: new.details.get(k, 0) - old.details.get(k, 0) for k in keys},
        partial=old.partial or new.partial,
    )
