"""Smoke program of robota-agent-evals: an installed copy evaluates, saves, reloads and compares.

A scripted agent with OpenTelemetry telemetry answers a two-case dataset judged by built-in,
user, span-based and report evaluators; the baseline report goes to a YAML file and back; a
changed agent (a wrong answer, one more model call) is compared with it, and the comparison
names each regression.
"""

import tempfile
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import TracerProvider
from robota.core import Agent, tool
from robota.core.testing.scripted import ScriptedProvider, text, tool_call, usage
from robota.evals import (
    Case,
    Dataset,
    EvaluatorContext,
    ExactMatch,
    MaxModelCalls,
    MaxTokens,
    PassRateAtLeast,
    ToolSpanAbsent,
    evaluator,
)
from robota.evals.comparison import compare
from robota.evals.io.reports import load_report, save_report
from robota.plugins.telemetry import OpenTelemetrySink


@tool
def lookup(country: str) -> str:
    """The capital of a country."""
    return {"France": "Paris", "Peru": "Lima"}.get(country, "unknown")


@evaluator
def short(ctx: EvaluatorContext[str, str]) -> bool:
    return len(ctx.output) <= 10


dataset = Dataset(
    name="capitals",
    cases=[
        Case(name="france", inputs="Capital of France?", expected_output="Paris"),
        Case(name="peru", inputs="Capital of Peru?", expected_output="Lima"),
    ],
    evaluators=[ExactMatch(), short, MaxTokens(total=100)],
    trace_evaluators=[MaxModelCalls(1), ToolSpanAbsent("shell")],
    report_evaluators=[PassRateAtLeast(1.0)],
)


def agent(*turns: Any) -> Agent[Any, str]:
    telemetry = OpenTelemetrySink(TracerProvider(), request_model="scripted")
    return Agent(ScriptedProvider(list(turns)), tools=[lookup], sinks=[telemetry])


baseline = dataset.evaluate_sync(
    agent(
        [text("Paris"), usage(input_tokens=20, output_tokens=2)],
        [text("Lima"), usage(input_tokens=20, output_tokens=2)],
    ),
    name="baseline",
    progress=False,
)
assert baseline.pass_rate() == 1.0, baseline
assert [s.name for s in baseline.cases[0].spans] == ["chat scripted", "invoke_agent agent"]

with tempfile.TemporaryDirectory() as folder:
    save_report(baseline, Path(folder) / "baseline.yaml")
    reloaded = load_report(Path(folder) / "baseline.yaml")
assert reloaded == baseline

candidate = dataset.evaluate_sync(
    agent(
        [text("Paris"), usage(input_tokens=20, output_tokens=2)],
        [tool_call("c1", "lookup", {"country": "Peru"})],
        [text("It is Cusco"), usage(input_tokens=40, output_tokens=4)],
    ),
    name="candidate",
    progress=False,
)
comparison = compare(reloaded, candidate)
assert comparison.has_regressions
assert [(f.case, f.evaluator) for f in comparison.regressions] == [
    ("peru", "ExactMatch"),
    ("peru", "short"),
    ("peru", "MaxModelCalls"),
    (None, "PassRateAtLeast"),
], comparison.regressions
assert comparison.usage_delta.input_tokens == 20, comparison.usage_delta
assert comparison.to_ci_json() == compare(baseline, candidate).to_ci_json()
print("smoke ok robota-agent-evals")
