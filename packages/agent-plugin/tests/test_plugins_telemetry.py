"""OpenTelemetrySink: GenAI spans of a real Agent run, exported through the SDK in memory."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from _plugin_helpers import TOOLS  # pyright: ignore[reportImplicitRelativeImport]
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.semconv._incubating.attributes import (  # pyright: ignore[reportPrivateImportUsage]
    error_attributes,
    gen_ai_attributes,
)
from opentelemetry.trace import NoOpTracer, NoOpTracerProvider, Span, SpanKind, StatusCode, Tracer
from robota.core.agent import Agent
from robota.core.errors import RateLimitError
from robota.core.testing.scripted import ScriptedProvider, fail, text, tool_call, usage
from robota.plugins import telemetry
from robota.plugins.telemetry import OpenTelemetrySink

TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    yield exporter
    exporter.clear()


def _provider(exporter: InMemorySpanExporter) -> TracerProvider:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider


def _by_name(spans: tuple[ReadableSpan, ...]) -> dict[str, ReadableSpan]:
    return {span.name: span for span in spans}


def _tool_turns() -> ScriptedProvider:
    return ScriptedProvider(
        [
            [
                tool_call("toolu_1", "lookup", {"query": "otel"}),
                usage(input_tokens=120, output_tokens=30, cache_write_tokens=100),
            ],
            [
                text("It is tracing."),
                usage(input_tokens=160, output_tokens=8, cache_read_tokens=100),
            ],
        ]
    )


def test_attribute_names_match_the_semantic_conventions() -> None:
    assert telemetry.OPERATION_NAME == gen_ai_attributes.GEN_AI_OPERATION_NAME
    assert telemetry.AGENT_NAME == gen_ai_attributes.GEN_AI_AGENT_NAME
    assert telemetry.PROVIDER_NAME == gen_ai_attributes.GEN_AI_PROVIDER_NAME
    assert telemetry.SYSTEM == gen_ai_attributes.GEN_AI_SYSTEM
    assert telemetry.REQUEST_MODEL == gen_ai_attributes.GEN_AI_REQUEST_MODEL
    assert telemetry.RESPONSE_MODEL == gen_ai_attributes.GEN_AI_RESPONSE_MODEL
    assert telemetry.RESPONSE_ID == gen_ai_attributes.GEN_AI_RESPONSE_ID
    assert telemetry.RESPONSE_FINISH_REASONS == gen_ai_attributes.GEN_AI_RESPONSE_FINISH_REASONS
    assert telemetry.USAGE_INPUT_TOKENS == gen_ai_attributes.GEN_AI_USAGE_INPUT_TOKENS
    assert telemetry.USAGE_OUTPUT_TOKENS == gen_ai_attributes.GEN_AI_USAGE_OUTPUT_TOKENS
    assert (
        telemetry.USAGE_CACHE_READ_INPUT_TOKENS
        == gen_ai_attributes.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS
    )
    assert (
        telemetry.USAGE_CACHE_CREATION_INPUT_TOKENS
        == gen_ai_attributes.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS
    )
    assert (
        telemetry.USAGE_REASONING_OUTPUT_TOKENS
        == gen_ai_attributes.GEN_AI_USAGE_REASONING_OUTPUT_TOKENS
    )
    assert telemetry.TOOL_NAME == gen_ai_attributes.GEN_AI_TOOL_NAME
    assert telemetry.TOOL_CALL_ID == gen_ai_attributes.GEN_AI_TOOL_CALL_ID
    assert telemetry.TOOL_TYPE == gen_ai_attributes.GEN_AI_TOOL_TYPE
    assert telemetry.ERROR_TYPE == error_attributes.ERROR_TYPE


@pytest.mark.anyio
async def test_a_run_with_a_tool_call_exports_nested_genai_spans(
    exporter: InMemorySpanExporter,
) -> None:
    sink = OpenTelemetrySink(_provider(exporter), request_model="scripted-model")
    agent = Agent(_tool_turns(), tools=TOOLS, sinks=[sink], name="researcher")

    result = await agent.run("What is OpenTelemetry?")

    spans = exporter.get_finished_spans()
    assert sorted(s.name for s in spans) == [
        "chat scripted-model",
        "chat scripted-model",
        "execute_tool lookup",
        "invoke_agent researcher",
    ]
    run = _by_name(spans)["invoke_agent researcher"]
    chats = sorted(
        (s for s in spans if s.name.startswith("chat")),
        key=lambda s: str(dict(s.attributes or {})["robota.round"]),
    )
    tool = _by_name(spans)["execute_tool lookup"]

    assert run.parent is None
    assert run.kind is SpanKind.INTERNAL
    assert dict(run.attributes or {}) == {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "researcher",
        "robota.run.id": result.run_id,
        "gen_ai.usage.input_tokens": 280,
        "gen_ai.usage.output_tokens": 38,
        "gen_ai.usage.cache_read.input_tokens": 100,
        "gen_ai.usage.cache_creation.input_tokens": 100,
        "robota.run.interrupted": False,
    }
    first = dict(chats[0].attributes or {})
    assert chats[0].kind is SpanKind.CLIENT
    assert first["gen_ai.operation.name"] == "chat"
    assert first["gen_ai.request.model"] == "scripted-model"
    assert first["gen_ai.response.model"] == "scripted-model"
    assert first["gen_ai.provider.name"] == "scripted"
    assert first["gen_ai.system"] == "scripted"
    assert first["gen_ai.usage.input_tokens"] == 120
    assert first["gen_ai.usage.output_tokens"] == 30
    assert first["gen_ai.usage.cache_creation.input_tokens"] == 100
    assert first["gen_ai.response.finish_reasons"] == ("tool_calls",)
    assert dict(chats[1].attributes or {})["gen_ai.usage.cache_read.input_tokens"] == 100

    tool_attributes = dict(tool.attributes or {})
    robota_call_id = tool_attributes.pop("robota.tool_call.id")
    assert isinstance(robota_call_id, str)
    assert robota_call_id.startswith("call_")
    assert tool_attributes == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "lookup",
        "gen_ai.tool.call.id": "toolu_1",
        "gen_ai.tool.type": "function",
        "robota.tool.executed": True,
    }
    # Nesting by owner path: run -> chat (round) -> execute_tool, all in one trace.
    trace_ids = {s.context.trace_id for s in spans if s.context}
    assert len(trace_ids) == 1
    assert all(c.parent is not None and c.parent.span_id == run.context.span_id for c in chats)  # pyright: ignore[reportOptionalMemberAccess]
    assert tool.parent is not None
    assert tool.parent.span_id == chats[0].context.span_id  # pyright: ignore[reportOptionalMemberAccess]
    assert all(s.status.status_code is StatusCode.UNSET for s in spans)
    assert sink.open_spans == 0


@pytest.mark.anyio
async def test_a_failed_run_sets_error_status_and_type(exporter: InMemorySpanExporter) -> None:
    provider = ScriptedProvider([[fail(RateLimitError("slow down", provider="scripted"))]])
    sink = OpenTelemetrySink(_provider(exporter))
    agent = Agent(provider, sinks=[sink], retry=None)  # the raw failure, not a retry

    with pytest.raises(RateLimitError):
        await agent.run("hi")

    spans = _by_name(exporter.get_finished_spans())
    assert set(spans) == {"invoke_agent agent", "chat"}
    for span in spans.values():
        assert span.status.status_code is StatusCode.ERROR
        attributes = dict(span.attributes or {})
        assert attributes["error.type"] == "robota.core.errors.RateLimitError"
        assert attributes["robota.error.code"] == "rate_limited"
    run_events = spans["invoke_agent agent"].events
    assert [e.name for e in run_events] == ["exception"]
    assert sink.open_spans == 0


@pytest.mark.anyio
async def test_unknown_tools_and_error_results_are_error_spans(
    exporter: InMemorySpanExporter,
) -> None:
    provider = ScriptedProvider(
        [
            [tool_call("t1", "no_such_tool"), tool_call("t2", "lookup", {"wrong": 1})],
            [text("done")],
        ]
    )
    sink = OpenTelemetrySink(_provider(exporter))
    agent = Agent(provider, tools=TOOLS, sinks=[sink])

    await agent.run("go")

    tools = [s for s in exporter.get_finished_spans() if s.name.startswith("execute_tool")]
    outcome = sorted(
        (s.name, s.status.status_code, dict(s.attributes or {}).get("error.type")) for s in tools
    )
    assert outcome == [
        ("execute_tool lookup", StatusCode.ERROR, "invalid_arguments"),
        ("execute_tool no_such_tool", StatusCode.ERROR, "unknown_tool"),
    ]


@pytest.mark.anyio
async def test_ambient_context_is_never_adopted(exporter: InMemorySpanExporter) -> None:
    provider = _provider(exporter)
    host_tracer = provider.get_tracer("host")
    sink = OpenTelemetrySink(provider)
    agent = Agent(ScriptedProvider(["hello"]), sinks=[sink])

    with host_tracer.start_as_current_span("host request") as host_span:
        await agent.run("hi")

    run = _by_name(exporter.get_finished_spans())["invoke_agent agent"]
    assert run.parent is None
    assert run.context is not None
    assert run.context.trace_id != host_span.get_span_context().trace_id


@pytest.mark.anyio
async def test_a_host_traceparent_becomes_the_parent(exporter: InMemorySpanExporter) -> None:
    sink = OpenTelemetrySink(_provider(exporter), parent=TRACEPARENT)
    agent = Agent(ScriptedProvider(["hello"]), sinks=[sink])

    await agent.run("hi")

    run = _by_name(exporter.get_finished_spans())["invoke_agent agent"]
    assert run.parent is not None
    assert run.parent.span_id == 0xB7AD6B7169203331
    assert run.context is not None
    assert run.context.trace_id == 0x0AF7651916CD43DD8448EB211C80319C


def test_an_invalid_traceparent_is_a_configuration_error() -> None:
    from robota.core.errors import ConfigurationError

    with pytest.raises(ConfigurationError):
        OpenTelemetrySink(parent="not-a-traceparent")


@pytest.mark.anyio
async def test_aclose_ends_spans_a_run_left_open(exporter: InMemorySpanExporter) -> None:
    from robota.core.agent.events import RoundStarted, RunStarted
    from robota.core.events import OwnerPath
    from robota.core.messages import UserMessage

    sink = OpenTelemetrySink(_provider(exporter))
    run = OwnerPath().child("agent", "a").child("run", "r1")
    sink.emit(RunStarted(owner=run, run_id="r1", prompt=UserMessage.of("hi")))
    sink.emit(RoundStarted(owner=run.child("round", "1"), round=1, kind="normal", started_at=1.0))
    assert sink.open_spans == 2

    await sink.aclose()

    spans = exporter.get_finished_spans()
    assert sorted(s.name for s in spans) == ["chat", "invoke_agent a"]
    assert all(dict(s.attributes or {})["robota.span.abandoned"] is True for s in spans)
    assert sink.open_spans == 0


class _ExplodingTracer(NoOpTracer):
    def start_span(self, *args: Any, **kwargs: Any) -> Span:
        raise RuntimeError("exporter misconfigured")


class _ExplodingProvider(NoOpTracerProvider):
    def get_tracer(self, *args: Any, **kwargs: Any) -> Tracer:
        return _ExplodingTracer()


@pytest.mark.anyio
async def test_a_failing_tracer_never_breaks_the_run() -> None:
    sink = OpenTelemetrySink(_ExplodingProvider())
    agent = Agent(ScriptedProvider(["still answered"]), sinks=[sink])

    result = await agent.run("hi")

    assert result.text == "still answered"
    assert [(f.plugin, f.stage, str(f.error)) for f in sink.failures] == [
        ("OpenTelemetrySink", "run.started", "exporter misconfigured"),
        ("OpenTelemetrySink", "round.started", "exporter misconfigured"),
    ]
