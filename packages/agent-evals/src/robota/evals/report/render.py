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
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from robota.evals.evaluators.base import EvaluationValue
from robota.evals.report.model import CaseResult, EvaluationReport, EvaluatorResult

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
    names = _columns(report)
    rows = [_row(["case", "repetition", "status", *names, "duration_s", "total_tokens"])]
    for case in report.cases:
        status = "error" if case.error is not None else ("pass" if case.passed else "fail")
        rows.append(
            _row(
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
    failures = _failures(report)
    if failures:
        lines = [_row(["failed_case", "repetition", "evaluator", "reason"])]
        lines += [
            _row([case.name, str(case.repetition), evaluator, why])
            for case, evaluator, why in failures
        ]
        sections.append("\n".join(lines))
    if report.analyses:
        lines = [_row(["analysis", "assertion", "value", "unit", "reason"])]
        for analysis in report.analyses:
            if analysis.error is not None:
                assertion = "error"
                reason = f"{_short_type(analysis.error.type)}: {analysis.error.message}"
            else:
                assertion = _plain_value(analysis.assertion)
                reason = analysis.reason or "-"
            value = "-" if analysis.value is None else _number(analysis.value)
            lines.append(_row([analysis.name, assertion, value, analysis.unit or "-", reason]))
        sections.append("\n".join(lines))
    stats = report.score_stats()
    if stats:
        lines = [_row(["score", "count", "mean", "min", "max", "stdev", "excluded"])]
        for stat in stats.values():
            numbers = (stat.mean, stat.minimum, stat.maximum, stat.stdev)
            lines.append(
                _row(
                    [
                        stat.name,
                        str(stat.count),
                        *("-" if v is None else _number(v) for v in numbers),
                        str(stat.excluded),
                    ]
                )
            )
        sections.append("\n".join(lines))
    passed = sum(case.passed for case in report.cases)
    usage = report.usage
    sections.append(
        _fields(
            "summary",
            [
                ("pass_rate", _number(report.pass_rate())),
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


def _columns(report: EvaluationReport) -> list[str]:
    names: list[str] = []
    for case in report.cases:
        for result in case.results:
            if result.name not in names:
                names.append(result.name)
    return names


def _failures(report: EvaluationReport) -> list[tuple[CaseResult, str, str]]:
    """(case, evaluator or ``"(task)"``, reason) for each failed task, false assertion and
    failed evaluator, in report order."""
    found: list[tuple[CaseResult, str, str]] = []
    for case in report.cases:
        if case.error is not None:
            found.append((case, "(task)", f"{_short_type(case.error.type)}: {case.error.message}"))
        for result in case.results:
            if result.error is not None:
                why = f"{_short_type(result.error.type)}: {result.error.message}"
                found.append((case, result.name, why))
            elif result.passed is False:
                found.append((case, result.name, result.reason or "assertion failed"))
    return found


def _short_type(qualified: str) -> str:
    return qualified.rpartition(".")[2]


def _number(value: float) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return f"{value:g}"


def _flat(text: str) -> str:
    return " ".join(text.split())


def _plain_value(value: EvaluationValue | None) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return _number(value)
    return _flat(value) or "-"


def _plain_result(result: EvaluatorResult | None) -> str:
    if result is None:
        return "-"
    if result.error is not None:
        return "error"
    return _plain_value(result.value)


def _row(cells: Iterable[str]) -> str:
    return "\t".join(_flat(cell) or "-" for cell in cells)


def _fields(name: str, pairs: Sequence[tuple[str, object]]) -> str:
    return "\t".join([name, *(f"{key}={value}" for key, value in pairs)])
