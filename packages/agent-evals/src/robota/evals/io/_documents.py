"""The schemas of dataset and report documents, version 1, as strict pydantic models: unknown
keys are refused at every level, and no value is coerced (``"1"`` is not ``1``, ``1`` is not
``True``).

Non-finite numbers, which JSON cannot hold, are written ``{"nonfinite": "nan" | "inf" |
"-inf"}`` where a typed number field may hold one (:class:`NonFinite`). Free values (a case's
inputs, outputs, metadata) are checked and decoded by :mod:`robota.evals.io.reports`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = [
    "AnalysisDocument",
    "CaseDocument",
    "CaseErrorDocument",
    "CaseResultDocument",
    "CountsDocument",
    "DatasetDocument",
    "EvaluatorResultDocument",
    "NonFinite",
    "ReportDocument",
    "SpanDocument",
    "UsageDocument",
    "describe_errors",
]

_STRICT = ConfigDict(strict=True, extra="forbid", frozen=True)


class _Strict(BaseModel):
    model_config = _STRICT


# --- datasets ---------------------------------------------------------------------------------


class CaseDocument(_Strict):
    """One case: ``name``, ``inputs`` (required, may be null), ``expected_output``,
    ``metadata``. Nothing else — per-case run options are refused (seed 002: they may hold
    callbacks, process pointers, queues or secrets)."""

    name: Annotated[str, Field(min_length=1)]
    inputs: Any
    expected_output: Any = None
    metadata: dict[str, Any] = Field(default_factory=lambda: {})


class DatasetDocument(_Strict):
    """A dataset document (version 1): its name, the evaluator specs of each kind in order,
    and its cases."""

    version: Literal[1]
    name: str
    evaluators: list[Any] = Field(default_factory=lambda: [])
    trace_evaluators: list[Any] = Field(default_factory=lambda: [])
    report_evaluators: list[Any] = Field(default_factory=lambda: [])
    cases: list[CaseDocument]


# --- reports ----------------------------------------------------------------------------------


class NonFinite(_Strict):
    """A non-finite float: ``{"nonfinite": "nan"}``, ``"inf"`` or ``"-inf"``."""

    nonfinite: Literal["nan", "inf", "-inf"]


Number = float | NonFinite
"""A float field (an integer reads as the same float)."""
Value = bool | int | float | str | NonFinite
"""An evaluation value: an assertion, a score (int or float, possibly non-finite) or a label."""
Attribute = (
    str
    | bool
    | int
    | float
    | NonFinite
    | list[str]
    | list[bool]
    | list[int]
    | list[float | NonFinite]
)
"""A span attribute value (sequences as lists)."""
_TRACE_ID = Annotated[str, Field(pattern=r"^[0-9a-f]{32}$")]
_SPAN_ID = Annotated[str, Field(pattern=r"^[0-9a-f]{16}$")]


class CaseErrorDocument(_Strict):
    """A :class:`~robota.evals.report.model.CaseError`."""

    type: str
    message: str
    code: str | None


class UsageDocument(_Strict):
    """A :class:`~robota.core.usage.Usage` (tokens; ``details`` by vendor name)."""

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    reasoning_tokens: int
    requests: int
    details: dict[str, int]
    partial: bool


class EvaluatorResultDocument(_Strict):
    """An :class:`~robota.evals.report.model.EvaluatorResult`."""

    name: str
    source: Literal["case", "trace"]
    value: Value | None
    reason: str | None
    error: CaseErrorDocument | None
    attempts: int


class SpanDocument(_Strict):
    """A :class:`~robota.evals.spans.SpanRecord` (ids as lowercase hexadecimal text, times in
    nanoseconds since the Unix epoch)."""

    name: str
    trace_id: _TRACE_ID
    span_id: _SPAN_ID
    parent_span_id: _SPAN_ID | None
    kind: str
    start_time_ns: int
    end_time_ns: int
    status: Literal["UNSET", "OK", "ERROR"]
    status_description: str | None
    attributes: dict[str, Attribute]


class CaseResultDocument(_Strict):
    """A :class:`~robota.evals.report.model.CaseResult`; the free values (``inputs``,
    ``expected_output``, ``metadata``, ``output``) are decoded separately."""

    case_index: int
    name: str
    repetition: int
    inputs: Any
    expected_output: Any
    metadata: dict[str, Any]
    output: Any
    error: CaseErrorDocument | None
    attempts: int
    duration: Number
    usage: UsageDocument
    results: list[EvaluatorResultDocument]
    spans: list[SpanDocument]


class AnalysisDocument(_Strict):
    """A :class:`~robota.evals.report.model.ReportAnalysis`."""

    name: str
    assertion: bool | None
    value: float | None
    unit: str | None
    reason: str | None
    error: CaseErrorDocument | None


class CountsDocument(_Strict):
    """How many cases and analyses a report document holds (its last key: a file cut short
    lacks it or disagrees with it)."""

    cases: int
    analyses: int


class ReportDocument(_Strict):
    """A report document (version 1, kind ``robota.evals.report``)."""

    version: Literal[1]
    kind: Literal["robota.evals.report"]
    name: str
    dataset: str
    repetitions: int
    started_at: str
    duration: Number
    evaluators: list[str]
    usage: UsageDocument
    cases: list[CaseResultDocument]
    analyses: list[AnalysisDocument]
    counts: CountsDocument


def describe_errors(error: ValidationError, *, limit: int = 5) -> str:
    """The first ``limit`` problems of ``error``, as ``"cases[0].options: unknown key"``
    clauses joined with ``"; "``."""
    clauses: list[str] = []
    problems = error.errors(include_url=False)
    for problem in problems[:limit]:
        where = ""
        for part in problem["loc"]:
            if isinstance(part, int):
                where += f"[{part}]"
            elif not _is_type_name(part):  # pydantic names union members in the location
                where += f".{part}" if where else part
        message = "unknown key" if problem["type"] == "extra_forbidden" else problem["msg"]
        clauses.append(f"{where or 'the document'}: {message}")
    if len(problems) > limit:
        clauses.append(f"... {len(problems) - limit} more")
    return "; ".join(clauses)


def _is_type_name(part: str) -> bool:
    return part in {"bool", "int", "float", "str", "NonFinite"} or part.startswith(
        ("list[", "dict[", "function-")
    )
