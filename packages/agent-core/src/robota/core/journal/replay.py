"""Journaling and replay: the provider decorator and the tool ledger that make a run recoverable
(seed 000, "Execution Journal and Continuation").

:class:`JournaledProvider` records that a model call is being sent (with a digest of its
request), then its response before the loop uses it; on continuation it answers settled calls
from the journal without calling the provider — after checking that the replayed request is the
one recorded — and refuses a call recorded as sent without a response
(:class:`~robota.core.journal.reconcile.ReconciliationError`) unless the host opted into
sending it again.

:class:`ToolJournal` is consulted by the tool runner *before* any gate: a call whose start and
result are journaled is answered from the journal (no approver, permission gate or hook is asked
again, and the residency the call left is restored); a call whose start is journaled without a
result is reported with :data:`INTERRUPTED_EFFECT_TEXT` — never run again, unless the tool
declared itself ``idempotent``, in which case it runs again under the admission journaled with
its start. A new call is decided by the gates and its start is journaled together with that
:class:`Admission` (the verdict, the arguments it runs with, the effective risk the permission
decision chose, the permission decisions) before its effect; its result is journaled after.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import anyio
from robota.core.errors import JournalError
from robota.core.events import Event
from robota.core.journal.codec import decode_response, decode_result, encode_response, encode_result
from robota.core.journal.port import Journal, JournalRun, ToolRecord
from robota.core.journal.reconcile import ReconciliationError, StateDifference, request_digest
from robota.core.messages import JsonValue, TextPart, ToolCallPart, ToolResultPart
from robota.core.provider import (
    DelegatingProvider,
    ModelRequest,
    Provider,
    ResponseCompleted,
    StreamEvent,
)
from robota.core.tools.base import RiskClass

__all__ = [
    "INTERRUPTED_EFFECT_TEXT",
    "Admission",
    "JournaledProvider",
    "Residency",
    "ToolJournal",
    "journal_write",
]

INTERRUPTED_EFFECT_TEXT = (
    "interrupted: this tool call started before a crash and its result was not recorded; "
    "it was not run again"
)
"""Neutral result text for an effect that started but has no recorded result (its outcome is
unknown)."""


async def journal_write(what: str, coro: Any) -> None:
    """Await one journal write, shielded from cancellation (a persistence failure stays a
    failure even when cancellation races it, seed 000 "Cancellation Contract").

    Raises:
        JournalError: the write failed (any other exception is wrapped, with ``what`` named).
    """
    with anyio.CancelScope(shield=True):
        try:
            await coro
        except JournalError:
            raise
        except Exception as exc:
            raise JournalError(
                f"journal write failed ({what}): {type(exc).__name__}: {exc}"
            ) from exc


class JournaledProvider(DelegatingProvider):
    """Wraps a provider so every model call is journaled before it is sent and its response
    before use, and settled calls are replayed on continuation.

    Args:
        inner: The real provider.
        journal: Where calls are recorded.
        run_id: The run being journaled.
        recorded: What the journal holds for this run (continuation), or None.
        first_step: Step of the first call this wrapper makes (a resumed pause continues the
            run's count).
        resend_unrecorded: Send again a call recorded as sent without a response (the host
            opted in); otherwise it is refused with ``ReconciliationError``.
        check_requests: Refuse a replayed call whose request differs from the recorded one
            (False when the host accepted state drift).
    """

    def __init__(
        self,
        inner: Provider,
        journal: Journal,
        run_id: str,
        recorded: JournalRun | Mapping[int, JsonValue] | None = None,
        *,
        first_step: int = 0,
        resend_unrecorded: bool = False,
        check_requests: bool = True,
    ) -> None:
        super().__init__(inner)
        self._journal = journal
        self._run_id = run_id
        if isinstance(recorded, JournalRun):
            self._recorded = dict(recorded.responses)
            self._starts = dict(recorded.model_starts)
        else:
            self._recorded = dict(recorded or {})
            self._starts: dict[int, JsonValue] = {}
        self._step = first_step
        self._resend = resend_unrecorded
        self._check = check_requests
        self.replayed = 0
        """How many model calls were answered from the journal."""

    async def aclose(self) -> None:
        """Nothing to release: the inner provider is not owned by this wrapper."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Answer from the journal, or record the start, call the inner provider and record the
        response before yielding it.

        Raises:
            ReconciliationError: ``state_drift`` when a replayed call's request differs from the
                recorded one; ``unrecorded_model_call`` for a call recorded as sent without a
                response (unless ``resend_unrecorded``).
            JournalError: a write failed or a recorded response is corrupt.
        """
        step = self._step
        self._step += 1
        digest = request_digest(request)
        if step in self._recorded:
            saved = self._starts.get(step)
            if self._check and saved is not None and _digest(saved) != _digest(digest):
                raise ReconciliationError.drift(
                    self._run_id,
                    [StateDifference(what=f"model call {step} request", saved=saved, live=digest)],
                )
            try:
                response = decode_response(self._recorded[step])
            except ValueError as exc:
                raise JournalError(
                    f"run {self._run_id}: recorded response {step} is corrupt"
                ) from exc
            self.replayed += 1
            yield ResponseCompleted(response=response)
            return
        if step in self._starts and not self._resend:
            raise ReconciliationError.unrecorded(self._run_id, [step])
        await journal_write(
            f"model start {step}", self._journal.record_model_start(self._run_id, step, digest)
        )
        async for event in self.inner.stream(request):
            if isinstance(event, ResponseCompleted):
                await journal_write(
                    f"response {step}",
                    self._journal.record_response(
                        self._run_id, step, encode_response(event.response)
                    ),
                )
            yield event


def _digest(value: JsonValue) -> object:
    return value.get("digest") if isinstance(value, dict) else value


class Residency(Protocol):
    """The residency state a run changes (``ToolCatalog`` is one)."""

    @property
    def loaded(self) -> tuple[str, ...]:
        """Deferred tools loaded so far, in load order."""
        ...

    def load(self, names: Iterable[str]) -> list[str]:
        """Load deferred tools; returns the names newly loaded."""
        ...


@dataclass(frozen=True, kw_only=True, slots=True)
class Admission:
    """What decided one tool call, journaled with its start.

    Attributes:
        verdict: ``allow`` (the body runs), ``deny`` (it never runs; ``message`` is the result
            text), ``substitute`` (it never runs; ``result`` is used).
        arguments: The arguments the body runs with, after every gate's changes.
        effective_risk: The risk class the permission decision chose (e.g. the sandbox
            profile of a read-only shell line), or None.
        message: The denial text (``deny``).
        result: The substitute result (``substitute``).
        decisions: The permission decisions made for the call (``permission.decided`` event
            fields: behavior, step, mode, rule, answered_by, reason).
    """

    verdict: Literal["allow", "deny", "substitute"]
    arguments: Mapping[str, Any]
    effective_risk: RiskClass | None = None
    message: str | None = None
    result: ToolResultPart | None = None
    decisions: tuple[Mapping[str, JsonValue], ...] = ()

    def to_json(self, call: ToolCallPart) -> JsonValue:
        """The admission document, with the model's call it answers."""
        document: Any = {
            "verdict": self.verdict,
            "effective_risk": str(self.effective_risk) if self.effective_risk else None,
            "message": self.message,
            "result": encode_result(self.result) if self.result is not None else None,
            "decisions": [dict(d) for d in self.decisions],
            "call": _call_identity(call),
        }
        return document

    @classmethod
    def from_record(cls, record: ToolRecord) -> Admission | None:
        """The admission journaled with ``record``'s start, or None when it has none.

        Raises:
            JournalError: the admission document is corrupt.
        """
        value = record.admission
        if not isinstance(value, dict):
            return None
        try:
            verdict = value["verdict"]
            if verdict not in ("allow", "deny", "substitute"):
                raise ValueError(f"unknown verdict {verdict!r}")
            risk = value.get("effective_risk")
            result = value.get("result")
            message = value.get("message")
            arguments: Any = record.arguments if isinstance(record.arguments, dict) else {}
            decisions: Any = value.get("decisions") or []
            return cls(
                verdict=verdict,
                arguments=arguments,
                effective_risk=RiskClass(risk) if isinstance(risk, str) else None,
                message=message if isinstance(message, str) else None,
                result=decode_result(result) if result is not None else None,
                decisions=tuple(decisions),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise JournalError(f"tool record {record.key}: admission is corrupt ({exc})") from exc


def _call_identity(call: ToolCallPart) -> JsonValue:
    arguments: Any = dict(call.arguments) if call.arguments is not None else None
    return {"id": call.id, "name": call.name, "arguments": arguments}


def decision_fields(event: Event) -> Mapping[str, JsonValue] | None:
    """The JSON fields of a ``*.decided`` event (owner and call id left out), else None."""
    if not event.type.endswith(".decided") or not dataclasses.is_dataclass(event):
        return None
    out: dict[str, JsonValue] = {"type": event.type}
    for f in dataclasses.fields(event):
        if f.name in ("owner", "call_id"):
            continue
        value = getattr(event, f.name)
        if value is None or isinstance(value, str | int | float | bool):
            out[f.name] = value
        else:
            out[f.name] = str(value)
    return out


class ToolJournal:
    """The journal's side of tool execution for one run: answers settled calls on continuation
    and records new ones (admission with the start, residency and result after the effect).

    The tool runner consults it before any gate.

    Args:
        journal: Where tool calls are recorded.
        run_id: The run being journaled.
        recorded: What the journal holds for this run (continuation), or None.
        residency: The agent's residency state (restored from residency records as calls are
            answered; changes are journaled before a call's result), or None.
    """

    def __init__(
        self,
        journal: Journal,
        run_id: str,
        recorded: JournalRun | None = None,
        residency: Residency | None = None,
    ) -> None:
        self._journal = journal
        self._run_id = run_id
        self._records: dict[str, ToolRecord] = dict(recorded.tools) if recorded else {}
        self._residency_records = dict(recorded.residency) if recorded else {}
        self._residency = residency
        self._seen: tuple[str, ...] = residency.loaded if residency is not None else ()
        self.replayed = 0
        """Calls answered from the journal."""
        self.interrupted = 0
        """Calls reported with :data:`INTERRUPTED_EFFECT_TEXT` (unknown outcome)."""

    @staticmethod
    def key(round: int, index: int) -> str:
        """The call's stable key within the run: ``"<round>:<index>"``."""
        return f"{round}:{index}"

    def answer(self, round: int, index: int, call: ToolCallPart) -> ToolResultPart | None:
        """The journal's answer to a call it settled, else None.

        Settled: a start with a recorded result, or a start whose admission refused the call
        (``deny``/``substitute``: no effect can have happened). The residency the call left is
        restored.

        Raises:
            ReconciliationError: the record under this key answers a different call.
            JournalError: the record is corrupt.
        """
        key = self.key(round, index)
        record = self._records.get(key)
        if record is None:
            return None
        admission = self._checked(record, call)
        result: ToolResultPart | None = None
        if record.result is not None:
            try:
                result = decode_result(record.result)
            except ValueError as exc:
                raise JournalError(f"run {self._run_id}: tool result {key} is corrupt") from exc
        elif admission is not None and admission.verdict == "deny":
            text = admission.message or "denied"
            result = ToolResultPart(
                call_id=call.id, name=call.name, content=(TextPart(text=text),), is_error=True
            )
        elif admission is not None and admission.verdict == "substitute":
            result = admission.result
        if result is None:
            return None
        self.replayed += 1
        self._restore_residency(key)
        return ToolResultPart(
            call_id=call.id, name=call.name, content=result.content, is_error=result.is_error
        )

    def started(self, round: int, index: int, call: ToolCallPart) -> ToolRecord | None:
        """The record of a call whose effect started without a recorded result, else None.

        Raises:
            ReconciliationError: the record under this key answers a different call.
        """
        record = self._records.get(self.key(round, index))
        if record is None or record.result is not None:
            return None
        self._checked(record, call)
        return record

    def unknown_outcome(self, call: ToolCallPart) -> ToolResultPart:
        """The result reported for an effect that started without a recorded result."""
        self.interrupted += 1
        return ToolResultPart(
            call_id=call.id,
            name=call.name,
            content=(TextPart(text=INTERRUPTED_EFFECT_TEXT),),
            is_error=True,
        )

    async def record_start(
        self,
        round: int,
        index: int,
        call: ToolCallPart,
        tool_name: str,
        admission: Admission,
    ) -> None:
        """Journal the call's start with its admission, before its effect.

        Raises:
            JournalError: the write failed.
        """
        key = self.key(round, index)
        arguments: Any = dict(admission.arguments)
        await journal_write(
            f"tool start {key}",
            self._journal.record_tool_admitted(
                self._run_id, key, tool_name, arguments, admission.to_json(call)
            ),
        )
        self._records[key] = ToolRecord(
            key=key, tool_name=tool_name, arguments=arguments, admission=admission.to_json(call)
        )

    async def record_result(self, round: int, index: int, result: ToolResultPart) -> None:
        """Journal the residency the call changed (if it did), then its result.

        Raises:
            JournalError: a write failed.
        """
        key = self.key(round, index)
        if self._residency is not None:
            loaded = self._residency.loaded
            if loaded != self._seen:
                await journal_write(
                    f"residency {key}",
                    self._journal.record_residency(self._run_id, key, loaded),
                )
                self._seen = loaded
        encoded = encode_result(result)
        await journal_write(
            f"tool result {key}",
            self._journal.record_tool_result(self._run_id, key, encoded),
        )
        record = self._records.get(key)
        if record is not None:
            self._records[key] = dataclasses.replace(record, result=encoded)

    def _restore_residency(self, key: str) -> None:
        names = self._residency_records.get(key)
        if names and self._residency is not None:
            self._residency.load(names)
            self._seen = self._residency.loaded

    def _checked(self, record: ToolRecord, call: ToolCallPart) -> Admission | None:
        admission = Admission.from_record(record)
        if isinstance(record.admission, dict):
            saved = record.admission.get("call")
            live = _call_identity(call)
            if saved is not None and saved != live:
                raise ReconciliationError.drift(
                    self._run_id,
                    [StateDifference(what=f"tool call {record.key}", saved=saved, live=live)],
                )
        return admission
