"""The span tee of span-based evaluation (seed 002, "Evaluations": "each case temporarily tees
the agent's configured OpenTelemetry exporter; the tee deep-copies exported spans and attributes
... before forwarding the original span to the application exporter").

How it works: the run finds the OpenTelemetry SDK ``TracerProvider`` the task's spans go to
(:func:`tracer_providers_of`) and adds one :class:`CaptureProcessor` to it
(:func:`install_capture`, once per provider). The application's own processors and exporters stay
where they are and keep receiving every span unchanged; the capture processor sits beside them.
A span belongs to the case in whose context it **started**: when a span starts, the processor
notes the buffer of the case whose task is running in the current context (:func:`capturing`
sets it through a :class:`contextvars.ContextVar`, which the tasks the agent spawns inherit);
when it ends, it is copied into an immutable :class:`~robota.evals.spans.SpanRecord` and
appended to that buffer, if the case's attempt is still running. So a span case A opened and
case B closed (a pooled connection, a shared client's lazily ended span) lands in neither: A's
spans were taken when A's attempt ended, and B never owned it. A span started outside any case
is ignored, so an installed processor costs one context-variable read per span once the
evaluation is over.
"""

from __future__ import annotations

import contextvars
import threading
import weakref
from collections.abc import Generator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal, TypeGuard, cast

from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from robota.core.agent import Agent
from robota.evals.errors import TelemetryNotConfiguredError
from robota.evals.spans import AttributeValue, SpanRecord
from robota.plugins.telemetry import OpenTelemetrySink

if TYPE_CHECKING:
    from opentelemetry.trace import TracerProvider as ApiTracerProvider

__all__ = [
    "CaptureProcessor",
    "capturing",
    "install_capture",
    "is_sdk_tracer_provider",
    "span_record",
    "tracer_providers_of",
]


class _Buffer:
    """One case attempt's spans, and the spans it started that have not ended yet."""

    def __init__(self) -> None:
        self.records: list[SpanRecord] = []
        self.open = True
        self.started: set[tuple[int, int]] = set()


_buffer: contextvars.ContextVar[_Buffer | None] = contextvars.ContextVar(
    "robota_evals_span_buffer", default=None
)
_installed: weakref.WeakSet[TracerProvider] = weakref.WeakSet()
_owners: dict[tuple[int, int], _Buffer] = {}
"""(trace id, span id) of each span started in a running case -> that case's buffer; an entry
leaves when its span ends or its case attempt ends."""
_lock = threading.Lock()
"""Guards :data:`_owners` and the buffers (spans may start and end on other threads)."""


def _key(span: ReadableSpan) -> tuple[int, int] | None:
    context = span.context
    return None if context is None else (context.trace_id, context.span_id)


_STATUS: dict[str, Literal["UNSET", "OK", "ERROR"]] = {
    "UNSET": "UNSET",
    "OK": "OK",
    "ERROR": "ERROR",
}


def _attribute(value: Any) -> AttributeValue:
    if isinstance(value, str | bool | int | float):
        return value
    return tuple(cast("Sequence[Any]", value))


def span_record(span: ReadableSpan) -> SpanRecord:
    """An owned, immutable copy of a finished span.

    Args:
        span: The SDK span (as a processor's ``on_end`` receives it).

    Returns:
        The record: ids as lowercase hexadecimal (32 digits for the trace id, 16 for span ids),
        kind and status by name, sequence attribute values as tuples.
    """
    context = span.context
    parent = span.parent
    status = span.status
    start = span.start_time or 0
    return SpanRecord(
        name=span.name,
        trace_id=format(context.trace_id, "032x") if context is not None else "0" * 32,
        span_id=format(context.span_id, "016x") if context is not None else "0" * 16,
        parent_span_id=format(parent.span_id, "016x") if parent is not None else None,
        kind=span.kind.name,
        start_time_ns=start,
        end_time_ns=span.end_time or start,
        status=_STATUS.get(status.status_code.name, "UNSET"),
        status_description=status.description,
        attributes={key: _attribute(value) for key, value in (span.attributes or {}).items()},
    )


class CaptureProcessor(SpanProcessor):
    """A span processor that copies each ending span into the buffer of the case it started in
    (none: it does nothing). It never raises and never changes the span."""

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        """Note which running case (if any) ``span`` belongs to."""
        buffer = _buffer.get()
        if buffer is None:
            return
        key = _key(span)
        if key is None:
            return
        with _lock:
            if buffer.open:
                _owners[key] = buffer
                buffer.started.add(key)

    def on_end(self, span: ReadableSpan) -> None:
        """Append a :class:`SpanRecord` of ``span`` to the buffer of the case it started in,
        if that case's attempt is still running."""
        key = _key(span)
        if key is None:
            return
        with _lock:
            buffer = _owners.pop(key, None)
            if buffer is None:
                return
            buffer.started.discard(key)
        try:
            record = span_record(span)
        except Exception:  # a malformed span must not break the application's tracing
            return
        with _lock:
            if buffer.open:
                buffer.records.append(record)

    def shutdown(self) -> None:
        """Nothing to release."""

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        """Nothing is buffered here: always True."""
        return True


def install_capture(provider: TracerProvider) -> None:
    """Add a :class:`CaptureProcessor` to ``provider`` unless one was added already; the
    provider's other processors are untouched (idempotent)."""
    if provider in _installed:
        return
    provider.add_span_processor(CaptureProcessor())
    _installed.add(provider)


@contextmanager
def capturing() -> Generator[list[SpanRecord]]:
    """Collect the spans that start in this context (and in the tasks it spawns) and end while
    the block runs.

    Yields:
        The list the spans are appended to, in the order they end; it stops growing when the
        block exits (a span still open then is nobody's).
    """
    buffer = _Buffer()
    token = _buffer.set(buffer)
    try:
        yield buffer.records
    finally:
        _buffer.reset(token)
        with _lock:
            buffer.open = False
            for key in buffer.started:
                if _owners.get(key) is buffer:
                    del _owners[key]
            buffer.started.clear()


def is_sdk_tracer_provider(value: object) -> TypeGuard[TracerProvider]:
    """Whether ``value`` is an ``opentelemetry.sdk.trace.TracerProvider``, the only kind whose
    spans a run can tee (the API's no-op and proxy providers export nothing)."""
    return isinstance(value, TracerProvider)


def tracer_providers_of(
    task: object, tracer_provider: ApiTracerProvider | None
) -> tuple[TracerProvider, ...]:
    """The SDK tracer providers a task's spans go to.

    Args:
        task: The dataset's task: for an ``Agent``, the providers of the
            :class:`~robota.plugins.telemetry.OpenTelemetrySink` values among its ``sinks``.
        tracer_provider: An explicit provider: the only source for a function task; for an
            ``Agent`` task it selects one of its sinks' providers (the agent's spans go
            nowhere else, so any other provider would capture nothing).

    Returns:
        The distinct providers, in order.

    Raises:
        TelemetryNotConfiguredError: no provider; one that is not an
            ``opentelemetry.sdk.trace.TracerProvider`` (the API's no-op or proxy provider
            exports nothing to tee); or, for an ``Agent`` task, a ``tracer_provider`` that is
            not the provider of one of its ``OpenTelemetrySink`` sinks.
    """
    if isinstance(task, Agent):
        agent = cast("Agent[Any, Any]", task)
        own = [s.tracer_provider for s in agent.sinks if isinstance(s, OpenTelemetrySink)]
        if tracer_provider is not None:
            if not any(provider is tracer_provider for provider in own):
                raise TelemetryNotConfiguredError(
                    "the dataset has trace evaluators and tracer_provider= was given, but the "
                    "agent has no OpenTelemetrySink on that provider, so its spans would never "
                    "reach it: give the agent OpenTelemetrySink(tracer_provider)"
                )
            own = [tracer_provider]
        candidates: list[object] = list(own)
    elif tracer_provider is not None:
        candidates = [tracer_provider]
    else:
        candidates = []
    if not candidates:
        raise TelemetryNotConfiguredError(
            "the dataset has trace evaluators but the task has no OpenTelemetry configuration: "
            "give the agent an OpenTelemetrySink with an SDK TracerProvider, or pass "
            "tracer_provider= for a function task"
        )
    providers: list[TracerProvider] = []
    for candidate in candidates:
        if not is_sdk_tracer_provider(candidate):
            raise TelemetryNotConfiguredError(
                "the dataset has trace evaluators but the task's tracer provider is "
                f"{type(candidate).__name__}, not an opentelemetry.sdk.trace.TracerProvider "
                "(install the SDK provider, globally or on the OpenTelemetrySink)"
            )
        if candidate not in providers:
            providers.append(candidate)
    return tuple(providers)
