"""Checks before a journaled run is continued or a journaled pause is resumed (seed 000,
"Execution Journal and Continuation": whatever the journal cannot prove is refused for
reconciliation rather than guessed, and live history that conflicts with the saved checkpoint is
never overwritten).

Refused, in this order, before anything is sent, run, restored or written:

1. an unknown run (``unknown_run``), a finished one (``finished``), an unreadable checkpoint
   (``corrupt``);
2. an agent that cannot run the run at all (``incompatible``): a tool the run offered is not
   registered, or the output type's schema differs;
3. a non-empty live history that differs from the checkpoint's (``conflicting_history``);
4. a model call recorded as sent without a recorded response
   (:class:`~robota.core.journal.ReconciliationError`, ``unrecorded_model_call``) unless the host
   passed ``resend_unrecorded_model_call=True``;
5. runtime state that differs from the saved one (``state_drift``: model id, system prompt,
   offered tool names once the saved residency is restored, deferred tools, the agent's settings,
   the gates' fingerprints — permission mode and rules among them) unless the host passed
   ``accept_state_drift=True``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from robota.core.agent._waits import JournaledWaits
from robota.core.agent.pause import Decision, PauseState
from robota.core.errors import JournalError
from robota.core.journal.checkpoint import Checkpoint, ContinuationError, messages_json
from robota.core.journal.port import Journal, JournalRun
from robota.core.journal.reconcile import ReconciliationError, RuntimeState, state_differences
from robota.core.messages import Message

__all__ = ["checked_checkpoint", "journaled_decisions", "load_run"]


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


async def load_run(journal: Journal, run_id: str) -> JournalRun | None:
    """``journal.load_run(run_id)`` with a read failure as :class:`JournalError`."""
    try:
        return await journal.load_run(run_id)
    except JournalError:
        raise
    except Exception as exc:
        raise JournalError(f"journal read failed for run {run_id}: {exc}") from exc


def checked_checkpoint(
    run: JournalRun | None,
    *,
    run_id: str,
    tools: Collection[str],
    output_schema: Mapping[str, Any] | None,
    live_history: Sequence[Message],
    runtime: Callable[[tuple[str, ...]], RuntimeState],
    resend_unrecorded_model_call: bool = False,
    accept_state_drift: bool = False,
    from_step: int = 0,
) -> Checkpoint:
    """The checkpoint of ``run`` once it is known to be continuable by this agent.

    Args:
        run: What the journal holds (None: unknown run).
        run_id: The run asked for.
        tools: Names of the tools registered on the agent.
        output_schema: The schema of the output type the host passes for the continuation (None:
            the checkpoint's schema is used as a JSON Schema dict).
        live_history: The agent's history body (without the system head), or None to skip the
            comparison (a resumed pause compares its own state instead).
        runtime: The agent's runtime state once the given residency (loaded tools) is restored.
        resend_unrecorded_model_call: Accept model calls recorded as sent without a response
            (they are sent again).
        accept_state_drift: Accept runtime state that differs from the saved one.
        from_step: Only model calls from this step on matter (a resumed pause continues
            there).

    Raises:
        ContinuationError: ``unknown_run``, ``finished`` (an outcome is recorded), ``corrupt``
            (unreadable checkpoint), ``incompatible`` (a tool of the run no longer registered,
            or a different output schema) or ``conflicting_history`` (a non-empty live history
            that differs from the checkpoint's).
        ReconciliationError: ``unrecorded_model_call`` or ``state_drift`` (see the module
            docstring).
    """
    if run is None:
        raise ContinuationError(
            f"run {run_id} is not in the journal", reason="unknown_run", run_id=run_id
        )
    if run.outcome is not None:
        raise ContinuationError(
            f"run {run_id} already finished ({run.outcome}); only an unfinished run continues",
            reason="finished",
            run_id=run_id,
        )
    checkpoint = Checkpoint.from_json(run.checkpoint, run_id=run_id)
    problems: list[str] = []
    missing = sorted(set(checkpoint.tools) - set(tools))
    if missing:
        problems.append(f"tools of the run are not registered: {', '.join(missing)}")
    if output_schema is not None and _canonical(dict(output_schema)) != _canonical(
        checkpoint.output_schema
    ):
        problems.append("the output type's schema differs from the run's")
    if problems:
        raise ContinuationError(
            f"run {run_id} cannot continue on this agent: {'; '.join(problems)}",
            reason="incompatible",
            run_id=run_id,
        )
    if live_history and messages_json(tuple(live_history)) != messages_json(checkpoint.history):
        raise ContinuationError(
            f"run {run_id}: the agent's live history differs from the saved checkpoint and is "
            "never overwritten; continue on an agent with an empty history or the same history",
            reason="conflicting_history",
            run_id=run_id,
        )
    unrecorded = [s for s in run.unrecorded_model_calls if s >= from_step]
    if unrecorded and not resend_unrecorded_model_call:
        raise ReconciliationError.unrecorded(run_id, unrecorded)
    differences = state_differences(checkpoint, runtime(checkpoint.loaded))
    if differences and not accept_state_drift:
        raise ReconciliationError.drift(run_id, differences)
    return checkpoint


async def journaled_decisions(
    journal: Journal,
    state: PauseState,
    decisions: Mapping[str, Decision],
    *,
    tools: Collection[str],
    runtime: Callable[[tuple[str, ...]], RuntimeState],
    resend_unrecorded_model_call: bool,
    accept_state_drift: bool,
) -> tuple[JournalRun, dict[str, Decision]]:
    """Check a journaled pause against its journal and save its responses before use.

    The run must be continuable (:func:`checked_checkpoint`, model calls from the pause on),
    the state's history must start with the checkpoint's, and every pending call must be a
    request the run saved.

    Returns:
        The run as the journal holds it once the responses are saved, and every decision (the
        responses saved before plus ``decisions``).

    Raises:
        ContinuationError, ReconciliationError: as :func:`checked_checkpoint`;
            ``conflicting_history`` for a state whose history does not start with the
            checkpoint's.
        WaitResponseError, DecisionError, JournalError: as
            :meth:`~robota.core.agent._waits.JournaledWaits.save_responses`.
    """
    run = await load_run(journal, state.run_id)
    checkpoint = checked_checkpoint(
        run,
        run_id=state.run_id,
        tools=tools,
        output_schema=None,
        live_history=(),
        runtime=runtime,
        resend_unrecorded_model_call=resend_unrecorded_model_call,
        accept_state_drift=accept_state_drift,
        from_step=state.rounds,
    )
    assert run is not None
    head = state.history[: len(checkpoint.history)]
    if messages_json(head) != messages_json(checkpoint.history):
        raise ContinuationError(
            f"run {state.run_id}: the pause state's history does not start with the saved "
            "checkpoint's history",
            reason="conflicting_history",
            run_id=state.run_id,
        )
    merged = await JournaledWaits(journal, state.run_id, run).save_responses(state, decisions)
    return await load_run(journal, state.run_id) or run, merged
