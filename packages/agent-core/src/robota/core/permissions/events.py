"""Permission events (seed 000, "Event Architecture", "Permission System"; seed 003: settlement
emits exactly one resolution event).

``permission.requested`` is emitted when a call is put to an approver; ``permission.decided``
once for every decision, whatever answered it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from robota.core.events import Event

__all__ = ["PermissionDecided", "PermissionRequested"]


@dataclass(frozen=True, kw_only=True, slots=True)
class PermissionRequested(Event):
    """A call was put to the approver.

    Attributes:
        tool_name: The tool called.
        call_id: Robota's id of the call ("" outside the agent loop).
        argument: The declared argument's value as text, or None.
        reason: Why the call asks, readable by a person.
        step: The evaluation step that asked (a ``DecisionStep`` value).
    """

    type: ClassVar[str] = "permission.requested"
    tool_name: str
    call_id: str = ""
    argument: str | None = None
    reason: str = ""
    step: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class PermissionDecided(Event):
    """A permission decision was made.

    Attributes:
        tool_name: The tool called.
        call_id: Robota's id of the call ("" outside the agent loop).
        behavior: ``"allow"`` or ``"deny"``.
        step: The evaluation step that decided (a ``DecisionStep`` value).
        reason: Readable reason.
        rule: The rule text that matched, if one did.
        mode: The permission mode in force.
        answered_by: ``"policy"`` or ``"approver"``.
    """

    type: ClassVar[str] = "permission.decided"
    tool_name: str
    call_id: str = ""
    behavior: str = "deny"
    step: str = ""
    reason: str = ""
    rule: str | None = None
    mode: str = "default"
    answered_by: str = "policy"
