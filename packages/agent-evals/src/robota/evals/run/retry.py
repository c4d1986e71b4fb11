"""Retry policies for evaluation tasks and evaluators (seed 002, "Evaluations": task and
evaluator retries use separate policies and record their attempt counts in the report; optional
classifiers restrict retryable errors; optional pre-retry callbacks own backoff or rate-limit
waiting).

Provider-level retries (``robota.core.retry.RetryPolicy`` on the agent) happen inside one task
attempt; these retry the whole attempt.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

__all__ = ["Retry", "RetryState"]


@dataclass(frozen=True, kw_only=True, slots=True)
class RetryState:
    """Handed to ``before_retry`` before attempt ``attempt + 1``.

    Attributes:
        case_name: The case's name.
        case_index: The case's position.
        repetition: The repetition.
        attempt: The attempt that just failed (1 = the first).
        error: What it raised.
        evaluator: The evaluator's name when an evaluator is being retried, None for the task.
    """

    case_name: str
    case_index: int
    repetition: int
    attempt: int
    error: BaseException
    evaluator: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Retry:
    """How often to attempt a task (or an evaluator) and which errors earn another attempt.

    Attributes:
        max_attempts: Attempts in all (1 = no retry; must be >= 1).
        retry_on: Which errors are retryable (None: every ``Exception``; a cancellation is
            never retried).
        before_retry: Called (and awaited when async) before each retry: backoff, waiting out
            a rate limit. Its own exception ends the attempts with that exception. The failed
            attempt's ``TaskAttemptFailed`` / ``EvaluatorAttemptFailed`` event is emitted
            after it returned (``will_retry=True``) or raised (``will_retry=False``).

    Example:
        >>> Retry(max_attempts=3, retry_on=lambda e: isinstance(e, TimeoutError)).max_attempts
        3
    """

    max_attempts: int = 1
    retry_on: Callable[[BaseException], bool] | None = None
    before_retry: Callable[[RetryState], Awaitable[None] | None] | None = None

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be >= 1, got {self.max_attempts}")
