"""Built-in report evaluators (seed 002, "Evaluations": checks over the whole finished run that
see an immutable :class:`~robota.evals.report.ReportView` — a pass-rate floor, a score-mean
floor, a token ceiling, a case count).

Frozen dataclasses with JSON-compatible fields, each with the keyword ``evaluation_name`` (its
report name; default: the class name). Each returns a
:class:`~robota.evals.report.ReportAnalysis` with a value, a unit and a reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from robota.evals.evaluators._named import NamedReportEvaluator
from robota.evals.report.model import ReportAnalysis, ReportView

__all__ = ["CaseCount", "MaxTotalTokens", "PassRateAtLeast", "ScoreMeanAtLeast"]

PARTIAL_NOTE = " (usage is partial: a provider did not attest complete counts)"
"""Appended to a reason computed from usage marked ``partial``."""


def _at_least(value: float, minimum: float) -> bool:
    """``value >= minimum``, forgiving float rounding (``0.7 * 3 / 3``)."""
    return value >= minimum or math.isclose(value, minimum, rel_tol=1e-9, abs_tol=1e-12)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _percents(rate: float, minimum: float, *, differ: bool) -> tuple[str, str]:
    """``rate`` and ``minimum`` as percentages with one decimal, or with as many more as it
    takes for a failing rate to read differently from its floor (1999/2000 against 100% reads
    ``99.95%``, not ``100.0%``)."""
    digits = 1
    while True:
        shown, floor = f"{rate:.{digits}%}", f"{minimum:.{digits}%}"
        if not differ or shown != floor or digits >= 17:
            return shown, floor
        digits += 1


def _check_finite(owner: str, label: str, value: float) -> None:
    if isinstance(value, bool) or not math.isfinite(value):
        raise ValueError(f"{owner}: {label} must be a finite number, not {value!r}")


@dataclass(frozen=True, slots=True)
class PassRateAtLeast(NamedReportEvaluator):
    """The share of passed case repetitions is at least ``minimum``
    (:meth:`~robota.evals.report.EvaluationReport.pass_rate`; an empty run counts as 1.0).
    The reason shows both as percentages with one decimal, or more when a failing rate would
    otherwise read as its floor (1999/2000 against 1.0: ``(99.95%), below 100.00%``).

    Attributes:
        minimum: The floor, a ratio from 0 to 1.

    Raises:
        ValueError: ``minimum`` outside [0, 1].

    Example:
        >>> import anyio
        >>> from robota.evals import CaseResult, EvaluationReport, EvaluatorResult, ReportView
        >>> from robota.evals.evaluators.report import run_report_evaluator
        >>> failed = EvaluatorResult(name="ExactMatch", value=False)
        >>> report = EvaluationReport(name="r", dataset="d", cases=(
        ...     CaseResult(case_index=0, name="a"),
        ...     CaseResult(case_index=1, name="b", results=(failed,))))
        >>> anyio.run(run_report_evaluator, PassRateAtLeast(0.9), ReportView(report)).reason
        '1/2 case repetitions passed (50.0%), below 90.0%'
    """

    minimum: float

    def __post_init__(self) -> None:
        _check_finite("PassRateAtLeast", "minimum", self.minimum)
        if not 0 <= self.minimum <= 1:
            raise ValueError(f"PassRateAtLeast: minimum is a ratio in [0, 1], not {self.minimum}")

    def evaluate(self, view: ReportView) -> ReportAnalysis:
        """The pass rate, asserted against :attr:`minimum`."""
        rate = view.pass_rate()
        passed = sum(case.passed for case in view.cases)
        ok = _at_least(rate, self.minimum)
        shown, floor = _percents(rate, self.minimum, differ=not ok)
        reason = (
            f"{passed}/{len(view.cases)} case repetitions passed ({shown}), "
            f"{'at least' if ok else 'below'} {floor}"
        )
        return ReportAnalysis(name=self.name, assertion=ok, value=rate, unit="ratio", reason=reason)


@dataclass(frozen=True, slots=True)
class ScoreMeanAtLeast(NamedReportEvaluator):
    """The mean of evaluator ``evaluator``'s finite scores across cases and repetitions is at
    least ``minimum`` (:meth:`~robota.evals.report.EvaluationReport.score_stats`: non-finite
    scores are left out). No finite score at all fails.

    Attributes:
        evaluator: The name of the evaluator whose scores to average.
        minimum: The floor.

    Raises:
        ValueError: a non-finite ``minimum``.

    Example:
        >>> import anyio
        >>> from robota.evals import CaseResult, EvaluationReport, EvaluatorResult, ReportView
        >>> from robota.evals.evaluators.report import run_report_evaluator
        >>> report = EvaluationReport(name="r", dataset="d", cases=tuple(
        ...     CaseResult(case_index=0, name="a", repetition=i,
        ...                results=(EvaluatorResult(name="quality", value=v),))
        ...     for i, v in enumerate([0.9, 0.7, float("nan")])))
        >>> anyio.run(run_report_evaluator, ScoreMeanAtLeast("quality", 0.75),
        ...           ReportView(report)).reason
        "mean of 2 finite 'quality' scores is 0.8, at least 0.75 (1 non-finite left out)"
    """

    evaluator: str
    minimum: float

    def __post_init__(self) -> None:
        _check_finite("ScoreMeanAtLeast", "minimum", self.minimum)

    def evaluate(self, view: ReportView) -> ReportAnalysis:
        """The mean score, asserted against :attr:`minimum`."""
        stats = view.score_stats().get(self.evaluator)
        excluded = stats.excluded if stats is not None else 0
        note = f" ({excluded} non-finite left out)" if excluded else ""
        if stats is None or stats.mean is None:
            return ReportAnalysis(
                name=self.name,
                assertion=False,
                unit="score",
                reason=f"no finite scores from evaluator {self.evaluator!r}{note}",
            )
        ok = _at_least(stats.mean, self.minimum)
        reason = (
            f"mean of {stats.count} finite {self.evaluator!r} scores is {stats.mean:.4g}, "
            f"{'at least' if ok else 'below'} {self.minimum:g}{note}"
        )
        return ReportAnalysis(
            name=self.name, assertion=ok, value=stats.mean, unit="score", reason=reason
        )


@dataclass(frozen=True, slots=True)
class MaxTotalTokens(NamedReportEvaluator):
    """The whole run used at most ``total`` tokens (input plus output, summed over every case's
    successful attempt).

    Attributes:
        total: The ceiling, in tokens.

    Raises:
        ValueError: a negative ``total``.

    Example:
        >>> import anyio
        >>> from robota.core.usage import Usage
        >>> from robota.evals import EvaluationReport, ReportView
        >>> from robota.evals.evaluators.report import run_report_evaluator
        >>> report = EvaluationReport(name="r", dataset="d",
        ...     usage=Usage(input_tokens=800, output_tokens=400))
        >>> anyio.run(run_report_evaluator, MaxTotalTokens(1000), ReportView(report)).reason
        '1200 tokens > 1000'
    """

    total: int

    def __post_init__(self) -> None:
        if self.total < 0:
            raise ValueError(f"MaxTotalTokens: total must be 0 or more, not {self.total}")

    def evaluate(self, view: ReportView) -> ReportAnalysis:
        """The run's total tokens, asserted against :attr:`total`."""
        used = view.usage.total_tokens
        ok = used <= self.total
        reason = f"{used} tokens {'<=' if ok else '>'} {self.total}"
        return ReportAnalysis(
            name=self.name,
            assertion=ok,
            value=float(used),
            unit="tokens",
            reason=reason + (PARTIAL_NOTE if view.usage.partial else ""),
        )


@dataclass(frozen=True, slots=True)
class CaseCount(NamedReportEvaluator):
    """How many case repetitions the run holds (a value, no assertion).

    Example:
        >>> import anyio
        >>> from robota.evals import CaseResult, EvaluationReport, ReportView
        >>> from robota.evals.evaluators.report import run_report_evaluator
        >>> report = EvaluationReport(name="r", dataset="d", repetitions=2, cases=tuple(
        ...     CaseResult(case_index=i, name=n, repetition=r)
        ...     for i, n in enumerate("ab") for r in range(2)))
        >>> anyio.run(run_report_evaluator, CaseCount(), ReportView(report))
        ReportAnalysis(name='CaseCount', assertion=None, value=4.0, unit='cases', reason='4 case repetitions of 2 cases', error=None)
    """

    def evaluate(self, view: ReportView) -> ReportAnalysis:
        """The number of case repetitions."""
        count = len(view.cases)
        cases = len({case.case_index for case in view.cases})
        return ReportAnalysis(
            name=self.name,
            value=float(count),
            unit="cases",
            reason=f"{_plural(count, 'case repetition')} of {_plural(cases, 'case')}",
        )
