"""The built-in case, trace and report evaluators inside a real ``Dataset.evaluate`` run of an
``Agent`` with OpenTelemetry configured: the report holds their verdicts and reasons."""

from __future__ import annotations

import pytest
from opentelemetry.sdk.trace import TracerProvider
from robota.core.agent import Agent
from robota.core.testing.scripted import ScriptedProvider, text, tool_call, usage
from robota.core.tools.base import RiskClass
from robota.core.tools.function import tool
from robota.evals import Case, Dataset, ReportAnalysis
from robota.evals.evaluators.builtin import Contains, ExactMatch, MaxTokens, ToolCalled
from robota.evals.evaluators.reports import CaseCount, PassRateAtLeast
from robota.evals.evaluators.trace import MaxModelCalls, ToolSpanAbsent
from robota.plugins.telemetry import OpenTelemetrySink


@tool(risk=RiskClass.INSPECT)
def shell(cmd: str) -> str:
    """Run a command.

    Args:
        cmd: The command.
    """
    return f"ran {cmd}"


@pytest.mark.anyio
async def test_a_run_that_used_the_shell_fails_only_the_shell_check() -> None:
    provider = ScriptedProvider(
        [
            [tool_call("c1", "shell", {"cmd": "ls"}), usage(input_tokens=10, output_tokens=2)],
            [text("Paris"), usage(input_tokens=20, output_tokens=1)],
        ]
    )
    agent = Agent(provider, tools=[shell], sinks=[OpenTelemetrySink(TracerProvider())])
    dataset = Dataset(
        name="capitals",
        cases=[Case(name="france", inputs="Capital of France?", expected_output="Paris")],
        evaluators=[
            ExactMatch(),
            Contains("paris", case_sensitive=False),
            ToolCalled("shell", {"cmd": "ls"}),
            MaxTokens(100),
        ],
        trace_evaluators=[ToolSpanAbsent("shell"), MaxModelCalls(2)],
        report_evaluators=[PassRateAtLeast(1.0), CaseCount()],
    )
    report = await dataset.evaluate(agent, progress=False)

    (case,) = report.cases
    assert [(r.name, r.source, r.value, r.reason) for r in case.results] == [
        ("ExactMatch", "case", True, None),
        ("Contains", "case", True, None),
        ("ToolCalled", "case", True, '\'shell\' with arguments {"cmd": "ls"} was called once'),
        ("MaxTokens", "case", True, "total 33 <= 100 tokens"),
        ("ToolSpanAbsent", "trace", False, "1 span ran tool 'shell': 'execute_tool shell'"),
        ("MaxModelCalls", "trace", True, "2 model calls <= 2"),
    ]
    assert report.analyses == (
        ReportAnalysis(
            name="PassRateAtLeast",
            assertion=False,
            value=0.0,
            unit="ratio",
            reason="0/1 case repetitions passed (0.0%), below 100.0%",
        ),
        ReportAnalysis(
            name="CaseCount", value=1.0, unit="cases", reason="1 case repetition of 1 case"
        ),
    )
