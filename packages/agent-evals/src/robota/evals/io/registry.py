"""The application-owned evaluator registry dataset files are resolved against (seed 002,
"Evaluations": dataset documents are data-only and hold evaluator *names*; loading resolves
each name against an application-owned registry and fails on missing or ambiguous entries).

A registry maps names to **factories**: an evaluator class (a frozen dataclass, like the
built-ins) or any callable that returns an evaluator. A dataset file writes an evaluator as
one of::

    ExactMatch                      # the factory called with no arguments
    {Contains: {value: Paris}}      # called with keyword arguments
    {PassRateAtLeast: 0.9}          # called with one positional argument (a list is one too)
    {ValidJson: null}               # no arguments

There is no process-wide registry: an application builds one (with the built-ins unless
``builtins=False``) and passes it to :func:`~robota.evals.io.datasets.load_dataset`.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from typing import Any, Literal, TypeAlias

from robota.evals.errors import (
    AmbiguousEvaluatorError,
    DatasetFileError,
    EvaluatorNotFoundError,
)
from robota.evals.evaluators import builtin, reports, trace
from robota.evals.evaluators.base import Evaluator, TraceEvaluator
from robota.evals.evaluators.report import ReportEvaluator

__all__ = [
    "AnyEvaluator",
    "EvaluatorFactory",
    "EvaluatorKind",
    "EvaluatorRegistry",
    "builtin_evaluators",
    "kind_of",
]

AnyEvaluator: TypeAlias = "Evaluator[Any, Any] | TraceEvaluator[Any, Any] | ReportEvaluator"
"""An ordinary, trace or report evaluator."""
EvaluatorFactory: TypeAlias = "Callable[..., AnyEvaluator]"
"""An evaluator class, or a callable returning an evaluator."""
EvaluatorKind: TypeAlias = Literal["case", "trace", "report"]
"""Which list of a dataset an evaluator belongs to: ``evaluators`` (``"case"``),
``trace_evaluators`` or ``report_evaluators``."""

_KIND_WORDS: dict[EvaluatorKind, str] = {
    "case": "an ordinary evaluator",
    "trace": "a trace evaluator",
    "report": "a report evaluator",
}
_KIND_LISTS: dict[EvaluatorKind, str] = {
    "case": "evaluators (ordinary ones)",
    "trace": "trace_evaluators",
    "report": "report_evaluators",
}


_PYDANTIC_EVALS_HINTS: dict[str, str] = {
    "EqualsExpected": "is ExactMatch here",
    "IsInstance": (
        "is MatchesType here (it holds a Python type, so it is not a dataset-file name: add it "
        "to the Dataset in code, or register a factory that builds it)"
    ),
    "LLMJudge": (
        "is ModelGrader here (it holds the judging Agent, so it is not a dataset-file name: "
        "register a factory that builds it)"
    ),
    "HasMatchingSpan": "is SpanPresent here (a trace evaluator: list it under trace_evaluators)",
}
"""pydantic-evals evaluator names with a differently named counterpart here, for the
not-found message (hints only: the names are not aliases). ``Contains`` and ``Equals`` have the
same names."""


def kind_of(check: object) -> EvaluatorKind | None:
    """Which kind of evaluator ``check`` is (None: not an evaluator)."""
    if isinstance(check, Evaluator):
        return "case"
    if isinstance(check, TraceEvaluator):
        return "trace"
    if isinstance(check, ReportEvaluator):
        return "report"
    return None


def builtin_evaluators() -> tuple[EvaluatorFactory, ...]:
    """The built-in evaluator classes a registry holds by default, registered under their
    class names (:class:`~robota.evals.evaluators.builtin.MatchesType` is not one: a Python type
    is not file data)."""
    return (
        builtin.ExactMatch,
        builtin.Equals,
        builtin.Contains,
        builtin.ValidJson,
        builtin.MatchesSchema,
        builtin.ToolCalled,
        builtin.ToolNotCalled,
        builtin.MaxTokens,
        builtin.MaxDuration,
        builtin.MaxCost,
        trace.SpanAbsent,
        trace.SpanPresent,
        trace.SpanCount,
        trace.ToolSpanAbsent,
        trace.MaxModelCalls,
        reports.PassRateAtLeast,
        reports.ScoreMeanAtLeast,
        reports.MaxTotalTokens,
        reports.CaseCount,
    )


class EvaluatorRegistry:
    """Evaluator factories by name, for building the evaluators a dataset file names.

    Args:
        entries: Factories to register under their ``__name__`` (a class's name).
        builtins: Also register the built-in evaluators (:func:`builtin_evaluators`).

    Two factories may share a name (a user class called ``Contains`` beside the built-in);
    looking that name up then raises :class:`~robota.evals.errors.AmbiguousEvaluatorError`
    until one is registered under another name, or the built-ins are left out.

    Example:
        >>> from dataclasses import dataclass
        >>> from robota.evals import Evaluator
        >>> @dataclass(frozen=True)
        ... class Short(Evaluator):
        ...     limit: int = 200
        ...     def evaluate(self, ctx):
        ...         return len(str(ctx.output)) <= self.limit
        >>> registry = EvaluatorRegistry([Short], builtins=False)
        >>> registry.build({"Short": {"limit": 80}}, "case")
        Short(limit=80)
    """

    def __init__(self, entries: Iterable[EvaluatorFactory] = (), *, builtins: bool = True) -> None:
        self._factories: dict[str, list[EvaluatorFactory]] = {}
        if builtins:
            for factory in builtin_evaluators():
                self.register(factory)
        for factory in entries:
            self.register(factory)

    def register(self, factory: EvaluatorFactory, name: str | None = None) -> EvaluatorFactory:
        """Add ``factory`` under ``name`` (default: its ``__name__``); registering the same
        factory under the same name again changes nothing.

        Returns:
            ``factory`` (so this works as a decorator).

        Raises:
            ValueError: no name given and ``factory`` has no usable ``__name__`` (a lambda).
        """
        key = name if name is not None else getattr(factory, "__name__", "")
        if not key or key == "<lambda>":
            raise ValueError(f"register {factory!r} with a name: it has no usable __name__")
        bucket = self._factories.setdefault(key, [])
        if not any(existing is factory for existing in bucket):
            bucket.append(factory)
        return factory

    def names(self) -> tuple[str, ...]:
        """Every registered name, sorted."""
        return tuple(sorted(self._factories))

    def __contains__(self, name: object) -> bool:
        return name in self._factories

    def resolve(self, name: str, *, where: str = "") -> EvaluatorFactory:
        """The one factory registered as ``name``.

        Args:
            name: The evaluator's name in the file.
            where: Where the name was read (a file and position), for messages.

        Raises:
            EvaluatorNotFoundError: nothing is registered as ``name`` (the message lists
                close names, or, for a pydantic-evals name such as ``EqualsExpected``, the
                counterpart here).
            AmbiguousEvaluatorError: more than one factory is.
        """
        prefix = f"{where}: " if where else ""
        found = self._factories.get(name, [])
        if not found:
            close = difflib.get_close_matches(name, list(self._factories), n=3, cutoff=0.6)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            if name in _PYDANTIC_EVALS_HINTS:
                hint = f"; pydantic-evals' {name} {_PYDANTIC_EVALS_HINTS[name]}"
            raise EvaluatorNotFoundError(
                f"{prefix}no evaluator named {name!r} is registered{hint} (register the class "
                "or a factory with EvaluatorRegistry.register)"
            )
        if len(found) > 1:
            origins = ", ".join(_origin(factory) for factory in found)
            raise AmbiguousEvaluatorError(
                f"{prefix}{len(found)} evaluators are registered as {name!r} ({origins}); "
                "register one of them under another name"
            )
        return found[0]

    def build(self, spec: Any, kind: EvaluatorKind, *, where: str = "") -> AnyEvaluator:
        """The evaluator ``spec`` describes.

        Args:
            spec: ``"Name"``, ``{"Name": {keyword: value}}``, ``{"Name": value}`` (one
                positional argument) or ``{"Name": None}``.
            kind: The kind the evaluator must be.
            where: Where the spec was read (a file and position), for messages.

        Raises:
            DatasetFileError: a spec of another shape, a factory that refuses the arguments
                (its ``TypeError``/``ValueError``, e.g. an ``evaluation_name`` that is not a
                non-empty string), an evaluator of another kind, or one whose ``name`` is not
                a non-empty string.
            EvaluatorNotFoundError: an unknown name.
            AmbiguousEvaluatorError: a name registered more than once.
        """
        prefix = f"{where}: " if where else ""
        name, arguments = _parse_spec(spec, prefix)
        factory = self.resolve(name, where=where)
        try:
            if arguments is None:
                built = factory()
            elif isinstance(arguments, dict):
                built = factory(**arguments)
            else:
                built = factory(arguments)
        except (TypeError, ValueError) as exc:
            raise DatasetFileError(
                f"{prefix}evaluator {name!r} cannot be built from {arguments!r}: {exc}"
            ) from exc
        found = kind_of(built)
        if found != kind:
            what = _KIND_WORDS[found] if found is not None else f"a {type(built).__name__}"
            raise DatasetFileError(
                f"{prefix}{name!r} builds {what}, which does not belong in {_KIND_LISTS[kind]}"
            )
        report_name: object = built.name
        if not isinstance(report_name, str) or not report_name:
            raise DatasetFileError(
                f"{prefix}{name!r} builds an evaluator named {report_name!r}; a report keys "
                "results by name, which must be a non-empty string"
            )
        return built


def _parse_spec(spec: Any, prefix: str) -> tuple[str, Any]:
    if isinstance(spec, str) and spec:
        return spec, None
    if isinstance(spec, dict) and len(spec) == 1:
        ((name, arguments),) = spec.items()
        if isinstance(name, str) and name:
            return name, arguments
    raise DatasetFileError(
        f"{prefix}an evaluator is written as a name or a one-key mapping "
        f"{{Name: arguments}}, found {spec!r}"
    )


def _origin(factory: EvaluatorFactory) -> str:
    module = getattr(factory, "__module__", None) or "?"
    qualname = getattr(factory, "__qualname__", None) or repr(factory)
    return f"{module}.{qualname}"
