"""Durable pre-effect waits of a journaled run (seed 000, "Execution Journal and Continuation":
"Before its effect starts, a tool may save a request for an outside response and suspend the
execution. Requests and responses are durable under stable identities; a response can answer
only its own request, is saved before it is used, and never admits an effect by itself — current
admission still decides").

A response calling an ``approval`` or ``external`` tool (:mod:`robota.core.agent.pause`) saves
one request per such call — under the request id ``"<round>:<index>"`` — before the run
suspends. A response (a :data:`~robota.core.agent.pause.Decision`) is saved before it is used and
only for a request the run saved; an ``Approve`` still goes through every gate when the call
runs. On continuation a wait whose every request has a saved response is answered from the
journal; otherwise the run suspends again without saving anything twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from robota.core.agent.pause import (
    Approve,
    Decision,
    ExternalResult,
    PauseState,
    PendingCall,
    dump_decisions,
    load_decisions,
    settle_decisions,
)
from robota.core.errors import JournalError
from robota.core.journal.checkpoint import ContinuationError
from robota.core.journal.port import AlreadyRecordedError, Journal, JournalRun, WaitRecord
from robota.core.journal.reconcile import ReconciliationError, StateDifference, WaitResponseError
from robota.core.journal.replay import journal_write
from robota.core.messages import JsonValue, ToolResultPart

__all__ = ["JournaledWaits", "encode_response", "respond", "save_response"]

Settled = dict[int, tuple[ToolResultPart, Literal["denied", "external_result"]]]


def encode_response(request_id: str, decision: Decision) -> JsonValue:
    """The saved form of a response: the versioned decisions document with one entry."""
    return dump_decisions({request_id: decision})


def _decode(run_id: str, record: WaitRecord) -> Decision:
    try:
        return load_decisions(record.response)[record.request_id]
    except Exception as exc:  # KeyError, or PauseStateError for an unreadable document
        raise JournalError(
            f"run {run_id}: the saved response to request {record.request_id} is corrupt ({exc})"
        ) from exc


def _kind_fits(record: WaitRecord, decision: Decision) -> bool:
    request = record.request
    execution = request.get("execution") if isinstance(request, dict) else None
    if execution == "external":
        return not isinstance(decision, Approve)
    return not isinstance(decision, ExternalResult)


class JournaledWaits:
    """The saved waits of one journaled run.

    Args:
        journal: The run's journal.
        run_id: The run.
        recorded: What the journal holds for the run (continuation), or None.
    """

    def __init__(self, journal: Journal, run_id: str, recorded: JournalRun | None) -> None:
        self._journal = journal
        self._run_id = run_id
        self._waits: dict[str, WaitRecord] = dict(recorded.waits) if recorded else {}

    def saved(self, pending: Sequence[PendingCall]) -> dict[str, Decision]:
        """The saved responses to ``pending`` calls, by decision key.

        Raises:
            JournalError: a saved response is corrupt.
        """
        out: dict[str, Decision] = {}
        for p in pending:
            record = self._waits.get(p.request_id)
            if record is not None and record.response is not None:
                out[p.key] = _decode(self._run_id, record)
        return out

    def answers(self, state: PauseState) -> Settled | None:
        """The results the saved responses settle when every pending call has one (approved
        calls are absent: they run under current admission), else None.

        Raises:
            JournalError: a saved response is corrupt.
            DecisionError: a saved response does not fit its call.
        """
        saved = self.saved(state.pending)
        if len(saved) < len(state.pending):
            return None
        return settle_decisions(state, saved)

    async def save_requests(self, pending: Sequence[PendingCall]) -> None:
        """Save every request not saved yet, before the run suspends.

        Raises:
            JournalError: a write failed (it wins over the wait).
            ReconciliationError: a request saved under the same id asked something else.
        """
        for p in pending:
            request = p.request()
            record = self._waits.get(p.request_id)
            if record is not None:
                if record.request != request:
                    raise ReconciliationError.drift(
                        self._run_id,
                        [
                            StateDifference(
                                what=f"wait request {p.request_id}",
                                saved=record.request,
                                live=request,
                            )
                        ],
                    )
                continue
            await journal_write(
                f"wait request {p.request_id}",
                self._journal.record_wait_request(self._run_id, p.request_id, request),
            )
            self._waits[p.request_id] = WaitRecord(request_id=p.request_id, request=request)

    async def save_responses(
        self, state: PauseState, decisions: Mapping[str, Decision]
    ) -> dict[str, Decision]:
        """Check ``decisions`` against the saved requests, save the new ones (before they are
        used) and return every decision: the saved ones plus ``decisions``.

        Raises:
            WaitResponseError: a pending call of ``state`` is not a request this run saved
                (``unknown_request``), or a decision differs from the response saved before
                (``already_answered``).
            DecisionError: as :func:`~robota.core.agent.pause.settle_decisions` (checked before
                anything is written).
            JournalError: a write failed.
        """
        for p in state.pending:
            record = self._waits.get(p.request_id)
            if record is None or record.request != p.request():
                raise WaitResponseError(
                    f"run {self._run_id} saved no request {p.request_id!r} for call "
                    f"{p.key!r}; this pause state does not belong to the run's current wait",
                    reason="unknown_request",
                    run_id=self._run_id,
                    request_id=p.request_id,
                )
        saved = self.saved(state.pending)
        by_key = {p.key: p for p in state.pending}
        for key, decision in decisions.items():
            if key in saved and saved[key] != decision:
                raise WaitResponseError(
                    f"request {by_key[key].request_id!r} of run {self._run_id} was answered "
                    "before with a different response; a saved response is never replaced",
                    reason="already_answered",
                    run_id=self._run_id,
                    request_id=by_key[key].request_id,
                )
        merged = {**saved, **decisions}
        settle_decisions(state, merged)  # missing / extra / mismatched, before any write
        for key, decision in decisions.items():
            if key in saved:
                continue
            p = by_key[key]
            await save_response(self._journal, self._run_id, p.request_id, decision)
            record = self._waits[p.request_id]
            self._waits[p.request_id] = WaitRecord(
                request_id=p.request_id,
                request=record.request,
                response=encode_response(p.request_id, decision),
            )
        return merged


def _already_answered(run_id: str, request_id: str) -> WaitResponseError:
    return WaitResponseError(
        f"request {request_id!r} of run {run_id} was answered before with a different "
        "response; a saved response is never replaced",
        reason="already_answered",
        run_id=run_id,
        request_id=request_id,
    )


async def save_response(journal: Journal, run_id: str, request_id: str, decision: Decision) -> bool:
    """Write one response (the caller checked it answers its own request). The write never
    replaces a saved response: when another writer saved one first (e.g. a second host
    answering at the same time), the saved one is read back.

    Returns:
        True when saved now, False when the same response was saved by someone else first.

    Raises:
        WaitResponseError: (``already_answered``) a different response was saved first.
        JournalError: the write failed.
    """
    try:
        await journal_write(
            f"wait response {request_id}",
            journal.record_wait_response(run_id, request_id, encode_response(request_id, decision)),
        )
    except AlreadyRecordedError:
        run = await journal.load_run(run_id)
        record = None if run is None else run.waits.get(request_id)
        if (
            record is not None
            and record.response is not None
            and _decode(run_id, record) == decision
        ):
            return False
        raise _already_answered(run_id, request_id) from None
    return True


async def respond(
    journal: Journal, run: JournalRun | None, run_id: str, request_id: str, decision: Decision
) -> bool:
    """Save ``decision`` as the response to request ``request_id`` of run ``run_id``.

    Returns:
        True when saved now, False when the same response was saved before.

    Raises:
        ContinuationError: (``unknown_run``) the run is not in the journal.
        WaitResponseError: ``finished`` run, ``unknown_request`` (no request of that id was
            saved), ``mismatched`` kind, ``already_answered`` with a different response.
        JournalError: the write failed.
    """
    if run is None:
        raise ContinuationError(
            f"run {run_id} is not in the journal", reason="unknown_run", run_id=run_id
        )
    if run.outcome is not None:
        raise WaitResponseError(
            f"run {run_id} already finished ({run.outcome}); it waits for nothing",
            reason="finished",
            run_id=run_id,
            request_id=request_id,
        )
    record = run.waits.get(request_id)
    if record is None:
        raise WaitResponseError(
            f"run {run_id} saved no request {request_id!r}; a response answers only its own "
            f"request (saved: {sorted(run.waits)})",
            reason="unknown_request",
            run_id=run_id,
            request_id=request_id,
        )
    if not _kind_fits(record, decision):
        raise WaitResponseError(
            f"request {request_id!r} of run {run_id} cannot take a {decision.kind} response",
            reason="mismatched",
            run_id=run_id,
            request_id=request_id,
        )
    if record.response is not None:
        if _decode(run_id, record) == decision:
            return False
        raise _already_answered(run_id, request_id)
    return await save_response(journal, run_id, request_id, decision)
