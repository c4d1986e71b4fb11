"""The pieces :func:`~robota.evals.report.render_report` builds its plain text from, public so
that another view of a report (``robota eval``'s tables and comparison, a CI summary) writes
values, rows and ``key=value`` lines exactly as the report text does.

The rules (see :mod:`robota.evals.report.render`): cells are separated by a tab and a cell
never holds a tab or a line break (white space runs fold to one space); an empty cell or no
value is ``-``; assertions are ``true``/``false``; numbers are written by ``%g`` (``nan``,
``inf`` and ``-inf`` for the non-finite ones).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from robota.evals.evaluators.base import EvaluationValue
from robota.evals.report.model import CaseResult, EvaluationReport

__all__ = [
    "evaluator_columns",
    "field_line",
    "format_number",
    "plain_value",
    "report_failures",
    "short_type_name",
    "single_line",
    "table_row",
]


def evaluator_columns(report: EvaluationReport) -> list[str]:
    """The evaluator names of ``report``'s results, each once, in the order they first appear
    (case by case, result by result): the evaluator columns of the report's case table.

    Example:
        >>> from robota.evals import CaseResult, EvaluationReport, EvaluatorResult
        >>> hit = EvaluatorResult(name="ExactMatch", value=True)
        >>> score = EvaluatorResult(name="Score", value=0.5)
        >>> report = EvaluationReport(name="r", dataset="d", cases=(
        ...     CaseResult(case_index=0, name="a", results=(hit,)),
        ...     CaseResult(case_index=1, name="b", results=(score, hit))))
        >>> evaluator_columns(report)
        ['ExactMatch', 'Score']
    """
    names: list[str] = []
    for case in report.cases:
        for result in case.results:
            if result.name not in names:
                names.append(result.name)
    return names


def report_failures(report: EvaluationReport) -> list[tuple[CaseResult, str, str]]:
    """Every failure in ``report``, in report order, as ``(case, evaluator, reason)``.

    A case repetition whose task raised gives ``(case, "(task)", "Type: message")``; then, for
    each of its results, an evaluator that raised gives ``(case, name, "Type: message")`` and
    an assertion that is false gives ``(case, name, reason)`` (``"assertion failed"`` when the
    result has no reason). ``Type`` is the exception class's short name
    (:func:`short_type_name`). Report analyses are not included.

    Example:
        >>> from robota.evals import CaseError, CaseResult, EvaluationReport, EvaluatorResult
        >>> boom = CaseError(type="builtins.ValueError", message="no output")
        >>> report = EvaluationReport(name="r", dataset="d", cases=(
        ...     CaseResult(case_index=0, name="a", error=boom),
        ...     CaseResult(case_index=1, name="b",
        ...                results=(EvaluatorResult(name="Same", value=False),))))
        >>> [(case.name, evaluator, reason) for case, evaluator, reason in report_failures(report)]
        [('a', '(task)', 'ValueError: no output'), ('b', 'Same', 'assertion failed')]
    """
    found: list[tuple[CaseResult, str, str]] = []
    for case in report.cases:
        if case.error is not None:
            why = f"{short_type_name(case.error.type)}: {case.error.message}"
            found.append((case, "(task)", why))
        for result in case.results:
            if result.error is not None:
                why = f"{short_type_name(result.error.type)}: {result.error.message}"
                found.append((case, result.name, why))
            elif result.passed is False:
                found.append((case, result.name, result.reason or "assertion failed"))
    return found


def short_type_name(qualified: str) -> str:
    """The last dotted part of a qualified class name (a :class:`~robota.evals.CaseError`'s
    ``type``): what a report shows before an error's message.

    Example:
        >>> short_type_name("robota.core.errors.ProviderError"), short_type_name("ValueError")
        ('ProviderError', 'ValueError')
    """
    return qualified.rpartition(".")[2]


def format_number(value: float) -> str:
    """``value`` as a report writes a number: ``%g`` (six significant digits), and ``nan``,
    ``inf`` or ``-inf`` when it is not finite.

    Example:
        >>> [format_number(v) for v in (0.5, 3, 12345678, float("-inf"))]
        ['0.5', '3', '1.23457e+07', '-inf']
    """
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return f"{value:g}"


def single_line(text: str) -> str:
    """``text`` on one line: each run of white space (tabs and line breaks too) becomes one
    space, and leading and trailing white space goes (so blank text becomes ``""``).

    Example:
        >>> single_line("  'Lyon'\\t!=\\n 'Paris' ")
        "'Lyon' != 'Paris'"
    """
    return " ".join(text.split())


def plain_value(value: EvaluationValue | None) -> str:
    """An evaluator's value as one plain-text cell: ``-`` for none, ``true``/``false`` for an
    assertion, :func:`format_number` for a score, else the label on one line
    (:func:`single_line`; ``-`` when blank).

    Example:
        >>> [plain_value(v) for v in (None, True, 0.25, float("nan"), "very\\ngood", " ")]
        ['-', 'true', '0.25', 'nan', 'very good', '-']
    """
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return format_number(value)
    return single_line(value) or "-"


def table_row(cells: Iterable[str]) -> str:
    """One row of a report's plain-text table: the cells, each on one line (:func:`single_line`,
    ``-`` when blank), separated by a tab; no line break at the end.

    Example:
        >>> table_row(["france", "0", "", "'Lyon'\\t!= 'Paris'"])
        "france\\t0\\t-\\t'Lyon' != 'Paris'"
    """
    return "\t".join(single_line(cell) or "-" for cell in cells)


def field_line(name: str, pairs: Sequence[tuple[str, object]]) -> str:
    """A ``key=value`` line such as the report's last (``summary``) line: ``name`` then one
    ``key=value`` per pair (the value as ``str()`` writes it, not made single-line), separated by
    a tab; no line break at the end.

    Example:
        >>> field_line("summary", [("pass_rate", format_number(0.5)), ("passed", 1)])
        'summary\\tpass_rate=0.5\\tpassed=1'
    """
    return "\t".join([name, *(f"{key}={value}" for key, value in pairs)])
