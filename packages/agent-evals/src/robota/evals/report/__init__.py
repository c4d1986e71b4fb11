"""Evaluation reports: results, analyses and summary statistics."""

from robota.evals.report.model import (
    CaseError,
    CaseResult,
    EvaluationReport,
    EvaluatorResult,
    ReportAnalysis,
    ReportView,
    ScoreStats,
)

__all__ = [
    "CaseError",
    "CaseResult",
    "EvaluationReport",
    "EvaluatorResult",
    "ReportAnalysis",
    "ReportView",
    "ScoreStats",
]
