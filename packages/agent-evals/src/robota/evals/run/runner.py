"""The evaluation runner behind :meth:`Dataset.evaluate <robota.evals.dataset.Dataset.evaluate>`
(seed 002, "Evaluations").

A run expands the cases into (case, repetition) slots in source order, runs at most
``max_concurrency`` of them at once (a fixed pool of workers takes the next slot in source
order), and writes each result into its preassigned slot, so the report's order never depends
on completion order. Per slot: the task is attempted under the task retry policy, then each
ordinary evaluator and each trace evaluator (over the spans the last attempt produced) under the
evaluator retry policy, in the dataset's order. When every slot is done, usage is summed, the
report is built and the report evaluators run, one after the other, on an immutable
:class:`~robota.evals.report.model.ReportView`.

Failures of the task and of evaluators are recorded in the report, never raised. A task that
returns an interrupted ``RunResult`` (its run was cancelled in flight) failed too: its output is
partial, so it is recorded as :class:`~robota.core.errors.OutputUnavailableError` and not judged.
A cancellation (of the caller's scope) is neither retried nor recorded: it propagates. An
exception raised by ``on_event`` is the application's own bug, and a ``BaseException`` that is
not an ``Exception`` (``KeyboardInterrupt``, ``SystemExit``, a framework's abort) raised by a
task or an evaluator is not a failure to record: either stops the run (other cases in flight are
cancelled) and propagates to the caller as it was raised, never wrapped in an exception group.

What evaluators see is kept apart from what the report records: a case's output is put in its
JSON form for the report before any evaluator runs, each case repetition's evaluators get their
own deep copy of the case (its ``metadata`` read-only), and each report evaluator gets its own
deep copy of the report (:class:`~robota.evals.report.model.ReportView`). So an evaluator that
mutates what it was handed changes neither the report nor the dataset.

Retry events: an attempt's ``TaskAttemptFailed`` (``EvaluatorAttemptFailed``) is emitted once the
decision is final, after the classifier and after ``before_retry`` returned; ``will_retry`` is
True only when another attempt does follow (a raising ``before_retry`` gives False, then the
terminal event with the hook's error).
"""

from __future__ import annotations

import copy
import inspect
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar, cast

import anyio
from pydantic import TypeAdapter
from robota.core.agent import Agent, RunResult
from robota.core.errors import OutputUnavailableError, RunCancelledError
from robota.core.messages import Message, UserMessage
from robota.core.usage import Usage
from robota.evals.case import Case
from robota.evals.evaluators.base import (
    EvaluationReason,
    Evaluator,
    EvaluatorContext,
    TraceEvaluator,
    run_evaluator,
)
from robota.evals.evaluators.report import run_report_evaluator
from robota.evals.report.model import (
    CaseError,
    CaseResult,
    EvaluationReport,
    EvaluatorResult,
    ReportAnalysis,
    ReportView,
)
from robota.evals.run.capture import capturing, install_capture, tracer_providers_of
from robota.evals.run.events import (
    CaseCompleted,
    CaseStarted,
    EvalEvent,
    EvaluatorAttemptFailed,
    EvaluatorCompleted,
    ReportEvaluated,
    TaskAttemptFailed,
    TaskFailed,
)
from robota.evals.run.progress import RunProgress
from robota.evals.run.retry import Retry, RetryState
from robota.evals.spans import SpanRecord, SpanTree

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from robota.evals.dataset import Dataset, Task

__all__ = ["run_dataset"]

T = TypeVar("T")

_JSON: TypeAdapter[Any] = TypeAdapter(Any)


def jsonable(value: Any) -> Any:
    """``value`` in JSON-compatible form (pydantic's JSON mode: models, dataclasses, dates,
    enums, ...), or its ``repr`` when pydantic cannot serialise it."""
    try:
        return _JSON.dump_python(value, mode="json")
    except Exception:  # an object pydantic does not know: keep something readable
        try:
            return repr(value)
        except Exception:  # a repr that raises, or nesting beyond the recursion limit
            return f"<{type(value).__name__}>"


def _private(value: T) -> T:
    """A deep copy of ``value`` (``value`` itself when it cannot be copied)."""
    try:
        return copy.deepcopy(value)
    except Exception:
        return value


def _evaluator_case(case: Case[Any, Any]) -> Case[Any, Any]:
    """The copy of ``case`` one repetition's evaluators see: inputs and expected output deep
    copied, metadata a read-only mapping over a deep copy."""
    return replace(
        case,
        inputs=_private(case.inputs),
        expected_output=_private(case.expected_output),
        metadata=MappingProxyType(_private(dict(case.metadata))),
    )


def _utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True, kw_only=True, slots=True)
class _Failure:
    """The error that ended a series of attempts."""

    error: Exception


@dataclass(frozen=True, kw_only=True, slots=True)
class _Output:
    """What one successful task attempt produced."""

    output: Any
    usage: Usage = field(default_factory=Usage)
    messages: tuple[Message, ...] = ()


@dataclass(kw_only=True, slots=True)
class _Attempt:
    """The last task attempt's wall time (seconds) and spans."""

    duration: float = 0.0
    spans: tuple[SpanRecord, ...] = ()


def _retryable(policy: Retry, error: Exception) -> bool:
    if isinstance(error, RunCancelledError):  # the caller asked the run to stop
        return False
    return policy.retry_on is None or bool(policy.retry_on(error))


async def _with_retries(
    policy: Retry,
    attempt_once: Callable[[], Awaitable[T]],
    *,
    state: Callable[[int, Exception], RetryState],
    failed: Callable[[int, Exception, bool], None],
) -> tuple[T | _Failure, int]:
    """Attempt ``attempt_once`` under ``policy``.

    Returns:
        The value (or the :class:`_Failure` that ended the attempts) and the attempts made. An
        exception of the classifier or of ``before_retry`` ends the attempts with itself.
        ``failed`` is called once per failed attempt, when the decision is final: after the
        classifier and after ``before_retry`` returned (False when either raised).
    """
    attempt = 0
    while True:
        attempt += 1
        try:
            return await attempt_once(), attempt
        except Exception as error:
            try:
                again = attempt < policy.max_attempts and _retryable(policy, error)
            except Exception as classifier_error:
                failed(attempt, error, False)
                return _Failure(error=classifier_error), attempt
            if again and policy.before_retry is not None:
                try:
                    waited = policy.before_retry(state(attempt, error))
                    if inspect.isawaitable(waited):
                        await waited
                except Exception as hook_error:
                    failed(attempt, error, False)
                    return _Failure(error=hook_error), attempt
            failed(attempt, error, again)
            if not again:
                return _Failure(error=error), attempt


def _output_of(result: RunResult[Any]) -> _Output:
    """The output of a run.

    Raises:
        OutputUnavailableError: the run was interrupted (its text is partial; a structured
            output never validated).
    """
    if result.interrupted:
        raise OutputUnavailableError(
            f"run {result.run_id} was interrupted (cancelled in flight): it has no complete "
            "output to judge"
        )
    return _Output(output=result.output, usage=result.usage, messages=result.new_messages)


class _Run:
    """One dataset run's shared, read-only configuration and its case procedure."""

    def __init__(
        self,
        dataset: Dataset[Any, Any],
        task: Task,
        *,
        task_retry: Retry,
        evaluator_retry: Retry,
        on_event: Callable[[EvalEvent], None] | None,
        capture: bool,
    ) -> None:
        self.dataset = dataset
        self.task = task
        self.task_retry = task_retry
        self.evaluator_retry = evaluator_retry
        self.on_event = on_event
        self.capture = capture
        self.stored = [
            (
                jsonable(case.inputs),
                jsonable(case.expected_output),
                {str(key): jsonable(value) for key, value in case.metadata.items()},
            )
            for case in dataset.cases
        ]

    def emit(self, event: EvalEvent) -> None:
        if self.on_event is not None:
            self.on_event(event)

    async def invoke(self, inputs: Any) -> _Output:
        """One task attempt (an ``Agent`` task runs in a fresh conversation)."""
        task = self.task
        if isinstance(task, Agent):
            conversation = cast("Agent[Any, Any]", task).new_conversation()
            return _output_of(await conversation.run(cast("str | UserMessage", inputs)))
        produced = await task(inputs)
        if isinstance(produced, RunResult):
            return _output_of(cast("RunResult[Any]", produced))
        return _Output(output=produced)

    async def case(self, case_index: int, repetition: int) -> CaseResult:
        """Run, judge and record one case repetition."""
        case: Case[Any, Any] = self.dataset.cases[case_index]
        name = case.name
        self.emit(CaseStarted(case_index=case_index, name=name, repetition=repetition))
        last = _Attempt()

        async def attempt_once() -> _Output:
            if not self.capture:
                started = time.perf_counter()
                try:
                    return await self.invoke(case.inputs)
                finally:
                    last.duration = time.perf_counter() - started
            with capturing() as buffer:
                started = time.perf_counter()
                try:
                    return await self.invoke(case.inputs)
                finally:
                    last.duration = time.perf_counter() - started
                    last.spans = tuple(buffer)

        def failed(attempt: int, error: Exception, again: bool) -> None:
            self.emit(
                TaskAttemptFailed(
                    case_index=case_index,
                    name=name,
                    repetition=repetition,
                    attempt=attempt,
                    error=CaseError.of(error),
                    will_retry=again,
                )
            )

        def state(attempt: int, error: Exception) -> RetryState:
            return RetryState(
                case_name=name,
                case_index=case_index,
                repetition=repetition,
                attempt=attempt,
                error=error,
            )

        outcome: _Output | _Failure
        if isinstance(self.task, Agent) and not isinstance(case.inputs, str | UserMessage):
            # Not worth a retry: every attempt would fail the same way.
            error = TypeError(
                f"case {name!r}: an Agent task takes the case's inputs as its prompt, a str "
                f"(or a UserMessage); got {type(case.inputs).__name__}"
            )
            failed(1, error, False)
            outcome, attempts = _Failure(error=error), 1
        else:
            outcome, attempts = await _with_retries(
                self.task_retry, attempt_once, state=state, failed=failed
            )
        inputs, expected, metadata = self.stored[case_index]
        recorded = CaseResult(
            case_index=case_index,
            name=name,
            repetition=repetition,
            inputs=inputs,
            expected_output=expected,
            metadata=metadata,
            attempts=attempts,
            duration=last.duration,
            spans=last.spans,
        )
        if isinstance(outcome, _Failure):
            error = CaseError.of(outcome.error)
            self.emit(
                TaskFailed(
                    case_index=case_index,
                    name=name,
                    repetition=repetition,
                    attempts=attempts,
                    error=error,
                )
            )
            recorded = replace(recorded, error=error)
        else:
            # recorded before any evaluator runs: one that mutates the output cannot rewrite it
            output = jsonable(outcome.output)
            ctx: EvaluatorContext[Any, Any] = EvaluatorContext(
                case=_evaluator_case(case),
                case_index=case_index,
                repetition=repetition,
                output=outcome.output,
                duration=last.duration,
                usage=outcome.usage,
                messages=outcome.messages,
                attempts=attempts,
            )
            results = [await self.judge(check, ctx, None) for check in self.dataset.evaluators]
            tree = SpanTree(last.spans)
            results += [
                await self.judge(check, ctx, tree) for check in self.dataset.trace_evaluators
            ]
            recorded = replace(
                recorded,
                output=output,
                usage=outcome.usage,
                results=tuple(results),
            )
        self.emit(CaseCompleted(result=recorded))
        return recorded

    async def judge(
        self,
        check: Evaluator[Any, Any] | TraceEvaluator[Any, Any],
        ctx: EvaluatorContext[Any, Any],
        spans: SpanTree | None,
    ) -> EvaluatorResult:
        """Run one evaluator under the evaluator retry policy and record its verdict."""
        source = "trace" if isinstance(check, TraceEvaluator) else "case"

        async def attempt_once() -> EvaluationReason:
            return await run_evaluator(check, ctx, spans)

        def failed(attempt: int, error: Exception, again: bool) -> None:
            self.emit(
                EvaluatorAttemptFailed(
                    case_index=ctx.case_index,
                    name=ctx.case.name,
                    repetition=ctx.repetition,
                    evaluator=check.name,
                    attempt=attempt,
                    error=CaseError.of(error),
                    will_retry=again,
                )
            )

        def state(attempt: int, error: Exception) -> RetryState:
            return RetryState(
                case_name=ctx.case.name,
                case_index=ctx.case_index,
                repetition=ctx.repetition,
                attempt=attempt,
                error=error,
                evaluator=check.name,
            )

        verdict, attempts = await _with_retries(
            self.evaluator_retry, attempt_once, state=state, failed=failed
        )
        if isinstance(verdict, _Failure):
            result = EvaluatorResult(
                name=check.name, source=source, error=CaseError.of(verdict.error), attempts=attempts
            )
        else:
            result = EvaluatorResult(
                name=check.name,
                source=source,
                value=verdict.value,
                reason=verdict.reason,
                attempts=attempts,
            )
        self.emit(
            EvaluatorCompleted(
                case_index=ctx.case_index,
                name=ctx.case.name,
                repetition=ctx.repetition,
                result=result,
            )
        )
        return result


async def _analyse(
    dataset: Dataset[Any, Any], report: EvaluationReport, emit: Callable[[EvalEvent], None]
) -> tuple[ReportAnalysis, ...]:
    analyses: list[ReportAnalysis] = []
    for check in dataset.report_evaluators:
        try:
            # its own deep copy: what one evaluator changes reaches neither the report nor
            # the next evaluator
            analysis = await run_report_evaluator(check, ReportView(report))
        except Exception as error:  # recorded, like a case evaluator's failure
            analysis = ReportAnalysis(name=check.name, error=CaseError.of(error))
        analyses.append(analysis)
        emit(ReportEvaluated(analysis=analysis))
    return tuple(analyses)


def _first(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The exception that stopped the run: the first one that is not an ``Exception``
    (``KeyboardInterrupt``, ``SystemExit``, a cancellation, a framework's abort), else the
    first one; nested groups are looked into."""
    members = [
        _first(member) if isinstance(member, BaseExceptionGroup) else member
        for member in group.exceptions
    ]
    return next((m for m in members if not isinstance(m, Exception)), members[0])


def _total(usages: Iterable[Usage]) -> Usage:
    total = Usage()
    for usage in usages:
        total = total + usage
    return total


async def run_dataset(
    dataset: Dataset[Any, Any],
    task: Task,
    *,
    name: str | None,
    repetitions: int,
    max_concurrency: int | None,
    task_retry: Retry,
    evaluator_retry: Retry,
    on_event: Callable[[EvalEvent], None] | None,
    progress: bool | None,
    tracer_provider: TracerProvider | None,
) -> EvaluationReport:
    """Run every case of ``dataset`` ``repetitions`` times through ``task`` and judge it; see
    :meth:`Dataset.evaluate <robota.evals.dataset.Dataset.evaluate>` for the arguments.

    Returns:
        The report: one result per (case, repetition) in source order, the report evaluators'
        analyses, usage summed over the cases, ``started_at`` (ISO 8601 UTC) and ``duration``
        (seconds, report evaluators included).

    Raises:
        ValueError: ``repetitions`` or ``max_concurrency`` below 1.
        TypeError: ``task`` is neither an ``Agent`` nor callable.
        TelemetryNotConfiguredError: the dataset has trace evaluators and the task's telemetry
            is not an OpenTelemetry SDK ``TracerProvider``, or ``tracer_provider`` is not one
            of an ``Agent`` task's sinks' providers (before any case runs).
        Exception: whatever ``on_event`` raised (the run stops there).
        BaseException: a non-``Exception`` a task or an evaluator raised, as itself.
    """
    if repetitions < 1:
        raise ValueError(f"repetitions must be >= 1, got {repetitions}")
    limit = 1 if max_concurrency is None else max_concurrency
    if limit < 1:
        raise ValueError(f"max_concurrency must be >= 1 (or None), got {max_concurrency}")
    if not isinstance(task, Agent) and not callable(task):
        raise TypeError(
            f"the task must be an Agent or an async function, not {type(task).__name__}"
        )
    capture = bool(dataset.trace_evaluators)
    if capture:
        for provider in tracer_providers_of(task, tracer_provider):
            install_capture(provider)
    run = _Run(
        dataset,
        task,
        task_retry=task_retry,
        evaluator_retry=evaluator_retry,
        on_event=on_event,
        capture=capture,
    )
    report_name = name or dataset.name
    started_at = _utc_now()
    started = time.perf_counter()
    slots = [(c, r) for c in range(len(dataset.cases)) for r in range(repetitions)]
    results: list[CaseResult | None] = [None] * len(slots)
    pending = iter(enumerate(slots))

    with RunProgress(progress, total=len(slots), description=report_name) as bar:

        async def worker() -> None:
            for position, (case_index, repetition) in pending:
                results[position] = await run.case(case_index, repetition)
                bar.advance()

        try:
            async with anyio.create_task_group() as group:
                for _ in range(min(limit, len(slots))):
                    group.start_soon(worker)
        except BaseExceptionGroup as errors:  # hand the exception over as it was raised
            raise _first(errors) from None

    cases = tuple(result for result in results if result is not None)
    report = EvaluationReport(
        name=report_name,
        dataset=dataset.name,
        cases=cases,
        repetitions=repetitions,
        usage=_total(case.usage for case in cases),
        started_at=started_at,
        duration=time.perf_counter() - started,
        evaluators=tuple(
            check.name
            for check in (
                *dataset.evaluators,
                *dataset.trace_evaluators,
                *dataset.report_evaluators,
            )
        ),
    )
    analyses = await _analyse(dataset, report, run.emit)
    return replace(report, analyses=analyses, duration=time.perf_counter() - started)
