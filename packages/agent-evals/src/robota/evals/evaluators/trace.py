"""Built-in trace evaluators (seed 002, "Evaluations": span-based checks such as "no
``execute_tool`` span for ``shell``" and "fewer than 3 model calls").

They read the spans :class:`~robota.plugins.telemetry.OpenTelemetrySink` exports while the case
runs: ``invoke_agent <agent>``, ``chat <model>`` (attribute ``gen_ai.operation.name`` =
``"chat"``; named just ``chat`` when no model is known yet) and ``execute_tool <tool>``
(attribute ``gen_ai.tool.name``). Frozen dataclasses with JSON-compatible fields, each with the
keyword ``evaluation_name`` (its report name; default: the class name).

A span matches when every given condition holds: ``span_name`` (exact name), ``prefix`` (name
prefix) and ``attributes`` (exact values; lists in a dataset file match the tuples OpenTelemetry
keeps).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from robota.evals.evaluators._named import NamedTraceEvaluator
from robota.evals.evaluators._values import brief, cut, to_tuples
from robota.evals.evaluators.base import EvaluationReason, EvaluatorContext
from robota.evals.spans import SpanRecord, SpanTree

__all__ = [
    "MaxModelCalls",
    "SpanAbsent",
    "SpanCount",
    "SpanPresent",
    "ToolSpanAbsent",
]

OPERATION_NAME = "gen_ai.operation.name"
"""The OpenTelemetry GenAI attribute naming a span's operation (``chat``, ``execute_tool``...)."""
TOOL_NAME = "gen_ai.tool.name"
"""The OpenTelemetry GenAI attribute naming the tool of an ``execute_tool`` span."""

_SHOWN = 5
"""Matching spans a reason names before ``...``."""


_NAME_LIMIT = 100
"""Characters of one span name a reason shows (the model names its tools, so a span name
``execute_tool <name>`` can be as long as the model likes)."""


def _names(spans: tuple[SpanRecord, ...]) -> str:
    shown = [
        repr(cut(s.name, _NAME_LIMIT)) + (" (ERROR)" if s.status == "ERROR" else "")
        for s in spans[:_SHOWN]
    ]
    return ", ".join(shown) + (", ..." if len(spans) > _SHOWN else "")


def _spans(count: int) -> str:
    return "1 span" if count == 1 else f"{count} spans"


def _require_condition(owner: str, *conditions: object) -> None:
    if all(c is None for c in conditions):
        raise ValueError(f"{owner} needs a condition: span_name, prefix or attributes")


@dataclass(frozen=True, slots=True)
class _SpanConditions(NamedTraceEvaluator):
    """The span conditions :class:`SpanPresent`, :class:`SpanAbsent` and :class:`SpanCount`
    share, in this field order (the first positional): ``span_name``, ``prefix``,
    ``attributes`` (see the module docstring)."""

    span_name: str | None = None
    prefix: str | None = None
    attributes: dict[str, Any] | None = None

    def _matching(self, spans: SpanTree) -> tuple[SpanRecord, ...]:
        """The spans of ``spans`` that meet every given condition."""
        attributes = self.attributes
        wanted = None if attributes is None else {k: to_tuples(v) for k, v in attributes.items()}
        return spans.find(self.span_name, prefix=self.prefix, attributes=wanted)

    def _conditions(self) -> str:
        """The given conditions in words, e.g. ``named 'chat '...``; ``(any)`` for none."""
        parts: list[str] = []
        if self.span_name is not None:
            parts.append(f"named {self.span_name!r}")
        if self.prefix is not None:
            parts.append(f"named {self.prefix!r}...")
        if self.attributes is not None:
            parts.append(f"with attributes {brief(self.attributes)}")
        return " ".join(parts) if parts else "(any)"


@dataclass(frozen=True, slots=True)
class SpanPresent(_SpanConditions):
    """At least one span matches.

    Attributes:
        span_name: Exact span name, e.g. ``"execute_tool search"`` (None: any).
        prefix: Span name prefix, e.g. ``"chat "`` (None: any).
        attributes: Attributes with exact values, e.g. ``{"gen_ai.tool.name": "search"}``.

    Raises:
        ValueError: no condition at all.

    Example:
        >>> import anyio
        >>> from robota.evals import Case, EvaluatorContext, SpanRecord, SpanTree
        >>> from robota.evals.evaluators.base import run_evaluator
        >>> ctx = EvaluatorContext(case=Case(name="t", inputs="?"), case_index=0, repetition=0,
        ...     output="ok", duration=0.1)
        >>> spans = SpanTree((SpanRecord(name="chat gpt-5", trace_id="0" * 32, span_id="1" * 16),))
        >>> anyio.run(run_evaluator, SpanPresent("execute_tool search"), ctx, spans).reason
        "no span named 'execute_tool search' among 1 span"
    """

    def __post_init__(self) -> None:
        _require_condition("SpanPresent", self.span_name, self.prefix, self.attributes)

    def evaluate(self, ctx: EvaluatorContext[Any, Any], spans: SpanTree) -> EvaluationReason:
        """Look for a matching span."""
        found, what = self._matching(spans), self._conditions()
        if found:
            return EvaluationReason(value=True, reason=f"{_spans(len(found))} {what}")
        return EvaluationReason(value=False, reason=f"no span {what} among {_spans(len(spans))}")


@dataclass(frozen=True, slots=True)
class SpanAbsent(_SpanConditions):
    """No span matches (e.g. ``SpanAbsent("execute_tool shell")``: the agent never ran the
    ``shell`` tool).

    Attributes:
        span_name: Exact span name (None: any).
        prefix: Span name prefix (None: any).
        attributes: Attributes with exact values.

    Raises:
        ValueError: no condition at all.

    Example:
        >>> import anyio
        >>> from robota.evals import Case, EvaluatorContext, SpanRecord, SpanTree
        >>> from robota.evals.evaluators.base import run_evaluator
        >>> ctx = EvaluatorContext(case=Case(name="t", inputs="?"), case_index=0, repetition=0,
        ...     output="ok", duration=0.1)
        >>> shell = SpanRecord(name="execute_tool shell", trace_id="0" * 32, span_id="1" * 16)
        >>> anyio.run(run_evaluator, SpanAbsent("execute_tool shell"), ctx, SpanTree((shell,)))
        EvaluationReason(value=False, reason="1 span named 'execute_tool shell': 'execute_tool shell'")
    """

    def __post_init__(self) -> None:
        _require_condition("SpanAbsent", self.span_name, self.prefix, self.attributes)

    def evaluate(self, ctx: EvaluatorContext[Any, Any], spans: SpanTree) -> EvaluationReason:
        """Look for a matching span."""
        found, what = self._matching(spans), self._conditions()
        if not found:
            return EvaluationReason(value=True, reason=f"no span {what}")
        return EvaluationReason(value=False, reason=f"{_spans(len(found))} {what}: {_names(found)}")


@dataclass(frozen=True, slots=True)
class SpanCount(_SpanConditions):
    """The number of matching spans is within ``[min, max]`` (e.g. ``SpanCount(prefix="chat
    ", max=2)``: fewer than 3 model calls). No condition counts every span.

    Attributes:
        span_name: Exact span name (None: any).
        prefix: Span name prefix (None: any).
        attributes: Attributes with exact values.
        min: Fewest matching spans (None: no floor).
        max: Most matching spans (None: no ceiling).

    Raises:
        ValueError: neither ``min`` nor ``max``, a negative one, or ``min`` above ``max``.

    Example:
        >>> import anyio
        >>> from robota.evals import Case, EvaluatorContext, SpanRecord, SpanTree
        >>> from robota.evals.evaluators.base import run_evaluator
        >>> ctx = EvaluatorContext(case=Case(name="t", inputs="?"), case_index=0, repetition=0,
        ...     output="ok", duration=0.1)
        >>> chats = SpanTree(tuple(
        ...     SpanRecord(name="chat gpt-5", trace_id="0" * 32, span_id=f"{i:016x}") for i in range(3)))
        >>> anyio.run(run_evaluator, SpanCount(prefix="chat ", max=2), ctx, chats).reason
        "3 spans named 'chat '..., expected at most 2"
    """

    min: int | None = None
    max: int | None = None

    def __post_init__(self) -> None:
        if self.min is None and self.max is None:
            raise ValueError("SpanCount needs a bound: min, max or both")
        for label, bound in (("min", self.min), ("max", self.max)):
            if bound is not None and bound < 0:
                raise ValueError(f"SpanCount: {label} must be 0 or more, not {bound}")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"SpanCount: min {self.min} is above max {self.max}")

    def evaluate(self, ctx: EvaluatorContext[Any, Any], spans: SpanTree) -> EvaluationReason:
        """Count the matching spans."""
        count = len(self._matching(spans))
        what = f"{_spans(count)} {self._conditions()}"
        if self.min is not None and count < self.min:
            return EvaluationReason(value=False, reason=f"{what}, expected at least {self.min}")
        if self.max is not None and count > self.max:
            return EvaluationReason(value=False, reason=f"{what}, expected at most {self.max}")
        return EvaluationReason(value=True, reason=what)


@dataclass(frozen=True, slots=True)
class ToolSpanAbsent(NamedTraceEvaluator):
    """No ``execute_tool`` span ran tool ``tool`` (attribute ``gen_ai.tool.name``; a skipped
    call — unknown tool, invalid arguments — counts too, as the sink exports it as a span).

    Attributes:
        tool: The tool name.

    Example:
        >>> import anyio
        >>> from robota.evals import Case, EvaluatorContext, SpanTree
        >>> from robota.evals.evaluators.base import run_evaluator
        >>> ctx = EvaluatorContext(case=Case(name="t", inputs="?"), case_index=0, repetition=0,
        ...     output="ok", duration=0.1)
        >>> anyio.run(run_evaluator, ToolSpanAbsent("shell"), ctx, SpanTree()).value
        True
    """

    tool: str

    def evaluate(self, ctx: EvaluatorContext[Any, Any], spans: SpanTree) -> EvaluationReason:
        """Look for a span of :attr:`tool`."""
        found = spans.find(attributes={TOOL_NAME: self.tool})
        if not found:
            return EvaluationReason(value=True, reason=f"no span ran tool {self.tool!r}")
        return EvaluationReason(
            value=False, reason=f"{_spans(len(found))} ran tool {self.tool!r}: {_names(found)}"
        )


@dataclass(frozen=True, slots=True)
class MaxModelCalls(NamedTraceEvaluator):
    """At most ``max`` model calls: spans whose ``gen_ai.operation.name`` is ``"chat"`` (one per
    provider request, whatever the model).

    Attributes:
        max: Most model calls.

    Raises:
        ValueError: a negative ``max``.

    Example:
        >>> import anyio
        >>> from robota.evals import Case, EvaluatorContext, SpanRecord, SpanTree
        >>> from robota.evals.evaluators.base import run_evaluator
        >>> ctx = EvaluatorContext(case=Case(name="t", inputs="?"), case_index=0, repetition=0,
        ...     output="ok", duration=0.1)
        >>> chat = SpanRecord(name="chat", trace_id="0" * 32, span_id="1" * 16,
        ...     attributes={"gen_ai.operation.name": "chat"})
        >>> anyio.run(run_evaluator, MaxModelCalls(2), ctx, SpanTree((chat,))).reason
        '1 model call <= 2'
    """

    max: int

    def __post_init__(self) -> None:
        if self.max < 0:
            raise ValueError(f"MaxModelCalls: max must be 0 or more, not {self.max}")

    def evaluate(self, ctx: EvaluatorContext[Any, Any], spans: SpanTree) -> EvaluationReason:
        """Count the ``chat`` spans."""
        count = spans.count(attributes={OPERATION_NAME: "chat"})
        within = count <= self.max
        calls = "1 model call" if count == 1 else f"{count} model calls"
        return EvaluationReason(
            value=within, reason=f"{calls} {'<=' if within else '>'} {self.max}"
        )
