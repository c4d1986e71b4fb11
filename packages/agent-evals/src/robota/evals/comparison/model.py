"""What a baseline-versus-candidate comparison holds (seed 002, "Evaluations": comparison is a
separate pure-data stage; removed checks and pass-to-fail changes are regressions, fail-to-pass
changes are improvements; it carries signed aggregate usage deltas and no clocks, process
paths or random identifiers).

Every value is immutable and built only from the two reports' durable results — never their
``started_at``, durations or span timings — so equal inputs give equal comparisons.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from robota.evals.evaluators.base import EvaluationValue
from robota.evals.report.model import CaseError

__all__ = [
    "AnalysisChange",
    "CaseChange",
    "CaseStatus",
    "ChangeStatus",
    "Comparison",
    "Finding",
    "ResultChange",
    "UsageDelta",
]

ChangeStatus: TypeAlias = Literal[
    "unchanged", "changed", "regression", "improvement", "removed", "added"
]
"""How one evaluator result or report analysis moved:

- ``"regression"``: its outcome ranks lower in the candidate (pass to fail; an evaluator
  that errors counts as failing; for analyses a null assertion ranks between false and true);
- ``"improvement"``: it ranks higher (fail to pass);
- ``"removed"``: only the baseline has it — a regression (a check was lost);
- ``"added"``: only the candidate has it — neither;
- ``"changed"``: same rank, another value (a score or label moved; a check failing another
  way);
- ``"unchanged"``: the same value."""

CaseStatus: TypeAlias = Literal[
    "unchanged",
    "changed",
    "regression",
    "improvement",
    "removed",
    "added",
    "task_failed",
    "task_recovered",
]
"""How one (case, repetition) moved: ``"removed"``/``"added"`` when one report lacks it (a
case renamed between the runs is removed under its old name and added under its new one),
``"task_failed"`` (a regression) when only the candidate's task failed, ``"task_recovered"``
(an improvement) when only the baseline's did; otherwise the most severe of its results'
statuses (regression, then improvement, then changed)."""

REGRESSIONS: frozenset[str] = frozenset({"regression", "removed", "task_failed"})
"""The statuses that are regressions."""
IMPROVEMENTS: frozenset[str] = frozenset({"improvement", "task_recovered"})
"""The statuses that are improvements."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ResultChange:
    """One evaluator's result on one (case, repetition), baseline against candidate.

    Attributes:
        evaluator: The evaluator's name (results join on it).
        source: ``"case"`` (ordinary) or ``"trace"`` (the candidate's, when it has one).
        status: See :data:`ChangeStatus`.
        baseline: The baseline's value (None: absent, or the evaluator failed).
        candidate: The candidate's value (None: absent, or the evaluator failed).
        baseline_error: Why the baseline's evaluator failed (None: it did not, or is absent).
        candidate_error: Why the candidate's evaluator failed.
        delta: ``candidate - baseline`` when both are numbers (not bools) and it is finite,
            else None.
    """

    evaluator: str
    source: Literal["case", "trace"] = "case"
    status: ChangeStatus
    baseline: EvaluationValue | None = None
    candidate: EvaluationValue | None = None
    baseline_error: CaseError | None = None
    candidate_error: CaseError | None = None
    delta: float | None = None

    @property
    def is_regression(self) -> bool:
        """Whether this is a regression (``"regression"`` or ``"removed"``)."""
        return self.status in REGRESSIONS

    @property
    def is_improvement(self) -> bool:
        """Whether this is an improvement."""
        return self.status in IMPROVEMENTS


@dataclass(frozen=True, kw_only=True, slots=True)
class CaseChange:
    """One (case name, repetition) row: the same case and repetition in both reports, joined by
    the case's name, whatever its position in either dataset.

    Attributes:
        case_index: The case's position (0-based) in the candidate's dataset, else (a removed
            case) in the baseline's.
        repetition: The repetition (0-based).
        status: See :data:`CaseStatus`.
        baseline_name: The case's name in the baseline (None: absent there).
        candidate_name: The case's name in the candidate (None: absent there); equal to
            ``baseline_name`` when both are present.
        baseline_passed: Whether the baseline's run passed (None: absent).
        candidate_passed: Whether the candidate's run passed (None: absent).
        baseline_error: Why the baseline's task failed (None: it did not, or is absent).
        candidate_error: Why the candidate's task failed.
        results: Baseline results in baseline order, then candidate-only ones in candidate
            order.
        baseline_case_index: The case's position in the baseline's dataset (0-based; None:
            absent there).
        candidate_case_index: Its position in the candidate's dataset (None: absent there). The
            two differ when cases were inserted, removed or reordered before it.
    """

    case_index: int
    repetition: int
    status: CaseStatus
    baseline_name: str | None = None
    candidate_name: str | None = None
    baseline_passed: bool | None = None
    candidate_passed: bool | None = None
    baseline_error: CaseError | None = None
    candidate_error: CaseError | None = None
    results: tuple[ResultChange, ...] = ()
    baseline_case_index: int | None = None
    candidate_case_index: int | None = None

    @property
    def name(self) -> str:
        """The candidate's name for the case, else the baseline's."""
        return self.candidate_name or self.baseline_name or ""


@dataclass(frozen=True, kw_only=True, slots=True)
class AnalysisChange:
    """One report evaluator's analysis, baseline against candidate (a failed report evaluator
    counts as a false assertion; a null assertion ranks between false and true).

    Attributes:
        name: The report evaluator's name.
        status: See :data:`ChangeStatus`.
        baseline_assertion: The baseline's assertion (None: none, or absent).
        candidate_assertion: The candidate's assertion.
        baseline_value: The baseline's value.
        candidate_value: The candidate's value.
        unit: The value's unit (the candidate's, else the baseline's).
        baseline_error: Why the baseline's report evaluator failed.
        candidate_error: Why the candidate's report evaluator failed.
        delta: ``candidate_value - baseline_value`` when both are set, else None.
    """

    name: str
    status: ChangeStatus
    baseline_assertion: bool | None = None
    candidate_assertion: bool | None = None
    baseline_value: float | None = None
    candidate_value: float | None = None
    unit: str | None = None
    baseline_error: CaseError | None = None
    candidate_error: CaseError | None = None
    delta: float | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Finding:
    """One regression or improvement, for a CI summary. A removed or failed case is one
    finding (its lost checks are in its row, not repeated here).

    Attributes:
        level: ``"case"`` (a case removed, its task failed or recovered), ``"result"`` (an
            evaluator result) or ``"analysis"`` (a report analysis).
        status: The row's status (``"regression"``, ``"removed"``, ``"task_failed"``,
            ``"improvement"``, ``"task_recovered"``).
        case_index: The case's index: the candidate's, else the baseline's (None for an
            analysis).
        repetition: The repetition (None for an analysis).
        case: The case's name (None for an analysis).
        evaluator: The evaluator's or report evaluator's name (None for a case).
        baseline: The baseline's value: a result's value, an analysis's assertion, a case's
            passed flag (None: none, failed or absent).
        candidate: The candidate's.
    """

    level: Literal["case", "result", "analysis"]
    status: str
    case_index: int | None = None
    repetition: int | None = None
    case: str | None = None
    evaluator: str | None = None
    baseline: EvaluationValue | None = None
    candidate: EvaluationValue | None = None

    def describe(self) -> str:
        """One line for a person, e.g. ``"case 'france' #0 rep 0: ExactMatch True -> False
        (regression)"``."""
        where = (
            "report analysis"
            if self.case_index is None
            else f"case {self.case!r} #{self.case_index} rep {self.repetition}"
        )
        words = self.status.replace("_", " ")
        if self.level == "case":
            return f"{where}: {words}"
        what = f"{self.evaluator}"
        if self.status in ("removed", "added"):
            return f"{where}: {what} {words}"
        return f"{where}: {what} {_show(self.baseline)} -> {_show(self.candidate)} ({words})"


def _show(value: EvaluationValue | None) -> str:
    return "none" if value is None else repr(value)


@dataclass(frozen=True, kw_only=True, slots=True)
class UsageDelta:
    """Signed aggregate usage change, candidate minus baseline (tokens; requests).

    Attributes:
        input_tokens: Input tokens.
        output_tokens: Output tokens.
        total_tokens: Input plus output tokens.
        cache_read_tokens: Prompt-cache reads.
        cache_write_tokens: Prompt-cache writes.
        reasoning_tokens: Reasoning tokens.
        requests: Provider requests.
        details: Per vendor counter, over the keys of either side (a missing key counts 0),
            sorted by key.
        partial: Either side's usage is marked partial (the delta is then not attested).
    """

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    requests: int = 0
    details: Mapping[str, int] = field(default_factory=lambda: {})
    partial: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class Comparison:
    """A baseline report compared with a candidate (see :func:`~robota.evals.comparison.compare`).

    The library concludes; the application decides what a conclusion means for its process
    (exit code, artifact storage).

    Attributes:
        baseline_name: The baseline report's name.
        candidate_name: The candidate report's name.
        baseline_dataset: The baseline's dataset name.
        candidate_dataset: The candidate's dataset name.
        baseline_pass_rate: Passed case repetitions over all of them in the baseline.
        candidate_pass_rate: The same in the candidate.
        cases: One row per (case name, repetition): baseline order, then candidate-only rows
            in candidate order.
        analyses: Report analyses joined by name, in the same order rule.
        usage_delta: Aggregate usage, candidate minus baseline.
        regressions: Every regression, in row order, then analyses.
        improvements: Every improvement, in the same order.
    """

    baseline_name: str
    candidate_name: str
    baseline_dataset: str
    candidate_dataset: str
    baseline_pass_rate: float
    candidate_pass_rate: float
    cases: tuple[CaseChange, ...] = ()
    analyses: tuple[AnalysisChange, ...] = ()
    usage_delta: UsageDelta = field(default_factory=UsageDelta)
    regressions: tuple[Finding, ...] = ()
    improvements: tuple[Finding, ...] = ()

    @property
    def has_regressions(self) -> bool:
        """Whether anything regressed."""
        return bool(self.regressions)

    @property
    def pass_rate_delta(self) -> float:
        """``candidate_pass_rate - baseline_pass_rate``."""
        return self.candidate_pass_rate - self.baseline_pass_rate

    @property
    def conclusion(self) -> Literal["regressed", "improved", "unchanged"]:
        """``"regressed"`` when anything regressed (whatever improved), else ``"improved"``
        when anything improved, else ``"unchanged"``."""
        if self.regressions:
            return "regressed"
        return "improved" if self.improvements else "unchanged"

    def to_ci_json(self) -> str:
        """The versioned CI document: byte-identical for equal comparisons (see
        :func:`~robota.evals.comparison.ci.comparison_json`)."""
        from robota.evals.comparison.ci import comparison_json

        return comparison_json(self)
