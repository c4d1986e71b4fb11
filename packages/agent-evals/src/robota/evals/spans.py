"""The spans of one case's run, copied out of OpenTelemetry when they ended (seed 002,
"Evaluations": span-based evaluation reads the same telemetry shape as production, no second
trace model).

A :class:`SpanRecord` is an owned, immutable copy of a finished span: names, ids as lowercase
hexadecimal text, times in nanoseconds since the epoch, status, and attributes with sequence
values as tuples. :class:`SpanTree` holds a case's spans in end order and answers the questions
trace evaluators ask ("any ``execute_tool shell`` span?", "how many ``chat`` spans?").
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["AttributeValue", "SpanRecord", "SpanTree"]

AttributeValue = (
    str
    | bool
    | int
    | float
    | tuple[str, ...]
    | tuple[bool, ...]
    | tuple[int, ...]
    | tuple[float, ...]
)
"""An OpenTelemetry attribute value, with sequences as tuples."""


@dataclass(frozen=True, kw_only=True, slots=True)
class SpanRecord:
    """One finished span.

    Attributes:
        name: The span name, e.g. ``"invoke_agent assistant"``, ``"chat gpt-5"``,
            ``"execute_tool shell"`` (see :mod:`robota.plugins.telemetry`).
        trace_id: 32 lowercase hexadecimal digits.
        span_id: 16 lowercase hexadecimal digits.
        parent_span_id: The parent's span id, or None for a root span.
        kind: ``"INTERNAL"``, ``"CLIENT"``, ``"SERVER"``, ``"PRODUCER"`` or ``"CONSUMER"``.
        start_time_ns: Start, nanoseconds since the Unix epoch.
        end_time_ns: End, nanoseconds since the Unix epoch.
        status: ``"UNSET"``, ``"OK"`` or ``"ERROR"``.
        status_description: The status description (set with ``ERROR``), or None.
        attributes: The span's attributes.
    """

    name: str
    trace_id: str
    span_id: str
    parent_span_id: str | None = None
    kind: str = "INTERNAL"
    start_time_ns: int = 0
    end_time_ns: int = 0
    status: Literal["UNSET", "OK", "ERROR"] = "UNSET"
    status_description: str | None = None
    attributes: Mapping[str, AttributeValue] = field(default_factory=lambda: {})

    @property
    def duration(self) -> float:
        """Seconds between start and end."""
        return max(0, self.end_time_ns - self.start_time_ns) / 1e9


@dataclass(frozen=True, slots=True)
class SpanTree:
    """A case's spans, in the order they ended, with parent/child navigation.

    Attributes:
        spans: The records.
    """

    spans: tuple[SpanRecord, ...] = ()

    def __len__(self) -> int:
        return len(self.spans)

    def __iter__(self) -> Iterator[SpanRecord]:
        return iter(self.spans)

    def __getitem__(self, index: int) -> SpanRecord:
        return self.spans[index]

    def find(
        self,
        name: str | None = None,
        *,
        prefix: str | None = None,
        attributes: Mapping[str, AttributeValue] | None = None,
        where: Callable[[SpanRecord], bool] | None = None,
    ) -> tuple[SpanRecord, ...]:
        """The spans that match every given condition.

        Args:
            name: Exact span name.
            prefix: Span name prefix, e.g. ``"execute_tool "``.
            attributes: Attributes each matching span carries with these exact values.
            where: Any further predicate.
        """
        return tuple(
            s
            for s in self.spans
            if (name is None or s.name == name)
            and (prefix is None or s.name.startswith(prefix))
            and (attributes is None or all(s.attributes.get(k) == v for k, v in attributes.items()))
            and (where is None or where(s))
        )

    def count(
        self,
        name: str | None = None,
        *,
        prefix: str | None = None,
        attributes: Mapping[str, AttributeValue] | None = None,
        where: Callable[[SpanRecord], bool] | None = None,
    ) -> int:
        """How many spans :meth:`find` returns for the same conditions."""
        return len(self.find(name, prefix=prefix, attributes=attributes, where=where))

    def roots(self) -> tuple[SpanRecord, ...]:
        """Spans whose parent is not in this tree."""
        ids = {s.span_id for s in self.spans}
        return tuple(s for s in self.spans if s.parent_span_id not in ids)

    def children(self, span: SpanRecord) -> tuple[SpanRecord, ...]:
        """Direct children of ``span``."""
        return tuple(s for s in self.spans if s.parent_span_id == span.span_id)
