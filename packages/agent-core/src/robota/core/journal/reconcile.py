"""What continuation refuses to guess (seed 000, "Execution Journal and Continuation": "Whatever
the journal cannot prove — an effect that started without a recorded result, a model call without
a recorded response, runtime state that differs from the saved one — is refused for
reconciliation rather than guessed").

- :class:`ReconciliationError` says exactly what the journal cannot prove: a model call recorded
  as sent without a recorded response (``unrecorded_model_call``), or runtime state that differs
  from the saved checkpoint (``state_drift``: model id, system prompt, offered tool names,
  residency, gate fingerprints such as the permission mode and rules, the agent's settings, or
  the request a replayed model call would send). A host that knows better opts in explicitly
  (``resend_unrecorded_model_call=True`` / ``accept_state_drift=True`` on the continuation).
- :class:`WaitResponseError` refuses a response that does not answer its own saved request.
- :func:`request_digest` is the fingerprint of a model request saved with the call's start.
- :func:`gate_fingerprints` is the fingerprint of the gates saved in the checkpoint.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from robota.core.errors import ErrorCategory, RobotaError
from robota.core.gate import ToolGate
from robota.core.journal.checkpoint import (
    Checkpoint,
    ContinuationError,
    _rebuilt,  # pyright: ignore[reportPrivateUsage]
    messages_json,
    settings_json,
)
from robota.core.messages import JsonValue
from robota.core.provider import ModelRequest
from robota.core.settings import ModelSettings

__all__ = [
    "ReconciliationError",
    "RuntimeState",
    "StateDifference",
    "WaitResponseError",
    "gate_fingerprints",
    "request_digest",
    "state_differences",
]

# message fields that say who answered and what it cost, not what the model is asked
_BOOKKEEPING = frozenset(
    {"usage", "model", "provider", "finish_reason", "raw_finish_reason", "response_id"}
)


@dataclass(frozen=True, kw_only=True, slots=True)
class StateDifference:
    """One thing the live runtime has otherwise than the journal saved.

    Attributes:
        what: What differs (``"model"``, ``"system prompt"``, ``"offered tools"``,
            ``"deferred tools"``, ``"agent settings"``, ``"gates"``, ``"model call <n>
            request"``).
        saved: The saved value (JSON).
        live: The live value (JSON).
    """

    what: str
    saved: JsonValue
    live: JsonValue

    def describe(self) -> str:
        """``what: saved X, live Y`` with compact JSON."""
        return f"{self.what}: saved {_compact(self.saved)}, live {_compact(self.live)}"


class ReconciliationError(ContinuationError):
    """Continuation met something the journal cannot prove and refused it instead of guessing
    (seed 000, "Execution Journal and Continuation").

    Nothing was sent, run or written when it is raised before the continuation starts (an
    unrecorded model call, drift of the saved runtime state); raised during the replay (a
    replayed model call would send a different request) the run stays unfinished in the
    journal, so it can be continued once reconciled.

    Attributes:
        reason: ``unrecorded_model_call`` or ``state_drift``.
        run_id: The run asked for.
        differences: What differs, one entry each.
        steps: For ``unrecorded_model_call``: the model-call steps recorded as sent without a
            recorded response.
    """

    code = "reconciliation_required"
    default_category = ErrorCategory.SYSTEM

    def __init__(
        self,
        message: str,
        *,
        reason: Literal["unrecorded_model_call", "state_drift"],
        run_id: str,
        differences: Sequence[StateDifference] = (),
        steps: Sequence[int] = (),
    ) -> None:
        super().__init__(message, reason=reason, run_id=run_id)
        self.differences = tuple(differences)
        self.steps = tuple(steps)

    @classmethod
    def drift(cls, run_id: str, differences: Sequence[StateDifference]) -> ReconciliationError:
        """The refusal of ``differences`` (a readable message naming each one)."""
        listed = "; ".join(d.describe() for d in differences)
        return cls(
            f"run {run_id}: the runtime state differs from the saved checkpoint ({listed}); "
            "reconcile it, or continue with accept_state_drift=True to accept the live state",
            reason="state_drift",
            run_id=run_id,
            differences=differences,
        )

    @classmethod
    def unrecorded(cls, run_id: str, steps: Sequence[int]) -> ReconciliationError:
        """The refusal of model calls recorded as sent without a recorded response."""
        named = ", ".join(str(s) for s in steps)
        return cls(
            f"run {run_id}: model call {named} was sent and its response was never recorded "
            "(it may have been billed and may have asked for tools); continue with "
            "resend_unrecorded_model_call=True to send it again",
            reason="unrecorded_model_call",
            run_id=run_id,
            steps=steps,
        )


class WaitResponseError(RobotaError):
    """A response that cannot answer a saved pre-effect wait (seed 000: "a response can answer
    only its own request").

    Attributes:
        reason: ``unknown_request`` (the run saved no request of that id — e.g. a response meant
            for another request or another run), ``already_answered`` (a different response was
            saved for it before), ``mismatched`` (an ``Approve`` for an ``external`` request or
            an ``ExternalResult`` for an ``approval`` request), ``finished`` (the run has an
            outcome).
        run_id: The run.
        request_id: The request the response named.
    """

    code = "wait_response_refused"
    default_category = ErrorCategory.USER

    def __init__(
        self,
        message: str,
        *,
        reason: Literal["unknown_request", "already_answered", "mismatched", "finished"],
        run_id: str,
        request_id: str,
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.run_id = run_id
        self.request_id = request_id

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuilt, (type(self), self.args, dict(self.__dict__)))


@dataclass(frozen=True, kw_only=True, slots=True)
class RuntimeState:
    """The live runtime state a continuation compares with the checkpoint.

    Attributes:
        model: The agent's model id.
        system_prompt: The agent's system prompt.
        offered: Names of the tools the agent offers once the checkpoint's residency is
            restored, sorted.
        deferred: Names of the tools that resolve deferred, sorted.
        agent_settings: The agent's own settings.
        gates: :func:`gate_fingerprints` of the agent's gates.
    """

    model: str
    system_prompt: str | None
    offered: tuple[str, ...]
    deferred: tuple[str, ...]
    agent_settings: ModelSettings
    gates: JsonValue


def state_differences(checkpoint: Checkpoint, live: RuntimeState) -> list[StateDifference]:
    """Everything ``live`` has otherwise than ``checkpoint`` saved (fields a version-1
    checkpoint did not save are not compared)."""
    out: list[StateDifference] = []
    if checkpoint.model != live.model:
        out.append(StateDifference(what="model", saved=checkpoint.model, live=live.model))
    if checkpoint.system_prompt != live.system_prompt:
        out.append(
            StateDifference(
                what="system prompt", saved=checkpoint.system_prompt, live=live.system_prompt
            )
        )
    if tuple(sorted(checkpoint.tools)) != live.offered:
        out.append(
            StateDifference(
                what="offered tools", saved=list(checkpoint.tools), live=list(live.offered)
            )
        )
    if checkpoint.deferred is not None and tuple(checkpoint.deferred) != live.deferred:
        out.append(
            StateDifference(
                what="deferred tools", saved=list(checkpoint.deferred), live=list(live.deferred)
            )
        )
    if checkpoint.agent_settings is not None:
        saved = settings_json(checkpoint.agent_settings)
        now = settings_json(live.agent_settings)
        if _canonical(saved) != _canonical(now):
            out.append(StateDifference(what="agent settings", saved=saved, live=now))
    if checkpoint.gates is not None and _canonical(checkpoint.gates) != _canonical(live.gates):
        out.append(StateDifference(what="gates", saved=checkpoint.gates, live=live.gates))
    return out


def gate_fingerprints(gates: Sequence[ToolGate]) -> JsonValue:
    """``[{"gate": "<module>.<class>", "state": gate.journal_state()}, ...]`` in gate order."""
    out: list[JsonValue] = []
    for gate in gates:
        kind = type(gate)
        out.append(
            {"gate": f"{kind.__module__}.{kind.__qualname__}", "state": gate.journal_state()}
        )
    return out


def request_digest(request: ModelRequest) -> JsonValue:
    """The fingerprint of what a model call asks, saved with its start.

    It covers the model id, what every message says (parts, roles, the interrupted flag — not
    who answered or what it cost), the offered tools' definitions, the settings, the structured
    output request and the hosted tools; the payload callback is not part of it.

    Returns:
        ``{"digest": "<sha256 hex>", "model": ..., "tools": [names]}``.
    """
    messages: Any = messages_json(request.messages)
    projected: list[Any] = []
    for message in messages["messages"]:
        projected.append({k: v for k, v in message.items() if k not in _BOOKKEEPING})
    output = request.output
    document = {
        "model": request.model,
        "messages": projected,
        "tools": [
            {
                "name": t.name,
                "description": t.description,
                "parameters": t.parameters,
                "strict": t.strict,
            }
            for t in request.tools
        ],
        "settings": settings_json(request.settings),
        "output": (
            None
            if output is None
            else {
                "name": output.name,
                "schema": output.schema,
                "transport": output.transport,
                "strict": output.strict,
            }
        ),
        "hosted_tools": sorted(str(h) for h in request.hosted_tools),
    }
    digest = hashlib.sha256(_canonical(document).encode()).hexdigest()
    return {"digest": digest, "model": request.model, "tools": [t.name for t in request.tools]}


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _compact(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 200 else text[:197] + "..."
