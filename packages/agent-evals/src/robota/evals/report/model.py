"""What an evaluation run produces (seed 002, "Evaluations"): one :class:`EvaluationReport`
holding a :class:`CaseResult` per (case, repetition) in source order, the report evaluators'
:class:`ReportAnalysis` values, aggregate usage and timing.

Every value here is immutable; report evaluators see the finished report through
:class:`ReportView` and cannot change case outcomes.
"""

from __future__ import annotations

import copy
import math
import statistics
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from robota.core.usage import Usage
from robota.evals.evaluators.base import EvaluationValue
from robota.evals.spans import SpanRecord

__all__ = [
    "CaseError",
    "CaseResult",
    "EvaluationReport",
    "EvaluatorResult",
    "ReportAnalysis",
    "ReportView",
    "ScoreStats",
]


@dataclass(frozen=True, kw_only=True, slots=True)
class CaseError:
    """Why a task or an evaluator failed (after its retries).

    Attributes:
        type: The exception's fully qualified class name, e.g.
            ``"robota.core.errors.RateLimitError"``.
        message: ``str(exception)``.
        code: A :class:`~robota.core.errors.RobotaError`'s ``error_code``, else None.
    """

    type: str
    message: str
    code: str | None = None

    @classmethod
    def of(cls, error: BaseException) -> CaseError:
        """The record of ``error``."""
        kind = type(error)
        return cls(
            type=f"{kind.__module__}.{kind.__qualname__}",
            message=str(error),
            code=getattr(error, "error_code", None),
        )


@dataclass(frozen=True, kw_only=True, slots=True)
class EvaluatorResult:
    """One evaluator's verdict on one case repetition.

    Attributes:
        name: The evaluator's name.
        source: ``"case"`` for an ordinary evaluator, ``"trace"`` for a trace evaluator.
        value: The assertion, score or label; None when the evaluator failed.
        reason: The evaluator's reason (None: none).
        error: Why the evaluator failed after its retries (None: it did not).
        attempts: Evaluator attempts it took.
    """

    name: str
    source: Literal["case", "trace"] = "case"
    value: EvaluationValue | None = None
    reason: str | None = None
    error: CaseError | None = None
    attempts: int = 1

    @property
    def kind(self) -> Literal["assertion", "score", "label", "error"]:
        """What the value is."""
        if self.error is not None or self.value is None:
            return "error"
        if isinstance(self.value, bool):
            return "assertion"
        if isinstance(self.value, int | float):
            return "score"
        return "label"

    @property
    def passed(self) -> bool | None:
        """The assertion (True/False), False for a failed evaluator, None for a score or label."""
        if self.error is not None:
            return False
        return self.value if isinstance(self.value, bool) else None


@dataclass(frozen=True, kw_only=True, slots=True)
class CaseResult:
    """One case repetition's outcome.

    Attributes:
        case_index: The case's position in the dataset (0-based).
        name: The case's name.
        repetition: Which repetition (0-based).
        inputs: The case's inputs (JSON-compatible form).
        expected_output: The expected output (JSON-compatible form; None: none).
        metadata: The case's metadata.
        output: The task's output (JSON-compatible form); None when the task failed.
        error: Why the task failed after its retries (None: it did not).
        attempts: Task attempts made.
        duration: Seconds the last task attempt took.
        usage: Token usage of the successful attempt.
        results: Ordinary then trace evaluator results, in the dataset's order.
        spans: The spans captured while the case ran (empty without trace evaluators).
    """

    case_index: int
    name: str
    repetition: int = 0
    inputs: Any = None
    expected_output: Any = None
    metadata: Mapping[str, Any] = field(default_factory=lambda: {})
    output: Any = None
    error: CaseError | None = None
    attempts: int = 1
    duration: float = 0.0
    usage: Usage = field(default_factory=Usage)
    results: tuple[EvaluatorResult, ...] = ()
    spans: tuple[SpanRecord, ...] = ()

    @property
    def passed(self) -> bool:
        """True when the task succeeded and no assertion failed and no evaluator failed."""
        return self.error is None and all(r.passed is not False for r in self.results)

    def result(self, name: str) -> EvaluatorResult | None:
        """The result of the evaluator called ``name`` (None: none)."""
        return next((r for r in self.results if r.name == name), None)


@dataclass(frozen=True, kw_only=True, slots=True)
class ReportAnalysis:
    """One report evaluator's scalar analysis (seed 002: a pass/fail assertion, a value, a unit
    and a reason; any may be absent).

    Attributes:
        name: The report evaluator's name.
        assertion: Pass (True), fail (False) or no assertion (None).
        value: A finite number (non-finite values are refused), or None.
        unit: The value's unit, e.g. ``"ratio"``, ``"USD"``, ``"s"``.
        reason: Why.
        error: Why the report evaluator failed (None: it did not); the analysis then asserts
            nothing and counts as failed in comparisons.
    """

    name: str
    assertion: bool | None = None
    value: float | None = None
    unit: str | None = None
    reason: str | None = None
    error: CaseError | None = None

    def __post_init__(self) -> None:
        if self.value is not None and not math.isfinite(self.value):
            raise ValueError(f"report analysis {self.name!r}: value {self.value!r} is not finite")


def _float(value: EvaluationValue | None) -> float:
    """A score as a float: NaN for an integer beyond the float range (so it counts as
    non-finite)."""
    try:
        return float(value)  # type: ignore[arg-type]
    except OverflowError:
        return math.nan


@dataclass(frozen=True, kw_only=True, slots=True)
class ScoreStats:
    """Statistics of one evaluator's finite scores across cases and repetitions.

    Attributes:
        name: The evaluator's name.
        count: Finite scores counted.
        excluded: Non-finite scores left out.
        mean: Arithmetic mean (None when count is 0).
        minimum: Smallest (None when count is 0).
        maximum: Largest (None when count is 0).
        stdev: Sample standard deviation (None when count < 2).
    """

    name: str
    count: int
    excluded: int = 0
    mean: float | None = None
    minimum: float | None = None
    maximum: float | None = None
    stdev: float | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class EvaluationReport:
    """The outcome of one dataset run.

    Attributes:
        name: The run's name (default: the dataset's name).
        dataset: The dataset's name.
        cases: One result per (case, repetition), in source order: case 0 repetitions 0..n-1,
            then case 1, ... regardless of completion order.
        analyses: Report evaluators' analyses, in the dataset's order.
        repetitions: Repetitions per case.
        usage: Usage summed over every case's successful attempt.
        started_at: When the run started, ISO 8601 UTC (``"2026-12-02T10:00:00Z"``).
        duration: Seconds the whole run took.
        evaluators: Names of the ordinary, trace and report evaluators, in order.
    """

    name: str
    dataset: str
    cases: tuple[CaseResult, ...] = ()
    analyses: tuple[ReportAnalysis, ...] = ()
    repetitions: int = 1
    usage: Usage = field(default_factory=Usage)
    started_at: str = ""
    duration: float = 0.0
    evaluators: tuple[str, ...] = ()

    def pass_rate(self) -> float:
        """Passed case repetitions over all of them (1.0 for an empty report)."""
        if not self.cases:
            return 1.0
        return sum(c.passed for c in self.cases) / len(self.cases)

    def case_pass_rates(self) -> dict[str, float]:
        """Per source case (by name, in source order): its passed repetitions over its
        repetitions."""
        totals: dict[str, list[int]] = {}
        for case in self.cases:
            passed, seen = totals.setdefault(case.name, [0, 0])
            totals[case.name] = [passed + case.passed, seen + 1]
        return {name: passed / seen for name, (passed, seen) in totals.items()}

    def score_stats(self) -> dict[str, ScoreStats]:
        """Per evaluator that gave scores (by name, in first-seen order): statistics of its
        finite scores; non-finite scores (NaN, infinities, and integers beyond the float range,
        e.g. ``10**400``) are counted in ``excluded`` and left out."""
        values: dict[str, list[float]] = {}
        excluded: dict[str, int] = {}
        for case in self.cases:
            for result in case.results:
                if result.kind != "score":
                    continue
                score = _float(result.value)
                values.setdefault(result.name, [])
                if math.isfinite(score):
                    values[result.name].append(score)
                else:
                    excluded[result.name] = excluded.get(result.name, 0) + 1
        stats: dict[str, ScoreStats] = {}
        for name, scores in values.items():
            stats[name] = ScoreStats(
                name=name,
                count=len(scores),
                excluded=excluded.get(name, 0),
                mean=statistics.fmean(scores) if scores else None,
                minimum=min(scores) if scores else None,
                maximum=max(scores) if scores else None,
                stdev=statistics.stdev(scores) if len(scores) > 1 else None,
            )
        return stats

    def analysis(self, name: str) -> ReportAnalysis | None:
        """The analysis of the report evaluator called ``name`` (None: none)."""
        return next((a for a in self.analyses if a.name == name), None)


@dataclass(frozen=True, slots=True)
class ReportView:
    """What a report evaluator sees: the finished report before its analyses, read-only
    (seed 002: report evaluators run after every case is joined and usage is summed, and
    cannot mutate case outcomes).

    The view holds its own deep copy of the report, made when it is built: an evaluator that
    changes a case's output, metadata or inputs in place changes only that copy, never the
    report the run returns (the runner builds one view per report evaluator, so one evaluator's
    changes never reach the next either).

    Attributes:
        report: The view's copy of the report, with ``analyses`` empty.
    """

    report: EvaluationReport

    def __post_init__(self) -> None:
        object.__setattr__(self, "report", copy.deepcopy(self.report))

    @property
    def cases(self) -> tuple[CaseResult, ...]:
        """Every case repetition's result, in source order."""
        return self.report.cases

    @property
    def usage(self) -> Usage:
        """Usage summed over the run."""
        return self.report.usage

    def pass_rate(self) -> float:
        """See :meth:`EvaluationReport.pass_rate`."""
        return self.report.pass_rate()

    def case_pass_rates(self) -> dict[str, float]:
        """See :meth:`EvaluationReport.case_pass_rates`."""
        return self.report.case_pass_rates()

    def score_stats(self) -> dict[str, ScoreStats]:
        """See :meth:`EvaluationReport.score_stats`."""
        return self.report.score_stats()
