"""Bases of the built-in evaluators: a report name that is ``evaluation_name`` when given, else
the class name, so a dataset can use one built-in twice under two names."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Self

from robota.evals.evaluators.base import Evaluator, TraceEvaluator
from robota.evals.evaluators.report import ReportEvaluator

__all__ = ["NamedEvaluator", "NamedReportEvaluator", "NamedTraceEvaluator"]


def _check_name(kwargs: dict[str, Any]) -> None:
    """Refuse an ``evaluation_name`` keyword that is not a non-empty string (a report keys
    results by it, and a report file holds only string names).

    Raises:
        TypeError: it is neither None nor a string.
        ValueError: it is the empty string.
    """
    name = kwargs.get("evaluation_name")
    if name is None:
        return
    if not isinstance(name, str):
        raise TypeError(f"evaluation_name must be a string, not {type(name).__name__}")
    if not name:
        raise ValueError("evaluation_name must not be empty (leave it out for the class name)")


class _Named:
    """What the three bases share: the ``evaluation_name`` check and the ``name`` it gives.

    First among a base's parents, so its :attr:`name` is the one reports read. No instance
    state of its own (the dataclass bases declare ``evaluation_name``).
    """

    __slots__ = ()

    evaluation_name: str | None

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:
        """Check ``evaluation_name`` before the dataclass fields are set (whatever the
        subclass's ``__post_init__``).

        Raises:
            TypeError: ``evaluation_name`` is not a string (nor None).
            ValueError: ``evaluation_name`` is empty.
        """
        del args
        _check_name(kwargs)
        return object.__new__(cls)  # not super(): object's, whatever the MRO holds

    @property
    def name(self) -> str:
        """``evaluation_name``, or the class name."""
        return self.evaluation_name or type(self).__name__


@dataclass(frozen=True, slots=True)
class NamedEvaluator(_Named, Evaluator[Any, Any]):
    """Base of the built-in case evaluators.

    Attributes:
        evaluation_name: The name reports, comparisons and dataset files key this evaluator
            by: a non-empty string, or None for the class name. Keyword-only.

    Raises:
        TypeError: ``evaluation_name`` is not a string (nor None).
        ValueError: ``evaluation_name`` is empty.
    """

    evaluation_name: str | None = field(default=None, kw_only=True)


@dataclass(frozen=True, slots=True)
class NamedTraceEvaluator(_Named, TraceEvaluator[Any, Any]):
    """Base of the built-in trace evaluators (see :class:`NamedEvaluator`)."""

    evaluation_name: str | None = field(default=None, kw_only=True)


@dataclass(frozen=True, slots=True)
class NamedReportEvaluator(_Named, ReportEvaluator):
    """Base of the built-in report evaluators (see :class:`NamedEvaluator`)."""

    evaluation_name: str | None = field(default=None, kw_only=True)
