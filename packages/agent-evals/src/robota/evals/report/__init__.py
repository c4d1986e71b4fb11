"""Evaluation reports: results, analyses and summary statistics, and :func:`render_report`
(a report as plain text, pydantic-evals' ``report.print()`` counterpart)."""

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

__all__ = [
    "CaseError",
    "CaseResult",
    "EvaluationReport",
    "EvaluatorResult",
    "ReportAnalysis",
    "ReportView",
    "ScoreStats",
    "render_report",
    "report_failed",
]
