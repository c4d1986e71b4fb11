"""The evaluation runner: real Agents on ScriptedProvider, real evaluators; source order under
concurrency, the concurrency bound, events, report fields, report evaluators, validation."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import anyio
import pytest
from robota.core.agent import Agent, RunResult
from robota.core.messages import TextPart, UserMessage
from robota.core.provider import ModelRequest, Provider, StreamEvent
from robota.core.testing.scripted import ScriptedProvider, Turn, text, usage, wait_for
from robota.evals.case import Case
from robota.evals.dataset import Dataset
from robota.evals.evaluators.base import (
    EvaluationReason,
    Evaluator,
    EvaluatorContext,
    evaluator,
)
from robota.evals.evaluators.report import ReportEvaluator
from robota.evals.report.model import CaseResult, ReportAnalysis, ReportView
from robota.evals.run.events import CaseCompleted, EvalEvent
from robota.evals.run.retry import Retry


class ByPrompt(Provider):
    """Routes each request to the ScriptedProvider scripted for the run's first user prompt, so
    concurrent conversations of one agent get their own answers."""

    name = "scripted"
    default_model = "scripted-model"

    def __init__(self, scripts: Mapping[str, Sequence[Turn]]) -> None:
        self.scripts = {prompt: ScriptedProvider(turns) for prompt, turns in scripts.items()}

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        first = next(m for m in request.messages if isinstance(m, UserMessage))
        prompt = "".join(p.text for p in first.parts if isinstance(p, TextPart))
        return self.scripts[prompt].stream(request)


class Equals(Evaluator[str, str]):
    """A real user evaluator: the output equals the expected output."""

    def evaluate(self, ctx: EvaluatorContext[str, str]) -> EvaluationReason:
        return EvaluationReason(
            value=ctx.output == ctx.expected_output, reason=f"got {ctx.output!r}"
        )


@pytest.mark.anyio
async def test_results_keep_source_order_when_cases_complete_in_reverse() -> None:
    # Case i's answer waits until case i+1 has completed: completion order is 3, 2, 1, 0.
    gates = [anyio.Event() for _ in range(4)]
    provider = ByPrompt(
        {
            f"q{i}": [[wait_for(gates[i]), text(f"a{i}"), usage(input_tokens=10, output_tokens=i)]]
            for i in range(4)
        }
    )
    agent = Agent(provider)
    completed: list[int] = []

    def on_event(event: EvalEvent) -> None:
        if isinstance(event, CaseCompleted):
            completed.append(event.result.case_index)
            if event.result.case_index > 0:
                gates[event.result.case_index - 1].set()

    gates[3].set()
    dataset = Dataset(
        name="order",
        cases=[Case(name=f"c{i}", inputs=f"q{i}", expected_output=f"a{i}") for i in range(4)],
        evaluators=[Equals()],
    )
    report = await dataset.evaluate(agent, max_concurrency=4, on_event=on_event, progress=False)

    assert completed == [3, 2, 1, 0]
    assert [c.name for c in report.cases] == ["c0", "c1", "c2", "c3"]
    assert [c.output for c in report.cases] == ["a0", "a1", "a2", "a3"]
    assert [c.inputs for c in report.cases] == ["q0", "q1", "q2", "q3"]
    assert all(c.passed for c in report.cases)
    assert report.cases[2].result("Equals") is not None
    assert report.cases[2].results[0].reason == "got 'a2'"
    assert report.usage.input_tokens == 40
    assert report.usage.output_tokens == 0 + 1 + 2 + 3
    assert report.usage.requests == 4
    assert report.name == "order"
    assert report.dataset == "order"
    assert report.evaluators == ("Equals",)
    # Each case ran in a fresh conversation: the agent's own history is untouched.
    assert agent.history == ()


@pytest.mark.anyio
async def test_repetitions_are_source_ordered_and_each_gets_a_fresh_conversation() -> None:
    provider = ByPrompt({"a": ["one", "two"], "b": ["three", "four"]})
    agent = Agent(provider, system_prompt="Answer.")
    dataset = Dataset(name="reps", cases=[Case(name="A", inputs="a"), Case(name="B", inputs="b")])

    report = await dataset.evaluate(agent, repetitions=2, name="nightly", progress=False)

    assert [(c.name, c.repetition, c.output) for c in report.cases] == [
        ("A", 0, "one"),
        ("A", 1, "two"),
        ("B", 0, "three"),
        ("B", 1, "four"),
    ]
    assert report.repetitions == 2
    assert report.name == "nightly"
    # The second repetition's request holds only the system prompt and its own user prompt.
    second = provider.scripts["a"].requests[1]
    assert [type(m).__name__ for m in second.messages] == ["SystemMessage", "UserMessage"]


@pytest.mark.anyio
async def test_concurrency_never_exceeds_max_concurrency() -> None:
    in_flight = 0
    peak = 0

    async def task(inputs: int) -> int:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        for _ in range(3):
            await anyio.lowlevel.checkpoint()
        in_flight -= 1
        return inputs * 2

    dataset = Dataset(name="bound", cases=[Case(name=f"c{i}", inputs=i) for i in range(7)])

    bounded = await dataset.evaluate(task, max_concurrency=3, progress=False)
    assert peak == 3
    assert [c.output for c in bounded.cases] == [0, 2, 4, 6, 8, 10, 12]

    peak = 0
    await dataset.evaluate(task, progress=False)
    assert peak == 1


@pytest.mark.anyio
async def test_events_follow_each_case_in_order() -> None:
    seen: list[str] = []
    flaky_calls = 0

    async def task(inputs: str) -> str:
        return inputs.upper()

    def flaky(ctx: EvaluatorContext[str, str]) -> bool:
        nonlocal flaky_calls
        flaky_calls += 1
        if flaky_calls == 1:
            raise RuntimeError("judge hiccup")
        return True

    def record(event: EvalEvent) -> None:
        seen.append(event.kind)

    dataset = Dataset(
        name="events",
        cases=[Case(name="x", inputs="hi")],
        evaluators=[evaluator(flaky, name="flaky"), evaluator(lambda c: 1.5, name="score")],
        report_evaluators=[_PassRate()],
    )
    await dataset.evaluate(
        task, evaluator_retry=Retry(max_attempts=2), on_event=record, progress=False
    )

    assert seen == [
        "case.started",
        "evaluator.attempt_failed",
        "evaluator.completed",
        "evaluator.completed",
        "case.completed",
        "report.evaluated",
    ]


class _PassRate(ReportEvaluator):
    def evaluate(self, view: ReportView) -> ReportAnalysis:
        return ReportAnalysis(
            name="ignored", assertion=view.pass_rate() >= 0.5, value=view.pass_rate(), unit="ratio"
        )


@dataclass
class _Seen:
    views: list[ReportView]


class _Inspects(ReportEvaluator):
    def __init__(self, seen: _Seen) -> None:
        self.seen = seen

    def evaluate(self, view: ReportView) -> float:
        self.seen.views.append(view)
        return float(len(view.cases))


class _Mutates(ReportEvaluator):
    def evaluate(self, view: ReportView) -> bool:
        view.report.cases[0].error = None  # type: ignore[misc]  # frozen: raises
        return True


class _Infinite(ReportEvaluator):
    def evaluate(self, view: ReportView) -> float:
        return math.inf


@pytest.mark.anyio
async def test_report_evaluators_see_the_finished_cases_and_cannot_change_them() -> None:
    provider = ByPrompt({"good": ["yes"], "bad": ["no"]})
    seen = _Seen(views=[])
    dataset = Dataset(
        name="report",
        cases=[
            Case(name="good", inputs="good", expected_output="yes"),
            Case(name="bad", inputs="bad", expected_output="yes"),
        ],
        evaluators=[Equals()],
        report_evaluators=[_Inspects(seen), _PassRate(), _Mutates(), _Infinite()],
    )
    events: list[EvalEvent] = []

    report = await dataset.evaluate(Agent(provider), on_event=events.append, progress=False)

    (view,) = seen.views
    assert [c.passed for c in view.cases] == [True, False]
    assert view.report.analyses == ()
    assert view.usage == report.usage
    inspects, pass_rate, mutates, infinite = report.analyses
    assert inspects.name == "_Inspects"
    assert inspects.value == 2.0
    assert pass_rate.name == "_PassRate"
    assert (pass_rate.assertion, pass_rate.value, pass_rate.unit) == (True, 0.5, "ratio")
    assert mutates.error is not None
    assert mutates.error.type == "dataclasses.FrozenInstanceError"
    assert infinite.error is not None
    assert infinite.error.type == "builtins.ValueError"
    assert infinite.value is None
    assert report.analysis("_PassRate") == pass_rate
    # The cases are as the tasks left them.
    assert [c.passed for c in report.cases] == [True, False]
    assert report.evaluators == ("Equals", "_Inspects", "_PassRate", "_Mutates", "_Infinite")
    assert [e.kind for e in events][-4:] == ["report.evaluated"] * 4
    assert report.started_at.endswith("Z")
    assert len(report.started_at) == len("2026-12-02T10:00:00Z")
    assert report.duration >= max(c.duration for c in report.cases)


@dataclass(frozen=True)
class Ticket:
    title: str
    priority: int


class Opaque:
    def __repr__(self) -> str:
        return "<opaque>"


@pytest.mark.anyio
async def test_values_are_stored_json_compatible_and_evaluators_get_the_real_output() -> None:
    outputs: list[object] = []

    async def task(inputs: Ticket) -> Ticket:
        return dataclasses.replace(inputs, priority=inputs.priority + 1)

    def check(ctx: EvaluatorContext[Ticket, Ticket]) -> bool:
        outputs.append(ctx.output)
        return ctx.output.priority == 3

    dataset = Dataset(
        name="json",
        cases=[
            Case(
                name="t",
                inputs=Ticket(title="crash", priority=2),
                expected_output=Ticket(title="crash", priority=3),
                metadata={"owner": "ops", "thing": Opaque()},
            )
        ],
        evaluators=[evaluator(check, name="bumped")],
    )

    report = await dataset.evaluate(task, progress=False)

    (case,) = report.cases
    assert case.inputs == {"title": "crash", "priority": 2}
    assert case.expected_output == {"title": "crash", "priority": 3}
    assert case.output == {"title": "crash", "priority": 3}
    assert case.metadata == {"owner": "ops", "thing": "<opaque>"}
    assert outputs == [Ticket(title="crash", priority=3)]
    assert case.passed


@pytest.mark.anyio
async def test_a_function_task_returning_a_run_result_reports_its_usage_and_messages() -> None:
    provider = ScriptedProvider([[text("4"), usage(input_tokens=7, output_tokens=1)]])
    agent = Agent(provider)
    tool_counts: list[int] = []

    async def task(question: str) -> RunResult[str]:
        return await agent.run(question)

    def messages(ctx: EvaluatorContext[str, str]) -> int:
        tool_counts.append(len(ctx.tool_calls))
        return len(ctx.messages)

    dataset = Dataset(
        name="fn",
        cases=[Case(name="sum", inputs="2+2?")],
        evaluators=[evaluator(messages, name="messages")],
    )
    report = await dataset.evaluate(task, progress=False)

    (case,) = report.cases
    assert case.output == "4"
    assert case.usage.input_tokens == 7
    assert case.results[0].value == 2  # the user prompt and the answer
    assert tool_counts == [0]
    assert report.usage.input_tokens == 7


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"repetitions": 0}, "repetitions must be >= 1"),
        ({"max_concurrency": 0}, "max_concurrency must be >= 1"),
    ],
)
async def test_invalid_options_fail_before_any_case_runs(
    options: dict[str, Any], message: str
) -> None:
    calls = 0

    async def task(inputs: str) -> str:
        nonlocal calls
        calls += 1
        return inputs

    dataset = Dataset(name="bad", cases=[Case(name="x", inputs="x")])
    with pytest.raises(ValueError, match=message):
        await dataset.evaluate(task, progress=False, **options)
    assert calls == 0


@pytest.mark.anyio
async def test_an_on_event_exception_stops_the_run_and_propagates_as_raised() -> None:
    class Boom(Exception):
        pass

    started: list[str] = []

    def on_event(event: EvalEvent) -> None:
        if isinstance(event, CaseCompleted):
            raise Boom("callback bug")
        started.append(event.kind)

    async def task(inputs: str) -> str:
        await anyio.lowlevel.checkpoint()
        return inputs

    dataset = Dataset(name="cb", cases=[Case(name=f"c{i}", inputs="x") for i in range(4)])
    with pytest.raises(Boom, match="callback bug"):
        await dataset.evaluate(task, max_concurrency=2, on_event=on_event, progress=False)
    # Two cases were admitted; the run stopped at the first completion.
    assert started == ["case.started", "case.started"]


def test_evaluate_sync_runs_the_same_runner() -> None:
    dataset = Dataset(name="sync", cases=[Case(name="x", inputs="hi", expected_output="hi")])

    async def echo(inputs: str) -> str:
        return inputs

    report = dataset.evaluate_sync(echo, progress=False)
    assert [c.output for c in report.cases] == ["hi"]
    assert isinstance(report.cases[0], CaseResult)
