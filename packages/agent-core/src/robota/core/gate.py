"""The tool-call gate: the seam between the agent loop and the safety layer (seed 000,
"Permission System", "Hook System"; seed 004 gate semantics).

Before a tool body runs, the loop asks each :class:`ToolGate` in order (permissions first, then
hooks). A gate answers :class:`Allow`, :class:`Deny` (the model sees ``Blocked: <reason>`` /
the denial text as an error result; the body never runs) or :class:`Substitute` (the body is
skipped and the given result used; after-hooks still run). Deny beats substitute: the first
deny ends the evaluation. After the body (or substitute), every gate's :meth:`ToolGate.after_tool`
may observe or replace the result.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from robota.core.events import Event, OwnerPath
from robota.core.messages import JsonValue, ToolCallPart, ToolResultPart
from robota.core.tools.base import RiskClass, Tool

__all__ = ["Allow", "Deny", "GateVerdict", "Substitute", "ToolCallRequest", "ToolGate"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCallRequest:
    """One tool call as the gates see it.

    Attributes:
        call: The model's tool call (or a synthesized one for direct invocation).
        tool: The registered tool it names.
        arguments: Validated arguments the body will receive.
        run_id: The run's id.
        call_id: Robota's unique id for this call.
        owner: Owner path of the call (for events).
        direct: True for direct invocation (no model turn); gates must not open interactive
            prompts the way a live model-driven session might.
        emit: Sends an event to the run's observers.
        metadata: Host data for gates (e.g. session id, workspace root).
        round: 1-based round of the run the call belongs to (0 for direct invocation).
        index: 0-based position of the call within its response's batch.
    """

    call: ToolCallPart
    tool: Tool
    arguments: Mapping[str, Any]
    run_id: str
    call_id: str
    owner: OwnerPath = field(default_factory=OwnerPath)
    direct: bool = False
    emit: Callable[[Event], None] = field(default=lambda _e: None)
    metadata: Mapping[str, Any] = field(default_factory=lambda: {})
    round: int = 0
    index: int = 0


@dataclass(frozen=True, kw_only=True, slots=True)
class Allow:
    """Let the call proceed (possibly with changed arguments).

    Attributes:
        arguments: Replacement arguments, or None to keep them.
        effective_risk: The risk class this gate decided the call as (the permission gate sets
            it; e.g. ``INSPECT`` for a read-only shell line). The first gate that sets it wins;
            the tool reads it as :attr:`ToolContext.effective_risk`.
    """

    kind: Literal["allow"] = "allow"
    arguments: Mapping[str, Any] | None = None
    effective_risk: RiskClass | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Deny:
    """Refuse the call; ``message`` is what the model sees as the error result."""

    kind: Literal["deny"] = "deny"
    message: str


@dataclass(frozen=True, kw_only=True, slots=True)
class Substitute:
    """Skip the body and use ``result`` instead."""

    kind: Literal["substitute"] = "substitute"
    result: ToolResultPart


GateVerdict = Allow | Deny | Substitute


class ToolGate:
    """Base class of a gate; the defaults allow everything and change nothing."""

    def offers(self, tool: Tool) -> bool:
        """Return False to withhold ``tool`` from the model entirely (denied outright)."""
        return True

    async def before_tool(self, request: ToolCallRequest) -> GateVerdict:
        """Decide whether the call may run."""
        return Allow()

    async def after_tool(self, request: ToolCallRequest, result: ToolResultPart) -> ToolResultPart:
        """Observe or replace the result."""
        return result

    def journal_state(self) -> JsonValue:
        """A JSON fingerprint of what decides this gate's answers (e.g. the permission mode and
        rules). A journaled run saves it in its checkpoint and a continuation refuses a gate
        whose fingerprint changed (seed 000, "Execution Journal and Continuation": runtime state
        that differs from the saved one is refused). Default None: nothing beyond the gate's
        type."""
        return None

    async def aclose(self) -> None:
        """Release resources (best-effort; must not raise)."""
