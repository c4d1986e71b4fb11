"""The plain-text pieces of a report (``robota.evals.report.text``): their docstring examples run
as written, and the report text is built from exactly these pieces."""

from __future__ import annotations

import doctest
import importlib

import pytest
from robota.evals import CaseError, CaseResult, EvaluationReport, EvaluatorResult
from robota.evals.report import (
    field_line,
    format_number,
    plain_value,
    render_report,
    report_failures,
    table_row,
)


@pytest.mark.parametrize("module_name", ["text", "render"])
def test_docstring_examples_run(module_name: str) -> None:
    module = importlib.import_module(f"robota.evals.report.{module_name}")
    outcome = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert outcome.attempted > 0
    assert outcome.failed == 0


def test_report_text_is_made_of_the_public_pieces() -> None:
    boom = CaseError(type="robota.core.errors.ProviderError", message="rate\nlimited")
    label = EvaluatorResult(name="Tone", value="very\tpolite")
    score = EvaluatorResult(name="Score", value=float("nan"))
    report = EvaluationReport(
        name="r",
        dataset="d",
        cases=(
            CaseResult(case_index=0, name="a", results=(label, score)),
            CaseResult(case_index=1, name="b", error=boom),
        ),
    )
    sections = render_report(report).split("\n\n")

    assert sections[0].splitlines()[1] == table_row(
        ["a", "0", "pass", plain_value(label.value), plain_value(score.value), "0.000", "0"]
    )
    assert sections[0].splitlines()[1] == "a\t0\tpass\tvery polite\tnan\t0.000\t0"
    failures = [(case.name, evaluator, why) for case, evaluator, why in report_failures(report)]
    assert failures == [("b", "(task)", "ProviderError: rate\nlimited")]
    assert sections[1].splitlines()[1] == "b\t0\t(task)\tProviderError: rate limited"
    summary = sections[-1].rstrip("\n")
    assert summary.startswith(field_line("summary", [("pass_rate", format_number(0.5))]) + "\t")
