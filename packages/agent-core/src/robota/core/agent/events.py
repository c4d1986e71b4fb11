"""The concrete events of the agent loop (seed 000, "Event Architecture", "Execution Loop and
Error Handling", "Unavailable Tool-Call Handling").

Each event is a frozen dataclass named ``owner.local_name`` through its ``type`` class constant
and carries an :class:`~robota.core.events.OwnerPath` (agent → run → round → tool_call). The
same objects go to every :class:`~robota.core.events.EventSink` and to ``Agent.stream``
consumers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from robota.core.events import Event
from robota.core.messages import (
    AssistantMessage,
    FinishReason,
    Message,
    ToolCallPart,
    ToolResultPart,
)
from robota.core.usage import Usage

__all__ = [
    "ContextGuardTripped",
    "FinalResult",
    "HistoryCommitted",
    "HistoryRepaired",
    "HostedToolCalled",
    "ModelResponded",
    "ModelTextDelta",
    "ModelThinkingDelta",
    "ModelToolCallDelta",
    "OutputValidationFailed",
    "PartialOutput",
    "RoundCompleted",
    "RoundKind",
    "RoundOutcome",
    "RoundStarted",
    "RunCompleted",
    "RunFailed",
    "RunResumed",
    "RunStarted",
    "RunSuspended",
    "SkipReason",
    "ToolCallCompleted",
    "ToolCallSkipped",
    "ToolCallStarted",
    "ToolProgress",
]

RoundKind = Literal["normal", "summary", "final"]
"""``normal``: an ordinary round; ``summary``: the forced summary after the round budget;
``final``: the forced no-tools call after the unknown-tool loop guard."""

RoundOutcome = Literal["success", "failure", "interrupted"]

SkipReason = Literal[
    "unknown_tool",
    "interrupted",
    "context_budget",
    "identical_input",
    "invalid_arguments",
    "denied",
    "external_result",
    "refused_response",
    "journal",
    "unknown_outcome",
]
"""Why a tool body did not run (``denied``/``external_result``: a resume decision answered the
call, seed 002 "Deferred tool execution"; ``journal``: a continuation answered the call from the
execution journal, nothing was decided or run again; ``unknown_outcome``: its effect started
before a crash and no result was recorded, so it is reported and never run again;
``refused_response``: the response making the call was
refused — truncated, an incomplete call, or content-filtered — and the run failed with
:class:`~robota.core.errors.TruncatedResponseError`,
:class:`~robota.core.errors.IncompleteToolCallError` or
:class:`~robota.core.errors.ContentFilterError`)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class RunStarted(Event):
    """A run took its FIFO slot and is about to commit its prompt.

    Attributes:
        run_id: Robota's id of the run.
        prompt: The user message of the run.
    """

    type: ClassVar[str] = "run.started"
    run_id: str
    prompt: Message


@dataclass(frozen=True, kw_only=True, slots=True)
class RunCompleted(Event):
    """A run finished (naturally or interrupted by cancellation).

    Attributes:
        run_id: Robota's id of the run.
        text: The final text returned to the caller.
        interrupted: True when cancellation ended the run.
        usage: Usage summed over the run's requests.
        finish_reason: Normalized finish reason of the run's final response (None when the run
            was interrupted before any response).
        raw_finish_reason: The vendor's own finish reason of that response, if it gave one.
    """

    type: ClassVar[str] = "run.completed"
    run_id: str
    text: str
    interrupted: bool
    usage: Usage
    finish_reason: FinishReason | None = None
    raw_finish_reason: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class RunFailed(Event):
    """A run failed; ``error`` is what the caller receives.

    Attributes:
        run_id: Robota's id of the run.
        error: The exception raised to the caller.
    """

    type: ClassVar[str] = "run.failed"
    run_id: str
    error: BaseException


@dataclass(frozen=True, kw_only=True, slots=True)
class RunSuspended(Event):
    """A run paused before executing a response that calls ``approval`` or ``external`` tools
    (``Agent.run_until_pause``; seed 002, "Deferred tool execution"). The run ends with
    neither ``run.completed`` nor ``run.failed``; ``Agent.resume`` continues it.

    Attributes:
        run_id: Robota's id of the run.
        pending: The decision keys of the calls awaiting a decision, in call order.
        usage: Usage summed over the run's requests so far.
    """

    type: ClassVar[str] = "run.suspended"
    run_id: str
    pending: tuple[str, ...]
    usage: Usage


@dataclass(frozen=True, kw_only=True, slots=True)
class RunResumed(Event):
    """A paused run continues (``Agent.resume``) with its decisions; it ends with
    ``run.completed``, ``run.failed`` or another ``run.suspended``.

    Attributes:
        run_id: Robota's id of the run.
        decisions: ``(decision key, kind)`` per pending call, in call order; kind is
            ``approve``, ``deny`` or ``external_result``.
    """

    type: ClassVar[str] = "run.resumed"
    run_id: str
    decisions: tuple[tuple[str, str], ...]


@dataclass(frozen=True, kw_only=True, slots=True)
class RoundStarted(Event):
    """A provider round starts (one provider call).

    Attributes:
        round: 1-based round number within the run.
        kind: See :data:`RoundKind`.
        started_at: Wall-clock start, seconds since the epoch.
    """

    type: ClassVar[str] = "round.started"
    round: int
    kind: RoundKind
    started_at: float


@dataclass(frozen=True, kw_only=True, slots=True)
class RoundCompleted(Event):
    """The content-free observation of one provider round (seed 000, "Execution Loop").

    Attributes:
        round: 1-based round number.
        kind: See :data:`RoundKind`.
        outcome: ``success``, ``failure`` or ``interrupted``.
        started_at: Wall-clock start, seconds since the epoch.
        ended_at: Wall-clock end, seconds since the epoch.
        model: The model that answered (the requested model when none answered).
    """

    type: ClassVar[str] = "round.completed"
    round: int
    kind: RoundKind
    outcome: RoundOutcome
    started_at: float
    ended_at: float
    model: str


@dataclass(frozen=True, kw_only=True, slots=True)
class ModelTextDelta(Event):
    """A piece of answer text as it streams."""

    type: ClassVar[str] = "model.text_delta"
    text: str


@dataclass(frozen=True, kw_only=True, slots=True)
class ModelThinkingDelta(Event):
    """A piece of reasoning text as it streams."""

    type: ClassVar[str] = "model.thinking_delta"
    text: str


@dataclass(frozen=True, kw_only=True, slots=True)
class ModelToolCallDelta(Event):
    """A piece of a tool call as it streams (see :class:`~robota.core.provider.ToolCallDelta`)."""

    type: ClassVar[str] = "model.tool_call_delta"
    index: int
    id: str | None
    name: str | None
    arguments_delta: str


@dataclass(frozen=True, kw_only=True, slots=True)
class ModelResponded(Event):
    """The provider finished a response.

    Attributes:
        message: The assembled assistant message (usage and model filled in).
        usage: Usage of this request.
        model: The model that actually answered.
    """

    type: ClassVar[str] = "model.response"
    message: AssistantMessage
    usage: Usage
    model: str


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCallStarted(Event):
    """A tool call passed validation and is about to be gated and run.

    Attributes:
        call: The model's tool call.
        call_id: Robota's unique id for this call.
        arguments: The validated arguments.
        direct: True for direct invocation (``Agent.call_tool``).
    """

    type: ClassVar[str] = "tool.call_started"
    call: ToolCallPart
    call_id: str
    arguments: Mapping[str, Any]
    direct: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCallCompleted(Event):
    """A tool call has its result.

    Attributes:
        call_id: Robota's unique id for the call.
        result: The result the model will see.
        executed: True only when the tool body itself ran to completion (not a deny, substitute,
            timeout or exception before the body finished).
    """

    type: ClassVar[str] = "tool.call_completed"
    call_id: str
    result: ToolResultPart
    executed: bool


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCallSkipped(Event):
    """A tool call whose body never ran (labelled skip).

    Attributes:
        call: The model's tool call.
        reason: See :data:`SkipReason`.
        message: The text the model sees as the result.
        available: Names of the tools offered (for ``unknown_tool``), else empty.
    """

    type: ClassVar[str] = "tool.call_skipped"
    call: ToolCallPart
    reason: SkipReason
    message: str
    available: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolProgress(Event):
    """A progress note a running tool sent through ``ToolContext.emit_progress``."""

    type: ClassVar[str] = "tool.progress"
    call_id: str
    text: str


@dataclass(frozen=True, kw_only=True, slots=True)
class HistoryCommitted(Event):
    """A message was appended to the agent's history.

    Attributes:
        message: The committed message.
        index: Its position in ``Agent.history`` (0 is the system head when there is one).
    """

    type: ClassVar[str] = "history.committed"
    message: Message
    index: int


@dataclass(frozen=True, kw_only=True, slots=True)
class HistoryRepaired(Event):
    """The provider-facing view of a round was repaired before sending (the canonical history
    is unchanged); one event per repair (see :func:`robota.core.agent.pairing.repair_pairing`).

    Attributes:
        kind: ``orphan_call`` (a result was synthesized), ``orphan_result`` or
            ``duplicate_result`` (dropped).
        call_id: The provider call id concerned.
        name: The tool name.
        round: The 1-based round whose request was repaired.
    """

    type: ClassVar[str] = "history.repaired"
    kind: Literal["orphan_call", "orphan_result", "duplicate_result"]
    call_id: str
    name: str
    round: int


@dataclass(frozen=True, kw_only=True, slots=True)
class ContextGuardTripped(Event):
    """The context estimate crossed a threshold of the model's window.

    Attributes:
        stage: ``pre_send`` (the request was refused) or ``tool_result_budget`` (remaining
            results of a batch were replaced by a notice).
        estimated_tokens: The estimate that crossed (tokens).
        context_window: The model's window (tokens).
        threshold: The fraction of the window that was crossed.
    """

    type: ClassVar[str] = "context.guard_tripped"
    stage: Literal["pre_send", "tool_result_budget"]
    estimated_tokens: int
    context_window: int
    threshold: float


@dataclass(frozen=True, kw_only=True, slots=True)
class OutputValidationFailed(Event):
    """The final text did not validate against the requested output type.

    Attributes:
        attempt: 1-based attempt number that failed.
        issues: The validation issues.
        will_retry: True when a feedback message was committed and the model asked again.
    """

    type: ClassVar[str] = "output.validation_failed"
    attempt: int
    issues: tuple[str, ...]
    will_retry: bool


@dataclass(frozen=True, kw_only=True, slots=True)
class PartialOutput(Event):
    """A repaired snapshot of the structured answer while it streams (seed 002, "Streaming
    parts…"). Snapshots of one round are monotonic: each one keeps every key, element and
    string prefix the previous one showed. The raw ``ModelTextDelta`` comes first.

    Attributes:
        round: 1-based round whose text is streaming.
        snapshot: The repaired JSON value (unwrapped from ``{"result": …}`` when the schema was
            wrapped).
        value: The typed partial value (pydantic partial validation, after the output
            validators ran with ``ctx.partial`` True), or None when the snapshot does not
            validate partially yet.
    """

    type: ClassVar[str] = "output.partial"
    round: int
    snapshot: Any
    value: Any = None


@dataclass(frozen=True, kw_only=True, slots=True)
class FinalResult(Event):
    """The structured answer passed full validation (emitted once per run with an output type,
    before ``RunCompleted``).

    Attributes:
        output: The run's output (after the output function and validators).
    """

    type: ClassVar[str] = "output.final_result"
    output: Any


@dataclass(frozen=True, kw_only=True, slots=True)
class HostedToolCalled(Event):
    """A committed response holds a call of a tool the vendor ran itself (web search, code
    execution…); emitted after ``ModelResponded``.

    Attributes:
        round: 1-based round of the response.
        call_id: The call part's id.
        name: The hosted tool's name as the vendor reported it.
    """

    type: ClassVar[str] = "tool.hosted_call"
    round: int
    call_id: str
    name: str
