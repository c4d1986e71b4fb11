"""The permission gate: the one evaluation order wired into the agent loop (seed 000,
"Permission System"; :mod:`robota.core.gate`).

Decisions are by tool name and declared argument only; residency (whether a tool's schema was
offered or deferred) is never consulted.
"""

from __future__ import annotations

from typing import Any

from robota.core.gate import Allow, Deny, GateVerdict, ToolCallRequest, ToolGate
from robota.core.messages import JsonValue
from robota.core.permissions.context import PermissionCall, PermissionContext
from robota.core.permissions.decision import PermissionDecision
from robota.core.permissions.evaluate import decide_permission
from robota.core.tools.base import Tool

__all__ = ["PermissionGate"]


class PermissionGate(ToolGate):
    """A :class:`~robota.core.gate.ToolGate` that decides each call with
    :func:`~robota.core.permissions.evaluate.decide_permission`.

    * :meth:`offers` returns False for a tool denied outright (a deny rule ``Tool`` or
      ``Tool(*)`` naming it), so the model never sees it.
    * :meth:`before_tool` answers :class:`~robota.core.gate.Allow` or
      :class:`~robota.core.gate.Deny` with ``"Permission denied: <reason>"``. A direct
      invocation (``request.direct``) never opens the approver: an ask is a denial.
    * Every decision is emitted through ``request.emit`` (``permission.decided``, preceded by
      ``permission.requested`` when the approver is asked).

    The context can be replaced between calls (e.g. a mode switch): ``gate.context = ...``.

    Example:
        >>> from pathlib import Path
        >>> gate = PermissionGate(PermissionContext.from_rules(Path("."), deny=["Bash"]))
        >>> gate.context.deny[0].text
        'Bash'
    """

    def __init__(self, context: PermissionContext) -> None:
        self.context = context
        self.last_decision: PermissionDecision | None = None

    def offers(self, tool: Tool) -> bool:
        """False when a deny rule with no pattern (or ``*``) names ``tool``."""
        return not any(
            rule.matches_everything and rule.names_tool(tool.canonical_name)
            for rule in self.context.deny
        )

    def journal_state(self) -> JsonValue:
        """The permission mode, the rule texts, the ceiling, ``ask_everything``, the workspace
        and whether an approver is attached (never who it is): what a continuation compares
        with the journaled run's checkpoint."""
        context = self.context
        ceiling = context.ceiling
        state: dict[str, Any] = {
            "mode": str(context.mode),
            "workspace": str(context.workspace),
            "allow": [rule.text for rule in context.allow],
            "deny": [rule.text for rule in context.deny],
            "ask": [rule.text for rule in context.ask],
            "ceiling": (
                None
                if ceiling is None
                else {
                    "name": ceiling.name,
                    "risks": sorted(str(r) for r in ceiling.risks),
                    "rules": [rule.text for rule in ceiling.rules],
                }
            ),
            "ask_everything": context.ask_everything,
            "approver": context.approver is not None,
        }
        return state

    async def before_tool(self, request: ToolCallRequest) -> GateVerdict:
        """Decide the call; deny becomes :class:`~robota.core.gate.Deny`."""
        decision = await decide_permission(
            PermissionCall.of(request.tool, request.arguments),
            self.context,
            direct=request.direct,
            call_id=request.call_id,
            owner=request.owner,
            emit=request.emit,
        )
        self.last_decision = decision
        if decision.allowed:
            return Allow(effective_risk=decision.risk)
        return Deny(message=f"Permission denied: {decision.reason}")
