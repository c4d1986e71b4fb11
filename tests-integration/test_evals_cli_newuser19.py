"""What a new user of ``robota eval`` ran into (issue #19, follow-up): a factory ``--agent``
shared by every case, trace evaluators a function task could not get telemetry for, errors that
named Python keywords instead of options, an empty table for identical reports, and flag names
that differed from ``Dataset.evaluate``'s.

Every test runs the real ``robota`` console script in a temporary folder holding an agent module
(scripted providers, no network) and dataset files.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from robota.cli.exit_codes import ExitCode
from robota.evals.io.reports import load_report

sys.path.insert(0, str(Path(__file__).resolve().parent))
from evals_kit.cli import robota, write_dataset  # pyright: ignore[reportImplicitRelativeImport]

pytestmark = pytest.mark.integration

_AGENTS = '''
"""Agents for `robota eval` (written by test_evals_cli_newuser19.py)."""

from opentelemetry.sdk.trace import TracerProvider
from robota.core.agent import Agent
from robota.core.testing.scripted import ScriptedProvider
from robota.plugins.telemetry import OpenTelemetrySink

made = 0


def fresh_agent():
    """A new agent per call, numbered, with one scripted answer and its own tracer provider."""
    global made
    made += 1
    provider = TracerProvider()
    return Agent(
        ScriptedProvider([f"Paris #{made}"]),
        model="gpt-5",
        sinks=[OpenTelemetrySink(provider, request_model="gpt-5")],
    )


TRACER = TracerProvider()
SHARED = Agent(
    ScriptedProvider(["Paris"] * 8),
    model="gpt-5",
    sinks=[OpenTelemetrySink(TRACER, request_model="gpt-5")],
)


async def answer(inputs):
    """An async function task: its spans go to TRACER, which the runner cannot see."""
    return await SHARED.run(inputs)


def make_tracer():
    return TRACER


not_a_provider = 42
'''

CASES = (
    {"name": "france", "inputs": "Capital of France?", "expected_output": "Paris"},
    {"name": "again", "inputs": "Capital of France, again?", "expected_output": "Paris"},
)
TRACE = ({"MaxModelCalls": 1}, {"SpanPresent": {"prefix": "chat "}})


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with ``agents19.py``, ``capitals.yaml`` (Contains Paris) and ``traced.yaml``
    (the same cases with trace evaluators)."""
    folder = tmp_path_factory.mktemp("evals-newuser19")
    (folder / "agents19.py").write_text(textwrap.dedent(_AGENTS), encoding="utf-8")
    write_dataset(folder / "capitals.yaml", CASES, evaluators=[{"Contains": {"value": "Paris"}}])
    document = {
        "version": 1,
        "name": "capitals",
        "evaluators": [{"Contains": {"value": "Paris"}}],
        "trace_evaluators": list(TRACE),
        "cases": list(CASES),
    }
    (folder / "traced.json").write_text(json.dumps(document), encoding="utf-8")
    return folder


def _lines(text: str) -> list[list[str]]:
    return [line.split("\t") for line in text.splitlines()]


# --- 6. a factory --agent is called once per case run ----------------------------------------


def test_a_factory_agent_is_called_once_per_case_repetition(project: Path) -> None:
    done = robota(
        [
            "eval",
            "run",
            "capitals.yaml",
            "--agent",
            "agents19:fresh_agent",
            "--repetitions",  # the Dataset.evaluate name, beside --repeat
            "2",
            "--json",
        ],
        cwd=project,
    )
    assert done.returncode == ExitCode.OK, done.stderr
    cases = json.loads(done.stdout)["cases"]
    # One fresh agent (a fresh one-answer script) per case run: the first call, made while
    # loading, serves the first run.
    assert [(c["name"], c["repetition"], c["output"]) for c in cases] == [
        ("france", 0, "Paris #1"),
        ("france", 1, "Paris #2"),
        ("again", 0, "Paris #3"),
        ("again", 1, "Paris #4"),
    ]


def test_each_fresh_agent_s_spans_reach_the_trace_evaluators(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "traced.json"
    done = robota(
        [
            "eval",
            "run",
            "traced.json",
            "--agent",
            "agents19:fresh_agent",
            "--max-concurrency",  # the Dataset.evaluate name, beside --concurrency
            "2",
            "--out",
            str(out),
        ],
        cwd=project,
    )
    assert done.returncode == ExitCode.OK, done.stdout + done.stderr
    report = load_report(out)
    for case in report.cases:
        assert [(r.name, r.value) for r in case.results] == [
            ("Contains", True),
            ("MaxModelCalls", True),
            ("SpanPresent", True),
        ]
        assert [span.name for span in case.spans] == ["chat gpt-5", "invoke_agent agent"]


# --- 3. --tracer-provider for a function task -------------------------------------------------


def test_a_function_task_with_trace_evaluators_names_the_option(project: Path) -> None:
    done = robota(["eval", "run", "traced.json", "--agent", "agents19:answer"], cwd=project)
    assert done.returncode == ExitCode.CONFIGURATION
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    assert "the dataset has trace evaluators" in done.stderr
    assert "--tracer-provider MODULE:ATTR" in done.stderr


@pytest.mark.parametrize("target", ["agents19:TRACER", "agents19:make_tracer"])
def test_tracer_provider_gives_a_function_task_its_spans(
    project: Path, tmp_path: Path, target: str
) -> None:
    out = tmp_path / "report.json"
    done = robota(
        [
            "eval",
            "run",
            "traced.json",
            "--agent",
            "agents19:answer",
            "--tracer-provider",
            target,
            "--out",
            str(out),
        ],
        cwd=project,
    )
    assert done.returncode == ExitCode.OK, done.stdout + done.stderr
    report = load_report(out)
    assert [[r.value for r in case.results] for case in report.cases] == [[True, True, True]] * 2
    assert all(case.spans for case in report.cases)


def test_an_unusable_tracer_provider_exits_3(project: Path) -> None:
    done = robota(
        [
            "eval",
            "run",
            "traced.json",
            "--agent",
            "agents19:answer",
            "--tracer-provider",
            "agents19:not_a_provider",
        ],
        cwd=project,
    )
    assert done.returncode == ExitCode.CONFIGURATION
    assert "--tracer-provider agents19:not_a_provider: got a value of type int" in done.stderr


def test_help_lists_telemetry_under_exit_3_and_the_retry_arithmetic(project: Path) -> None:
    done = robota(["eval", "run", "--help"], cwd=project, env={"COLUMNS": "400"})
    assert done.returncode == ExitCode.OK
    text = " ".join(done.stdout.split())
    assert "3 configuration (" in text
    assert "telemetry not configured" in text
    assert "--tracer-provider MODULE:ATTR" in text
    assert "--repeat N, --repetitions N" in text
    assert "--concurrency N, --max-concurrency N" in text
    assert "Retry(max_attempts=N + 1)" in text


# --- 4. an unknown evaluator name -------------------------------------------------------------


def test_an_unknown_evaluator_names_the_registry_option(project: Path, tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "theirs.yaml", CASES, evaluators=["EqualsExpected"])
    done = robota(["eval", "run", str(dataset), "--agent", "agents19:fresh_agent"], cwd=project)
    assert done.returncode == ExitCode.CONFIGURATION
    assert "pydantic-evals' EqualsExpected is ExactMatch here" in done.stderr
    assert "--registry MODULE:ATTR" in done.stderr


# --- 8. compare's output ---------------------------------------------------------------------


def test_identical_reports_print_no_differences(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "base.json"
    first = robota(
        ["eval", "run", "capitals.yaml", "--agent", "agents19:fresh_agent", "--out", str(out)],
        cwd=project,
    )
    assert first.returncode == ExitCode.OK, first.stderr
    done = robota(["eval", "compare", str(out), str(out)], cwd=project)
    assert done.returncode == ExitCode.OK
    rows = _lines(done.stdout)
    assert rows[0] == ["no differences"]
    assert ["case", "repetition", "evaluator", "baseline", "candidate", "delta", "status"] not in (
        rows
    )
    assert rows[-1][:2] == ["summary", "conclusion=unchanged"]
    assert "warning" not in done.stderr


def test_reports_of_different_datasets_warn(project: Path, tmp_path: Path) -> None:
    renamed = write_dataset(
        tmp_path / "v2.yaml", CASES, name="capitals-v2", evaluators=["ExactMatch"]
    )
    base, cand = tmp_path / "base.json", tmp_path / "cand.json"
    for dataset, out in (("capitals.yaml", base), (str(renamed), cand)):
        done = robota(
            ["eval", "run", dataset, "--agent", "agents19:fresh_agent", "--out", str(out)],
            cwd=project,
        )
        assert out.exists(), done.stderr
    done = robota(["eval", "compare", str(base), str(cand)], cwd=project)
    assert (
        "robota: warning: the baseline ran dataset 'capitals' and the candidate dataset "
        "'capitals-v2'; cases are compared by name\n"
    ) in done.stderr
