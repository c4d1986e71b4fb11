"""Permission modes (seed 000, "Permission System"; names after Claude Code's modes).

The mode decides only by the call's risk class and never by the tool's name:

==============  ============================  ==========================  =====================
mode            inspect                       modify                      execute / undeclared
==============  ============================  ==========================  =====================
default         allow (inside workspace)      —                           —
accept_edits    allow (inside workspace)      allow (inside workspace)    —
plan            allow (inside workspace)      refused unless allow rule   refused unless allow
bypass          allow                         allow                       allow
==============  ============================  ==========================  =====================

"—" means the mode gives no answer: allow rules and remembered consent are consulted, and
otherwise the call asks. "Inside workspace" is judged on the declared path argument (or, for
a command, on the paths the read-only commands name); a call with no path argument counts as
inside. Bypass only answers what is left after deny rules, the ceiling and the always-ask cases
(see :mod:`robota.core.permissions.evaluate`).
"""

from __future__ import annotations

from enum import StrEnum

from robota.core.tools.base import RiskClass

__all__ = ["ModeAnswer", "PermissionMode", "mode_answer"]


class PermissionMode(StrEnum):
    """How much the session lets through without asking."""

    DEFAULT = "default"
    ACCEPT_EDITS = "accept_edits"
    PLAN = "plan"
    BYPASS = "bypass"


class ModeAnswer(StrEnum):
    """What the mode says about a call that reached it."""

    ALLOW = "allow"
    """Proceed without asking."""
    NONE = "none"
    """No answer: allow rules, consent, else ask."""
    REFUSE_UNLESS_ALLOWED = "refuse_unless_allowed"
    """Plan mode about a change: only an explicit allow rule lets it through; an ask is a
    denial."""


def mode_answer(mode: PermissionMode, risk: RiskClass | None, *, inside: bool) -> ModeAnswer:
    """Return the mode's answer for a call.

    Args:
        mode: The session's permission mode.
        risk: The call's effective risk class (None: the tool declared none).
        inside: True when the call's path argument (if any) is inside the workspace.

    Returns:
        A :class:`ModeAnswer` (table in the module docstring).
    """
    if mode is PermissionMode.BYPASS:
        return ModeAnswer.ALLOW
    if risk is RiskClass.INSPECT:
        return ModeAnswer.ALLOW if inside else ModeAnswer.NONE
    if mode is PermissionMode.PLAN:
        return ModeAnswer.REFUSE_UNLESS_ALLOWED
    if mode is PermissionMode.ACCEPT_EDITS and risk is RiskClass.MODIFY and inside:
        return ModeAnswer.ALLOW
    return ModeAnswer.NONE
