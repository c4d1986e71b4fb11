"""Report evaluators (seed 002, "Evaluations"): checks over the whole finished run — a pass-rate
floor, a cost ceiling, a score mean — that run once after every case is joined and see only an
immutable :class:`~robota.evals.report.ReportView`."""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Awaitable
from dataclasses import replace
from typing import TypeAlias

from robota.evals.report.model import ReportAnalysis, ReportView

__all__ = ["ReportEvaluator", "ReportEvaluatorReturn", "run_report_evaluator"]

ReportEvaluatorReturn: TypeAlias = ReportAnalysis | bool | int | float
"""An analysis, or a bare assertion (bool) or value (number) to wrap in one."""


class ReportEvaluator(ABC):
    """A check of the whole run; :attr:`name` (default: the class name) keys the analysis."""

    @property
    def name(self) -> str:
        """The evaluator's name in reports (default: the class name)."""
        return type(self).__name__

    @abstractmethod
    def evaluate(
        self, view: ReportView
    ) -> ReportEvaluatorReturn | Awaitable[ReportEvaluatorReturn]:
        """The analysis of ``view`` (sync or async).

        Raises:
            Exception: recorded as the analysis's error.
        """


async def run_report_evaluator(check: ReportEvaluator, view: ReportView) -> ReportAnalysis:
    """Run one report evaluator and normalise its answer into an analysis named after it (an
    analysis returned under another name is renamed, its other fields kept).

    Raises:
        TypeError: an answer that is not an analysis, a bool or a number.
        ValueError: a non-finite value (seed 002: non-finite report-analysis values are
            rejected).
        Exception: whatever the evaluator raised.
    """
    produced = check.evaluate(view)
    if inspect.isawaitable(produced):
        produced = await produced
    if isinstance(produced, ReportAnalysis):
        if produced.name != check.name:  # renamed, every other field (error included) kept
            produced = replace(produced, name=check.name)
        return produced
    if isinstance(produced, bool):
        return ReportAnalysis(name=check.name, assertion=produced)
    if isinstance(produced, int | float):
        return ReportAnalysis(name=check.name, value=float(produced))
    raise TypeError(
        f"report evaluator {check.name!r} returned {type(produced).__name__}; expected a "
        "ReportAnalysis, a bool or a number"
    )
