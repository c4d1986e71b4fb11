"""The comparison's CI document (seed 002, "Evaluations": its versioned CI JSON remains
byte-stable for identical inputs; the library reports a deterministic conclusion but leaves
process exit and artifact storage policy to the application).

Version 1, kind ``robota.evals.comparison``: keys sorted, two-space indent, UTF-8 text with a
trailing newline. It holds no clock, path or random identifier, only what
:class:`~robota.evals.comparison.model.Comparison` holds. Values keep their type (``true``, ``1``,
``1.0``); a non-finite score is ``{"nonfinite": "nan" | "inf" | "-inf"}``; computed numbers
(pass rates, deltas) are rounded to 12 significant digits so float noise like
``0.09999999999999998`` reads ``0.1``. Shape::

    {"version": 1, "kind": "robota.evals.comparison", "conclusion": "regressed",
     "has_regressions": true, "counts": {"regressions": 1, "improvements": 0, "cases": {...}},
     "baseline": {"name": ..., "dataset": ..., "pass_rate": 1.0},
     "candidate": {...}, "pass_rate_delta": -0.5, "usage_delta": {...},
     "regressions": [{"level": "result", "status": "regression", "case": "france", ...,
                      "description": "case 'france' #0 rep 0: ExactMatch True -> False ..."}],
     "improvements": [], "cases": [...], "analyses": [...]}

A row of ``cases`` is one (case name, repetition): ``case_index`` is the candidate's index of
the case (else the baseline's), and ``baseline_case_index``/``candidate_case_index`` give both
(null where the case is absent).
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from pathlib import Path
from typing import Any

from robota.evals.comparison.model import (
    AnalysisChange,
    CaseChange,
    Comparison,
    Finding,
    ResultChange,
    UsageDelta,
)
from robota.evals.errors import ReportFileError
from robota.evals.evaluators.base import EvaluationValue
from robota.evals.io._data import error_data, nonfinite_tag
from robota.evals.io._files import write_text_atomic

__all__ = ["COMPARISON_KIND", "COMPARISON_VERSION", "comparison_json", "save_comparison"]

COMPARISON_VERSION = 1
"""The comparison document version this library writes."""
COMPARISON_KIND = "robota.evals.comparison"
"""The ``kind`` of a comparison document."""


def comparison_json(comparison: Comparison) -> str:
    """``comparison`` as its CI document (see the module docstring); equal comparisons give
    equal text."""
    statuses = Counter(row.status for row in comparison.cases)
    document: dict[str, Any] = {
        "version": COMPARISON_VERSION,
        "kind": COMPARISON_KIND,
        "conclusion": comparison.conclusion,
        "has_regressions": comparison.has_regressions,
        "counts": {
            "regressions": len(comparison.regressions),
            "improvements": len(comparison.improvements),
            "cases": dict(statuses),
        },
        "baseline": {
            "name": comparison.baseline_name,
            "dataset": comparison.baseline_dataset,
            "pass_rate": _computed(comparison.baseline_pass_rate),
        },
        "candidate": {
            "name": comparison.candidate_name,
            "dataset": comparison.candidate_dataset,
            "pass_rate": _computed(comparison.candidate_pass_rate),
        },
        "pass_rate_delta": _computed(comparison.pass_rate_delta),
        "usage_delta": _usage(comparison.usage_delta),
        "regressions": [_finding(f) for f in comparison.regressions],
        "improvements": [_finding(f) for f in comparison.improvements],
        "cases": [_case(row) for row in comparison.cases],
        "analyses": [_analysis(a) for a in comparison.analyses],
    }
    return (
        json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    )


def save_comparison(comparison: Comparison, path: str | os.PathLike[str]) -> None:
    """Write ``comparison``'s CI document to ``path`` (a ``.json`` file), atomically.

    Raises:
        ReportFileError: a suffix other than ``.json``, or an unwritable path.
    """
    file = Path(path)
    if file.suffix.lower() != ".json":
        raise ReportFileError(f"{file}: a comparison is written as JSON; use a .json file")
    write_text_atomic(file, comparison_json(comparison), ReportFileError)


def _computed(value: float | None) -> Any:
    """A computed number at 12 significant digits (``-0.0`` as ``0.0``)."""
    if value is None:
        return None
    if not math.isfinite(value):
        return _exact(value)
    return float(f"{value:.12g}") + 0.0


def _exact(value: EvaluationValue | None) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return nonfinite_tag(value)
    return value


def _usage(delta: UsageDelta) -> dict[str, Any]:
    return {
        "input_tokens": delta.input_tokens,
        "output_tokens": delta.output_tokens,
        "total_tokens": delta.total_tokens,
        "cache_read_tokens": delta.cache_read_tokens,
        "cache_write_tokens": delta.cache_write_tokens,
        "reasoning_tokens": delta.reasoning_tokens,
        "requests": delta.requests,
        "details": dict(delta.details),
        "partial": delta.partial,
    }


def _finding(finding: Finding) -> dict[str, Any]:
    return {
        "level": finding.level,
        "status": finding.status,
        "case_index": finding.case_index,
        "repetition": finding.repetition,
        "case": finding.case,
        "evaluator": finding.evaluator,
        "baseline": _exact(finding.baseline),
        "candidate": _exact(finding.candidate),
        "description": finding.describe(),
    }


def _result(change: ResultChange) -> dict[str, Any]:
    return {
        "evaluator": change.evaluator,
        "source": change.source,
        "status": change.status,
        "baseline": _exact(change.baseline),
        "candidate": _exact(change.candidate),
        "baseline_error": error_data(change.baseline_error),
        "candidate_error": error_data(change.candidate_error),
        "delta": _computed(change.delta),
    }


def _case(row: CaseChange) -> dict[str, Any]:
    return {
        "case_index": row.case_index,
        "baseline_case_index": row.baseline_case_index,
        "candidate_case_index": row.candidate_case_index,
        "repetition": row.repetition,
        "status": row.status,
        "baseline_name": row.baseline_name,
        "candidate_name": row.candidate_name,
        "baseline_passed": row.baseline_passed,
        "candidate_passed": row.candidate_passed,
        "baseline_error": error_data(row.baseline_error),
        "candidate_error": error_data(row.candidate_error),
        "results": [_result(r) for r in row.results],
    }


def _analysis(change: AnalysisChange) -> dict[str, Any]:
    return {
        "name": change.name,
        "status": change.status,
        "baseline_assertion": change.baseline_assertion,
        "candidate_assertion": change.candidate_assertion,
        "baseline_value": change.baseline_value,
        "candidate_value": change.candidate_value,
        "unit": change.unit,
        "baseline_error": error_data(change.baseline_error),
        "candidate_error": error_data(change.candidate_error),
        "delta": _computed(change.delta),
    }
