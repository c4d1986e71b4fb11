"""Catching a regression with evaluations, on replayed real traffic.

Shows: a dataset file (``examples/evals/capitals.yaml``) whose evaluators — built-in, a user
evaluator, span-based checks and a report evaluator — are resolved against a registry
(``robota.evals``); a baseline run of an agent saved as a report file; a change (the agent moves
from ``gpt-4o`` to ``gpt-oss-120b``) run over the same dataset; and ``compare`` flagging what
regressed, with the CI JSON a pipeline would store. Both agents answer from real recordings of
the live APIs (``examples/cassettes/``, see its README) through ``replay_provider``, so the
program runs offline and prints the same figures every time. ``docs/guides/evals.md`` walks
through it; ``robota eval run`` takes the same dataset, ``--registry`` and ``--agent`` targets.

Run: ``uv run python examples/evals_regression.py``
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import TracerProvider
from robota.core import Agent
from robota.core.testing.cassette import load_cassette
from robota.evals import EvaluationReport, Evaluator, EvaluatorContext
from robota.evals.comparison import Comparison, compare
from robota.evals.io.datasets import load_dataset
from robota.evals.io.registry import EvaluatorRegistry
from robota.evals.io.reports import load_report, save_report
from robota.plugins.telemetry import OpenTelemetrySink
from robota.providers.openai.replay import replay_provider

HERE = Path(__file__).resolve().parent


# --8<-- [start:registry]
@dataclass(frozen=True)
class PlainText(Evaluator[str, str]):
    """Our chat widget shows Markdown literally: the answer must not use ``**bold**``."""

    def evaluate(self, ctx: EvaluatorContext[str, str]) -> bool:
        return "**" not in ctx.output


registry = EvaluatorRegistry([PlainText])  # the built-ins, plus this application's own
dataset = load_dataset(HERE / "evals" / "capitals.yaml", registry=registry)
# --8<-- [end:registry]


# --8<-- [start:agents]
def replayed_agent(recording: str, model: str) -> Agent[Any, str]:
    """An agent whose provider answers from a recording (in production: ``OpenAIChatProvider()``).

    The ``OpenTelemetrySink`` on an SDK ``TracerProvider`` is the telemetry the trace evaluators
    read; an application gives it the provider its exporters already use.
    """
    provider = replay_provider(load_cassette(HERE / "cassettes" / recording))
    telemetry = OpenTelemetrySink(TracerProvider(), request_model=model)
    return Agent(provider, model=model, sinks=[telemetry])


def baseline_agent() -> Agent[Any, str]:
    """Today's agent: ``gpt-4o`` on api.openai.com."""
    return replayed_agent("openai_gpt-4o_capital_of_france.yaml", "gpt-4o")


def candidate_agent() -> Agent[Any, str]:
    """The change under review: ``gpt-oss-120b`` on Cerebras' OpenAI-compatible API."""
    return replayed_agent("cerebras_gpt-oss-120b_capital_of_france.yaml", "gpt-oss-120b")
    # --8<-- [end:agents]


# --8<-- [start:baseline]
def record_baseline(folder: Path) -> EvaluationReport:
    """Evaluate today's agent and keep its report as the baseline."""
    baseline = dataset.evaluate_sync(baseline_agent(), name="gpt-4o")
    save_report(baseline, folder / "baseline.json")
    return baseline
    # --8<-- [end:baseline]


# --8<-- [start:candidate]
def evaluate_change(folder: Path) -> tuple[EvaluationReport, Comparison]:
    """Evaluate the changed agent and compare its report with the saved baseline."""
    candidate = dataset.evaluate_sync(candidate_agent(), name="gpt-oss-120b")
    comparison = compare(load_report(folder / "baseline.json"), candidate)
    return candidate, comparison
    # --8<-- [end:candidate]


def show(report: EvaluationReport) -> None:
    """One line per run and per case, each failed check with its reason, and the analyses."""
    print(f"{report.name}: pass rate {report.pass_rate():.0%}, {report.usage.total_tokens} tokens")
    for case in report.cases:
        print(f"  {case.name}: {case.output!r}")
        for result in case.results:
            if result.passed is False:
                print(f"    FAILED {result.name}" + (f": {result.reason}" if result.reason else ""))
    for analysis in report.analyses:
        print(f"  {analysis.name}: {analysis.reason}")


# --8<-- [start:verdict]
def print_verdict(comparison: Comparison) -> None:
    """What CI needs to know: did anything regress, what, and at what cost."""
    print("regressed:", comparison.has_regressions)
    for finding in comparison.regressions:
        print(" ", finding.describe())
    delta = comparison.usage_delta
    print(f"usage delta: {delta.input_tokens:+} input, {delta.output_tokens:+} output tokens")
    ci = json.loads(comparison.to_ci_json())  # what a pipeline stores
    print("CI JSON:", ci["kind"], ci["conclusion"], ci["counts"])
    # --8<-- [end:verdict]


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        baseline = record_baseline(Path(folder))
        show(baseline)
        candidate, comparison = evaluate_change(Path(folder))
        show(candidate)
    print_verdict(comparison)

    assert baseline.pass_rate() == 1.0
    assert candidate.cases[0].output == "The capital of France is **Paris**."
    assert [f.evaluator for f in comparison.regressions] == [
        "PlainText",
        "MaxTokens",
        "PassRateAtLeast",
    ]
    delta = comparison.usage_delta
    assert (delta.input_tokens, delta.output_tokens) == (60, 29)
    assert comparison.to_ci_json() == compare(baseline, candidate).to_ci_json()  # byte-stable


if __name__ == "__main__":
    main()
