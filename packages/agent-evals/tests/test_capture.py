"""The span tee: an Agent's OpenTelemetrySink spans (invoke_agent → chat → execute_tool) land in
their own case's SpanTree under concurrency, the application's exporter keeps every span, and a
missing telemetry configuration fails before any case runs."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import anyio
import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import NoOpTracerProvider, SpanKind, Status, StatusCode
from robota.core.agent import Agent, RunResult
from robota.core.messages import TextPart, UserMessage
from robota.core.provider import ModelRequest, Provider, StreamEvent
from robota.core.testing.scripted import ScriptedProvider, Turn, text, tool_call
from robota.core.tools.function import FunctionTool, tool
from robota.evals.case import Case
from robota.evals.dataset import Dataset
from robota.evals.errors import TelemetryNotConfiguredError
from robota.evals.evaluators.base import EvaluatorContext, TraceEvaluator, evaluator
from robota.evals.run.capture import capturing, install_capture, span_record
from robota.evals.run.retry import Retry
from robota.evals.spans import SpanRecord, SpanTree
from robota.plugins.telemetry import OpenTelemetrySink

TOOLS = ("alpha", "beta", "gamma", "delta")


class ByPrompt(Provider):
    """Routes each request to the ScriptedProvider scripted for the run's first user prompt."""

    name = "scripted"
    default_model = "scripted-model"

    def __init__(self, scripts: Mapping[str, Sequence[Turn]]) -> None:
        self.scripts = {prompt: ScriptedProvider(turns) for prompt, turns in scripts.items()}

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        first = next(m for m in request.messages if isinstance(m, UserMessage))
        prompt = "".join(p.text for p in first.parts if isinstance(p, TextPart))
        return self.scripts[prompt].stream(request)


def _meeting_tools(count: int) -> list[FunctionTool[Any, Any]]:
    """Tools whose bodies wait until ``count`` of them are running: every case's tool span is
    open at the same time."""
    arrived = 0
    everyone = anyio.Event()

    def make(name: str) -> FunctionTool[Any, Any]:
        async def body(topic: str) -> str:
            """Look a topic up.

            Args:
                topic: What to look up.
            """
            nonlocal arrived
            arrived += 1
            if arrived == count:
                everyone.set()
            await everyone.wait()
            return f"{name}: {topic}"

        return tool(name=name)(body)

    return [make(name) for name in TOOLS]


def _scripts(rounds: int = 1) -> dict[str, list[Turn]]:
    turns: dict[str, list[Turn]] = {}
    for name in TOOLS:
        one = [[tool_call(f"call_{name}", name, {"topic": name})], [text(f"{name} done")]]
        turns[f"use {name}"] = [turn for _ in range(rounds) for turn in one]
    return turns


class ModelCalls(TraceEvaluator[str, str]):
    """A trace evaluator: how many ``chat`` spans the case produced."""

    def evaluate(self, ctx: EvaluatorContext[str, str], spans: SpanTree) -> int:
        return spans.count(prefix="chat ")


class NoShell(TraceEvaluator[str, str]):
    """A trace evaluator: no ``execute_tool shell`` span."""

    def evaluate(self, ctx: EvaluatorContext[str, str], spans: SpanTree) -> bool:
        return spans.count("execute_tool shell") == 0


def _user_provider() -> tuple[TracerProvider, InMemorySpanExporter]:
    provider = TracerProvider()
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


@pytest.mark.anyio
async def test_concurrent_cases_each_get_their_own_spans_and_the_exporter_gets_all() -> None:
    provider, exporter = _user_provider()
    agent = Agent(
        ByPrompt(_scripts(rounds=2)),
        tools=_meeting_tools(len(TOOLS)),
        sinks=[OpenTelemetrySink(provider, request_model="scripted-model")],
        name="researcher",
    )
    dataset = Dataset(
        name="spans",
        cases=[Case(name=name, inputs=f"use {name}") for name in TOOLS],
        trace_evaluators=[ModelCalls(), NoShell()],
    )

    with anyio.fail_after(20):  # the tools meet only when all four cases run at once
        report = await dataset.evaluate(agent, max_concurrency=4, progress=False)

    for case, name in zip(report.cases, TOOLS, strict=True):
        assert case.error is None
        assert [s.name for s in case.spans] == [
            "chat scripted-model",
            f"execute_tool {name}",
            "chat scripted-model",
            "invoke_agent researcher",
        ]
        assert len({s.trace_id for s in case.spans}) == 1
        tree = SpanTree(case.spans)
        (root,) = tree.roots()
        first_chat, second_chat = tree.children(root)
        (tool_span,) = tree.find(prefix="execute_tool ")
        assert tool_span.parent_span_id == first_chat.span_id
        assert tool_span.attributes["gen_ai.tool.name"] == name
        assert tool_span.attributes["gen_ai.tool.call.id"] == f"call_{name}"
        assert second_chat.attributes["gen_ai.response.finish_reasons"] == ("stop",)
        assert (root.kind, first_chat.kind) == ("INTERNAL", "CLIENT")
        assert case.result("ModelCalls") is not None
        assert [(r.name, r.source, r.value) for r in case.results] == [
            ("ModelCalls", "trace", 2),
            ("NoShell", "trace", True),
        ]
    # The tool spans of the four cases were all open at once.
    tools = [s for c in report.cases for s in c.spans if s.name.startswith("execute_tool ")]
    assert max(s.start_time_ns for s in tools) < min(s.end_time_ns for s in tools)

    # The application's exporter received every span, unchanged.
    exported = exporter.get_finished_spans()
    captured = [s for c in report.cases for s in c.spans]
    assert len(exported) == 16

    def by_id(records: Sequence[SpanRecord]) -> list[SpanRecord]:
        return sorted(records, key=lambda r: r.span_id)

    assert by_id([span_record(s) for s in exported]) == by_id(captured)

    # A second evaluation on the same provider captures each span once (one tee per provider).
    again = await dataset.evaluate(agent, max_concurrency=4, progress=False)
    assert [len(c.spans) for c in again.cases] == [4, 4, 4, 4]
    assert len(exporter.get_finished_spans()) == 32


@pytest.mark.anyio
async def test_a_function_task_is_teed_through_the_tracer_provider_given() -> None:
    provider, _ = _user_provider()
    scripts = ByPrompt(_scripts())

    async def task(prompt: str) -> RunResult[str]:
        sink = OpenTelemetrySink(provider)
        solo = Agent(scripts, tools=_meeting_tools(1), sinks=[sink])
        return await solo.run(prompt)

    dataset = Dataset(
        name="fn", cases=[Case(name="a", inputs="use alpha")], trace_evaluators=[ModelCalls()]
    )
    report = await dataset.evaluate(task, tracer_provider=provider, progress=False)

    (case,) = report.cases
    assert case.output == "alpha done"
    assert case.results[0].value == 2
    assert [s.name for s in case.spans][-1] == "invoke_agent agent"


@pytest.mark.anyio
async def test_only_the_last_attempts_spans_are_kept() -> None:
    provider, _ = _user_provider()
    tracer = provider.get_tracer("test")
    calls = 0

    async def task(inputs: str) -> str:
        nonlocal calls
        calls += 1
        with tracer.start_as_current_span(f"attempt {calls}"):
            await anyio.lowlevel.checkpoint()
        if calls == 1:
            raise TimeoutError("first attempt")
        return inputs

    dataset = Dataset(
        name="retry", cases=[Case(name="x", inputs="go")], trace_evaluators=[NoShell()]
    )
    report = await dataset.evaluate(
        task, tracer_provider=provider, task_retry=Retry(max_attempts=2), progress=False
    )

    assert [s.name for s in report.cases[0].spans] == ["attempt 2"]


@pytest.mark.anyio
@pytest.mark.parametrize(
    "setup",
    ["agent without sink", "sink on a no-op provider", "function task", "no-op tracer_provider"],
)
async def test_trace_evaluators_without_telemetry_fail_before_any_case_runs(setup: str) -> None:
    scripted = ScriptedProvider(["unused"])
    calls = 0

    async def function(inputs: str) -> str:
        nonlocal calls
        calls += 1
        return inputs

    dataset = Dataset(
        name="no-otel", cases=[Case(name="x", inputs="hi")], trace_evaluators=[NoShell()]
    )
    options: dict[str, Any] = {"progress": False}
    task: Any = function
    if setup == "agent without sink":
        task = Agent(scripted)
    elif setup == "sink on a no-op provider":
        task = Agent(scripted, sinks=[OpenTelemetrySink(NoOpTracerProvider())])
    elif setup == "no-op tracer_provider":
        options["tracer_provider"] = NoOpTracerProvider()

    with pytest.raises(TelemetryNotConfiguredError) as raised:
        await dataset.evaluate(task, **options)

    assert raised.value.error_code == "eval_telemetry_not_configured"
    assert calls == 0
    assert scripted.requests == []


@pytest.mark.anyio
async def test_without_trace_evaluators_nothing_is_teed() -> None:
    provider, exporter = _user_provider()
    agent = Agent(ScriptedProvider(["hello"]), sinks=[OpenTelemetrySink(provider)])
    dataset = Dataset(
        name="plain",
        cases=[Case(name="x", inputs="hi")],
        evaluators=[evaluator(lambda c: True, name="ok")],
    )

    report = await dataset.evaluate(agent, progress=False)

    assert report.cases[0].spans == ()
    assert [s.name for s in exporter.get_finished_spans()] == [
        "chat scripted-model",
        "invoke_agent agent",
    ]
    with capturing() as buffer:  # no capture processor was added to this provider
        provider.get_tracer("test").start_span("later").end()
    assert buffer == []


@pytest.mark.anyio
async def test_spans_are_captured_only_inside_a_case_and_in_the_tasks_it_spawns() -> None:
    provider, exporter = _user_provider()
    tracer = provider.get_tracer("test")
    install_capture(provider)
    install_capture(provider)

    tracer.start_span("before").end()
    with capturing() as buffer:
        tracer.start_span("inside").end()
        async with anyio.create_task_group() as group:

            async def child() -> None:
                tracer.start_span("child task").end()

            group.start_soon(child)
    tracer.start_span("after").end()

    assert [s.name for s in buffer] == ["inside", "child task"]
    assert [s.name for s in exporter.get_finished_spans()] == [
        "before",
        "inside",
        "child task",
        "after",
    ]


def test_a_span_record_is_an_owned_copy_with_hex_ids() -> None:
    provider, exporter = _user_provider()
    tracer = provider.get_tracer("test")
    with tracer.start_as_current_span("parent") as parent:
        child = tracer.start_span(
            "execute_tool shell",
            kind=SpanKind.CLIENT,
            attributes={"xs": [1, 2], "names": ["a"], "flag": True, "ratio": 0.5},
        )
        child.set_status(Status(StatusCode.ERROR, "exit 1"))
        child.end()
    finished = exporter.get_finished_spans()[0]

    record = span_record(finished)

    context = parent.get_span_context()
    assert record.name == "execute_tool shell"
    assert record.trace_id == format(context.trace_id, "032x")
    assert len(record.trace_id) == 32
    assert record.parent_span_id == format(context.span_id, "016x")
    assert record.span_id == format(child.get_span_context().span_id, "016x")
    assert record.span_id == record.span_id.lower()
    assert (record.kind, record.status, record.status_description) == ("CLIENT", "ERROR", "exit 1")
    assert dict(record.attributes) == {
        "xs": (1, 2),
        "names": ("a",),
        "flag": True,
        "ratio": 0.5,
    }
    assert record.start_time_ns == finished.start_time
    assert record.end_time_ns == finished.end_time
    assert span_record(exporter.get_finished_spans()[1]).parent_span_id is None


def test_the_sink_exposes_its_tracer_provider() -> None:
    provider = TracerProvider()
    assert OpenTelemetrySink(provider).tracer_provider is provider
    assert OpenTelemetrySink().tracer_provider is trace.get_tracer_provider()
