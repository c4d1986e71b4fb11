"""Lifecycle events of an evaluation run (seed 002, "Evaluations": events cover each case, task
attempt, evaluator attempt, terminal error and completed result).

A run hands each event to the ``on_event`` callback (sync; it must not block) in the order
things happen; with ``max_concurrency`` > 1 events of different cases interleave.

Per case repetition: ``CaseStarted``; per failed task attempt one ``TaskAttemptFailed``, emitted
once the retry decision is final (after the retry classifier and after ``before_retry``
returned, so a backoff in ``before_retry`` delays it); then ``TaskFailed`` if no attempt
succeeded, else per evaluator its ``EvaluatorAttemptFailed`` events (same rule) and its
``EvaluatorCompleted``; then ``CaseCompleted``. Once every case is done, one
``ReportEvaluated`` per report evaluator.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from robota.evals.report.model import CaseError, CaseResult, EvaluatorResult, ReportAnalysis

__all__ = [
    "CaseCompleted",
    "CaseStarted",
    "EvalEvent",
    "EvaluatorAttemptFailed",
    "EvaluatorCompleted",
    "ReportEvaluated",
    "TaskAttemptFailed",
    "TaskFailed",
]


@dataclass(frozen=True, kw_only=True, slots=True)
class CaseStarted:
    """A case repetition was admitted and its first task attempt starts."""

    kind: Literal["case.started"] = "case.started"
    case_index: int
    name: str
    repetition: int


@dataclass(frozen=True, kw_only=True, slots=True)
class TaskAttemptFailed:
    """A task attempt raised; ``will_retry`` says whether another attempt follows (it does
    exactly when True: the event comes after ``before_retry`` returned, and a ``before_retry``
    that raises gives False)."""

    kind: Literal["task.attempt_failed"] = "task.attempt_failed"
    case_index: int
    name: str
    repetition: int
    attempt: int
    error: CaseError
    will_retry: bool


@dataclass(frozen=True, kw_only=True, slots=True)
class TaskFailed:
    """The task failed terminally (no attempt left, or a non-retryable error)."""

    kind: Literal["task.failed"] = "task.failed"
    case_index: int
    name: str
    repetition: int
    attempts: int
    error: CaseError


@dataclass(frozen=True, kw_only=True, slots=True)
class EvaluatorAttemptFailed:
    """An evaluator attempt raised; ``will_retry`` says whether another attempt follows (as
    for :class:`TaskAttemptFailed`)."""

    kind: Literal["evaluator.attempt_failed"] = "evaluator.attempt_failed"
    case_index: int
    name: str
    repetition: int
    evaluator: str
    attempt: int
    error: CaseError
    will_retry: bool


@dataclass(frozen=True, kw_only=True, slots=True)
class EvaluatorCompleted:
    """An evaluator gave its verdict (or failed terminally: ``result.error``)."""

    kind: Literal["evaluator.completed"] = "evaluator.completed"
    case_index: int
    name: str
    repetition: int
    result: EvaluatorResult


@dataclass(frozen=True, kw_only=True, slots=True)
class CaseCompleted:
    """A case repetition's result is final (task failures included)."""

    kind: Literal["case.completed"] = "case.completed"
    result: CaseResult


@dataclass(frozen=True, kw_only=True, slots=True)
class ReportEvaluated:
    """A report evaluator produced its analysis."""

    kind: Literal["report.evaluated"] = "report.evaluated"
    analysis: ReportAnalysis


EvalEvent: TypeAlias = (
    CaseStarted
    | TaskAttemptFailed
    | TaskFailed
    | EvaluatorAttemptFailed
    | EvaluatorCompleted
    | CaseCompleted
    | ReportEvaluated
)
"""Any evaluation lifecycle event."""
