"""What a new user of ``robota.evals`` ran into (issue #19, follow-up): comparisons joined by
position, a replay that said it recorded, vcrpy's words in a cassette mismatch, pydantic-evals
names, case-level evaluators, duplicate evaluator names and no plain-text report.

Each test drives the public path (``compare``, ``record_cassette``, ``load_dataset``,
``Dataset``, ``render_report``) and checks what the user reads.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from robota.core import Agent
from robota.core.testing.scripted import ScriptedProvider
from robota.evals import (
    Case,
    CaseResult,
    Contains,
    Dataset,
    DatasetFileError,
    EvaluationReport,
    EvaluatorNotFoundError,
    EvaluatorResult,
    ExactMatch,
    PassRateAtLeast,
    ReportAnalysis,
)
from robota.evals.comparison import compare
from robota.evals.io.datasets import load_dataset
from robota.evals.recording import record_cassette
from robota.evals.report import render_report

# --- 1. compare joins by case name and repetition ------------------------------------------------


def _capitals(*names: str) -> Dataset[str, str]:
    answers = {"france": "Paris", "peru": "Lima", "japan": "Tokyo", "chile": "Santiago"}
    return Dataset(
        name="capitals",
        cases=[Case(name=n, inputs=f"Capital of {n}?", expected_output=answers[n]) for n in names],
        evaluators=[ExactMatch()],
    )


def _answering(*answers: str) -> Agent[None, str]:
    return Agent(ScriptedProvider(list(answers)))


def test_a_case_inserted_at_the_top_changes_nothing_for_the_others() -> None:
    baseline = _capitals("france", "peru").evaluate_sync(_answering("Paris", "Lima"))
    grown = _capitals("japan", "france", "peru")
    candidate = grown.evaluate_sync(_answering("Tokyo", "Paris", "Lima"))

    comparison = compare(baseline, candidate)
    assert [
        (row.name, row.status, row.baseline_case_index, row.candidate_case_index)
        for row in comparison.cases
    ] == [
        ("france", "unchanged", 0, 1),
        ("peru", "unchanged", 1, 2),
        ("japan", "added", None, 0),
    ]
    assert comparison.conclusion == "unchanged"
    assert not comparison.has_regressions

    text = comparison.to_ci_json()
    assert text == compare(baseline, candidate).to_ci_json()  # byte-stable
    rows = json.loads(text)["cases"]
    assert [
        (r["candidate_name"], r["case_index"], r["baseline_case_index"], r["candidate_case_index"])
        for r in rows
    ] == [("france", 1, 0, 1), ("peru", 2, 1, 2), ("japan", 0, None, 0)]


def test_a_reordered_dataset_still_finds_the_one_real_regression() -> None:
    baseline = _capitals("france", "peru", "chile").evaluate_sync(
        _answering("Paris", "Lima", "Santiago")
    )
    candidate = _capitals("chile", "peru", "france").evaluate_sync(
        _answering("Santiago", "Cusco", "Paris")
    )
    comparison = compare(baseline, candidate)
    assert [f.describe() for f in comparison.regressions] == [
        "case 'peru' #1 rep 0: ExactMatch True -> False (regression)"
    ]
    assert [row.status for row in comparison.cases] == ["unchanged", "regression", "unchanged"]


def test_a_renamed_case_is_removed_and_added() -> None:
    def report(name: str) -> EvaluationReport:
        result = EvaluatorResult(name="ExactMatch", value=True)
        case = CaseResult(case_index=0, name=name, results=(result,))
        return EvaluationReport(name="run", dataset="capitals", cases=(case,))

    comparison = compare(report("france"), report("France"))
    assert [(row.name, row.status) for row in comparison.cases] == [
        ("france", "removed"),
        ("France", "added"),
    ]
    assert [f.describe() for f in comparison.regressions] == ["case 'france' #0 rep 0: removed"]


# --- 2. record_cassette on replay ---------------------------------------------------------------

_ANSWER = {"choices": [{"message": {"role": "assistant", "content": "Paris."}}]}


def _api(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json=_ANSWER)


async def _ask(client: httpx.AsyncClient, question: str) -> httpx.Response:
    return await client.post(
        "https://api.openai.com/v1/chat/completions",
        json={"model": "gpt-4o", "messages": [{"role": "user", "content": question}]},
        headers={"authorization": "Bearer sk-proj-NewUser0123456789SECRET"},
    )


@pytest.mark.anyio
async def test_replaying_records_nothing_and_a_mismatch_speaks_this_api(tmp_path: Path) -> None:
    from vcr.errors import CannotOverwriteExistingCassetteException

    path = tmp_path / "capital.yaml"
    async with httpx.AsyncClient(transport=httpx.MockTransport(_api)) as client:
        async with record_cassette(path) as recording:
            await _ask(client, "Capital of France?")
        assert (recording.replaying, recording.recorded) == (False, 1)

        async with record_cassette(path, mode="replay") as replay:
            assert (await _ask(client, "Capital of France?")).json() == _ANSWER
            assert (replay.replaying, replay.recorded, replay.played) == (True, 0, 1)
            with pytest.raises(CannotOverwriteExistingCassetteException) as refused:
                await _ask(client, "Capital of Peru?")
        assert replay.recorded == 0

    message = str(refused.value)
    assert "POST https://api.openai.com/v1/chat/completions" in message
    assert "differs in body" in message
    assert "bodies compared as documents" in message
    assert 'record_cassette(path, mode="overwrite")' in message
    assert "new_episodes" not in message
    assert "record_mode" not in message
    assert "SECRET" not in message


@pytest.mark.anyio
async def test_a_request_beyond_the_recording_says_it_was_already_served(tmp_path: Path) -> None:
    from vcr.errors import CannotOverwriteExistingCassetteException

    path = tmp_path / "once.yaml"
    async with httpx.AsyncClient(transport=httpx.MockTransport(_api)) as client:
        async with record_cassette(path):
            await _ask(client, "Capital of France?")
        async with record_cassette(path) as replay:  # "once" over an existing file
            await _ask(client, "Capital of France?")
            with pytest.raises(CannotOverwriteExistingCassetteException) as refused:
                await _ask(client, "Capital of France?")
    assert replay.recorded == 0
    assert "already served (each is served once)" in str(refused.value)


# --- 4. pydantic-evals names -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("theirs", "ours"),
    [
        ("EqualsExpected", "is ExactMatch here"),
        ("IsInstance", "is MatchesType here"),
        ("LLMJudge", "is ModelGrader here"),
        ("HasMatchingSpan", "is SpanPresent here"),
    ],
)
def test_a_pydantic_evals_name_points_to_its_counterpart(
    tmp_path: Path, theirs: str, ours: str
) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(f"version: 1\nname: d\nevaluators: [{theirs}]\ncases: []\n")
    with pytest.raises(EvaluatorNotFoundError, match=f"pydantic-evals' {theirs} {ours}"):
        load_dataset(path)


def test_contains_and_equals_keep_their_pydantic_evals_names(tmp_path: Path) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(
        "version: 1\nname: d\nevaluators: [{Contains: {value: a}}, {Equals: {value: a}}]\n"
        "cases: []\n"
    )
    assert [e.name for e in load_dataset(path).evaluators] == ["Contains", "Equals"]


# --- 5. case-level evaluators ----------------------------------------------------------------------


def test_case_level_evaluators_are_refused_as_such(tmp_path: Path) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(
        "version: 1\nname: d\ncases:\n  - name: a\n    inputs: hi\n    evaluators: [ExactMatch]\n"
    )
    with pytest.raises(DatasetFileError) as refused:
        load_dataset(path)
    message = str(refused.value)
    assert "cases[0].evaluators: case-level evaluators are not supported" in message
    assert "list them under the dataset's evaluators" in message
    assert "run options" not in message


# --- 7. duplicate evaluator names ------------------------------------------------------------------


def test_a_duplicate_evaluator_name_shows_the_evaluation_name_form(tmp_path: Path) -> None:
    yaml_file = tmp_path / "d.yaml"
    yaml_file.write_text(
        "version: 1\nname: d\nevaluators: [{Contains: {value: Paris}}, {Contains: {value: x}}]\n"
        "report_evaluators: [{PassRateAtLeast: 0.9}]\ncases: []\n"
    )
    with pytest.raises(DatasetFileError) as refused:
        load_dataset(yaml_file)
    assert "two evaluators are named 'Contains' (evaluators[0] and evaluators[1]" in str(
        refused.value
    )
    assert "{Contains: {value: x, evaluation_name: Contains_2}}" in str(refused.value)

    fixed = yaml_file.read_text().replace(
        "{Contains: {value: x}}", "{Contains: {value: x, evaluation_name: Contains_2}}"
    )
    yaml_file.write_text(fixed)
    assert [e.name for e in load_dataset(yaml_file).evaluators] == ["Contains", "Contains_2"]

    positional = tmp_path / "p.json"
    positional.write_text(
        json.dumps(
            {
                "version": 1,
                "name": "d",
                "report_evaluators": [{"PassRateAtLeast": 0.9}, {"PassRateAtLeast": 0.5}],
                "cases": [],
            }
        )
    )
    with pytest.raises(DatasetFileError) as refused:
        load_dataset(positional)
    assert '{"PassRateAtLeast": {"minimum": 0.5, "evaluation_name": "PassRateAtLeast_2"}}' in str(
        refused.value
    )


def test_a_duplicate_evaluator_in_code_names_the_keyword() -> None:
    with pytest.raises(ValueError, match="two evaluators are named 'Contains'") as refused:
        Dataset(name="d", cases=[], evaluators=[Contains("a"), Contains("b")])
    assert "Contains(..., evaluation_name='Contains_2')" in str(refused.value)
    assert "{Contains: {..., evaluation_name: Contains_2}}" in str(refused.value)


# --- 8. a report as plain text -----------------------------------------------------------------


def test_render_report_is_a_plain_text_summary() -> None:
    dataset = Dataset(
        name="capitals",
        cases=[
            Case(name="france", inputs="Capital of France?", expected_output="Paris"),
            Case(name="peru", inputs="Capital of Peru?", expected_output="Lima"),
        ],
        evaluators=[ExactMatch()],
        report_evaluators=[PassRateAtLeast(0.9)],
    )
    report = dataset.evaluate_sync(_answering("Paris", "Cusco"))
    text = render_report(report)
    rows = [line.split("\t") for line in text.splitlines()]
    assert rows[0] == ["case", "repetition", "status", "ExactMatch", "duration_s", "total_tokens"]
    assert [row[:4] for row in rows[1:3]] == [
        ["france", "0", "pass", "true"],
        ["peru", "0", "fail", "false"],
    ]
    assert ["peru", "0", "ExactMatch", 'output "Cusco" != expected "Lima"'] in rows
    assert [
        "PassRateAtLeast",
        "false",
        "0.5",
        "ratio",
        "1/2 case repetitions passed (50.0%), below 90.0%",
    ] in rows
    summary = dict(field.split("=", 1) for field in rows[-1][1:])
    assert (rows[-1][0], summary["pass_rate"], summary["result"]) == ("summary", "0.5", "fail")
    assert text.endswith("\n")


def test_render_report_of_an_analysis_error_names_it() -> None:
    from robota.evals import CaseError

    broken = ReportAnalysis(
        name="Gate", error=CaseError(type="builtins.RuntimeError", message="boom")
    )
    report = EvaluationReport(name="r", dataset="d", analyses=(broken,))
    assert "Gate\terror\t-\t-\tRuntimeError: boom" in render_report(report)
