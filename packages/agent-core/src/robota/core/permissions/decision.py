"""Permission decisions as values (seed 000, "Permission System"; CONVENTIONS: policy answers
are returned, never raised)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from robota.core.permissions.modes import PermissionMode
from robota.core.tools.base import RiskClass

__all__ = [
    "Approval",
    "Approver",
    "Behavior",
    "DecisionStep",
    "PermissionDecision",
    "PermissionRequest",
]


class Behavior(StrEnum):
    """What a decision says. ``ASK`` appears only before the ask is resolved."""

    ALLOW = "allow"
    DENY = "deny"
    ASK = "ask"


class DecisionStep(StrEnum):
    """Which step of the one evaluation order produced the answer (see ``docs/guides/permissions.md``)."""

    DENY_RULE = "deny_rule"
    CEILING = "ceiling"
    UNEVALUABLE_RULE = "unevaluable_rule"
    ASK_RULE = "ask_rule"
    CATASTROPHIC = "catastrophic"
    TRUST_WIDENING = "trust_widening"
    ASK_EVERYTHING = "ask_everything"
    MODE = "mode"
    ALLOW_RULE = "allow_rule"
    CONSENT = "consent"
    PLAN_REFUSAL = "plan_refusal"
    NO_RULE = "no_rule"
    APPROVER = "approver"
    APPROVER_FAILED = "approver_failed"
    NO_APPROVER = "no_approver"
    DIRECT = "direct"


@dataclass(frozen=True, kw_only=True, slots=True)
class PermissionDecision:
    """The answer for one call.

    Attributes:
        behavior: allow, deny, or ask (unresolved).
        step: The step that decided.
        reason: A sentence a person can read.
        tool_name: The tool called.
        argument: The declared argument's value as text, or None.
        mode: The permission mode in force.
        rule: The text of the rule that matched, if one did.
        always_ask: True when no remembered consent could have answered this ask.
        asked_because: For a resolved ask: the step that made it ask.
        risk: The call's effective risk class: the tool's own, or ``INSPECT`` for a read-only
            command line of a tool whose sandbox enforces it (None: undeclared).
    """

    behavior: Behavior
    step: DecisionStep
    reason: str
    tool_name: str
    argument: str | None = None
    mode: PermissionMode = PermissionMode.DEFAULT
    rule: str | None = None
    always_ask: bool = False
    asked_because: DecisionStep | None = None
    risk: RiskClass | None = None

    @property
    def allowed(self) -> bool:
        """True when the call may run."""
        return self.behavior is Behavior.ALLOW


@dataclass(frozen=True, kw_only=True, slots=True)
class PermissionRequest:
    """What an approver is shown.

    Attributes:
        tool_name: The tool called.
        argument: The declared argument's full value as text, or None.
        arguments_text: All arguments as JSON text (what the call would receive).
        reason: Why the call asks.
        decision: The unresolved (ask) decision.
        call_id: Robota's id of the call ("" outside the agent loop).
        session_id: The session whose consent store an ``allow_session`` answer goes to.
    """

    tool_name: str
    argument: str | None
    arguments_text: str
    reason: str
    decision: PermissionDecision
    call_id: str = ""
    session_id: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class Approval:
    """An approver's answer.

    Attributes:
        kind: ``allow_once``; ``allow_session`` (remember for the session, unless the ask was an
            always-ask case); ``deny``.
        message: For ``deny``: what the model is told (a default is used when None).
        pattern: For ``allow_session``: a pattern to remember instead of the exact argument.
    """

    kind: Literal["allow_once", "allow_session", "deny"]
    message: str | None = None
    pattern: str | None = None


Approver = Callable[[PermissionRequest], Awaitable[Approval]]
"""An async callable that puts a request to a person. Raising counts as ``deny``."""
