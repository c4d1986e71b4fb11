"""A report as plain text, for a log, a terminal or a test's failure message — the counterpart
of pydantic-evals' ``report.print()`` (``robota eval run`` prints exactly this outside a
terminal).

The text is sections separated by one blank line; each section is a header row then one row
per item, columns separated by a tab (tabs and line breaks inside a value become spaces), and
the last line is ``summary`` followed by ``key=value`` fields. Values: ``true``/``false`` for
assertions, numbers as written by ``%g``, ``error`` for an evaluator that failed, ``-`` for
none::

    case  repetition  status  ExactMatch  duration_s  total_tokens     (every case repetition)
    failed_case  repetition  evaluator  reason                          (when any failed)
    analysis  assertion  value  unit  reason                            (report evaluators)
    score  count  mean  min  max  stdev  excluded                        (score statistics)
    summary  pass_rate=0.5  passed=1  failed=1  ...  result=fail

The pieces (a value, a row, a ``key=value`` line, the failures) are public in
:mod:`robota.evals.report.text`, for other views that should write them the same way.
"""

from __future__ import annotations

from robota.evals.report.model import EvaluationReport, EvaluatorResult
from robota.evals.report.text import (
    evaluator_columns,
    field_line,
    format_number,
    plain_value,
    report_failures,
    short_type_name,
    table_row,
)

__all__ = ["render_report", "report_failed"]


def report_failed(report: EvaluationReport) -> bool:
    """Whether ``report`` fails: a case repetition failed (its task, an assertion or an
    evaluator), or a report analysis asserted false or errored."""
    if not all(case.passed for case in report.cases):
        return True
    return any(a.error is not None or a.assertion is False for a in report.analyses)


def render_report(report: EvaluationReport) -> str:
    """``report`` as plain text (see the module docstring), ending in a line break.

    Example:
        >>> from robota.evals import CaseResult, EvaluationReport, EvaluatorResult
        >>> miss = EvaluatorResult(name="ExactMatch", value=False, reason="'Lyon' != 'Paris'")
        >>> report = EvaluationReport(
        ...     name="capitals", dataset="capitals",
        ...     cases=(CaseResult(case_index=0, name="france", output="Lyon", results=(miss,)),))
        >>> text = render_report(report)
        >>> print(text[: text.index("summary")].replace("\\t", " | ").strip())
        case | repetition | status | ExactMatch | duration_s | total_tokens
        france | 0 | fail | false | 0.000 | 0
        <BLANKLINE>
        failed_case | repetition | evaluator | reason
        france | 0 | ExactMatch | 'Lyon' != 'Paris'
        >>> text.splitlines()[-1].split("\\t")[:2], text.splitlines()[-1].split("\\t")[-1]
        (['summary', 'pass_rate=0'], 'result=fail')
    """
    return "\n\n".join(_sections(report)) + "\n"


def _sections(report: EvaluationReport) -> list[str]:
    names = evaluator_columns(report)
    rows = [table_row(["case", "repetition", "status", *names, "duration_s", "total_tokens"])]
    for case in report.cases:
        status = "error" if case.error is not None else ("pass" if case.passed else "fail")
        rows.append(
            table_row(
                [
                    case.name,
                    str(case.repetition),
                    status,
                    *(_plain_result(case.result(name)) for name in names),
                    f"{case.duration:.3f}",
                    str(case.usage.total_tokens),
                ]
            )
        )
    sections = ["\n".join(rows)]
    failures = report_failures(report)
    if failures:
        lines = [table_row(["failed_case", "repetition", "evaluator", "reason"])]
        lines += [
            table_row([case.name, str(case.repetition), evaluator, why])
            for case, evaluator, why in failures
        ]
        sections.append("\n".join(lines))
    if report.analyses:
        lines = [table_row(["analysis", "assertion", "value", "unit", "reason"])]
        for analysis in report.analyses:
            if analysis.error is not None:
                assertion = "error"
                reason = f"{short_type_name(analysis.error.type)}: {analysis.error.message}"
            else:
                assertion = plain_value(analysis.assertion)
                reason = analysis.reason or "-"
            value = "-" if analysis.value is None else format_number(analysis.value)
            lines.append(table_row([analysis.name, assertion, value, analysis.unit or "-", reason]))
        sections.append("\n".join(lines))
    stats = report.score_stats()
    if stats:
        lines = [table_row(["score", "count", "mean", "min", "max", "stdev", "excluded"])]
        for stat in stats.values():
            numbers = (stat.mean, stat.minimum, stat.maximum, stat.stdev)
            lines.append(
                table_row(
                    [
                        stat.name,
                        str(stat.count),
                        *("-" if v is None else format_number(v) for v in numbers),
                        str(stat.excluded),
                    ]
                )
            )
        sections.append("\n".join(lines))
    passed = sum(case.passed for case in report.cases)
    usage = report.usage
    sections.append(
        field_line(
            "summary",
            [
                ("pass_rate", format_number(report.pass_rate())),
                ("passed", passed),
                ("failed", len(report.cases) - passed),
                ("cases", len(report.case_pass_rates())),
                ("repetitions", report.repetitions),
                ("input_tokens", usage.input_tokens),
                ("output_tokens", usage.output_tokens),
                ("total_tokens", usage.total_tokens),
                ("requests", usage.requests),
                ("duration_s", f"{report.duration:.3f}"),
                ("result", "fail" if report_failed(report) else "pass"),
            ],
        )
    )
    return sections


def _plain_result(result: EvaluatorResult | None) -> str:
    if result is None:
        return "-"
    if result.error is not None:
        return "error"
    return plain_value(result.value)
