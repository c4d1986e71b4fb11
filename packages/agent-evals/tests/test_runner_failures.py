"""The evaluation runner's failure paths: task and evaluator retries (separate policies, counted
attempts, classifiers, awaited before-retry hooks), failures recorded not raised, cancellation
propagated."""

from __future__ import annotations

import anyio
import pytest
from robota.core.agent import Agent
from robota.core.errors import BadRequestError, RateLimitError, RunCancelledError
from robota.core.testing.scripted import ScriptedProvider, fail, text
from robota.evals.case import Case
from robota.evals.dataset import Dataset
from robota.evals.evaluators.base import EvaluatorContext, evaluator
from robota.evals.run.events import EvalEvent, TaskAttemptFailed, TaskFailed
from robota.evals.run.retry import Retry, RetryState


class Flaky:
    """An async task that raises ``error`` on its first ``failures`` calls."""

    def __init__(self, failures: int, error: Exception) -> None:
        self.failures = failures
        self.error = error
        self.calls = 0

    async def __call__(self, inputs: str) -> str:
        self.calls += 1
        await anyio.lowlevel.checkpoint()
        if self.calls <= self.failures:
            raise self.error
        return f"ok {inputs}"


@pytest.mark.anyio
async def test_a_retried_task_counts_its_attempts_and_awaits_before_retry() -> None:
    task = Flaky(2, TimeoutError("slow upstream"))
    waited: list[RetryState] = []

    async def before_retry(state: RetryState) -> None:
        await anyio.lowlevel.checkpoint()
        waited.append(state)

    events: list[EvalEvent] = []
    dataset = Dataset(
        name="retry", cases=[Case(name="x", inputs="go")], evaluators=[evaluator(lambda c: True)]
    )
    report = await dataset.evaluate(
        task,
        task_retry=Retry(max_attempts=3, before_retry=before_retry),
        on_event=events.append,
        progress=False,
    )

    (case,) = report.cases
    assert (case.output, case.attempts, case.error) == ("ok go", 3, None)
    assert case.results[0].attempts == 1
    assert [(s.attempt, s.case_name, s.evaluator, str(s.error)) for s in waited] == [
        (1, "x", None, "slow upstream"),
        (2, "x", None, "slow upstream"),
    ]
    failed = [e for e in events if isinstance(e, TaskAttemptFailed)]
    assert [(e.attempt, e.will_retry, e.error.type) for e in failed] == [
        (1, True, "builtins.TimeoutError"),
        (2, True, "builtins.TimeoutError"),
    ]


@pytest.mark.anyio
async def test_a_classifier_that_says_no_allows_one_attempt() -> None:
    task = Flaky(1, ValueError("bad request"))
    calls_before_retry = 0

    def before_retry(state: RetryState) -> None:
        nonlocal calls_before_retry
        calls_before_retry += 1

    events: list[EvalEvent] = []
    dataset = Dataset(name="classify", cases=[Case(name="x", inputs="go")])
    report = await dataset.evaluate(
        task,
        task_retry=Retry(
            max_attempts=5,
            retry_on=lambda e: isinstance(e, TimeoutError),
            before_retry=before_retry,
        ),
        on_event=events.append,
        progress=False,
    )

    (case,) = report.cases
    assert task.calls == 1
    assert case.attempts == 1
    assert case.error is not None
    assert (case.error.type, case.error.message) == ("builtins.ValueError", "bad request")
    assert case.output is None
    assert calls_before_retry == 0
    assert [e.kind for e in events] == [
        "case.started",
        "task.attempt_failed",
        "task.failed",
        "case.completed",
    ]
    terminal = events[2]
    assert isinstance(terminal, TaskFailed)
    assert terminal.attempts == 1


@pytest.mark.anyio
async def test_exhausted_attempts_record_the_last_error() -> None:
    task = Flaky(10, RateLimitError("slow down", provider="scripted"))
    dataset = Dataset(name="exhaust", cases=[Case(name="x", inputs="go")])

    report = await dataset.evaluate(task, task_retry=Retry(max_attempts=3), progress=False)

    (case,) = report.cases
    assert task.calls == 3
    assert case.attempts == 3
    assert case.error is not None
    assert case.error.type == "robota.core.errors.RateLimitError"
    assert case.error.code == "rate_limited"
    assert not case.passed


@pytest.mark.anyio
async def test_a_failing_before_retry_ends_the_attempts_with_its_own_error() -> None:
    task = Flaky(1, TimeoutError("slow"))

    def before_retry(state: RetryState) -> None:
        raise RuntimeError("budget exhausted")

    dataset = Dataset(name="hook", cases=[Case(name="x", inputs="go")])
    report = await dataset.evaluate(
        task, task_retry=Retry(max_attempts=3, before_retry=before_retry), progress=False
    )

    (case,) = report.cases
    assert task.calls == 1
    assert case.error is not None
    assert (case.error.type, case.error.message) == ("builtins.RuntimeError", "budget exhausted")


@pytest.mark.anyio
async def test_run_cancelled_error_is_recorded_and_never_retried() -> None:
    task = Flaky(5, RunCancelledError("user pressed stop"))
    dataset = Dataset(name="stop", cases=[Case(name="x", inputs="go")])

    report = await dataset.evaluate(task, task_retry=Retry(max_attempts=3), progress=False)

    assert task.calls == 1
    assert report.cases[0].error is not None
    assert report.cases[0].error.type == "robota.core.errors.RunCancelledError"


@pytest.mark.anyio
async def test_an_agent_failure_is_recorded_and_its_evaluators_do_not_run() -> None:
    provider = ScriptedProvider([[fail(BadRequestError("400", provider="scripted"))], ["fine"]])
    judged: list[str] = []

    def judge(ctx: EvaluatorContext[str, str]) -> bool:
        judged.append(ctx.case.name)
        return True

    dataset = Dataset(
        name="agent-fail",
        cases=[Case(name="broken", inputs="hi"), Case(name="works", inputs="hi")],
        evaluators=[evaluator(judge, name="judge")],
    )
    report = await dataset.evaluate(Agent(provider), progress=False)

    broken, works = report.cases
    assert broken.error is not None
    assert broken.error.type == "robota.core.errors.BadRequestError"
    assert (broken.output, broken.results, broken.passed) == (None, (), False)
    assert (works.output, works.error, works.passed) == ("fine", None, True)
    assert judged == ["works"]
    assert report.pass_rate() == 0.5


@pytest.mark.anyio
async def test_an_agent_task_refuses_non_text_inputs_without_calling_the_model() -> None:
    provider = ScriptedProvider(["unused"])
    dataset = Dataset(name="typed", cases=[Case(name="dict", inputs={"q": "hi"})])

    report = await dataset.evaluate(
        Agent(provider), task_retry=Retry(max_attempts=3), progress=False
    )

    (case,) = report.cases
    assert case.error is not None
    assert case.error.type == "builtins.TypeError"
    assert "an Agent task takes the case's inputs as its prompt, a str" in case.error.message
    assert case.attempts == 1
    assert provider.requests == []


@pytest.mark.anyio
async def test_evaluator_retries_use_their_own_policy() -> None:
    task = Flaky(1, TimeoutError("slow"))
    judge_calls = 0
    waited: list[RetryState] = []

    def judge(ctx: EvaluatorContext[str, str]) -> float:
        nonlocal judge_calls
        judge_calls += 1
        if judge_calls == 1:
            raise ConnectionError("grader offline")
        return 0.75

    def always_fails(ctx: EvaluatorContext[str, str]) -> bool:
        raise KeyError("missing field")

    dataset = Dataset(
        name="eval-retry",
        cases=[Case(name="x", inputs="go")],
        evaluators=[evaluator(judge, name="judge"), evaluator(always_fails, name="strict")],
    )
    report = await dataset.evaluate(
        task,
        task_retry=Retry(max_attempts=2),
        evaluator_retry=Retry(
            max_attempts=2,
            retry_on=lambda e: isinstance(e, ConnectionError),
            before_retry=waited.append,
        ),
        progress=False,
    )

    (case,) = report.cases
    assert case.attempts == 2  # the task's own retry
    judged, strict = case.results
    assert (judged.value, judged.attempts, judged.error) == (0.75, 2, None)
    assert [(s.evaluator, s.attempt, s.case_name) for s in waited] == [("judge", 1, "x")]
    assert strict.error is not None
    assert strict.error.type == "builtins.KeyError"
    assert strict.attempts == 1  # the classifier said no
    assert strict.passed is False
    assert not case.passed  # a failed evaluator fails the case


@pytest.mark.anyio
async def test_a_verdict_that_is_not_one_is_recorded_as_the_evaluator_error() -> None:
    async def task(inputs: str) -> str:
        return inputs

    dataset = Dataset(
        name="verdict",
        cases=[Case(name="x", inputs="go")],
        evaluators=[evaluator(lambda c: None, name="nothing")],  # type: ignore[arg-type, return-value]
    )
    report = await dataset.evaluate(task, progress=False)

    result = report.cases[0].results[0]
    assert result.error is not None
    assert result.error.type == "builtins.TypeError"


@pytest.mark.anyio
async def test_cancelling_the_callers_scope_is_not_retried_nor_recorded() -> None:
    calls = 0
    events: list[EvalEvent] = []
    dataset = Dataset(name="cancel", cases=[Case(name="x", inputs="go")])

    with anyio.CancelScope() as scope:

        async def task(inputs: str) -> str:
            nonlocal calls
            calls += 1
            scope.cancel()
            await anyio.sleep(10)
            return inputs

        await dataset.evaluate(
            task, task_retry=Retry(max_attempts=3), on_event=events.append, progress=False
        )

    assert scope.cancelled_caught
    assert calls == 1
    assert [e.kind for e in events] == ["case.started"]


@pytest.mark.anyio
async def test_an_agent_case_retries_in_a_fresh_conversation() -> None:
    provider = ScriptedProvider(
        [[fail(BadRequestError("400", provider="scripted"))], [text("second try")]]
    )
    agent = Agent(provider)
    dataset = Dataset(name="fresh", cases=[Case(name="x", inputs="hello")])

    report = await dataset.evaluate(agent, task_retry=Retry(max_attempts=2), progress=False)

    assert report.cases[0].output == "second try"
    assert report.cases[0].attempts == 2
    assert [len(r.messages) for r in provider.requests] == [1, 1]
