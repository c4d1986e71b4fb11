"""Hooks at the point where a person would be asked (seed 000, "Hook System" and "Permission
System": an ask resolves to a person where an approver is attached).

Two adapters, both built around a permission :data:`~robota.core.permissions.Approver` (the
session's prompt registry, a CLI prompt, ...):

* :func:`hooked_approver` wraps that approver so every question first fires
  ``PermissionRequest`` — the event's fire site (see
  :data:`~robota.core.hooks.events.POSTURE`). A hook's deny, or a hook error (the event
  enforces: it fails closed), answers ``deny`` and nobody is asked. A hook that *stated* allow
  outright (:attr:`HookAllow.stated <robota.core.hooks.outcome.HookAllow.stated>`) answers
  ``allow_once`` — except for an always-ask question (catastrophic removal, trust-widening
  write, an explicit ask rule, a hook's own ask), which reaches a person every time. Otherwise
  ``Notification`` (``notification_type="permission_prompt"``, advisory) is fired and the
  person is asked.
* :func:`hook_ask_approver` turns the same approver into the
  :data:`~robota.core.hooks.gate.Approver` a :class:`~robota.core.hooks.gate.HookGate` calls
  when a ``PreToolUse`` hook answers "ask", so a hook's ask reaches a person where one is
  attached. A hook's ask is an always-ask question: a remembered consent never answers it and
  an ``allow_session`` answer is not remembered.

Example:
    >>> import anyio
    >>> from robota.core.hooks import HookRunner
    >>> from robota.core.permissions import Approval
    >>> async def person(request):
    ...     return Approval(kind="allow_once")
    >>> approver = hooked_approver(HookRunner(), person)
    >>> callable(approver)
    True
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, cast

from robota.core.gate import ToolCallRequest
from robota.core.hooks.events import HookEventName, NotificationInput, PermissionRequestInput
from robota.core.hooks.gate import Approver as HookApprover
from robota.core.hooks.runner import HookRunner
from robota.core.messages import JsonValue
from robota.core.permissions.context import PermissionCall
from robota.core.permissions.decision import (
    Approval,
    Approver,
    Behavior,
    DecisionStep,
    PermissionDecision,
    PermissionRequest,
)
from robota.core.permissions.modes import PermissionMode

__all__ = ["hook_ask_approver", "hooked_approver"]

_HOOK_DENY_PREFIX = "Blocked by PermissionRequest hook: "


def _tool_input(arguments_text: str) -> dict[str, JsonValue]:
    try:
        parsed: object = json.loads(arguments_text) if arguments_text else {}
    except ValueError:
        return {}
    if not isinstance(parsed, Mapping):
        return {}
    return {str(k): v for k, v in cast(Mapping[str, JsonValue], parsed).items()}


def hooked_approver(
    runner: HookRunner,
    approver: Approver,
    *,
    session_id: str = "",
    cwd: str = "",
) -> Approver:
    """Wrap ``approver`` so ``PermissionRequest`` and ``Notification`` hooks fire first.

    Args:
        runner: The hooks (when it has none for either event, ``approver`` is called as is).
        approver: Who answers when no hook does (a person, through the host).
        session_id: ``session_id`` of the hook inputs when the request carries none.
        cwd: ``cwd`` of the hook inputs (the session's workspace).

    Returns:
        An approver: ``deny`` for a hook deny or hook error, ``allow_once`` for a stated hook
        allow on a question that is not always-ask, else the wrapped approver's answer.
    """

    async def approve(request: PermissionRequest) -> Approval:
        common: dict[str, Any] = {
            "session_id": request.session_id or session_id,
            "cwd": cwd,
            "permission_mode": request.decision.mode.value,
        }
        if runner.has_hooks(HookEventName.PERMISSION_REQUEST):
            outcome = await runner.dispatch(
                HookEventName.PERMISSION_REQUEST,
                PermissionRequestInput(
                    tool_name=request.tool_name,
                    tool_input=_tool_input(request.arguments_text),
                    tool_use_id=request.call_id,
                    reason=request.reason,
                    **common,
                ),
            )
            if outcome.blocked:
                return Approval(kind="deny", message=f"{_HOOK_DENY_PREFIX}{outcome.reason}")
            if outcome.approved and not request.decision.always_ask:
                return Approval(kind="allow_once")
        if runner.has_hooks(HookEventName.NOTIFICATION):
            await runner.dispatch(
                HookEventName.NOTIFICATION,
                NotificationInput(
                    message=f"Robota needs your permission to use {request.tool_name}",
                    notification_type="permission_prompt",
                    **common,
                ),
            )
        return await approver(request)

    return approve


def hook_ask_approver(
    approver: Approver,
    *,
    session_id: str = "",
    mode: Callable[[], PermissionMode] | None = None,
) -> HookApprover:
    """The :class:`~robota.core.hooks.gate.HookGate` approver that puts a hook's ask to
    ``approver`` (a person where one is attached).

    Args:
        approver: The permission approver (e.g. the session's prompt registry, possibly wrapped
            by :func:`hooked_approver`).
        session_id: The session id shown with the question.
        mode: Returns the permission mode in force (shown with the question); default mode
            when None.

    Returns:
        ``async (request, reason) -> bool``: True only for an ``allow_once`` /
        ``allow_session`` answer; an approver that raises means False (deny).
    """

    async def approve(request: ToolCallRequest, reason: str) -> bool:
        call = PermissionCall.of(request.tool, request.arguments)
        decision = PermissionDecision(
            behavior=Behavior.ASK,
            step=DecisionStep.ASK_RULE,
            reason=f"a PreToolUse hook asks: {reason}",
            tool_name=call.tool_name,
            argument=call.value_text,
            mode=mode() if mode is not None else PermissionMode.DEFAULT,
            always_ask=True,
            risk=request.tool.risk,
        )
        question = PermissionRequest(
            tool_name=call.tool_name,
            argument=call.value_text,
            arguments_text=json.dumps(dict(request.arguments), default=str, sort_keys=True),
            reason=decision.reason,
            decision=decision,
            call_id=request.call_id,
            session_id=session_id,
        )
        try:
            answer = await approver(question)
        except Exception:  # an approver that fails means deny (seed 003)
            return False
        return isinstance(answer, Approval) and answer.kind in ("allow_once", "allow_session")

    return approve
