"""Baseline-versus-candidate comparison of evaluation reports, for CI (seed 002,
"Evaluations"): :func:`compare` joins two reports into a :class:`Comparison`, whose
:meth:`~Comparison.to_ci_json` is byte-stable for equal inputs; :func:`save_comparison` writes
it."""

from robota.evals.comparison.ci import COMPARISON_KIND, COMPARISON_VERSION, save_comparison
from robota.evals.comparison.join import compare
from robota.evals.comparison.model import (
    AnalysisChange,
    CaseChange,
    CaseStatus,
    ChangeStatus,
    Comparison,
    Finding,
    ResultChange,
    UsageDelta,
)

__all__ = [
    "COMPARISON_KIND",
    "COMPARISON_VERSION",
    "AnalysisChange",
    "CaseChange",
    "CaseStatus",
    "ChangeStatus",
    "Comparison",
    "Finding",
    "ResultChange",
    "UsageDelta",
    "compare",
    "save_comparison",
]
