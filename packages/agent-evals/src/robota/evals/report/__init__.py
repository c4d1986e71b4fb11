"""Evaluation reports: results, analyses and summary statistics, :func:`render_report`
(a report as plain text, pydantic-evals' ``report.print()`` counterpart) and the pieces that
text is made of (:mod:`robota.evals.report.text`: values, rows, ``key=value`` lines, failures)."""

from robota.evals.report.model import (
    CaseError,
    CaseResult,
    EvaluationReport,
    EvaluatorResult,
    ReportAnalysis,
    ReportView,
    ScoreStats,
)
from robota.evals.report.render import render_report, report_failed
from robota.evals.report.text import (
    evaluator_columns,
    field_line,
    format_number,
    plain_value,
    report_failures,
    short_type_name,
    single_line,
    table_row,
)

__all__ = [
    "CaseError",
    "CaseResult",
    "EvaluationReport",
    "EvaluatorResult",
    "ReportAnalysis",
    "ReportView",
    "ScoreStats",
    "evaluator_columns",
    "field_line",
    "format_number",
    "plain_value",
    "render_report",
    "report_failed",
    "report_failures",
    "short_type_name",
    "single_line",
    "table_row",
]
