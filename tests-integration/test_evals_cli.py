"""``robota eval run`` and ``robota eval compare`` end to end (issue #19, "CLI").

Every test runs the real ``robota`` console script as a subprocess in a temporary folder holding
an agent module and dataset files (``evals_kit/cli.py``). The agents replay real recorded vendor
traffic (``cassettes/openai_responses_read_file.yaml``: "The capital of France is Paris."; the
"changed" agent replays ``cassettes/google_read_file.yaml``: "The capital of Mexico is Mexico
City."), so a report holds real usage numbers and no test touches the network.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from robota.cli.exit_codes import ExitCode
from robota.evals.io.reports import load_report

sys.path.insert(0, str(Path(__file__).resolve().parent))
from evals_kit.cli import (  # pyright: ignore[reportImplicitRelativeImport]
    CANDIDATE_TEXT,
    FINAL_TEXT,
    PROMPT,
    ROBOTA,
    hide_evals_program,
    robota,
    robota_env,
    write_agents,
    write_dataset,
)

pytestmark = pytest.mark.integration

CASES = (
    {"name": "france", "inputs": PROMPT, "expected_output": FINAL_TEXT},
    {"name": "again", "inputs": PROMPT, "expected_output": FINAL_TEXT, "metadata": {"n": 2}},
)
FAILING = (
    {"name": "france", "inputs": PROMPT, "expected_output": FINAL_TEXT},
    {"name": "london", "inputs": PROMPT, "expected_output": "London"},
)
# One recorded OpenAI Responses conversation: a read_file round, then the answer.
CASE_INPUT_TOKENS = 533
CASE_OUTPUT_TOKENS = 25


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with ``agents.py``, ``capitals.yaml`` (every case passes with the OpenAI
    agent), ``failing.yaml`` (case ``london`` fails) and ``base.json``, the baseline report of
    ``capitals.yaml`` (made once)."""
    folder = tmp_path_factory.mktemp("evals-cli")
    write_agents(folder)
    write_dataset(folder / "capitals.yaml", CASES)
    write_dataset(folder / "failing.yaml", FAILING)
    done = robota(
        ["eval", "run", "capitals.yaml", "--agent", "agents:agent", "--out", "base.json"],
        cwd=folder,
    )
    assert done.returncode == ExitCode.OK, done.stderr
    return folder


def _visible(text: str) -> str:
    """``text`` without terminal escape sequences (styles stay on under ``NO_COLOR``)."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)


def _lines(text: str) -> list[list[str]]:
    return [line.split("\t") for line in text.splitlines()]


def test_every_case_passing_exits_0_and_the_report_file_holds_the_run(project: Path) -> None:
    report = load_report(project / "base.json")
    assert report.name == report.dataset == "capitals"
    assert [(c.name, c.repetition, c.output, c.passed) for c in report.cases] == [
        ("france", 0, FINAL_TEXT, True),
        ("again", 0, FINAL_TEXT, True),
    ]
    assert [[(r.name, r.value) for r in c.results] for c in report.cases] == [
        [("ExactMatch", True), ("Contains", True)]
    ] * 2
    assert report.cases[1].metadata == {"n": 2}
    for case in report.cases:
        assert case.usage.input_tokens == CASE_INPUT_TOKENS
        assert case.usage.output_tokens == CASE_OUTPUT_TOKENS
        assert case.usage.requests == 2
    assert report.usage.input_tokens == 2 * CASE_INPUT_TOKENS
    assert report.usage.requests == 4


def test_plain_output_outside_a_terminal_is_tab_separated(project: Path) -> None:
    done = robota(["eval", "run", "capitals.yaml", "--agent", "agents:answer"], cwd=project)
    assert done.returncode == ExitCode.OK, done.stderr
    rows = _lines(done.stdout)
    assert rows[0] == [
        "case",
        "repetition",
        "status",
        "ExactMatch",
        "Contains",
        "duration_s",
        "total_tokens",
    ]
    total = str(CASE_INPUT_TOKENS + CASE_OUTPUT_TOKENS)
    assert [row[:5] + row[6:] for row in rows[1:3]] == [
        ["france", "0", "pass", "true", "true", total],
        ["again", "0", "pass", "true", "true", total],
    ]
    summary = dict(field.split("=", 1) for field in rows[-1][1:])
    assert rows[-1][0] == "summary"
    assert summary["pass_rate"] == "1"
    assert summary["passed"] == "2"
    assert summary["requests"] == "4"
    assert summary["result"] == "pass"
    assert "\x1b[" not in done.stdout  # no terminal escapes in a pipe


def test_a_failing_case_exits_6_and_says_why(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "failing.yaml"
    done = robota(
        ["eval", "run", "failing.yaml", "--agent", "agents:answer", "--out", str(out)],
        cwd=project,
    )
    assert done.returncode == ExitCode.EVAL_FAILED == 6, done.stderr
    assert [
        "london",
        "0",
        "ExactMatch",
        f'output "{FINAL_TEXT}" != expected "London"',
    ] in _lines(done.stdout)
    report = load_report(out)  # the YAML report file
    assert [(c.name, c.passed) for c in report.cases] == [("france", True), ("london", False)]
    assert report.pass_rate() == 0.5


def test_json_prints_the_report_document(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    done = robota(
        [
            "eval",
            "run",
            "capitals.yaml",
            "--agent",
            "agents:agent",
            "--repeat",
            "2",
            "--json",
            "--out",
            str(out),
        ],
        cwd=project,
    )
    assert done.returncode == ExitCode.OK, done.stderr
    document = json.loads(done.stdout)
    assert document["kind"] == "robota.evals.report"
    assert document["repetitions"] == 2
    assert [(c["name"], c["repetition"]) for c in document["cases"]] == [
        ("france", 0),
        ("france", 1),
        ("again", 0),
        ("again", 1),
    ]
    assert done.stdout == out.read_text(encoding="utf-8")  # the same document as the file


def test_compare_flags_the_regression_of_a_changed_agent(project: Path, tmp_path: Path) -> None:
    candidate = tmp_path / "candidate.json"
    done = robota(
        [
            "eval",
            "run",
            "capitals.yaml",
            "--agent",
            "agents:make_candidate",
            "--out",
            str(candidate),
        ],
        cwd=project,
    )
    assert done.returncode == ExitCode.EVAL_FAILED, done.stderr
    assert [c.output for c in load_report(candidate).cases] == [CANDIDATE_TEXT] * 2

    compared = robota(["eval", "compare", "base.json", str(candidate)], cwd=project)
    assert compared.returncode == ExitCode.EVAL_FAILED, compared.stderr
    rows = _lines(compared.stdout)
    assert rows[0] == [
        "case",
        "repetition",
        "evaluator",
        "baseline",
        "candidate",
        "delta",
        "status",
    ]
    assert rows[1:5] == [
        ["france", "0", "ExactMatch", "true", "false", "-", "regression"],
        ["france", "0", "Contains", "true", "false", "-", "regression"],
        ["again", "0", "ExactMatch", "true", "false", "-", "regression"],
        ["again", "0", "Contains", "true", "false", "-", "regression"],
    ]
    summary = dict(field.split("=", 1) for field in rows[-1][1:])
    assert summary["conclusion"] == "regressed"
    assert summary["regressions"] == "4"
    assert summary["pass_rate_delta"] == "-1"
    usage = dict(field.split("=", 1) for field in rows[-2][1:])
    assert rows[-2][0] == "usage_delta"
    assert usage["requests"] == "+0"  # both agents made a tool round and an answer per case

    as_json = robota(["eval", "compare", "base.json", str(candidate), "--json"], cwd=project)
    assert as_json.returncode == ExitCode.EVAL_FAILED
    document = json.loads(as_json.stdout)
    assert document["kind"] == "robota.evals.comparison"
    assert document["conclusion"] == "regressed"
    assert len(document["regressions"]) == 4


def test_identical_reports_compare_unchanged_with_exit_0(project: Path) -> None:
    done = robota(["eval", "compare", "base.json", "base.json"], cwd=project)
    assert done.returncode == ExitCode.OK, done.stderr
    rows = _lines(done.stdout)
    assert len([row for row in rows if row[0] in ("france", "again")]) == 0
    summary = dict(field.split("=", 1) for field in rows[-1][1:])
    assert summary["conclusion"] == "unchanged"
    assert summary["regressions"] == "0"


def test_with_a_baseline_the_exit_code_is_about_regressions(project: Path, tmp_path: Path) -> None:
    failing = tmp_path / "failing.json"
    first = robota(
        ["eval", "run", "failing.yaml", "--agent", "agents:agent", "--out", str(failing)],
        cwd=project,
    )
    assert first.returncode == ExitCode.EVAL_FAILED
    # The same failing case again: no regression against a baseline where it failed too.
    again = robota(
        ["eval", "run", "failing.yaml", "--agent", "agents:agent", "--baseline", str(failing)],
        cwd=project,
    )
    assert again.returncode == ExitCode.OK, again.stderr
    assert "summary\tconclusion=unchanged\t" in again.stdout
    # Against the all-passing baseline (cases france and again), rows join by case name: the
    # baseline's "again" is gone (a regression) and "london" is new.
    regressed = robota(
        ["eval", "run", "failing.yaml", "--agent", "agents:agent", "--baseline", "base.json"],
        cwd=project,
    )
    assert regressed.returncode == ExitCode.EVAL_FAILED
    assert "again\t0\t(case)\tpass\tabsent\t-\tremoved" in regressed.stdout
    assert "london\t0\t(case)\tabsent\tfail\t-\tadded" in regressed.stdout


def test_the_ci_json_is_byte_identical_across_runs_of_the_same_inputs(
    project: Path, tmp_path: Path
) -> None:
    written: list[bytes] = []
    for index in range(2):
        path = tmp_path / f"ci-{index}.json"
        done = robota(
            [
                "eval",
                "run",
                "capitals.yaml",
                "--agent",
                "agents:make_candidate",
                "--baseline",
                "base.json",
                "--ci-json",
                str(path),
                "--no-progress",
            ],
            cwd=project,
        )
        assert done.returncode == ExitCode.EVAL_FAILED, done.stderr
        written.append(path.read_bytes())
    assert written[0] == written[1]
    document = json.loads(written[0])
    assert document["conclusion"] == "regressed"
    assert document["counts"]["regressions"] == 4
    assert str(tmp_path) not in written[0].decode()  # no paths in the CI document

    compared = [tmp_path / "compare-0.json", tmp_path / "compare-1.json"]
    for path in compared:
        done = robota(
            ["eval", "compare", "base.json", "base.json", "--ci-json", str(path)], cwd=project
        )
        assert done.returncode == ExitCode.OK
    assert compared[0].read_bytes() == compared[1].read_bytes()


@pytest.mark.parametrize(
    ("target", "code", "words"),
    [
        ("agents", ExitCode.USAGE, "expected MODULE:ATTRIBUTE"),
        ("no_such_module:agent", ExitCode.CONFIGURATION, "no module named 'no_such_module'"),
        ("agents:missing", ExitCode.CONFIGURATION, "has no attribute 'missing'"),
        ("agents:not_an_agent", ExitCode.CONFIGURATION, "got a value of type int, not an Agent"),
        ("agents:needs_arguments", ExitCode.CONFIGURATION, "type function, not an Agent"),
    ],
)
def test_an_unusable_agent_target_is_one_line_and_its_exit_code(
    project: Path, target: str, code: ExitCode, words: str
) -> None:
    done = robota(["eval", "run", "capitals.yaml", "--agent", target], cwd=project)
    assert done.returncode == code
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"robota: --agent {target}")
    assert words in done.stderr


def test_dataset_file_errors_exit_3_with_the_message(project: Path, tmp_path: Path) -> None:
    missing = robota(["eval", "run", "nope.yaml", "--agent", "agents:agent"], cwd=project)
    assert missing.returncode == ExitCode.CONFIGURATION
    assert "nope.yaml" in missing.stderr
    assert "Traceback" not in missing.stderr

    unknown = write_dataset(tmp_path / "unknown.yaml", CASES, evaluators=["ExactMatsh"])
    done = robota(["eval", "run", str(unknown), "--agent", "agents:agent"], cwd=project)
    assert done.returncode == ExitCode.CONFIGURATION
    assert "no evaluator named 'ExactMatsh'" in done.stderr
    assert "did you mean ExactMatch" in done.stderr

    report = robota(["eval", "compare", "base.json", "capitals.yaml"], cwd=project)
    assert report.returncode == ExitCode.CONFIGURATION
    assert "not a report file" in report.stderr


def test_registry_resolves_the_projects_own_evaluators(project: Path, tmp_path: Path) -> None:
    dataset = write_dataset(
        tmp_path / "short.yaml", CASES, evaluators=[{"ShortAnswer": {"limit": 40}}]
    )
    without = robota(["eval", "run", str(dataset), "--agent", "agents:agent"], cwd=project)
    assert without.returncode == ExitCode.CONFIGURATION
    assert "no evaluator named 'ShortAnswer'" in without.stderr
    for registry in ("agents:registry", "agents:evaluator_list"):
        done = robota(
            ["eval", "run", str(dataset), "--agent", "agents:answer", "--registry", registry],
            cwd=project,
        )
        assert done.returncode == ExitCode.OK, done.stderr
        assert _lines(done.stdout)[1][:4] == ["france", "0", "pass", "true"]


def test_ci_json_needs_a_baseline(project: Path) -> None:
    done = robota(
        ["eval", "run", "capitals.yaml", "--agent", "agents:agent", "--ci-json", "ci.json"],
        cwd=project,
    )
    assert done.returncode == ExitCode.USAGE
    assert "--ci-json needs --baseline" in done.stderr


def test_a_table_on_a_terminal(project: Path) -> None:
    done = robota(
        ["eval", "compare", "base.json", "base.json"], cwd=project, env={"FORCE_COLOR": "1"}
    )
    assert done.returncode == ExitCode.OK
    shown = _visible(done.stdout)
    assert "baseline capitals → candidate capitals: no case changed" in shown
    assert "unchanged: 0 regressions, 0 improvements" in shown
    run = robota(
        ["eval", "run", "failing.yaml", "--agent", "agents:agent", "--no-progress"],
        cwd=project,
        env={"FORCE_COLOR": "1", "COLUMNS": "160"},
    )
    assert run.returncode == ExitCode.EVAL_FAILED
    shown = _visible(run.stdout)
    assert "┃ case   ┃ rep ┃ result ┃ ExactMatch ┃ Contains ┃ duration ┃ tokens ┃" in shown
    assert re.search(
        r"│ london │   0 │ fail   │     ✗      │    ✓     │ +\d+\.\d\ds │    558 │", shown
    )
    assert f'london #0 ExactMatch: output "{FINAL_TEXT}" != expected "London"' in shown
    assert "pass rate 50.0% (1 of 2 passed) · 2 cases × 1 repetition" in shown


def test_help_lists_the_exit_codes(project: Path) -> None:
    for args in (["eval", "--help"], ["eval", "run", "--help"], ["eval", "compare", "--help"]):
        done = robota(args, cwd=project, env={"COLUMNS": "400"})
        assert done.returncode == ExitCode.OK
        assert "exit codes: 0 every case passed" in done.stdout
        assert "6 a case or report analysis failed" in done.stdout
        assert "130 interrupted" in done.stdout


def test_without_the_evals_extra_eval_names_it_and_the_rest_works(project: Path) -> None:
    program = hide_evals_program()

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", program, *args],
            cwd=project,
            env={"ROBOTA_HOME": str(project / ".robota-home"), "COLUMNS": "400"},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    done = run("eval", "run", "capitals.yaml", "--agent", "agents:agent")
    assert done.returncode == ExitCode.CONFIGURATION, done.stderr
    assert 'pip install "robota-agent-cli[evals]"' in done.stderr
    assert "Traceback" not in done.stderr
    compared = run("eval", "compare", "base.json", "base.json")
    assert compared.returncode == ExitCode.CONFIGURATION
    assert "robota-agent-cli[evals]" in compared.stderr
    helped = run("--help")
    assert helped.returncode == ExitCode.OK, helped.stderr
    assert "eval" in helped.stdout
    eval_help = run("eval", "--help")
    assert eval_help.returncode == ExitCode.OK, eval_help.stderr
    assert "6 a case or report analysis failed" in eval_help.stdout
    sessions = run("sessions", "list")
    assert sessions.returncode == ExitCode.OK, sessions.stderr


def test_ctrl_c_during_a_run_exits_130_without_a_traceback(project: Path) -> None:
    marker = project / "started.marker"
    marker.unlink(missing_ok=True)
    process = subprocess.Popen(
        [str(ROBOTA), "eval", "run", "capitals.yaml", "--agent", "agents:hang"],
        cwd=project,
        env=robota_env(project),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the case never started"
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == ExitCode.INTERRUPTED == 130
    assert "Traceback" not in stderr
    assert stdout == ""
