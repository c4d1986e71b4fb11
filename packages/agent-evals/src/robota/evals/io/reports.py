"""Report files (seed 002, "Evaluations": report documents retain every durable result field,
including aggregate usage, analyses, typed span attributes, timing, and parent relationships;
span IDs use lowercase hexadecimal text; JSON is stable and indented; YAML uses the same strict
schema with quoted scalar strings; both formats are explicitly versioned).

A report file, version 1, holds every field of :class:`~robota.evals.report.EvaluationReport`
and of what it contains, in the dataclasses' field order, defaults included::

    {
      "version": 1,
      "kind": "robota.evals.report",
      "name": "capitals", "dataset": "capitals", "repetitions": 1,
      "started_at": "2026-12-02T10:00:00Z", "duration": 1.25,
      "evaluators": ["ExactMatch"],
      "usage": {"input_tokens": 12, ..., "details": {}, "partial": false},
      "cases": [{"case_index": 0, "name": "france", ..., "results": [...], "spans": [...]}],
      "analyses": [...],
      "counts": {"cases": 1, "analyses": 0}
    }

``counts``, the last key, says how many cases and analyses the file holds: a file cut short
(a partial download; YAML has no closing bracket to miss) lacks it or disagrees with it, and is
refused. An analysis ``value`` is always written as a float (an ``int`` from a report
evaluator reads back as the same float).

JSON has no NaN or infinity: a non-finite number is written ``{"nonfinite": "nan"}`` (or
``"inf"``, ``"-inf"``), in YAML too. In the free values of a case (inputs, expected output,
metadata, output) a mapping whose only key is ``nonfinite`` or ``literal`` is written inside
``{"literal": ...}`` so it is not mistaken for one. ``True``, ``1`` and ``1.0`` stay a bool,
an int and a float; a tuple in a free value reads back as a list.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, TypeAdapter, ValidationError
from robota.core.usage import Usage
from robota.evals.errors import ReportFileError
from robota.evals.evaluators.base import EvaluationValue
from robota.evals.io._data import builtin_scalar, error_data, nonfinite_tag
from robota.evals.io._documents import (
    AnalysisDocument,
    CaseErrorDocument,
    CaseResultDocument,
    EvaluatorResultDocument,
    NonFinite,
    ReportDocument,
    SpanDocument,
    UsageDocument,
    describe_errors,
)
from robota.evals.io._files import (
    DocumentFormat,
    check_version,
    dump_document,
    format_of,
    read_document,
    write_text_atomic,
)
from robota.evals.report.model import (
    CaseError,
    CaseResult,
    EvaluationReport,
    EvaluatorResult,
    ReportAnalysis,
)
from robota.evals.spans import AttributeValue, SpanRecord

__all__ = ["REPORT_KIND", "REPORT_VERSION", "dump_report", "load_report", "save_report"]

REPORT_VERSION = 1
"""The report document version this library reads and writes."""
REPORT_KIND = "robota.evals.report"
"""The ``kind`` of a report document."""

_TAGS = ("nonfinite", "literal")
_AS_DATA = TypeAdapter[Any](Any, config=ConfigDict(ser_json_inf_nan="constants"))
"""Turns a pydantic model, dataclass, enum, date ... into JSON data (non-finite floats kept)."""
_TRACE_ID = re.compile(r"[0-9a-f]{32}\Z")
_SPAN_ID = re.compile(r"[0-9a-f]{16}\Z")


class _Unwritable(Exception):
    """A report value a file cannot hold (the message says which and why)."""


# --- writing ----------------------------------------------------------------------------------


def save_report(report: EvaluationReport, path: str | os.PathLike[str]) -> None:
    """Write ``report`` to ``path`` as a version-1 report file (JSON or YAML by suffix),
    atomically.

    The document is checked against the schema :func:`load_report` reads before anything is
    written, so a report that could not be read back (an evaluator name that is not a string,
    say) is never written.

    Raises:
        ReportFileError: an unknown suffix; a case value that is not JSON data (nor something
            pydantic can turn into it); a span id that is not lowercase hexadecimal of the
            OpenTelemetry length; any other field of a type the report schema refuses; text
            holding a lone surrogate (which UTF-8 cannot encode); an unwritable path.
    """
    file = Path(path)
    kind = format_of(file, ReportFileError)
    try:
        document = _checked(report)
    except _Unwritable as exc:
        raise ReportFileError(f"{file}: {exc}") from None
    write_text_atomic(file, dump_document(document, kind), ReportFileError)


def dump_report(report: EvaluationReport, format: DocumentFormat = "json") -> str:
    """The text :func:`save_report` writes for ``report`` (``"json"`` or ``"yaml"``).

    Raises:
        ReportFileError: a case value that is not JSON data, a malformed span id, or another
            field the report schema refuses (as :func:`save_report`).
    """
    try:
        document = _checked(report)
    except _Unwritable as exc:
        raise ReportFileError(str(exc)) from None
    return dump_document(document, format)


def _checked(report: EvaluationReport) -> dict[str, Any]:
    """``report``'s document, validated against the schema :func:`load_report` reads."""
    document = _report(report)
    try:
        ReportDocument.model_validate(document)
    except ValidationError as exc:
        raise _Unwritable(
            f"the report does not fit the report file schema: {describe_errors(exc)}"
        ) from None
    return document


def _report(report: EvaluationReport) -> dict[str, Any]:
    return {
        "version": REPORT_VERSION,
        "kind": REPORT_KIND,
        "name": report.name,
        "dataset": report.dataset,
        "repetitions": report.repetitions,
        "started_at": report.started_at,
        "duration": _number(report.duration),
        "evaluators": list(report.evaluators),
        "usage": _usage(report.usage),
        "cases": [_case(case, f"cases[{index}]") for index, case in enumerate(report.cases)],
        "analyses": [_analysis(analysis) for analysis in report.analyses],
        "counts": {"cases": len(report.cases), "analyses": len(report.analyses)},
    }


def _number(value: float) -> float | dict[str, str]:
    return value if math.isfinite(value) else nonfinite_tag(value)


def _value(value: EvaluationValue | None) -> Any:
    plain = builtin_scalar(value)
    return _number(plain) if isinstance(plain, float) else plain


def _usage(usage: Usage) -> dict[str, Any]:
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_read_tokens": usage.cache_read_tokens,
        "cache_write_tokens": usage.cache_write_tokens,
        "reasoning_tokens": usage.reasoning_tokens,
        "requests": usage.requests,
        "details": dict(usage.details),
        "partial": usage.partial,
    }


def _case(case: CaseResult, where: str) -> dict[str, Any]:
    return {
        "case_index": case.case_index,
        "name": case.name,
        "repetition": case.repetition,
        "inputs": _free(case.inputs, f"{where}.inputs"),
        "expected_output": _free(case.expected_output, f"{where}.expected_output"),
        "metadata": _free(dict(case.metadata), f"{where}.metadata"),
        "output": _free(case.output, f"{where}.output"),
        "error": error_data(case.error),
        "attempts": case.attempts,
        "duration": _number(case.duration),
        "usage": _usage(case.usage),
        "results": [
            {
                "name": result.name,
                "source": result.source,
                "value": _value(result.value),
                "reason": result.reason,
                "error": error_data(result.error),
                "attempts": result.attempts,
            }
            for result in case.results
        ],
        "spans": [_span(span, f"{where}.spans[{index}]") for index, span in enumerate(case.spans)],
    }


def _span(span: SpanRecord, where: str) -> dict[str, Any]:
    ids = (
        ("trace_id", span.trace_id, _TRACE_ID, 32),
        ("span_id", span.span_id, _SPAN_ID, 16),
        ("parent_span_id", span.parent_span_id, _SPAN_ID, 16),
    )
    for field, value, pattern, digits in ids:
        if value is not None and not pattern.match(value):
            raise _Unwritable(
                f"{where}.{field}: {value!r} is not {digits} lowercase hexadecimal digits"
            )
    return {
        "name": span.name,
        "trace_id": span.trace_id,
        "span_id": span.span_id,
        "parent_span_id": span.parent_span_id,
        "kind": span.kind,
        "start_time_ns": span.start_time_ns,
        "end_time_ns": span.end_time_ns,
        "status": span.status,
        "status_description": span.status_description,
        "attributes": {
            key: [_value(item) for item in value] if isinstance(value, tuple) else _value(value)
            for key, value in span.attributes.items()
        },
    }


def _analysis(analysis: ReportAnalysis) -> dict[str, Any]:
    return {
        "name": analysis.name,
        "assertion": analysis.assertion,
        "value": None if analysis.value is None else float(analysis.value),
        "unit": analysis.unit,
        "reason": analysis.reason,
        "error": error_data(analysis.error),
    }


def _free(value: Any, where: str, *, converted: bool = False) -> Any:
    """A case's free value as JSON data: non-finite floats tagged, tag-like mappings wrapped,
    tuples as lists, anything else through pydantic's JSON conversion."""
    if value is None or isinstance(value, bool | int | float | str):
        return _value(value)
    if isinstance(value, list | tuple):
        return [_free(item, f"{where}[{index}]") for index, item in enumerate(value)]
    if isinstance(value, Mapping):
        encoded: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise _Unwritable(f"{where}: key {key!r} is not a string")
            encoded[key] = _free(item, f"{where}.{key}")
        if len(encoded) == 1 and next(iter(encoded)) in _TAGS:
            return {"literal": encoded}
        return encoded
    if converted:
        raise _Unwritable(f"{where}: a {type(value).__name__} is not JSON data")
    try:
        plain = _AS_DATA.dump_python(value, mode="json")
    except ValueError:  # pydantic's PydanticSerializationError
        raise _Unwritable(f"{where}: a {type(value).__name__} is not JSON data") from None
    return _free(plain, where, converted=True)


# --- reading ----------------------------------------------------------------------------------


def load_report(path: str | os.PathLike[str]) -> EvaluationReport:
    """Read the report file at ``path`` (JSON or YAML by suffix).

    Returns:
        The report, equal to the one saved (a NaN score reads back as NaN, which never equals
        itself; a tuple in a case's free values reads back as a list).

    Raises:
        ReportFileError: an unreadable or over-limit file (see
            :func:`~robota.evals.io._files.read_document`), another ``kind`` of document, a
            missing or unsupported ``version`` (only the integer 1), an unknown or missing key,
            a value of the wrong type, a malformed ``nonfinite``/``literal`` tag, ``counts``
            that disagree with the cases and analyses read (a file cut short).
    """
    file = Path(path)
    data = read_document(file, ReportFileError)
    kind = data.get("kind")
    if kind != REPORT_KIND:
        raise ReportFileError(
            f"{file}: not a report file (kind {kind!r}; a report file has kind {REPORT_KIND!r})"
        )
    check_version(file, data.get("version"), "report", REPORT_VERSION, ReportFileError)
    try:
        document = ReportDocument.model_validate(data)
        _check_counts(document)
        return _from_report(document)
    except ValidationError as exc:
        raise ReportFileError(f"{file}: {describe_errors(exc)}") from None
    except _Malformed as exc:
        raise ReportFileError(f"{file}: {exc}") from None


class _Malformed(Exception):
    """A tag in a free value, or counts, that the writer would not have produced."""


def _check_counts(document: ReportDocument) -> None:
    found = {"cases": len(document.cases), "analyses": len(document.analyses)}
    said = {"cases": document.counts.cases, "analyses": document.counts.analyses}
    if found != said:
        raise _Malformed(
            f"counts says {said['cases']} cases and {said['analyses']} analyses but the file "
            f"holds {found['cases']} and {found['analyses']} (was it cut short?)"
        )


def _from_report(document: ReportDocument) -> EvaluationReport:
    return EvaluationReport(
        name=document.name,
        dataset=document.dataset,
        cases=tuple(
            _from_case(case, f"cases[{index}]") for index, case in enumerate(document.cases)
        ),
        analyses=tuple(_from_analysis(analysis) for analysis in document.analyses),
        repetitions=document.repetitions,
        usage=_from_usage(document.usage),
        started_at=document.started_at,
        duration=_from_number(document.duration),
        evaluators=tuple(document.evaluators),
    )


def _from_number(value: float | NonFinite) -> float:
    return float(value.nonfinite) if isinstance(value, NonFinite) else value


def _from_value(value: bool | int | float | str | NonFinite | None) -> EvaluationValue | None:
    return float(value.nonfinite) if isinstance(value, NonFinite) else value


def _from_usage(usage: UsageDocument) -> Usage:
    return Usage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cache_read_tokens,
        cache_write_tokens=usage.cache_write_tokens,
        reasoning_tokens=usage.reasoning_tokens,
        requests=usage.requests,
        details=dict(usage.details),
        partial=usage.partial,
    )


def _from_error(error: CaseErrorDocument | None) -> CaseError | None:
    if error is None:
        return None
    return CaseError(type=error.type, message=error.message, code=error.code)


def _from_case(case: CaseResultDocument, where: str) -> CaseResult:
    metadata = _from_free(case.metadata, f"{where}.metadata")
    if not isinstance(metadata, dict):
        raise _Malformed(f"{where}.metadata: not a mapping")
    return CaseResult(
        case_index=case.case_index,
        name=case.name,
        repetition=case.repetition,
        inputs=_from_free(case.inputs, f"{where}.inputs"),
        expected_output=_from_free(case.expected_output, f"{where}.expected_output"),
        metadata=metadata,
        output=_from_free(case.output, f"{where}.output"),
        error=_from_error(case.error),
        attempts=case.attempts,
        duration=_from_number(case.duration),
        usage=_from_usage(case.usage),
        results=tuple(_from_result(result) for result in case.results),
        spans=tuple(_from_span(span) for span in case.spans),
    )


def _from_result(result: EvaluatorResultDocument) -> EvaluatorResult:
    return EvaluatorResult(
        name=result.name,
        source=result.source,
        value=_from_value(result.value),
        reason=result.reason,
        error=_from_error(result.error),
        attempts=result.attempts,
    )


def _from_attribute(value: Any) -> AttributeValue:
    if isinstance(value, list):
        items: list[Any] = value
        return tuple(_from_number(item) if isinstance(item, NonFinite) else item for item in items)
    return _from_number(value) if isinstance(value, NonFinite) else value


def _from_span(span: SpanDocument) -> SpanRecord:
    return SpanRecord(
        name=span.name,
        trace_id=span.trace_id,
        span_id=span.span_id,
        parent_span_id=span.parent_span_id,
        kind=span.kind,
        start_time_ns=span.start_time_ns,
        end_time_ns=span.end_time_ns,
        status=span.status,
        status_description=span.status_description,
        attributes={key: _from_attribute(value) for key, value in span.attributes.items()},
    )


def _from_analysis(analysis: AnalysisDocument) -> ReportAnalysis:
    return ReportAnalysis(
        name=analysis.name,
        assertion=analysis.assertion,
        value=analysis.value,
        unit=analysis.unit,
        reason=analysis.reason,
        error=_from_error(analysis.error),
    )


def _from_free(value: Any, where: str) -> Any:
    if isinstance(value, list):
        return [_from_free(item, f"{where}[{index}]") for index, item in enumerate(value)]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        ((key, inner),) = value.items()
        if key == "nonfinite":
            if inner not in ("nan", "inf", "-inf"):
                raise _Malformed(f"{where}: nonfinite is {inner!r}, not 'nan', 'inf' or '-inf'")
            return float(inner)
        if key == "literal":
            if not isinstance(inner, dict):
                raise _Malformed(f"{where}: literal holds {inner!r}, not a mapping")
            return {k: _from_free(v, f"{where}.{k}") for k, v in inner.items()}
    return {k: _from_free(v, f"{where}.{k}") for k, v in value.items()}
