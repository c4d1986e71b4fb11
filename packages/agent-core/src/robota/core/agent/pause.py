"""Deferred tool execution: the pause, its versioned state, and resume decisions (seed 002,
"Deferred tool execution").

A tool's :attr:`~robota.core.tools.base.Tool.execution` is ``immediate``, ``approval`` or
``external``. When a model response calls an ``approval`` or ``external`` tool,
``Agent.run_until_pause`` stops *before any call of that response executes* and returns
:class:`RunPaused`. Its :class:`PauseState` is application data (JSON via
:meth:`PauseState.to_json`): the canonical history up to and including the assistant message
with the calls, the resolved system prompt, the run's settings and budgets, usage and request
counters, output and tool retry counters, and the calls awaiting a decision.

``Agent.resume(state, decisions)`` takes exactly one :data:`Decision` per pending call
(:class:`Approve`, :class:`Deny`, :class:`ExternalResult`), checked before anything runs. It
then executes the whole batch once: approved calls go through the normal validation, gates and
body; denied calls get an error result with the given message; external results are used as
given, without invoking application code; the immediate calls of the same response run now. One
tool-result message (call order) is committed and the loop continues with the next model call;
the original request is never sent again. ``Agent.run`` refuses to discard a pause: it raises
:class:`PauseRequiredError` carrying the :class:`RunPaused`.

Applications should integrity-protect a persisted state before accepting it back from an
untrusted boundary (seed 002).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, Literal

from robota.core.errors import ErrorCategory, RobotaError
from robota.core.journal.checkpoint import messages_json, settings_json
from robota.core.messages import (
    AssistantMessage,
    JsonValue,
    MediaPart,
    Message,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    load_messages,
)
from robota.core.settings import ModelSettings
from robota.core.usage import Usage

if TYPE_CHECKING:
    from pydantic import TypeAdapter

__all__ = [
    "DECISIONS_VERSION",
    "PAUSE_STATE_VERSION",
    "Approve",
    "Decision",
    "DecisionError",
    "Deny",
    "ExternalResult",
    "PauseRequiredError",
    "PauseState",
    "PauseStateError",
    "PendingCall",
    "RunPaused",
    "dump_decisions",
    "load_decisions",
    "pending_calls",
    "settle_decisions",
]

PAUSE_STATE_VERSION = 1
"""Version of the :meth:`PauseState.to_json` document."""

DECISIONS_VERSION = 1
"""Version of the :func:`dump_decisions` document."""


# --- errors ---------------------------------------------------------------------------------


class PauseStateError(RobotaError):
    """A pause state cannot be resumed (seed 002, "Deferred tool execution").

    Attributes:
        reason: ``version`` (a document of another version), ``corrupt`` (unreadable or
            inconsistent), ``conflicting_history`` (the agent's live history is neither empty
            nor the state's history), ``incompatible`` (the given output type's schema differs
            from the saved one).
    """

    code = "pause_state_invalid"
    default_category = ErrorCategory.USER

    def __init__(
        self,
        message: str,
        *,
        reason: Literal["version", "corrupt", "conflicting_history", "incompatible"],
    ) -> None:
        super().__init__(message)
        self.reason = reason


class DecisionError(RobotaError):
    """The decisions given to ``Agent.resume`` do not answer the pending calls exactly once
    each; raised before anything runs.

    Attributes:
        reason: ``missing`` (a pending call has no decision), ``extra`` (a decision names no
            pending call), ``mismatched`` (``Approve`` for an ``external`` call, or
            ``ExternalResult`` for an ``approval`` call).
        keys: The offending decision keys, sorted.
    """

    code = "resume_decisions_invalid"
    default_category = ErrorCategory.USER

    def __init__(
        self,
        message: str,
        *,
        reason: Literal["missing", "extra", "mismatched"],
        keys: Iterable[str],
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.keys = tuple(sorted(keys))


class PauseRequiredError(RobotaError):
    """``Agent.run``/``Agent.stream`` met a response calling an ``approval`` or ``external``
    tool; the regular run refuses to discard the pause (seed 002). The history holds the
    assistant message with the calls (no results yet); ``paused`` can be resumed with
    ``Agent.resume`` exactly as if ``run_until_pause`` had returned it.

    Attributes:
        paused: The pause.
    """

    code = "pause_required"
    default_category = ErrorCategory.USER

    def __init__(self, paused: RunPaused) -> None:
        names = ", ".join(f"{p.name} ({p.execution})" for p in paused.pending)
        super().__init__(
            f"the model called tools that need a decision ({names}); use "
            "Agent.run_until_pause and Agent.resume for approval and external tools"
        )
        self.paused = paused


# --- decisions ------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, slots=True)
class Approve:
    """Run an ``approval`` call through the normal validation, gates and body."""

    kind: Literal["approve"] = "approve"


@dataclass(frozen=True, kw_only=True, slots=True)
class Deny:
    """Do not run the call; the model sees an error result holding ``message``.

    Attributes:
        message: The text of the error result.
    """

    kind: Literal["deny"] = "deny"
    message: str


@dataclass(frozen=True, kw_only=True, slots=True)
class ExternalResult:
    """The result of an ``external`` call, produced by the host; used as given.

    Attributes:
        content: Text and media parts the model will see.
        is_error: True when the model should see the result as an error.
    """

    kind: Literal["external_result"] = "external_result"
    content: tuple[TextPart | MediaPart, ...]
    is_error: bool = False

    @classmethod
    def text(cls, text: str, *, is_error: bool = False) -> ExternalResult:
        """A result holding one text part."""
        return cls(content=(TextPart(text=text),), is_error=is_error)


Decision = Approve | Deny | ExternalResult
"""One answer to one pending call (discriminated by ``kind``)."""


@cache
def _decisions_adapter() -> TypeAdapter[dict[str, Decision]]:
    from pydantic import ConfigDict, Field, TypeAdapter

    return TypeAdapter(
        dict[str, Annotated[Decision, Field(discriminator="kind")]],
        config=ConfigDict(ser_json_bytes="base64", val_json_bytes="base64"),
    )


def dump_decisions(decisions: Mapping[str, Decision]) -> JsonValue:
    """Decisions as a versioned JSON document ``{"version": 1, "decisions": {key: {...}}}``
    (seed 002: "Resume decisions have their own versioned JSON wrapper"). Media bytes are
    base64."""
    body: Any = json.loads(_decisions_adapter().dump_json(dict(decisions)))
    return {"version": DECISIONS_VERSION, "decisions": body}


def load_decisions(value: JsonValue) -> dict[str, Decision]:
    """Parse a :func:`dump_decisions` document.

    Raises:
        PauseStateError: ``version`` for another version, ``corrupt`` for a malformed document.
    """
    if not isinstance(value, dict) or value.get("version") != DECISIONS_VERSION:
        version = value.get("version") if isinstance(value, dict) else None
        raise PauseStateError(
            f"unsupported decisions document version {version!r} (expected {DECISIONS_VERSION})",
            reason="version",
        )
    try:
        return _decisions_adapter().validate_json(json.dumps(value["decisions"]))
    except (KeyError, ValueError) as exc:
        raise PauseStateError(f"the decisions cannot be read ({exc})", reason="corrupt") from exc


# --- the state ------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, slots=True)
class PendingCall:
    """A call awaiting a decision.

    Attributes:
        key: The key of its decision: the provider's tool call id, or ``"<id>#<index>"`` when
            the response used that id for more than one call.
        index: 0-based position of the call among the response's tool calls.
        tool_call_id: The provider's tool call id.
        name: The tool name.
        arguments: The parsed arguments (None when they did not parse; an approved call then
            gets the invalid-arguments result).
        raw_arguments: The argument string as the model produced it.
        execution: ``approval`` or ``external``.
        request_id: The wait's stable identity within the run, ``"<round>:<index>"`` (a
            journaled run saves the request under it; a response answers only it).
    """

    key: str
    index: int
    tool_call_id: str
    name: str
    arguments: Mapping[str, JsonValue] | None
    raw_arguments: str
    execution: Literal["approval", "external"]
    request_id: str = ""

    def request(self) -> JsonValue:
        """The request document a journaled run saves before it suspends."""
        arguments: Any = dict(self.arguments) if self.arguments is not None else None
        return {
            "key": self.key,
            "index": self.index,
            "tool_call_id": self.tool_call_id,
            "name": self.name,
            "arguments": arguments,
            "execution": self.execution,
        }


@dataclass(frozen=True, kw_only=True, slots=True)
class PauseState:
    """What a paused run needs to continue, in a fresh process if need be.

    Attributes:
        version: Format version (:data:`PAUSE_STATE_VERSION`).
        run_id: Robota's id of the run (a resume keeps it).
        history: The conversation without the system head, ending with the assistant message
            whose calls are pending.
        system_prompt: The run's resolved system prompt; a resume uses it (its meaning cannot
            change mid-run), replacing the agent's.
        model: The model id the run used (informational).
        settings: The run's merged settings.
        max_rounds: The run's round budget (0: no cap); rounds count across pauses.
        output_schema: JSON Schema of the structured output, or None.
        rounds: Provider rounds made so far.
        usage: Usage summed over the run's requests so far (``usage.requests`` counts them).
        output_attempts: Structured-output validation attempts so far.
        unknown_tool_streak: Consecutive rounds with unknown tool calls (loop guard).
        never_executed: Unknown calls of that streak, as ``"name (id X)"``.
        tool_retry_counts: Invalid-argument attempts per tool name.
        identical_input_counts: Invocations per canonical input (identical-input guard).
        offered_tools: Names of the tools offered in the round that made the calls.
        pending: The calls awaiting a decision, in call order.
        loaded: Deferred tools loaded at the pause, in load order (a resume restores this
            residency).
    """

    version: int = PAUSE_STATE_VERSION
    run_id: str
    history: tuple[Message, ...]
    system_prompt: str | None
    model: str
    settings: ModelSettings
    max_rounds: int
    output_schema: Mapping[str, Any] | None = None
    rounds: int
    usage: Usage
    output_attempts: int = 0
    unknown_tool_streak: int = 0
    never_executed: tuple[str, ...] = ()
    tool_retry_counts: Mapping[str, int] = field(default_factory=dict[str, int])
    identical_input_counts: Mapping[str, int] = field(default_factory=dict[str, int])
    offered_tools: tuple[str, ...]
    pending: tuple[PendingCall, ...]
    loaded: tuple[str, ...] = ()

    @property
    def calls(self) -> tuple[ToolCallPart, ...]:
        """The tool calls of the paused response (the last history message).

        Raises:
            PauseStateError: (``corrupt``) when the history does not end with an assistant
                message whose calls include every pending call.
        """
        last = self.history[-1] if self.history else None
        if not isinstance(last, AssistantMessage) or not last.tool_calls:
            raise PauseStateError(
                "the state's history does not end with an assistant message calling tools",
                reason="corrupt",
            )
        calls = last.tool_calls
        for p in self.pending:
            if not 0 <= p.index < len(calls) or calls[p.index].id != p.tool_call_id:
                raise PauseStateError(
                    f"pending call {p.key!r} is not call {p.index} of the paused response",
                    reason="corrupt",
                )
        return calls

    def to_json(self) -> JsonValue:
        """The state as a JSON value (``json.dumps`` it to store it)."""
        schema: Any = dict(self.output_schema) if self.output_schema is not None else None
        usage: Any = _usage_adapter().dump_python(self.usage, mode="json")
        return {
            "version": self.version,
            "run_id": self.run_id,
            "history": messages_json(self.history),
            "system_prompt": self.system_prompt,
            "model": self.model,
            "settings": settings_json(self.settings),
            "max_rounds": self.max_rounds,
            "output_schema": schema,
            "rounds": self.rounds,
            "usage": usage,
            "output_attempts": self.output_attempts,
            "unknown_tool_streak": self.unknown_tool_streak,
            "never_executed": list(self.never_executed),
            "tool_retry_counts": dict(self.tool_retry_counts),
            "identical_input_counts": dict(self.identical_input_counts),
            "offered_tools": list(self.offered_tools),
            "pending": [
                {
                    "key": p.key,
                    "index": p.index,
                    "tool_call_id": p.tool_call_id,
                    "name": p.name,
                    "arguments": dict(p.arguments) if p.arguments is not None else None,
                    "raw_arguments": p.raw_arguments,
                    "execution": p.execution,
                    "request_id": p.request_id,
                }
                for p in self.pending
            ],
            "loaded": list(self.loaded),
        }

    @classmethod
    def from_json(cls, value: JsonValue) -> PauseState:
        """Parse a :meth:`to_json` document.

        Raises:
            PauseStateError: ``version`` for a document of another version, ``corrupt`` for
                one that cannot be read or whose pending calls do not match its history.
        """
        version = value.get("version") if isinstance(value, dict) else None
        if version != PAUSE_STATE_VERSION:
            raise PauseStateError(
                f"unsupported pause state version {version!r} (expected {PAUSE_STATE_VERSION})",
                reason="version",
            )
        assert isinstance(value, dict)
        try:
            state = cls(
                run_id=_str(value["run_id"]),
                history=tuple(load_messages(json.dumps(value["history"]))),
                system_prompt=_opt_str(value["system_prompt"]),
                model=_str(value["model"]),
                settings=_settings_adapter().validate_python(value["settings"]),
                max_rounds=_int(value["max_rounds"]),
                output_schema=_opt_object(value["output_schema"]),
                rounds=_int(value["rounds"]),
                usage=_usage_adapter().validate_python(value["usage"]),
                output_attempts=_int(value["output_attempts"]),
                unknown_tool_streak=_int(value["unknown_tool_streak"]),
                never_executed=tuple(_str(v) for v in _list(value["never_executed"])),
                tool_retry_counts=_counts(value["tool_retry_counts"]),
                identical_input_counts=_counts(value["identical_input_counts"]),
                offered_tools=tuple(_str(v) for v in _list(value["offered_tools"])),
                pending=tuple(_pending(v) for v in _list(value["pending"])),
                loaded=tuple(_str(v) for v in _list(value.get("loaded", []))),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise PauseStateError(
                f"the pause state cannot be read ({exc})", reason="corrupt"
            ) from exc
        _ = state.calls  # consistency of pending calls with the history
        return state


@dataclass(frozen=True, kw_only=True, slots=True)
class RunPaused:
    """What ``Agent.run_until_pause``/``Agent.resume`` return when the run paused.

    Attributes:
        run_id: Robota's id of the run.
        state: Everything needed to resume (JSON via :meth:`PauseState.to_json`).
        pending: The calls awaiting a decision (``state.pending``).
        new_messages: The messages this invocation appended to history (ending with the
            assistant message with the calls).
        usage: Usage summed over the run so far (across earlier pauses).
        rounds: Provider rounds made so far in the run.
    """

    run_id: str
    state: PauseState
    pending: tuple[PendingCall, ...]
    new_messages: tuple[Message, ...] = ()
    usage: Usage = field(default_factory=Usage)
    rounds: int = 0


def pending_calls(
    calls: Sequence[ToolCallPart],
    executions: Mapping[int, Literal["approval", "external"]],
    *,
    round: int = 0,
) -> tuple[PendingCall, ...]:
    """The :class:`PendingCall` of every call whose index is in ``executions``, in order
    (``round``: the run's round that made the calls, for the request ids)."""
    seen: dict[str, int] = {}
    for call in calls:
        seen[call.id] = seen.get(call.id, 0) + 1
    out: list[PendingCall] = []
    for index, call in enumerate(calls):
        execution = executions.get(index)
        if execution is None:
            continue
        out.append(
            PendingCall(
                key=call.id if seen[call.id] == 1 else f"{call.id}#{index}",
                index=index,
                tool_call_id=call.id,
                name=call.name,
                arguments=dict(call.arguments) if call.arguments is not None else None,
                raw_arguments=call.raw_arguments,
                execution=execution,
                request_id=f"{round}:{index}",
            )
        )
    return tuple(out)


def settle_decisions(
    state: PauseState, decisions: Mapping[str, Decision]
) -> dict[int, tuple[ToolResultPart, Literal["denied", "external_result"]]]:
    """Check ``decisions`` against the pending calls and return the results they settle
    without running anything (denials and external results), by call index; approved calls
    are absent (they run).

    Raises:
        DecisionError: a pending call without a decision (``missing``), a decision for no
            pending call (``extra``), or a decision of the wrong kind (``mismatched``).
        PauseStateError: (``corrupt``) the state is inconsistent.
    """
    calls = state.calls
    keys = {p.key for p in state.pending}
    missing = keys - set(decisions)
    if missing:
        raise DecisionError(
            f"no decision for pending call(s) {sorted(missing)}", reason="missing", keys=missing
        )
    extra = set(decisions) - keys
    if extra:
        raise DecisionError(
            f"decision(s) for call(s) that are not pending: {sorted(extra)}",
            reason="extra",
            keys=extra,
        )
    wrong = [
        p.key
        for p in state.pending
        if (p.execution == "external" and isinstance(decisions[p.key], Approve))
        or (p.execution == "approval" and isinstance(decisions[p.key], ExternalResult))
    ]
    if wrong:
        raise DecisionError(
            f"Approve answers approval calls and ExternalResult external calls: {wrong}",
            reason="mismatched",
            keys=wrong,
        )
    settled: dict[int, tuple[ToolResultPart, Literal["denied", "external_result"]]] = {}
    for p in state.pending:
        decision = decisions[p.key]
        call = calls[p.index]
        if isinstance(decision, Deny):
            result = ToolResultPart(
                call_id=call.id,
                name=call.name,
                content=(TextPart(text=decision.message),),
                is_error=True,
            )
            settled[p.index] = (result, "denied")
        elif isinstance(decision, ExternalResult):
            result = ToolResultPart(
                call_id=call.id,
                name=call.name,
                content=decision.content,
                is_error=decision.is_error,
            )
            settled[p.index] = (result, "external_result")
    return settled


# --- parsing helpers ------------------------------------------------------------------------


@cache
def _usage_adapter() -> TypeAdapter[Usage]:
    from pydantic import TypeAdapter

    return TypeAdapter(Usage)


@cache
def _settings_adapter() -> TypeAdapter[ModelSettings]:
    from pydantic import TypeAdapter

    return TypeAdapter(ModelSettings)


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def _opt_str(value: Any) -> str | None:
    return None if value is None else _str(value)


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"expected an integer, got {type(value).__name__}")
    return value


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"expected a list, got {type(value).__name__}")
    items: list[Any] = value
    return items


def _object(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"expected an object, got {type(value).__name__}")
    items: dict[str, Any] = value
    return items


def _opt_object(value: Any) -> dict[str, Any] | None:
    return None if value is None else _object(value)


def _counts(value: Any) -> dict[str, int]:
    return {_str(k): _int(v) for k, v in _object(value).items()}


def _pending(value: Any) -> PendingCall:
    item = _object(value)
    execution = item["execution"]
    if execution not in ("approval", "external"):
        raise ValueError(f"unknown execution {execution!r}")
    arguments = _opt_object(item["arguments"])
    return PendingCall(
        key=_str(item["key"]),
        index=_int(item["index"]),
        tool_call_id=_str(item["tool_call_id"]),
        name=_str(item["name"]),
        arguments=arguments,
        raw_arguments=_str(item["raw_arguments"]),
        execution="approval" if execution == "approval" else "external",
        request_id=_str(item.get("request_id", "")),
    )
