"""What ``robota eval`` prints: an evaluation report and a comparison, as ``rich`` tables on a
terminal or as plain tab-separated text elsewhere (pipes, files, CI logs).

Plain output is sections separated by one blank line; each section is a header row then one
row per item, columns separated by a tab (tabs and line breaks inside a value become spaces),
and the last line is ``summary`` followed by ``key=value`` fields. Values: ``true``/``false``
for assertions, numbers as written by ``%g``, ``error`` for an evaluator that failed, ``-`` for
none (written by :mod:`robota.evals.report.text`'s pieces, shared with the report text). A report
prints :func:`robota.evals.report.render_report`'s text::

    case  repetition  status  ExactMatch  duration_s  total_tokens     (the cases)
    failed_case  repetition  evaluator  reason                          (when any failed)
    analysis  assertion  value  unit  reason                            (report evaluators)
    score  count  mean  min  max  stdev  excluded                        (score statistics)
    summary  pass_rate=0.5  passed=1  failed=1  ...  result=fail

A comparison prints its changed rows (``case repetition evaluator baseline candidate delta
status``; the line ``no differences`` instead when no case and no analysis changed), changed
analyses, ``usage_delta`` and ``summary`` (conclusion, counts, pass rates).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text
from robota.cli.evals.commands import require_evals
from robota.core.usage import Usage

# the `evals` extra: a missing robota-agent-evals is a MissingExtraError naming it
require_evals()

from robota.evals import CaseResult, EvaluationReport, EvaluatorResult, ReportAnalysis  # noqa: E402
from robota.evals.comparison import AnalysisChange, CaseChange, Comparison, ResultChange, UsageDelta  # noqa: E402
from robota.evals.report import (  # noqa: E402
    evaluator_columns,
    field_line,
    format_number,
    plain_value,
    render_report,
    report_failed,
    report_failures,
    short_type_name,
    table_row,
)

__all__ = [
    "print_comparison",
    "print_report",
    "report_failed",
]

_STATUS_STYLES = {
    "regression": "bold red",
    "removed": "bold red",
    "task_failed": "bold red",
    "improvement": "bold green",
    "task_recovered": "bold green",
    "changed": "yellow",
    "added": "cyan",
    "unchanged": "dim",
}
_CASE_LEVEL = frozenset({"removed", "added", "task_failed", "task_recovered"})
_RICH_WORDS = {"true": "✓ pass", "false": "✗ fail"}


# --- shared ------------------------------------------------------------------------------------


def _signed(value: int) -> str:
    return f"{value:+d}"


def _percent(rate: float) -> str:
    return f"{rate * 100:.1f}%"


def _usage_words(usage: Usage) -> str:
    return (
        f"{usage.total_tokens:,} tokens (in {usage.input_tokens:,} / out "
        f"{usage.output_tokens:,}), {usage.requests} requests"
    )


# --- a report ------------------------------------------------------------------------------------


def print_report(report: EvaluationReport, *, console: Console | None, stream: TextIO) -> None:
    """Print ``report``: rich tables to ``console`` when given, else plain text to ``stream``
    (see the module docstring for the plain format)."""
    if console is not None:
        _rich_report(report, console)
    else:
        stream.write(render_report(report))


def _rich_value(result: EvaluatorResult | None) -> Text:
    if result is None:
        return Text("-", style="dim")
    if result.error is not None:
        return Text("error", style="bold red")
    value = result.value
    if isinstance(value, bool):
        return Text("✓", style="green") if value else Text("✗", style="bold red")
    if value is None:
        return Text("-", style="dim")
    if isinstance(value, int | float):
        return Text(format_number(value))
    return Text(value)


def _rich_status(case: CaseResult) -> Text:
    if case.error is not None:
        return Text("error", style="bold red")
    return Text("pass", style="green") if case.passed else Text("fail", style="bold red")


def _rich_report(report: EvaluationReport, console: Console) -> None:
    names = evaluator_columns(report)
    title = report.name if report.name == report.dataset else f"{report.name} ({report.dataset})"
    table = Table(title=title, title_justify="left")
    table.add_column("case")
    table.add_column("rep", justify="right")
    table.add_column("result")
    for name in names:
        table.add_column(name, justify="center")
    table.add_column("duration", justify="right")
    table.add_column("tokens", justify="right")
    for case in report.cases:
        table.add_row(
            Text(case.name),
            str(case.repetition),
            _rich_status(case),
            *(_rich_value(case.result(name)) for name in names),
            f"{case.duration:.2f}s",
            f"{case.usage.total_tokens:,}",
        )
    console.print(table)
    failures = report_failures(report)
    if failures:
        console.print(Text("Failures", style="bold"))
        for case, evaluator, why in failures:
            line = Text("  ")
            line.append(f"{case.name} #{case.repetition} ", style="bold")
            line.append(f"{evaluator}: ", style="red")
            line.append(why)
            console.print(line)
    if report.analyses:
        console.print(_rich_analyses(report.analyses))
    stats = report.score_stats()
    if stats:
        scores = Table(title="Scores", title_justify="left")
        for column in ("evaluator", "count", "mean", "min", "max", "stdev", "excluded"):
            scores.add_column(column, justify="left" if column == "evaluator" else "right")
        for stat in stats.values():
            scores.add_row(
                Text(stat.name),
                str(stat.count),
                *(
                    "-" if v is None else format_number(v)
                    for v in (stat.mean, stat.minimum, stat.maximum, stat.stdev)
                ),
                str(stat.excluded),
            )
        console.print(scores)
    passed = sum(case.passed for case in report.cases)
    total = len(report.cases)
    style = "bold red" if report_failed(report) else "bold green"
    summary = Text()
    summary.append(f"pass rate {_percent(report.pass_rate())}", style=style)
    summary.append(
        f" ({passed} of {total} passed) · {len(report.case_pass_rates())} cases × "
        f"{report.repetitions} repetition{'s' if report.repetitions != 1 else ''} · "
        f"{_usage_words(report.usage)} · {report.duration:.2f}s"
    )
    console.print(summary)


def _rich_analyses(analyses: Sequence[ReportAnalysis]) -> Table:
    table = Table(title="Report analyses", title_justify="left")
    for column in ("analysis", "assertion", "value", "reason"):
        table.add_column(column)
    for analysis in analyses:
        if analysis.error is not None:
            assertion = Text("error", style="bold red")
            reason = f"{short_type_name(analysis.error.type)}: {analysis.error.message}"
        else:
            assertion = (
                Text("-", style="dim")
                if analysis.assertion is None
                else (
                    Text("✓", style="green") if analysis.assertion else Text("✗", style="bold red")
                )
            )
            reason = analysis.reason or ""
        value = "-" if analysis.value is None else format_number(analysis.value)
        if analysis.value is not None and analysis.unit:
            value += f" {analysis.unit}"
        table.add_row(Text(analysis.name), assertion, value, Text(reason))
    return table


# --- a comparison --------------------------------------------------------------------------------


def print_comparison(comparison: Comparison, *, console: Console | None, stream: TextIO) -> None:
    """Print ``comparison``: rich tables to ``console`` when given, else plain text to
    ``stream``."""
    if console is not None:
        _rich_comparison(comparison, console)
    else:
        stream.write("\n\n".join(_plain_comparison(comparison)) + "\n")


def _change_rows(comparison: Comparison) -> list[tuple[CaseChange, ResultChange | None]]:
    """The rows worth showing: a case-level change once, else each changed result."""
    rows: list[tuple[CaseChange, ResultChange | None]] = []
    for row in comparison.cases:
        if row.status in _CASE_LEVEL:
            rows.append((row, None))
            continue
        rows.extend((row, change) for change in row.results if change.status != "unchanged")
    return rows


def _case_side(passed: bool | None, error_message: str | None) -> str:
    if passed is None:
        return "absent"
    if error_message is not None:
        return f"task error: {error_message}"
    return "pass" if passed else "fail"


def _sides(row: CaseChange, change: ResultChange | None) -> tuple[str, str, str, str]:
    """(evaluator, baseline, candidate, delta) cells of one change row, plain words."""
    if change is None:
        baseline = _case_side(
            row.baseline_passed, row.baseline_error.message if row.baseline_error else None
        )
        candidate = _case_side(
            row.candidate_passed, row.candidate_error.message if row.candidate_error else None
        )
        return "(case)", baseline, candidate, "-"
    baseline = "error" if change.baseline_error is not None else plain_value(change.baseline)
    candidate = "error" if change.candidate_error is not None else plain_value(change.candidate)
    if change.status == "added":
        baseline = "absent"
    if change.status == "removed":
        candidate = "absent"
    delta = "-" if change.delta is None else f"{change.delta:+g}"
    return change.evaluator, baseline, candidate, delta


def _analysis_side(assertion: bool | None, value: float | None, error: bool) -> str:
    if error:
        return "error"
    words = [plain_value(assertion)] if assertion is not None else []
    if value is not None:
        words.append(format_number(value))
    return " ".join(words) or "-"


def _changed_analyses(comparison: Comparison) -> list[AnalysisChange]:
    return [a for a in comparison.analyses if a.status != "unchanged"]


def _usage_pairs(delta: UsageDelta) -> list[tuple[str, object]]:
    return [
        ("input_tokens", _signed(delta.input_tokens)),
        ("output_tokens", _signed(delta.output_tokens)),
        ("total_tokens", _signed(delta.total_tokens)),
        ("cache_read_tokens", _signed(delta.cache_read_tokens)),
        ("cache_write_tokens", _signed(delta.cache_write_tokens)),
        ("reasoning_tokens", _signed(delta.reasoning_tokens)),
        ("requests", _signed(delta.requests)),
        ("partial", "true" if delta.partial else "false"),
    ]


def _rich_comparison(comparison: Comparison, console: Console) -> None:
    title = f"baseline {comparison.baseline_name} → candidate {comparison.candidate_name}"
    rows = _change_rows(comparison)
    if rows:
        table = Table(title=title, title_justify="left")
        for column in ("case", "rep", "evaluator", "baseline", "candidate", "delta", "status"):
            table.add_column(column, justify="right" if column in ("rep", "delta") else "left")
        for row, change in rows:
            evaluator, baseline, candidate, delta = _sides(row, change)
            baseline, candidate = (
                _RICH_WORDS.get(baseline, baseline),
                _RICH_WORDS.get(candidate, candidate),
            )
            status = row.status if change is None else change.status
            table.add_row(
                Text(row.name),
                str(row.repetition),
                Text(evaluator),
                Text(baseline),
                Text(candidate),
                delta,
                Text(status.replace("_", " "), style=_STATUS_STYLES.get(status, "")),
            )
        console.print(table)
    else:
        console.print(Text(f"{title}: no case changed", style="dim"))
    analyses = _changed_analyses(comparison)
    if analyses:
        table = Table(title="Report analyses", title_justify="left")
        for column in ("analysis", "baseline", "candidate", "delta", "status"):
            table.add_column(column)
        for a in analyses:
            table.add_row(
                Text(a.name),
                _analysis_side(
                    a.baseline_assertion, a.baseline_value, a.baseline_error is not None
                ),
                _analysis_side(
                    a.candidate_assertion, a.candidate_value, a.candidate_error is not None
                ),
                "-" if a.delta is None else f"{a.delta:+g}",
                Text(a.status.replace("_", " "), style=_STATUS_STYLES.get(a.status, "")),
            )
        console.print(table)
    delta = comparison.usage_delta
    points = comparison.pass_rate_delta * 100
    console.print(
        f"pass rate {_percent(comparison.baseline_pass_rate)} → "
        f"{_percent(comparison.candidate_pass_rate)} ({points:+.1f} pts) · usage Δ "
        f"{_signed(delta.total_tokens)} tokens (in {_signed(delta.input_tokens)} / out "
        f"{_signed(delta.output_tokens)}), {_signed(delta.requests)} requests"
        + (" (partial)" if delta.partial else ""),
        highlight=False,
    )
    regressions, improvements = len(comparison.regressions), len(comparison.improvements)
    style = {"regressed": "bold red", "improved": "bold green"}.get(comparison.conclusion, "bold")
    conclusion = Text()
    conclusion.append(comparison.conclusion, style=style)
    conclusion.append(
        f": {regressions} regression{'s' if regressions != 1 else ''}, {improvements} "
        f"improvement{'s' if improvements != 1 else ''}"
    )
    console.print(conclusion)


def _plain_comparison(comparison: Comparison) -> list[str]:
    changes = _change_rows(comparison)
    if not changes:
        words = "no case changed" if _changed_analyses(comparison) else "no differences"
        return [words, *_plain_comparison_tail(comparison)]
    lines = [
        table_row(["case", "repetition", "evaluator", "baseline", "candidate", "delta", "status"])
    ]
    for row, change in changes:
        evaluator, baseline, candidate, delta = _sides(row, change)
        status = row.status if change is None else change.status
        lines.append(
            table_row(
                [row.name, str(row.repetition), evaluator, baseline, candidate, delta, status]
            )
        )
    return ["\n".join(lines), *_plain_comparison_tail(comparison)]


def _plain_comparison_tail(comparison: Comparison) -> list[str]:
    """The sections after the case rows: changed analyses, usage delta and summary."""
    sections: list[str] = []
    analyses = _changed_analyses(comparison)
    if analyses:
        rows = [table_row(["analysis", "baseline", "candidate", "delta", "status"])]
        for a in analyses:
            rows.append(
                table_row(
                    [
                        a.name,
                        _analysis_side(
                            a.baseline_assertion, a.baseline_value, a.baseline_error is not None
                        ),
                        _analysis_side(
                            a.candidate_assertion, a.candidate_value, a.candidate_error is not None
                        ),
                        "-" if a.delta is None else f"{a.delta:+g}",
                        a.status,
                    ]
                )
            )
        sections.append("\n".join(rows))
    sections.append(
        "\n".join(
            [
                field_line("usage_delta", _usage_pairs(comparison.usage_delta)),
                field_line(
                    "summary",
                    [
                        ("conclusion", comparison.conclusion),
                        ("regressions", len(comparison.regressions)),
                        ("improvements", len(comparison.improvements)),
                        ("baseline_pass_rate", format_number(comparison.baseline_pass_rate)),
                        ("candidate_pass_rate", format_number(comparison.candidate_pass_rate)),
                        ("pass_rate_delta", f"{comparison.pass_rate_delta:+g}"),
                    ],
                ),
            ]
        )
    )
    return sections
