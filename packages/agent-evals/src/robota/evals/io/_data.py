"""The JSON data pieces report, dataset and comparison documents share (seed 002,
"Evaluations": JSON has no NaN or infinity, so a non-finite number is written ``{"nonfinite":
"nan" | "inf" | "-inf"}``; ``True``, ``1`` and ``1.0`` keep their types).
"""

from __future__ import annotations

import math
from typing import Any

from robota.evals.report.model import CaseError

__all__ = ["builtin_scalar", "error_data", "nonfinite_tag"]


def nonfinite_tag(value: float) -> dict[str, str]:
    """The tag a non-finite ``value`` is written as: ``{"nonfinite": "nan" | "inf" | "-inf"}``
    (a finite ``value`` gives ``"-inf"``: callers check :func:`math.isfinite` first)."""
    return {"nonfinite": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}


def builtin_scalar(value: Any) -> Any:
    """``value`` as its exact builtin type when it is a bool, int, float or str (an ``IntEnum``
    as its number, a ``str`` enum as its text, a bool still a bool); anything else, None
    included, unchanged. Non-finite floats are returned as they are."""
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)  # an IntEnum as its number
    if isinstance(value, str):
        return str.__str__(value)  # a str subclass (an enum) as its text
    if isinstance(value, float):
        return float(value)
    return value


def error_data(error: CaseError | None) -> dict[str, Any] | None:
    """A case, evaluator or analysis error as ``{"type", "message", "code"}``; None for None."""
    if error is None:
        return None
    return {"type": error.type, "message": error.message, "code": error.code}
