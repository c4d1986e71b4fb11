"""A dataset: named cases plus the evaluators that judge them (seed 002, "Evaluations")."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeAlias

from robota.core.agent import Agent
from robota.evals.case import Case, ExpectedT, InputsT
from robota.evals.evaluators.base import Evaluator, TraceEvaluator
from robota.evals.evaluators.report import ReportEvaluator
from robota.evals.run.events import EvalEvent
from robota.evals.run.retry import Retry

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from robota.evals.report.model import EvaluationReport

__all__ = ["Dataset", "Task"]

Task: TypeAlias = "Agent[Any, Any] | Callable[[Any], Awaitable[Any]]"
"""What a dataset runs per case: an ``Agent`` (run with the case's inputs as the prompt; its
``RunResult`` gives output, usage and messages) or an async function of the inputs (when it
returns a ``RunResult``, usage and messages are taken from it too; an interrupted one — its run
was cancelled in flight — is a failed attempt,
:class:`~robota.core.errors.OutputUnavailableError`)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Dataset(Generic[InputsT, ExpectedT]):
    """Cases and evaluators.

    Attributes:
        name: The dataset's name (reports carry it).
        cases: The cases, in source order; names must be unique.
        evaluators: Ordinary evaluators run on every case repetition, in order.
        trace_evaluators: Evaluators over each case's spans; with any, the run tees the agent's
            OpenTelemetry exporter and fails before running without one
            (:class:`~robota.evals.errors.TelemetryNotConfiguredError`).
        report_evaluators: Evaluators over the whole finished run.

    Raises:
        ValueError: duplicate case names, or two evaluators (of any kind) sharing a name.
    """

    name: str
    cases: Sequence[Case[InputsT, ExpectedT]]
    evaluators: Sequence[Evaluator[InputsT, Any]] = ()
    trace_evaluators: Sequence[TraceEvaluator[InputsT, Any]] = ()
    report_evaluators: Sequence[ReportEvaluator] = ()

    def __post_init__(self) -> None:
        # stored as tuples: a dataset is a value (equal to its loaded copy, never mutated later)
        for attribute in ("cases", "evaluators", "trace_evaluators", "report_evaluators"):
            object.__setattr__(self, attribute, tuple(getattr(self, attribute)))
        seen: set[str] = set()
        for case in self.cases:
            if case.name in seen:
                raise ValueError(f"dataset {self.name!r}: two cases are named {case.name!r}")
            seen.add(case.name)
        names: set[str] = set()
        for check in (*self.evaluators, *self.trace_evaluators, *self.report_evaluators):
            if check.name in names:
                raise ValueError(
                    f"dataset {self.name!r}: two evaluators are named {check.name!r} (reports "
                    f"and comparisons key results by name); {_rename_hint(check)}"
                )
            names.add(check.name)

    async def evaluate(
        self,
        task: Task,
        *,
        name: str | None = None,
        repetitions: int = 1,
        max_concurrency: int | None = None,
        task_retry: Retry | None = None,
        evaluator_retry: Retry | None = None,
        on_event: Callable[[EvalEvent], None] | None = None,
        progress: bool | None = None,
        tracer_provider: TracerProvider | None = None,
    ) -> EvaluationReport:
        """Run every case ``repetitions`` times through ``task`` and judge each result.

        Args:
            task: An ``Agent`` or an async function of the inputs (see :data:`Task`).
            name: The report's name (default: the dataset's).
            repetitions: Runs per case (>= 1); results keep source order: case 0's
                repetitions, then case 1's, ...
            max_concurrency: Case repetitions in flight at once (None or 1: one at a time).
                Results land in their source-order slot whatever the completion order.
            task_retry: Retry policy for a task attempt (default: one attempt).
            evaluator_retry: Retry policy for an evaluator attempt (default: one attempt).
            on_event: Receives :data:`~robota.evals.run.events.EvalEvent` values.
            progress: Show a progress bar on stderr (None: only when stderr is a terminal).
            tracer_provider: The OpenTelemetry SDK ``TracerProvider`` to tee for trace
                evaluators when ``task`` is a function. An ``Agent`` task's providers are read
                from its :class:`~robota.plugins.telemetry.OpenTelemetrySink` sinks; given for
                an ``Agent``, it must be one of them (it selects which one to tee).

        Returns:
            The report; task and evaluator failures are recorded in it, never raised (a task
            that returns an interrupted ``RunResult`` is a failure:
            :class:`~robota.core.errors.OutputUnavailableError`). Evaluators cannot change it:
            the output is recorded before they run, and case and report evaluators see copies.

        Raises:
            ValueError: ``repetitions`` or ``max_concurrency`` below 1.
            TelemetryNotConfiguredError: trace evaluators without a telemetry configuration,
                or, for an ``Agent`` task, a ``tracer_provider`` that none of the agent's
                ``OpenTelemetrySink`` sinks uses (the agent's spans would never reach it, and
                a check such as ``ToolSpanAbsent("shell")`` would pass unseen). Raised before
                any case runs.
            BaseException: a ``KeyboardInterrupt``, ``SystemExit`` or other non-``Exception``
                a task or an evaluator raised, or an exception ``on_event`` raised, as itself
                (never an exception group).
        """
        from robota.evals.run.runner import run_dataset

        return await run_dataset(
            self,
            task,
            name=name,
            repetitions=repetitions,
            max_concurrency=max_concurrency,
            task_retry=task_retry or Retry(),
            evaluator_retry=evaluator_retry or Retry(),
            on_event=on_event,
            progress=progress,
            tracer_provider=tracer_provider,
        )

    def evaluate_sync(self, task: Task, **options: Any) -> EvaluationReport:
        """:meth:`evaluate` from synchronous code (runs its own event loop); same options."""
        import anyio

        async def main() -> EvaluationReport:
            return await self.evaluate(task, **options)

        return anyio.run(main)


def _rename_hint(check: object) -> str:
    """How to give ``check`` another name: the built-ins take ``evaluation_name``; a function
    evaluator takes ``name``; another class overrides its ``name`` property."""
    kind = type(check).__name__
    name: str = getattr(check, "name", kind)
    if hasattr(check, "evaluation_name"):
        return (
            f"give one an evaluation_name: {kind}(..., evaluation_name={name + '_2'!r}); in a "
            f"dataset file {{{kind}: {{..., evaluation_name: {name}_2}}}}"
        )
    if kind == "FunctionEvaluator":
        return f"give one another name: evaluator(function, name={name + '_2'!r})"
    return f"give one another name (override {kind}.name)"
