"""Checks before a journaled run is continued (seed 000, "Execution Journal and Continuation":
whatever the journal cannot prove is refused for reconciliation rather than guessed, and live
history that conflicts with the saved checkpoint is never overwritten)."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from robota.core.journal.checkpoint import Checkpoint, ContinuationError, messages_json
from robota.core.journal.port import JournalRun
from robota.core.messages import Message

__all__ = ["checked_checkpoint"]


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def checked_checkpoint(
    run: JournalRun | None,
    *,
    run_id: str,
    model: str,
    system_prompt: str | None,
    tools: Collection[str],
    output_schema: Mapping[str, Any] | None,
    live_history: Sequence[Message],
) -> Checkpoint:
    """The checkpoint of ``run`` once it is known to be continuable by this agent.

    Args:
        run: What the journal holds (None: unknown run).
        run_id: The run asked for.
        model: The agent's model id.
        system_prompt: The agent's system prompt.
        tools: Names of the tools registered on the agent.
        output_schema: The schema of the output type the host passes for the continuation (None:
            the checkpoint's schema is used as a JSON Schema dict).
        live_history: The agent's history body (without the system head).

    Raises:
        ContinuationError: ``unknown_run``, ``finished`` (an outcome is recorded), ``corrupt``
            (unreadable checkpoint), ``incompatible`` (model, system prompt, a tool of the run
            no longer registered, or a different output schema) or ``conflicting_history``
            (a non-empty live history that differs from the checkpoint's).
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
    if checkpoint.model != model:
        problems.append(f"the run used model {checkpoint.model!r}, the agent has {model!r}")
    if checkpoint.system_prompt != system_prompt:
        problems.append("the agent's system prompt differs from the run's")
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
    return checkpoint
