"""Outsider attack (issue 19) on the runner (``Dataset.evaluate``) and the span capture.

Each test runs the real code path. ``# HELD`` tests are where the code resisted; ``# HELD
(fixed)`` tests were holes (a broken promise, once marked ``xfail(strict=True)``) that the code
now keeps, with what the hole was.
"""

from __future__ import annotations

import contextvars
import math
import random
from collections import Counter
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import NoOpTracerProvider
from robota.core import errors as core_errors
from robota.core.agent import Agent, RunResult
from robota.core.cancellation import CancelToken
from robota.core.errors import (
    OutputUnavailableError,
    ProviderError,
    RateLimitError,
)
from robota.core.messages import TextPart, ToolResultPart, UserMessage
from robota.core.provider import ModelRequest, Provider, StreamEvent
from robota.core.testing.scripted import (
    ScriptedProvider,
    Turn,
    delay,
    fail,
    reached,
    text,
    tool_call,
    wait_for,
)
from robota.core.tools.function import FunctionTool, tool
from robota.evals import (
    CaseCount,
    CaseStarted,
    EvalEvent,
    EvaluatorContext,
    ExactMatch,
    PassRateAtLeast,
    ReportAnalysis,
    ReportEvaluator,
    ReportView,
    Retry,
    RetryState,
    ScoreMeanAtLeast,
    SpanAbsent,
    SpanTree,
    TaskAttemptFailed,
    TelemetryNotConfiguredError,
    ToolSpanAbsent,
    TraceEvaluator,
    evaluator,
)
from robota.evals.case import Case
from robota.evals.dataset import Dataset
from robota.evals.report.model import CaseError, EvaluationReport
from robota.plugins.telemetry import OpenTelemetrySink

# The KeyboardInterrupt test aborts the event loop before the second worker coroutine starts;
# Python warns about that coroutine when it is collected, in whichever test runs next.
pytestmark = pytest.mark.filterwarnings(
    "ignore:coroutine 'run_dataset.<locals>.worker' was never awaited:RuntimeWarning"
)


# --- helpers --------------------------------------------------------------------------------


def _parts(message: object) -> tuple[object, ...]:
    """Every part of a message: content parts and tool results."""
    parts: tuple[object, ...] = getattr(message, "parts", ())
    results: tuple[object, ...] = getattr(message, "results", ())
    return (*parts, *results)


def _first_prompt(request: ModelRequest) -> str:
    first = next(m for m in request.messages if isinstance(m, UserMessage))
    return "".join(p.text for p in first.parts if isinstance(p, TextPart))


class ByPrompt(Provider):
    """Routes each request to the script of the conversation's first user prompt and records
    every request (what a shared provider really received)."""

    name = "scripted"
    default_model = "scripted-model"

    def __init__(self, scripts: Mapping[str, Sequence[Turn]]) -> None:
        self.scripts = {prompt: ScriptedProvider(turns) for prompt, turns in scripts.items()}
        self.requests: list[ModelRequest] = []

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        return self.scripts[_first_prompt(request)].stream(request)


def _user_provider() -> tuple[TracerProvider, InMemorySpanExporter]:
    provider = TracerProvider()
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


class AnySpans(TraceEvaluator[Any, Any]):
    """Counts the spans it got (a trace evaluator that always has something to say)."""

    def evaluate(self, ctx: EvaluatorContext[Any, Any], spans: SpanTree) -> int:
        return len(spans)


def _run(coro_fn: Any) -> Any:
    return anyio.run(coro_fn)


# --- ordering, slots, concurrency bound (hypothesis) ----------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    waits=st.lists(st.integers(min_value=0, max_value=6), min_size=0, max_size=7),
    repetitions=st.integers(min_value=1, max_value=3),
    concurrency=st.sampled_from([None, 1, 2, 3, 50]),
    seed=st.integers(min_value=0, max_value=2**16),
)
def test_source_order_slots_and_bound_under_any_completion_order(
    waits: list[int], repetitions: int, concurrency: int | None, seed: int
) -> None:
    # HELD
    rng = random.Random(seed)
    calls: Counter[int] = Counter()
    started: Counter[tuple[int, int]] = Counter()
    in_flight = 0
    peak = 0

    async def task(inputs: int) -> str:
        nonlocal in_flight, peak
        calls[inputs] += 1
        in_flight += 1
        peak = max(peak, in_flight)
        for _ in range(waits[inputs] + rng.randint(0, 4)):
            await anyio.lowlevel.checkpoint()
        in_flight -= 1
        return f"out{inputs}"

    def on_event(event: EvalEvent) -> None:
        if isinstance(event, CaseStarted):
            started[(event.case_index, event.repetition)] += 1

    dataset = Dataset(name="h", cases=[Case(name=f"c{i}", inputs=i) for i in range(len(waits))])

    async def main() -> EvaluationReport:
        return await dataset.evaluate(
            task,
            repetitions=repetitions,
            max_concurrency=concurrency,
            on_event=on_event,
            progress=False,
        )

    report: EvaluationReport = _run(main)
    expected_slots = [(c, r) for c in range(len(waits)) for r in range(repetitions)]
    assert [(c.case_index, c.repetition) for c in report.cases] == expected_slots
    assert [c.output for c in report.cases] == [f"out{c}" for c, _ in expected_slots]
    assert [c.name for c in report.cases] == [f"c{c}" for c, _ in expected_slots]
    assert dict(calls) == {i: repetitions for i in range(len(waits))}
    assert set(started) == set(expected_slots)
    assert set(started.values()) <= {1}
    limit = 1 if concurrency is None else concurrency
    assert peak <= limit


_SLOT: contextvars.ContextVar[tuple[int, int]] = contextvars.ContextVar("slot")


@settings(max_examples=40, deadline=None)
@given(
    failures=st.lists(st.integers(min_value=0, max_value=4), min_size=1, max_size=5),
    max_attempts=st.integers(min_value=1, max_value=4),
    concurrency=st.sampled_from([1, 2, 10]),
)
def test_retries_count_attempts_per_slot_and_hooks_run_between(
    failures: list[int], max_attempts: int, concurrency: int
) -> None:
    # HELD: attempts, calls per (case, repetition), async before_retry once per retry.
    calls: Counter[tuple[int, int]] = Counter()
    hooks: Counter[tuple[int, int]] = Counter()

    async def task(inputs: int) -> int:
        key = _SLOT.get()  # set by on_event in the worker running this slot
        assert key[0] == inputs
        calls[key] += 1
        await anyio.lowlevel.checkpoint()
        if calls[key] <= failures[inputs]:
            raise RateLimitError("slow down", provider="x")
        return inputs

    async def before_retry(state: RetryState) -> None:
        hooks[(state.case_index, state.repetition)] += 1
        await anyio.lowlevel.checkpoint()

    def on_event(event: EvalEvent) -> None:
        if isinstance(event, CaseStarted):
            _SLOT.set((event.case_index, event.repetition))

    dataset = Dataset(name="r", cases=[Case(name=f"c{i}", inputs=i) for i in range(len(failures))])

    async def main() -> EvaluationReport:
        return await dataset.evaluate(
            task,
            repetitions=2,
            max_concurrency=concurrency,
            task_retry=Retry(max_attempts=max_attempts, before_retry=before_retry),
            on_event=on_event,
            progress=False,
        )

    report: EvaluationReport = _run(main)
    assert len(report.cases) == 2 * len(failures)
    for result in report.cases:
        key = (result.case_index, result.repetition)
        k = failures[result.case_index]
        assert result.attempts == min(k + 1, max_attempts)
        assert calls[key] == result.attempts
        assert hooks[key] == result.attempts - 1
        if k >= max_attempts:
            assert result.error is not None
            assert result.error.code == "rate_limited"
        else:
            assert result.error is None
            assert result.output == result.case_index


@pytest.mark.anyio
async def test_a_classifier_that_raises_ends_the_attempts_with_its_error() -> None:
    # HELD
    calls = 0
    events: list[EvalEvent] = []

    async def task(inputs: str) -> str:
        nonlocal calls
        calls += 1
        raise RateLimitError("429", provider="x")

    def classify(error: BaseException) -> bool:
        raise LookupError("classifier bug")

    dataset = Dataset(name="c", cases=[Case(name="a", inputs="q")])
    report = await dataset.evaluate(
        task,
        task_retry=Retry(max_attempts=5, retry_on=classify),
        on_event=events.append,
        progress=False,
    )
    assert calls == 1
    assert report.cases[0].error is not None
    assert report.cases[0].error.type == "builtins.LookupError"
    failed = [e for e in events if isinstance(e, TaskAttemptFailed)]
    assert [e.will_retry for e in failed] == [False]


@pytest.mark.anyio
async def test_a_raising_before_retry_does_not_announce_a_retry_that_never_comes() -> None:
    # HELD (fixed): was: TaskAttemptFailed says will_retry=True, then before_retry raises and no
    # attempt follows; the event stream lies to a dashboard counting retries.
    calls = 0
    events: list[EvalEvent] = []

    async def task(inputs: str) -> str:
        nonlocal calls
        calls += 1
        raise RateLimitError("429", provider="x")

    def hook(state: RetryState) -> None:
        raise RuntimeError("backoff store down")

    dataset = Dataset(name="c", cases=[Case(name="a", inputs="q")])
    report = await dataset.evaluate(
        task,
        task_retry=Retry(max_attempts=3, before_retry=hook),
        on_event=events.append,
        progress=False,
    )
    assert calls == 1
    assert report.cases[0].attempts == 1
    failed = [e for e in events if isinstance(e, TaskAttemptFailed)]
    assert [e.will_retry for e in failed] == [False]


@pytest.mark.anyio
@pytest.mark.parametrize("concurrency", [1, 3, 10])
async def test_cancelling_the_caller_stops_agent_cases_without_a_group_or_a_hang(
    concurrency: int,
) -> None:
    # HELD: an anyio deadline around evaluate ends it promptly with a plain cancellation.
    never = anyio.Event()
    provider = ByPrompt({f"q{i}": [[wait_for(never), text("late")]] for i in range(5)})
    agent = Agent(provider, retry=None)
    dataset = Dataset(name="cancel", cases=[Case(name=f"c{i}", inputs=f"q{i}") for i in range(5)])
    with anyio.fail_after(5):
        with anyio.move_on_after(0.05) as scope:
            await dataset.evaluate(
                agent,
                max_concurrency=concurrency,
                task_retry=Retry(max_attempts=3),
                progress=False,
            )
    assert scope.cancelled_caught
    assert len(provider.requests) == min(concurrency, 5)  # cancellation was not retried
    assert len(agent.history) == 0


@pytest.mark.anyio
async def test_a_hanging_evaluator_has_no_timeout_but_the_callers_deadline_ends_it() -> None:
    # HELD (no timeout is promised anywhere; the caller's deadline is honoured, raising a
    # plain TimeoutError, not an ExceptionGroup).
    async def hang(ctx: EvaluatorContext[Any, Any]) -> bool:
        await anyio.sleep_forever()
        return True

    async def task(inputs: str) -> str:
        return inputs

    dataset = Dataset(
        name="hang",
        cases=[Case(name=f"c{i}", inputs="x") for i in range(3)],
        evaluators=[evaluator(hang, name="hang")],
    )
    with pytest.raises(TimeoutError):
        with anyio.fail_after(0.1):
            await dataset.evaluate(task, max_concurrency=2, progress=False)


class _Halt(BaseException):
    """A BaseException that is not a cancellation (what a framework's abort may raise)."""


@pytest.mark.parametrize("concurrency", [1, 3])
def test_a_base_exception_in_a_task_reaches_the_caller_as_itself(concurrency: int) -> None:
    # HELD (fixed): was: `except ExceptionGroup` unwraps only Exception groups; a BaseException
    # from a task arrives as BaseExceptionGroup even with max_concurrency=1.
    async def task(inputs: int) -> int:
        if inputs == 1:
            raise _Halt("stop everything")
        await anyio.sleep(0.01)
        return inputs

    dataset = Dataset(name="b", cases=[Case(name=f"c{i}", inputs=i) for i in range(3)])
    caught: BaseException | None = None
    try:
        dataset.evaluate_sync(task, max_concurrency=concurrency, progress=False)
    except BaseException as error:  # what the caller receives, whatever it is
        caught = error
    assert type(caught) is _Halt, type(caught).__name__


@pytest.mark.parametrize("concurrency", [1, 2])
def test_keyboard_interrupt_reaches_the_caller(concurrency: int) -> None:
    # HELD: asyncio re-raises KeyboardInterrupt out of the loop itself.
    calls: list[int] = []

    async def task(inputs: int) -> int:
        calls.append(inputs)
        if inputs == 0:
            raise KeyboardInterrupt
        await anyio.sleep(0.01)
        return inputs

    dataset = Dataset(name="k", cases=[Case(name=f"c{i}", inputs=i) for i in range(3)])
    with pytest.raises(KeyboardInterrupt):
        dataset.evaluate_sync(task, max_concurrency=concurrency, progress=False)
    assert calls[0] == 0
    assert len(calls) <= concurrency


async def _interrupted_run(agent: Agent[Any, Any], prompt: str, output_type: Any) -> Any:
    """Run ``prompt`` and cancel its CancelToken once the model started answering."""
    token = CancelToken()
    holder: list[RunResult[Any]] = []

    async def go() -> None:
        holder.append(await agent.run(prompt, cancel=token, output_type=output_type))

    async with anyio.create_task_group() as group:
        group.start_soon(go)
        await _STARTED[prompt].wait()
        token.cancel("user pressed stop")
    return holder[0]


_STARTED: dict[str, anyio.Event] = {}


@pytest.mark.anyio
async def test_an_interrupted_run_result_is_not_a_passing_case() -> None:
    # HELD (fixed): was: a function task returning RunResult(interrupted=True) (text output) is
    # recorded as a successful case: no error, evaluators judge the partial text, the case passes.
    _STARTED["p"] = anyio.Event()
    never = anyio.Event()
    agent = Agent(
        ScriptedProvider([[text("The capital is"), reached(_STARTED["p"]), wait_for(never)]]),
        retry=None,
    )

    async def task(inputs: str) -> RunResult[Any]:
        return await _interrupted_run(agent.new_conversation(), inputs, None)

    dataset = Dataset(
        name="i", cases=[Case(name="a", inputs="p")], evaluators=[evaluator(lambda c: True)]
    )
    report = await dataset.evaluate(task, progress=False)
    (case,) = report.cases
    assert case.error is not None or not case.passed


@pytest.mark.anyio
async def test_an_interrupted_structured_run_is_recorded_as_output_unavailable() -> None:
    # HELD
    _STARTED["s"] = anyio.Event()
    never = anyio.Event()
    agent = Agent(
        ScriptedProvider([[text('{"a":'), reached(_STARTED["s"]), wait_for(never)]]), retry=None
    )

    async def task(inputs: str) -> RunResult[Any]:
        return await _interrupted_run(agent.new_conversation(), inputs, dict[str, int])

    report = await Dataset(name="i", cases=[Case(name="a", inputs="s")]).evaluate(
        task, progress=False
    )
    error = report.cases[0].error
    assert error is not None
    assert error.code == OutputUnavailableError.code


def _provider_error_classes() -> list[type[ProviderError]]:
    found: list[type[ProviderError]] = []
    for value in vars(core_errors).values():
        if isinstance(value, type) and issubclass(value, ProviderError):
            found.append(value)
    return found


@pytest.mark.anyio
@pytest.mark.parametrize("kind", _provider_error_classes(), ids=lambda k: k.__name__)
async def test_each_provider_error_of_an_agent_task_is_recorded_by_code(
    kind: type[ProviderError],
) -> None:
    # HELD: recorded (type and code), evaluators skipped, retried in a fresh conversation.
    error = kind("vendor said no", provider="scripted")
    provider = ByPrompt({"q": [[fail(error)], [fail(error)], [text("fine")]]})
    agent = Agent(provider, retry=None)
    judged: list[str] = []

    def judge(ctx: EvaluatorContext[Any, Any]) -> bool:
        judged.append(str(ctx.output))
        return True

    dataset = Dataset(
        name="p", cases=[Case(name="a", inputs="q")], evaluators=[evaluator(judge, name="j")]
    )
    once = await dataset.evaluate(agent, progress=False)
    (case,) = once.cases
    assert case.error is not None
    assert case.error.code == error.error_code
    assert case.error.type.endswith(kind.__qualname__)
    assert case.results == ()
    assert judged == []

    retried = await dataset.evaluate(agent, task_retry=Retry(max_attempts=2), progress=False)
    assert retried.cases[0].error is None
    assert retried.cases[0].attempts == 2
    assert judged == ["fine"]
    # the retry ran in a fresh conversation: one user message, no failed leftovers
    last = provider.requests[-1]
    assert [m.kind for m in last.messages] == ["user"]


@pytest.mark.anyio
async def test_an_evaluator_mutating_the_output_cannot_rewrite_the_report() -> None:
    # HELD (fixed): was: the report's `output` is serialised AFTER the evaluators ran, so an
    # evaluator that appends to a list output rewrites what the report records (and what later
    # evaluators see).
    async def task(inputs: str) -> list[str]:
        return ["Paris"]

    def vandal(ctx: EvaluatorContext[Any, Any]) -> bool:
        ctx.output.append("Lyon")
        return True

    dataset = Dataset(
        name="m",
        cases=[Case(name="a", inputs="q", expected_output=["Paris"])],
        evaluators=[evaluator(vandal, name="vandal"), ExactMatch()],
    )
    report = await dataset.evaluate(task, progress=False)
    assert report.cases[0].output == ["Paris"]


@pytest.mark.anyio
async def test_an_evaluator_cannot_mutate_the_cases_metadata_through_its_read_only_view() -> None:
    # HELD (fixed): was: EvaluatorContext is "a read-only view", but ctx.metadata is the Case's own
    # dict: an evaluator changes the (frozen) dataset and every later repetition sees it.
    seen: list[int] = []

    def counter(ctx: EvaluatorContext[Any, Any]) -> bool:
        seen.append(int(ctx.metadata["runs"]))
        ctx.metadata["runs"] += 1  # type: ignore[index]  # what a careless evaluator does
        return True

    async def task(inputs: str) -> str:
        return inputs

    case = Case(name="a", inputs="q", metadata={"runs": 0})
    dataset = Dataset(name="m", cases=[case], evaluators=[evaluator(counter, name="counter")])
    # refusing the mutation (a read-only mapping: the evaluator's error) would be fine too
    await dataset.evaluate(task, repetitions=3, progress=False)
    assert seen[:1] == [0]
    assert set(seen) <= {0}
    assert dict(case.metadata) == {"runs": 0}


class _Vandal(ReportEvaluator):
    def evaluate(self, view: ReportView) -> bool:
        view.cases[0].output.append("injected")
        view.cases[0].metadata["verdict"] = "forged"  # type: ignore[index]
        return True


@pytest.mark.anyio
async def test_a_report_evaluator_cannot_change_case_outcomes() -> None:
    # HELD (fixed): was: seed: "an aggregate evaluator cannot mutate case outcomes"; the view hands
    # out the report's own list/dict values, and the mutation lands in the returned report.
    async def task(inputs: str) -> list[str]:
        return ["ok"]

    dataset = Dataset(
        name="v", cases=[Case(name="a", inputs="q", metadata={})], report_evaluators=[_Vandal()]
    )
    report = await dataset.evaluate(task, progress=False)
    assert report.cases[0].output == ["ok"]
    assert report.cases[0].metadata == {}


@pytest.mark.anyio
async def test_non_finite_scores_stay_in_the_report_and_out_of_the_stats() -> None:
    # HELD
    scores = iter([0.5, math.nan, math.inf, -math.inf, 1.0])

    async def task(inputs: str) -> str:
        return inputs

    dataset = Dataset(
        name="s",
        cases=[Case(name="a", inputs="q")],
        evaluators=[evaluator(lambda c: next(scores), name="quality")],
        report_evaluators=[ScoreMeanAtLeast("quality", 0.75)],
    )
    report = await dataset.evaluate(task, repetitions=5, progress=False)
    values = [c.results[0].value for c in report.cases]
    assert values[0] == 0.5
    assert values[4] == 1.0
    assert isinstance(values[1], float)
    assert math.isnan(values[1])
    assert values[2] == math.inf
    assert values[3] == -math.inf
    stats = report.score_stats()["quality"]
    assert (stats.count, stats.excluded, stats.mean) == (2, 3, 0.75)
    analysis = report.analysis("ScoreMeanAtLeast")
    assert analysis is not None
    assert analysis.assertion is True
    assert all(c.passed for c in report.cases)  # scores never fail a case


@pytest.mark.anyio
async def test_a_huge_integer_score_is_treated_as_non_finite() -> None:
    # HELD (fixed): was: an int score beyond float range is kept, then score_stats() raises
    # OverflowError (so ScoreMeanAtLeast records an error and every caller of score_stats crashes).
    async def task(inputs: str) -> str:
        return inputs

    dataset = Dataset(
        name="s",
        cases=[Case(name="a", inputs="q")],
        evaluators=[evaluator(lambda c: 10**400, name="quality")],
    )
    report = await dataset.evaluate(task, progress=False)
    stats = report.score_stats()["quality"]
    assert stats.count == 0
    assert stats.excluded == 1


class _Returns(ReportEvaluator):
    def __init__(self, value: Any, name: str) -> None:
        self.value = value
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def evaluate(self, view: ReportView) -> Any:
        return self.value


@pytest.mark.anyio
async def test_non_finite_report_values_are_rejected_and_recorded() -> None:
    # HELD
    async def task(inputs: str) -> str:
        return inputs

    dataset = Dataset(
        name="r",
        cases=[Case(name="a", inputs="q")],
        report_evaluators=[
            _Returns(math.nan, "nan"),
            _Returns(-math.inf, "ninf"),
            _Returns(10**400, "huge"),
            _Returns("0.9", "text"),
            _Returns(True, "flag"),
        ],
    )
    report = await dataset.evaluate(task, progress=False)
    by_name = {a.name: a for a in report.analyses}
    for name in ("nan", "ninf", "huge", "text"):
        assert by_name[name].error is not None
        assert by_name[name].value is None
    assert by_name["flag"].assertion is True
    assert by_name["flag"].error is None


@pytest.mark.anyio
async def test_a_report_analysis_with_another_name_keeps_its_error() -> None:
    # HELD (fixed): was: run_report_evaluator rebuilds a mis-named analysis field by field and
    # forgets `error`, turning a failed analysis (counted as failed) into an empty one.
    failed = ReportAnalysis(name="draft", error=CaseError(type="x.Boom", message="boom"))

    async def task(inputs: str) -> str:
        return inputs

    dataset = Dataset(
        name="r", cases=[Case(name="a", inputs="q")], report_evaluators=[_Returns(failed, "mine")]
    )
    report = await dataset.evaluate(task, progress=False)
    analysis = report.analysis("mine")
    assert analysis is not None
    assert analysis.error is not None


def test_duplicate_names_via_evaluation_name_are_refused_across_kinds() -> None:
    # HELD
    cases = [Case(name="a", inputs="q")]
    with pytest.raises(ValueError, match="two evaluators are named 'x'"):
        Dataset(name="d", cases=cases, evaluators=[ExactMatch(evaluation_name="x")],
                report_evaluators=[CaseCount(evaluation_name="x")])  # fmt: skip
    # an empty evaluation_name is refused, at construction or as a duplicate of the class name
    empty = "two evaluators are named 'ExactMatch'|evaluation_name must not be empty"
    with pytest.raises(ValueError, match=empty):
        Dataset(name="d", cases=cases, evaluators=[ExactMatch(evaluation_name=""), ExactMatch()])
    with pytest.raises(ValueError, match="two evaluators are named 'SpanAbsent'"):
        Dataset(
            name="d",
            cases=cases,
            evaluators=[evaluator(lambda c: True, name="SpanAbsent")],
            trace_evaluators=[SpanAbsent("execute_tool shell")],
        )
    with pytest.raises(ValueError, match="two cases"):
        Dataset(name="d", cases=[*cases, Case(name="a", inputs="other")])


def _lookup_tool(delays: Mapping[str, float]) -> FunctionTool[Any, Any]:
    async def lookup(topic: str) -> str:
        """Look a topic up.

        Args:
            topic: What to look up.
        """
        await anyio.sleep(delays.get(topic, 0.0))
        return f"facts about {topic}"

    return tool(name="lookup")(lookup)


@pytest.mark.anyio
@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_a_shared_agent_never_leaks_one_cases_history_into_another(seed: int) -> None:
    # HELD: one Agent object, 6 cases x 2 repetitions, 4 in flight, tools with random delays.
    rng = random.Random(seed)
    names = [f"case{i}" for i in range(6)]
    scripts: dict[str, list[Turn]] = {}
    for name in names:
        one: list[Turn] = [
            [delay(rng.random() / 200), tool_call(f"{name}-c1", "lookup", {"topic": name})],
            [delay(rng.random() / 200), text(f"answer {name}")],
        ]
        scripts[f"about {name}"] = one * 2  # two repetitions
    provider = ByPrompt(scripts)
    agent = Agent(
        provider,
        tools=[_lookup_tool({n: rng.random() / 200 for n in names})],
        retry=None,
        system_prompt="Be brief.",
    )
    dataset = Dataset(
        name="iso",
        cases=[Case(name=n, inputs=f"about {n}", expected_output=f"answer {n}") for n in names],
        evaluators=[ExactMatch()],
    )
    report = await dataset.evaluate(agent, repetitions=2, max_concurrency=4, progress=False)
    assert report.pass_rate() == 1.0
    for request in provider.requests:
        owner = _first_prompt(request).removeprefix("about ")
        users = [m for m in request.messages if isinstance(m, UserMessage)]
        assert len(users) == 1
        for message in request.messages:
            for part in _parts(message):
                if isinstance(part, ToolResultPart):
                    assert owner in str(part.content)
                if isinstance(part, TextPart) and part.text.startswith("answer"):
                    raise AssertionError("an earlier answer leaked into a later request")
    assert len(agent.history) == 1  # the system prompt only: the definition is untouched
    assert all(len(c.results) == 1 for c in report.cases)


def test_evaluate_sync_inside_a_running_loop_fails_cleanly_without_running_a_case() -> None:
    # HELD
    calls = 0

    async def task(inputs: str) -> str:
        nonlocal calls
        calls += 1
        return inputs

    dataset = Dataset(name="s", cases=[Case(name="a", inputs="q")])

    async def main() -> None:
        with pytest.raises(RuntimeError):
            dataset.evaluate_sync(task, progress=False)

    anyio.run(main)
    assert calls == 0


@pytest.mark.anyio
@pytest.mark.parametrize("concurrency", [None, 1, 5])
async def test_an_empty_dataset_gives_an_empty_report(concurrency: int | None) -> None:
    # HELD (PassRateAtLeast on an empty run passes: documented "an empty run counts as 1.0")
    async def task(inputs: str) -> str:
        raise AssertionError("no case to run")

    dataset = Dataset(
        name="empty",
        cases=[],
        evaluators=[ExactMatch()],
        report_evaluators=[CaseCount(), PassRateAtLeast(1.0)],
    )
    report = await dataset.evaluate(
        task, repetitions=3, max_concurrency=concurrency, progress=False
    )
    assert report.cases == ()
    count = report.analysis("CaseCount")
    rate = report.analysis("PassRateAtLeast")
    assert count is not None
    assert count.value == 0.0
    assert rate is not None
    assert rate.assertion is True


class _Boom(Exception):
    pass


@pytest.mark.anyio
@pytest.mark.parametrize("kind", ["case.started", "task.attempt_failed", "report.evaluated"])
@pytest.mark.parametrize("concurrency", [1, 4])
async def test_an_on_event_exception_reaches_the_caller_as_itself(
    kind: str, concurrency: int
) -> None:
    # HELD
    async def task(inputs: int) -> int:
        await anyio.lowlevel.checkpoint()
        if inputs % 2:
            raise RateLimitError("429", provider="x")
        return inputs

    def on_event(event: EvalEvent) -> None:
        if event.kind == kind:
            raise _Boom(kind)

    dataset = Dataset(
        name="e",
        cases=[Case(name=f"c{i}", inputs=i) for i in range(6)],
        report_evaluators=[CaseCount()],
    )
    with anyio.fail_after(5), pytest.raises(_Boom, match=kind):
        await dataset.evaluate(task, max_concurrency=concurrency, on_event=on_event, progress=False)


# --- span capture ---------------------------------------------------------------------------


class Stateless(Provider):
    """Answers from the conversation's state, not from a queue, so concurrent repetitions of
    one prompt each get the whole script: no tool result yet -> call both tools (main) or
    answer (sub); otherwise -> the final answer. Each answer waits a random moment."""

    name = "scripted"
    default_model = "scripted-model"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        prompt = _first_prompt(request)
        wait = delay(self.rng.random() / 100)
        answered = any(
            isinstance(part, ToolResultPart)
            for message in request.messages
            for part in _parts(message)
        )
        if prompt.startswith("sub "):
            turn: Turn = [wait, text(f"sub says {prompt[4:]}")]
        elif answered:
            turn = [wait, text(f"done {prompt[3:]}")]
        else:
            topic = prompt[3:]
            turn = [
                wait,
                tool_call(f"{topic}-research", "research", {"topic": topic}),
                tool_call(f"{topic}-lookup", "lookup", {"topic": topic}),
            ]
        return ScriptedProvider([turn]).stream(request)


def _span_agent(sink: OpenTelemetrySink, rng: random.Random) -> Agent[Any, Any]:
    """An agent whose `research` tool runs a nested sub-agent (same sink) and whose `lookup`
    tool sleeps a random time; the model calls both in parallel in one turn."""
    provider = Stateless(rng)
    sub = Agent(provider, sinks=[sink], name="sub", retry=None)

    async def research(topic: str) -> str:
        """Research a topic with a sub-agent.

        Args:
            topic: What to research.
        """
        result = await sub.new_conversation().run(f"sub {topic}")
        return result.text

    return Agent(
        provider,
        tools=[tool(name="research")(research), _lookup_tool({})],
        sinks=[sink],
        name="main",
        retry=None,
    )


def _tree_is_closed_and_owned(spans: Sequence[Any], name: str) -> None:
    ids = {s.span_id for s in spans}
    for span in spans:
        assert span.parent_span_id is None or span.parent_span_id in ids, span.name
        call_id = span.attributes.get("gen_ai.tool.call.id")
        if call_id is not None:
            assert str(call_id).startswith(f"{name}-"), (name, call_id)


@pytest.mark.anyio
@pytest.mark.parametrize("seed", [7, 8])
async def test_concurrent_cases_with_parallel_tools_and_subagents_keep_their_own_spans(
    seed: int,
) -> None:
    # HELD: each case's tree: 2 invoke_agent (main + nested sub), 3 chat, 2 execute_tool, only
    # its own call ids, no dangling parent; the user's exporter got every span exactly once.
    rng = random.Random(seed)
    names = [f"k{i}" for i in range(5)]
    otel, exporter = _user_provider()
    sink = OpenTelemetrySink(otel, request_model="scripted-model")
    agent = _span_agent(sink, rng)
    dataset = Dataset(
        name="spans",
        cases=[Case(name=n, inputs=f"go {n}") for n in names],
        trace_evaluators=[AnySpans()],
    )
    report = await dataset.evaluate(agent, repetitions=2, max_concurrency=3, progress=False)
    captured: list[str] = []
    for case in report.cases:
        assert case.error is None, case.error
        spans = case.spans
        counts = Counter(s.name.split(" ")[0] for s in spans)
        assert counts == {"invoke_agent": 2, "chat": 3, "execute_tool": 2}, (case.name, counts)
        _tree_is_closed_and_owned(spans, case.name)
        captured += [s.span_id for s in spans]
    exported: list[ReadableSpan] = list(exporter.get_finished_spans())
    exported_ids = [format(s.context.span_id, "016x") for s in exported if s.context]
    assert len(exported_ids) == len(set(exported_ids))  # exactly once
    assert sorted(exported_ids) == sorted(captured)


@pytest.mark.anyio
async def test_two_datasets_sharing_a_tracer_provider_concurrently_do_not_cross_talk() -> None:
    # HELD: one provider, one sink, one agent, two evaluations at once.
    rng = random.Random(3)
    left, right = ["l0", "l1", "l2"], ["r0", "r1", "r2"]
    otel, exporter = _user_provider()
    sink = OpenTelemetrySink(otel, request_model="scripted-model")
    agent = _span_agent(sink, rng)
    reports: list[EvaluationReport] = []

    async def evaluate(names: list[str]) -> None:
        dataset = Dataset(
            name=names[0],
            cases=[Case(name=n, inputs=f"go {n}") for n in names],
            trace_evaluators=[AnySpans()],
        )
        reports.append(await dataset.evaluate(agent, max_concurrency=2, progress=False))

    async with anyio.create_task_group() as group:
        group.start_soon(evaluate, left)
        group.start_soon(evaluate, right)
    total = 0
    for report in reports:
        for case in report.cases:
            assert len(case.spans) == 7
            _tree_is_closed_and_owned(case.spans, case.name)
            total += len(case.spans)
    exported = exporter.get_finished_spans()
    assert len(exported) == total == 42  # the capture was installed once: no duplicate export


class _ApiOnlyProvider(trace.TracerProvider):
    """An API tracer provider that is not the SDK's (a vendor's own implementation)."""

    def get_tracer(self, *args: Any, **kwargs: Any) -> trace.Tracer:
        return NoOpTracerProvider().get_tracer("x")


def _misconfigured(setup: str) -> tuple[Any, dict[str, Any], ByPrompt]:
    provider = ByPrompt({"q": ["a"]})
    options: dict[str, Any] = {}
    if setup == "no sink":
        return Agent(provider, retry=None), options, provider
    if setup == "global proxy":
        if not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
            pytest.skip("a global SDK provider is installed in this process")
        return Agent(provider, sinks=[OpenTelemetrySink()], retry=None), options, provider
    if setup == "noop":
        sink = OpenTelemetrySink(NoOpTracerProvider())
        return Agent(provider, sinks=[sink], retry=None), options, provider
    if setup == "api only":
        sink = OpenTelemetrySink(_ApiOnlyProvider())
        return Agent(provider, sinks=[sink], retry=None), options, provider
    if setup == "one good one bad sink":
        good = OpenTelemetrySink(TracerProvider())
        bad = OpenTelemetrySink(NoOpTracerProvider())
        return Agent(provider, sinks=[good, bad], retry=None), options, provider
    agent = Agent(provider, retry=None)

    async def task(inputs: str) -> RunResult[Any]:
        return await agent.new_conversation().run(inputs)

    if setup == "function, noop given":
        options["tracer_provider"] = NoOpTracerProvider()
    return task, options, provider


@pytest.mark.anyio
@pytest.mark.parametrize(
    "setup",
    [
        "no sink",
        "global proxy",
        "noop",
        "api only",
        "one good one bad sink",
        "function, nothing given",
        "function, noop given",
    ],
)
async def test_telemetry_misconfiguration_fails_before_any_task_call(setup: str) -> None:
    # HELD
    task, options, provider = _misconfigured(setup)
    dataset = Dataset(
        name="t",
        cases=[Case(name="a", inputs="q")],
        trace_evaluators=[ToolSpanAbsent("shell")],
    )
    events: list[EvalEvent] = []
    with pytest.raises(TelemetryNotConfiguredError):
        await dataset.evaluate(task, on_event=events.append, progress=False, **options)
    assert provider.requests == []
    assert events == []


@pytest.mark.anyio
async def test_an_agent_without_telemetry_is_refused_even_when_a_tracer_provider_is_given() -> None:
    # HELD (fixed): was: for an Agent task, `tracer_provider=` "wins over the agent's sinks", so an
    # agent with no OpenTelemetrySink (or a sink on another provider) is accepted; nothing is ever
    # captured and ToolSpanAbsent("shell") passes vacuously although the agent ran `shell`.
    async def shell(cmd: str) -> str:
        """Run a command.

        Args:
            cmd: The command.
        """
        return "deleted"

    provider = ByPrompt({"q": [[tool_call("c1", "shell", {"cmd": "rm -rf /"})], ["done"]]})
    agent = Agent(provider, tools=[tool(name="shell")(shell)], retry=None)
    otel, _ = _user_provider()
    dataset = Dataset(
        name="t", cases=[Case(name="a", inputs="q")], trace_evaluators=[ToolSpanAbsent("shell")]
    )
    try:
        report = await dataset.evaluate(agent, tracer_provider=otel, progress=False)
    except TelemetryNotConfiguredError:
        return
    assert not report.cases[0].passed, "the shell call went unseen"


@pytest.mark.anyio
async def test_without_trace_evaluators_nothing_is_installed_or_captured() -> None:
    # HELD
    otel, exporter = _user_provider()
    before = otel._active_span_processor._span_processors  # pyright: ignore[reportPrivateUsage]
    provider = ByPrompt({"q": ["a"]})
    agent = Agent(provider, sinks=[OpenTelemetrySink(otel)], retry=None)
    report = await Dataset(name="n", cases=[Case(name="a", inputs="q")]).evaluate(
        agent, progress=False
    )
    after = otel._active_span_processor._span_processors  # pyright: ignore[reportPrivateUsage]
    assert after == before
    assert report.cases[0].spans == ()
    assert len(exporter.get_finished_spans()) == 2  # invoke_agent + chat, still exported


@pytest.mark.anyio
async def test_a_span_ending_outside_any_case_is_nobodys() -> None:
    # HELD: a span started in a case but ended by a background task that outlives it (spawned
    # from the caller's own task group) lands in no case.
    otel, exporter = _user_provider()
    tracer = otel.get_tracer("app")
    send, receive = anyio.create_memory_object_stream[Any](10)

    async def closer() -> None:
        async with receive:
            async for span in receive:
                span.end()

    async def task(inputs: str) -> str:
        with tracer.start_as_current_span(f"inside {inputs}"):
            pass
        span = tracer.start_span(f"handed off {inputs}")
        await send.send(span)
        return inputs

    dataset = Dataset(
        name="o",
        cases=[Case(name=n, inputs=n) for n in ("a", "b", "c")],
        trace_evaluators=[AnySpans()],
    )
    report: EvaluationReport | None = None
    async with anyio.create_task_group() as group:
        group.start_soon(closer)
        report = await dataset.evaluate(task, tracer_provider=otel, progress=False)
        await send.aclose()
    assert report is not None
    assert [[s.name for s in c.spans] for c in report.cases] == [
        ["inside a"],
        ["inside b"],
        ["inside c"],
    ]
    assert len(exporter.get_finished_spans()) == 6


@pytest.mark.anyio
async def test_a_span_started_in_one_case_does_not_land_in_the_next() -> None:
    # HELD (fixed): was: the capture reads the buffer of the context where a span ENDS; a span case
    # A opened and case B closed (a pooled connection, a shared client's lazily-ended span) is
    # counted in case B's tree, with a parent that is not there.
    otel, _ = _user_provider()
    tracer = otel.get_tracer("app")
    pending: list[Any] = []

    async def task(inputs: str) -> str:
        while pending:
            pending.pop().end()  # B closes what A left open
        pending.append(tracer.start_span(f"connection of {inputs}"))
        return inputs

    dataset = Dataset(
        name="o",
        cases=[Case(name=n, inputs=n) for n in ("a", "b")],
        trace_evaluators=[AnySpans()],
    )
    report = await dataset.evaluate(task, tracer_provider=otel, progress=False)
    for pending_span in pending:
        pending_span.end()
    assert [s.name for s in report.cases[1].spans] == []
