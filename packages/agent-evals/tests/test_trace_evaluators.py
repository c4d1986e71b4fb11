"""Built-in trace evaluators (seed 002, "Evaluations": "no ``execute_tool`` span for
``shell``", "fewer than 3 model calls") on the spans a real ``Agent`` run exports through
:class:`~robota.plugins.telemetry.OpenTelemetrySink`."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from robota.core.agent import Agent
from robota.core.testing.scripted import ScriptedProvider, text, tool_call
from robota.core.tools.base import RiskClass
from robota.core.tools.function import tool
from robota.evals import Case, EvaluationReason, EvaluatorContext, SpanTree
from robota.evals.evaluators.base import run_evaluator
from robota.evals.evaluators.trace import (
    MaxModelCalls,
    SpanAbsent,
    SpanCount,
    SpanPresent,
    ToolSpanAbsent,
)
from robota.evals.run.capture import span_record
from robota.plugins.telemetry import OpenTelemetrySink

CTX: EvaluatorContext[Any, Any] = EvaluatorContext(
    case=Case(name="case-1", inputs="go"), case_index=0, repetition=0, output="done", duration=0.1
)


@tool(risk=RiskClass.INSPECT)
def shell(cmd: str) -> str:
    """Run a command.

    Args:
        cmd: The command.
    """
    return f"ran {cmd}"


@tool(risk=RiskClass.INSPECT)
def lookup(query: str) -> str:
    """Look something up.

    Args:
        query: What to look up.
    """
    return f"found {query}"


async def traced_run(turns: list[Any]) -> SpanTree:
    """Run an agent with ``shell`` and ``lookup`` over scripted ``turns``; its spans, copied
    the way a dataset run copies them for trace evaluators."""
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    agent = Agent(
        ScriptedProvider(turns), tools=[shell, lookup], sinks=[OpenTelemetrySink(tracer_provider)]
    )
    await agent.run("go")
    return SpanTree(tuple(span_record(span) for span in exporter.get_finished_spans()))


async def ran_shell() -> SpanTree:
    return await traced_run(
        [
            [tool_call("c1", "shell", {"cmd": "ls"}), tool_call("c2", "lookup", {"query": "x"})],
            [text("done")],
        ]
    )


async def answered() -> SpanTree:
    return await traced_run([[text("done")]])


@pytest.mark.anyio
async def test_the_run_exports_the_span_names_the_evaluators_read() -> None:
    spans = await ran_shell()
    assert sorted(s.name for s in spans) == [
        "chat scripted-model",
        "chat scripted-model",
        "execute_tool lookup",
        "execute_tool shell",
        "invoke_agent agent",
    ]


@pytest.mark.anyio
async def test_span_absent_catches_the_shell_tool() -> None:
    check = SpanAbsent("execute_tool shell")
    assert await run_evaluator(check, CTX, await answered()) == EvaluationReason(
        value=True, reason="no span named 'execute_tool shell'"
    )
    assert await run_evaluator(check, CTX, await ran_shell()) == EvaluationReason(
        value=False, reason="1 span named 'execute_tool shell': 'execute_tool shell'"
    )
    by_prefix = await run_evaluator(SpanAbsent(prefix="execute_tool "), CTX, await ran_shell())
    # the tools run concurrently: the spans end in either order
    assert by_prefix.value is False
    assert by_prefix.reason in {
        "2 spans named 'execute_tool '...: 'execute_tool shell', 'execute_tool lookup'",
        "2 spans named 'execute_tool '...: 'execute_tool lookup', 'execute_tool shell'",
    }


@pytest.mark.anyio
async def test_span_present_with_attributes_given_as_file_data() -> None:
    spans = await ran_shell()
    # a dataset file holds sequences as lists; OpenTelemetry keeps them as tuples
    finished = SpanPresent(attributes={"gen_ai.response.finish_reasons": ["tool_calls"]})
    assert await run_evaluator(finished, CTX, spans) == EvaluationReason(
        value=True,
        reason='1 span with attributes {"gen_ai.response.finish_reasons": ["tool_calls"]}',
    )
    both = SpanPresent(prefix="execute_tool ", attributes={"gen_ai.tool.name": "lookup"})
    assert (await run_evaluator(both, CTX, spans)).value is True
    absent = SpanPresent("execute_tool fetch")
    assert await run_evaluator(absent, CTX, spans) == EvaluationReason(
        value=False, reason="no span named 'execute_tool fetch' among 5 spans"
    )


@pytest.mark.anyio
async def test_span_count_bounds_the_model_calls() -> None:
    fewer_than_three = SpanCount(prefix="chat ", max=2)
    assert await run_evaluator(fewer_than_three, CTX, await ran_shell()) == EvaluationReason(
        value=True, reason="2 spans named 'chat '..."
    )
    assert await run_evaluator(SpanCount(prefix="chat ", max=1), CTX, await ran_shell()) == (
        EvaluationReason(value=False, reason="2 spans named 'chat '..., expected at most 1")
    )
    tools = SpanCount(attributes={"gen_ai.operation.name": "execute_tool"}, min=1)
    assert await run_evaluator(tools, CTX, await answered()) == EvaluationReason(
        value=False,
        reason='0 spans with attributes {"gen_ai.operation.name": "execute_tool"}, expected at '
        "least 1",
    )
    assert (await run_evaluator(SpanCount(min=5, max=5), CTX, await ran_shell())).value is True


@pytest.mark.anyio
async def test_tool_span_absent_and_max_model_calls() -> None:
    spans = await ran_shell()
    assert await run_evaluator(ToolSpanAbsent("shell"), CTX, spans) == EvaluationReason(
        value=False, reason="1 span ran tool 'shell': 'execute_tool shell'"
    )
    assert (await run_evaluator(ToolSpanAbsent("fetch"), CTX, spans)).value is True
    assert await run_evaluator(MaxModelCalls(1), CTX, spans) == EvaluationReason(
        value=False, reason="2 model calls > 1"
    )
    assert (await run_evaluator(MaxModelCalls(2), CTX, spans)).value is True


@pytest.mark.anyio
async def test_a_skipped_tool_call_is_a_span_too() -> None:
    spans = await traced_run([[tool_call("c1", "rm_rf", {})], [text("done")]])
    verdict = await run_evaluator(ToolSpanAbsent("rm_rf"), CTX, spans)
    assert verdict == EvaluationReason(
        value=False, reason="1 span ran tool 'rm_rf': 'execute_tool rm_rf' (ERROR)"
    )


@pytest.mark.anyio
async def test_empty_spans() -> None:
    empty = SpanTree()
    assert (await run_evaluator(SpanAbsent("execute_tool shell"), CTX, empty)).value is True
    assert await run_evaluator(SpanPresent(prefix="chat"), CTX, empty) == EvaluationReason(
        value=False, reason="no span named 'chat'... among 0 spans"
    )
    assert (await run_evaluator(SpanCount(min=1), CTX, empty)).value is False
    assert (await run_evaluator(MaxModelCalls(0), CTX, empty)).value is True
    assert (await run_evaluator(ToolSpanAbsent("shell"), CTX)).value is True  # spans omitted


def test_construction_errors() -> None:
    with pytest.raises(ValueError, match="SpanAbsent needs a condition"):
        SpanAbsent()
    with pytest.raises(ValueError, match="SpanPresent needs a condition"):
        SpanPresent()
    with pytest.raises(ValueError, match="SpanCount needs a bound"):
        SpanCount(prefix="chat ")
    with pytest.raises(ValueError, match="min 3 is above max 2"):
        SpanCount(min=3, max=2)
    with pytest.raises(ValueError, match="max must be 0 or more"):
        MaxModelCalls(-1)


def test_evaluation_name() -> None:
    assert SpanAbsent("execute_tool shell").name == "SpanAbsent"
    assert SpanAbsent("execute_tool shell", evaluation_name="no shell").name == "no shell"
