"""OpenTelemetry spans of agent runs: :class:`OpenTelemetrySink` (seed 000, "Trusted Trace
Context"; OpenTelemetry GenAI semantic conventions, "Semantic conventions for generative AI
spans" and "... for GenAI agent spans", https://opentelemetry.io/docs/specs/semconv/gen-ai/).

The sink turns the loop's events into spans through ``opentelemetry-api`` only; the host picks the
SDK and exporter by passing a ``TracerProvider`` (or configuring the global one).

=====================  ===============================  ======================================
Events                 Span                             Attributes
=====================  ===============================  ======================================
run.started/completed  ``invoke_agent <agent name>``    gen_ai.operation.name, gen_ai.agent.name,
/failed                (INTERNAL)                       gen_ai.usage.* of the run, robota.run.id
round.started/         ``chat <model>`` (CLIENT), one   gen_ai.request.model (when configured),
model.response/        per provider call, timed by the  gen_ai.response.model, gen_ai.response.id,
round.completed        round's own start/end times      gen_ai.response.finish_reasons,
                                                        gen_ai.provider.name + gen_ai.system,
                                                        gen_ai.usage.input_tokens/output_tokens,
                                                        cache_read/cache_creation input tokens
tool.call_started/     ``execute_tool <tool name>``     gen_ai.tool.name, gen_ai.tool.call.id
completed/skipped      (INTERNAL)                       (the vendor's id), gen_ai.tool.type,
                                                        robota.tool_call.id (Robota's id)
=====================  ===============================  ======================================

Nesting follows the event owner path (agent → run → round → tool_call): a span's parent is the
span of the longest prefix of its owner path that has one, so a tool call is a child of the
``chat`` span of the model call that asked for it (it starts after that span ends, which
OpenTelemetry allows), and a subagent's run nests under the tool call that spawned it.

Failures: a failed run ends with status ERROR, ``error.type`` set to the exception's fully
qualified class name (plus ``robota.error.code`` for a
:class:`~robota.core.errors.RobotaError`) and the exception recorded; the failed round's
``chat`` span gets the same type. A tool result flagged as an error sets ERROR with
``error.type = "tool_error"``; a skipped call (unknown tool, invalid arguments, ...) is a
zero-length ERROR span whose ``error.type`` is the skip reason.

Trace context (seed 000, "Trusted Trace Context"): the sink never adopts ambient trace state —
not the current span, not baggage — and never makes its spans current. A run becomes a child of
a host trace only when the host passes ``parent`` (an OpenTelemetry ``Context`` or a W3C
``traceparent`` string); otherwise every run starts a new trace.

Content (prompts, answers, tool arguments and results) is never put on spans.
"""

from __future__ import annotations

from dataclasses import dataclass

from robota.core.extras import raise_missing_extra

try:
    from opentelemetry import trace
    from opentelemetry.context import Context
    from opentelemetry.trace import Span, SpanKind, Status, StatusCode, TracerProvider
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
    from opentelemetry.util.types import AttributeValue
except ImportError as error:
    raise_missing_extra(
        error, module="opentelemetry", distribution="robota-agent-plugin", extra="otel"
    )

from robota.core.agent.events import (
    ModelResponded,
    RoundCompleted,
    RoundStarted,
    RunCompleted,
    RunFailed,
    RunStarted,
    ToolCallCompleted,
    ToolCallSkipped,
    ToolCallStarted,
)
from robota.core.errors import ConfigurationError, RobotaError
from robota.core.events import Event, OwnerPath
from robota.core.usage import Usage
from robota.plugins.failures import GuardedSink

__all__ = ["INSTRUMENTATION_NAME", "OpenTelemetrySink", "error_type"]

INSTRUMENTATION_NAME = "robota.plugins.telemetry"
"""The instrumentation scope name of the tracer the sink uses."""

# GenAI semantic convention attribute names (checked against opentelemetry-semantic-conventions
# by the tests).
OPERATION_NAME = "gen_ai.operation.name"
AGENT_NAME = "gen_ai.agent.name"
PROVIDER_NAME = "gen_ai.provider.name"
SYSTEM = "gen_ai.system"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
RESPONSE_ID = "gen_ai.response.id"
RESPONSE_FINISH_REASONS = "gen_ai.response.finish_reasons"
USAGE_INPUT_TOKENS = "gen_ai.usage.input_tokens"
USAGE_OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
USAGE_CACHE_READ_INPUT_TOKENS = "gen_ai.usage.cache_read.input_tokens"
USAGE_CACHE_CREATION_INPUT_TOKENS = "gen_ai.usage.cache_creation.input_tokens"
USAGE_REASONING_OUTPUT_TOKENS = "gen_ai.usage.reasoning.output_tokens"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
ERROR_TYPE = "error.type"


def error_type(error: BaseException) -> str:
    """The ``error.type`` value of ``error``: its fully qualified class name, e.g.
    ``"robota.core.errors.RateLimitError"`` (semconv "error.type": an exception's canonical
    class name)."""
    cls = type(error)
    return f"{cls.__module__}.{cls.__qualname__}"


def _ns(seconds: float) -> int:
    return int(seconds * 1_000_000_000)


def _usage_attributes(usage: Usage) -> dict[str, AttributeValue]:
    attributes: dict[str, AttributeValue] = {
        USAGE_INPUT_TOKENS: usage.input_tokens,
        USAGE_OUTPUT_TOKENS: usage.output_tokens,
    }
    if usage.cache_read_tokens:
        attributes[USAGE_CACHE_READ_INPUT_TOKENS] = usage.cache_read_tokens
    if usage.cache_write_tokens:
        attributes[USAGE_CACHE_CREATION_INPUT_TOKENS] = usage.cache_write_tokens
    if usage.reasoning_tokens:
        attributes[USAGE_REASONING_OUTPUT_TOKENS] = usage.reasoning_tokens
    return attributes


def _root_context(parent: Context | str | None) -> Context:
    if parent is None:
        return Context()
    if isinstance(parent, str):
        context = TraceContextTextMapPropagator().extract({"traceparent": parent}, Context())
        if not trace.get_current_span(context).get_span_context().is_valid:
            raise ConfigurationError(f"not a valid W3C traceparent: {parent!r}")
        return context
    return parent


@dataclass(kw_only=True, slots=True)
class _FailedRound:
    key: str
    end_ns: int


class OpenTelemetrySink(GuardedSink):
    """An event sink exporting ``invoke_agent`` / ``chat`` / ``execute_tool`` spans.

    Args:
        tracer_provider: Where spans go (None: the global provider of ``opentelemetry-api``,
            a no-op until the host installs an SDK).
        parent: The host's trace context for every run: an OpenTelemetry ``Context`` or a W3C
            ``traceparent`` header value (https://www.w3.org/TR/trace-context/). None: each run
            is the root of a new trace, whatever span is current.
        request_model: The model the agent requests (``gen_ai.request.model`` and the ``chat``
            span name); the loop's events carry only the answering model, so without it the
            span is named after the response model and ``gen_ai.request.model`` is not set.
        provider_name: ``gen_ai.provider.name`` (and ``gen_ai.system``) when the response does
            not name its provider.

    Raises:
        ConfigurationError: when ``parent`` is a string that is not a valid ``traceparent``.

    Example:
        >>> from opentelemetry.sdk.trace import TracerProvider
        >>> sink = OpenTelemetrySink(TracerProvider(), request_model="claude-sonnet-4-6")
        >>> # Agent(provider, model="claude-sonnet-4-6", sinks=[sink])
    """

    def __init__(
        self,
        tracer_provider: TracerProvider | None = None,
        *,
        parent: Context | str | None = None,
        request_model: str | None = None,
        provider_name: str | None = None,
    ) -> None:
        super().__init__()
        self._tracer_provider = tracer_provider
        self._tracer = trace.get_tracer(INSTRUMENTATION_NAME, tracer_provider=tracer_provider)
        self._root = _root_context(parent)
        self.request_model = request_model
        self.provider_name = provider_name
        self._spans: dict[str, Span] = {}
        self._open: set[str] = set()
        self._failed_rounds: dict[str, _FailedRound] = {}

    # --- dispatch ---------------------------------------------------------------------------

    def handle(self, event: Event) -> None:
        """Start, annotate or end the span ``event`` belongs to."""
        if isinstance(event, RunStarted):
            self._run_started(event)
        elif isinstance(event, RoundStarted):
            self._round_started(event)
        elif isinstance(event, ModelResponded):
            self._model_responded(event)
        elif isinstance(event, RoundCompleted):
            self._round_completed(event)
        elif isinstance(event, ToolCallStarted):
            self._tool_started(event)
        elif isinstance(event, ToolCallCompleted):
            self._tool_completed(event)
        elif isinstance(event, ToolCallSkipped):
            self._tool_skipped(event)
        elif isinstance(event, RunCompleted):
            self._run_completed(event)
        elif isinstance(event, RunFailed):
            self._run_failed(event)

    # --- runs -------------------------------------------------------------------------------

    def _run_started(self, event: RunStarted) -> None:
        agent = event.owner.find("agent") or "agent"
        attributes: dict[str, AttributeValue] = {
            OPERATION_NAME: "invoke_agent",
            AGENT_NAME: agent,
            "robota.run.id": event.run_id,
        }
        if self.provider_name:
            attributes[PROVIDER_NAME] = self.provider_name
        self._start(event.owner, f"invoke_agent {agent}", SpanKind.INTERNAL, attributes)

    def _run_completed(self, event: RunCompleted) -> None:
        run_key = str(event.owner)
        self._settle_failed_round(run_key, None)
        span = self._spans.get(run_key)
        if span is not None:
            span.set_attributes(_usage_attributes(event.usage))
            span.set_attribute("robota.run.interrupted", event.interrupted)
        self._finish_run(run_key, None)

    def _run_failed(self, event: RunFailed) -> None:
        run_key = str(event.owner)
        self._settle_failed_round(run_key, event.error)
        span = self._spans.get(run_key)
        if span is not None:
            self._mark_error(span, event.error)
        self._finish_run(run_key, event.error)

    def _finish_run(self, run_key: str, error: BaseException | None) -> None:
        prefix = run_key + "/"
        for key in sorted(k for k in self._open if k.startswith(prefix)):
            span = self._spans[key]
            span.set_attribute("robota.span.abandoned", True)
            if error is not None:
                self._mark_error(span, error, record=False)
            self._end(key)
        self._end(run_key)
        for key in [k for k in self._spans if k == run_key or k.startswith(prefix)]:
            del self._spans[key]

    # --- rounds (model calls) ---------------------------------------------------------------

    def _round_started(self, event: RoundStarted) -> None:
        self._settle_failed_round(self._run_key(event.owner), None)
        attributes: dict[str, AttributeValue] = {
            OPERATION_NAME: "chat",
            "robota.round": event.round,
            "robota.round.kind": event.kind,
        }
        if self.request_model:
            attributes[REQUEST_MODEL] = self.request_model
        if self.provider_name:
            attributes[PROVIDER_NAME] = self.provider_name
            attributes[SYSTEM] = self.provider_name
        name = f"chat {self.request_model}" if self.request_model else "chat"
        self._start(event.owner, name, SpanKind.CLIENT, attributes, _ns(event.started_at))

    def _model_responded(self, event: ModelResponded) -> None:
        span = self._spans.get(str(event.owner))
        if span is None:
            return
        message = event.message
        attributes = _usage_attributes(event.usage)
        attributes[RESPONSE_MODEL] = event.model
        provider = message.provider or self.provider_name
        if provider:
            attributes[PROVIDER_NAME] = provider
            attributes[SYSTEM] = provider
        if message.response_id:
            attributes[RESPONSE_ID] = message.response_id
        if message.finish_reason:
            attributes[RESPONSE_FINISH_REASONS] = (message.finish_reason,)
        span.set_attributes(attributes)
        if not self.request_model and event.model:
            span.update_name(f"chat {event.model}")

    def _round_completed(self, event: RoundCompleted) -> None:
        key = str(event.owner)
        span = self._spans.get(key)
        if span is None or key not in self._open:
            return
        if event.outcome == "failure":
            # The error itself arrives with run.failed; hold the span until then.
            self._failed_rounds[self._run_key(event.owner)] = _FailedRound(
                key=key, end_ns=_ns(event.ended_at)
            )
            return
        if event.outcome == "interrupted":
            span.set_attribute("robota.interrupted", True)
        self._end(key, _ns(event.ended_at))

    def _settle_failed_round(self, run_key: str, error: BaseException | None) -> None:
        failed = self._failed_rounds.pop(run_key, None)
        if failed is None:
            return
        span = self._spans.get(failed.key)
        if span is not None:
            if error is None:
                span.set_status(Status(StatusCode.ERROR, "model call failed"))
                span.set_attribute(ERROR_TYPE, "_OTHER")
            else:
                self._mark_error(span, error)
        self._end(failed.key, failed.end_ns)

    # --- tool calls -------------------------------------------------------------------------

    def _tool_started(self, event: ToolCallStarted) -> None:
        attributes: dict[str, AttributeValue] = {
            OPERATION_NAME: "execute_tool",
            TOOL_NAME: event.call.name,
            TOOL_CALL_ID: event.call.id,
            TOOL_TYPE: "function",
            "robota.tool_call.id": event.call_id,
        }
        if event.direct:
            attributes["robota.tool_call.direct"] = True
        self._start(event.owner, f"execute_tool {event.call.name}", SpanKind.INTERNAL, attributes)

    def _tool_completed(self, event: ToolCallCompleted) -> None:
        key = str(event.owner)
        span = self._spans.get(key)
        if span is None or key not in self._open:
            return
        span.set_attribute("robota.tool.executed", event.executed)
        if event.result.is_error:
            span.set_status(Status(StatusCode.ERROR, "tool returned an error result"))
            span.set_attribute(ERROR_TYPE, "tool_error")
        self._end(key)

    def _tool_skipped(self, event: ToolCallSkipped) -> None:
        name = event.call.name
        span = self._tracer.start_span(
            f"execute_tool {name}",
            context=self._parent_context(event.owner, include_self=True),
            kind=SpanKind.INTERNAL,
            attributes={
                OPERATION_NAME: "execute_tool",
                TOOL_NAME: name,
                TOOL_CALL_ID: event.call.id,
                TOOL_TYPE: "function",
                "robota.tool.skip_reason": event.reason,
                ERROR_TYPE: event.reason,
            },
        )
        span.set_status(Status(StatusCode.ERROR, f"tool call skipped: {event.reason}"))
        span.end()

    # --- span bookkeeping -------------------------------------------------------------------

    @staticmethod
    def _run_key(owner: OwnerPath) -> str:
        for index in range(len(owner.segments) - 1, -1, -1):
            if owner.segments[index].kind == "run":
                return str(OwnerPath(segments=owner.segments[: index + 1]))
        return str(owner)

    def _parent_context(self, owner: OwnerPath, *, include_self: bool = False) -> Context:
        segments = owner.segments
        longest = len(segments) if include_self else len(segments) - 1
        for length in range(longest, 0, -1):
            span = self._spans.get(str(OwnerPath(segments=segments[:length])))
            if span is not None:
                return trace.set_span_in_context(span, Context())
        return self._root

    def _start(
        self,
        owner: OwnerPath,
        name: str,
        kind: SpanKind,
        attributes: dict[str, AttributeValue],
        start_ns: int | None = None,
    ) -> None:
        key = str(owner)
        if key in self._open:  # a repeated start event: keep the first span
            return
        span = self._tracer.start_span(
            name,
            context=self._parent_context(owner),
            kind=kind,
            attributes=attributes,
            start_time=start_ns,
        )
        self._spans[key] = span
        self._open.add(key)

    def _end(self, key: str, end_ns: int | None = None) -> None:
        if key in self._open:
            self._open.discard(key)
            self._spans[key].end(end_time=end_ns)

    @staticmethod
    def _mark_error(span: Span, error: BaseException, *, record: bool = True) -> None:
        span.set_status(Status(StatusCode.ERROR, str(error) or type(error).__name__))
        span.set_attribute(ERROR_TYPE, error_type(error))
        if isinstance(error, RobotaError):
            span.set_attribute("robota.error.code", error.error_code)
        if record:
            span.record_exception(error)

    @property
    def tracer_provider(self) -> TracerProvider:
        """The tracer provider the sink's spans go to: the one it was given, else the global
        provider of ``opentelemetry-api`` as it is now (a proxy until the host installs one).
        Read-only; span-based evaluation (``robota.evals``) tees this provider."""
        if self._tracer_provider is not None:
            return self._tracer_provider
        return trace.get_tracer_provider()

    @property
    def open_spans(self) -> int:
        """Spans started and not yet ended."""
        return len(self._open)

    async def aclose(self) -> None:
        """End every span still open (marked ``robota.span.abandoned``); never raises.

        The tracer provider belongs to the host and is not shut down here.
        """
        for key in sorted(self._open):
            try:
                span = self._spans[key]
                span.set_attribute("robota.span.abandoned", True)
                span.end()
            except Exception as error:
                self.record_failure("aclose", error)
        self._open.clear()
        self._spans.clear()
        self._failed_rounds.clear()
