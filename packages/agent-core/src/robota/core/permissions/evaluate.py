"""The one evaluation order (seed 000, "Permission System").

Every caller — interactive session, background task, subagent, direct invocation — goes
through :func:`evaluate_permission` (policy only) and :func:`decide_permission` (policy, then
the approver). The order, first answer wins:

1. **Deny rules** → deny. Nothing later softens it, bypass included.
2. **Ceiling**: a call outside the caller's ceiling → deny (refused, never asked).
3. **Always ask** (no remembered consent answers these, in any mode, bypass included):
   a deny/ask rule that cannot be evaluated; an ask rule that matches; a catastrophic removal;
   a trust-widening write (:mod:`~robota.core.permissions.hazards`).
4. **ask_everything** flag → ask.
5. **Mode** (:mod:`~robota.core.permissions.modes`): may allow; plan mode marks a change as
   refused unless an allow rule matches.
6. **Allow rules**, then **remembered consent** → allow. In plan mode a change is answered by
   an allow rule only: remembered consent is not consulted for it.
7. Otherwise ask; in plan mode an ask about a non-inspect call is a denial.

An ask is resolved by the approver when one is attached (``allow_once``/``allow_session``/
``deny``; an approver that raises means deny) and is a denial when none is, or when the call
is a direct invocation.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

from robota.core.events import Event, OwnerPath
from robota.core.host.errors import InvalidPathError
from robota.core.host.paths import canonical_path
from robota.core.permissions._outcome import Direction, Match
from robota.core.permissions._readonly import is_read_only_line
from robota.core.permissions._shell import ParsedLine, parse_line, process_view
from robota.core.permissions.consent import ConsentGrant
from robota.core.permissions.context import PermissionCall, PermissionContext
from robota.core.permissions.decision import (
    Approval,
    Behavior,
    DecisionStep,
    PermissionDecision,
    PermissionRequest,
)
from robota.core.permissions.events import PermissionDecided, PermissionRequested
from robota.core.permissions.hazards import catastrophic_removal, widens_trust
from robota.core.permissions.match_command import match_command
from robota.core.permissions.match_path import argument_paths, match_path, path_inside
from robota.core.permissions.match_text import match_text
from robota.core.permissions.match_url import match_url
from robota.core.permissions.modes import ModeAnswer, PermissionMode, mode_answer
from robota.core.permissions.rules import (
    PermissionRule,
    PermissionRuleError,
    RuleBehavior,
    parse_rule,
)
from robota.core.tools.base import ArgumentKind, RiskClass

__all__ = ["decide_permission", "evaluate_permission", "match_rule"]

_PARAMETER_RULE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):(.*)$", re.DOTALL)


class _Facts:
    """What the evaluator works out once per call."""

    def __init__(self, call: PermissionCall, context: PermissionContext) -> None:
        self.workspace = _canonical(context.workspace)
        self.home = _canonical(context.home if context.home is not None else Path.home())
        kind = call.argument.kind if call.argument is not None else None
        value = call.value
        self.line: ParsedLine | None = None
        self.line_parsed = False
        if kind is ArgumentKind.COMMAND and isinstance(value, str):
            self.line = parse_line(value)
            self.line_parsed = True
        self.cwd = self.workspace
        argument = call.argument
        if argument is not None and argument.cwd_key is not None:
            requested = call.arguments.get(argument.cwd_key)
            try:
                self.cwd = _call_cwd(requested, self.workspace)
            except Exception:  # a cwd the gate cannot resolve is no cwd it can judge from
                self.cwd = None
            if isinstance(requested, str) and process_view(str(self.workspace / requested)):
                self.cwd = None  # /proc/self/cwd means another folder to the shell
        self.risk = call.risk
        if (
            self.line_parsed
            and argument is not None
            and argument.sandboxed_inspect
            and self.cwd is not None
            and self._read_only(self.line, self.cwd, dict(argument.environment))
        ):
            self.risk = RiskClass.INSPECT
        self.inside = True
        if kind is ArgumentKind.PATH:
            try:
                self.inside = path_inside(value, workspace=self.workspace, home=self.home)
            except Exception:  # a path that cannot be canonicalized is not inside
                self.inside = False

    def _read_only(self, line: ParsedLine | None, cwd: Path, overrides: dict[str, str]) -> bool:
        """The read-only classification, judged in the environment the command runs with
        (``os.environ`` and the tool's overrides); any failure while classifying means not
        inspect."""
        try:
            return is_read_only_line(
                line,
                workspace=self.workspace,
                home=self.home,
                cwd=cwd,
                environ={**os.environ, **overrides},
            )
        except Exception:
            return False


def _call_cwd(value: object, workspace: Path) -> Path | None:
    """The canonical working directory a command call names, or None when it is not a
    directory inside the workspace (then no read-only fast path: the call is judged as is)."""
    if value is None:
        return workspace
    if not isinstance(value, str) or "\x00" in value:
        return None
    try:
        path = canonical_path(workspace / value)
    except InvalidPathError:
        return None
    if path != workspace and workspace not in path.parents:
        return None
    return path if path.is_dir() else None


def _canonical(path: Path) -> Path:
    try:
        return canonical_path(path)
    except InvalidPathError:
        return Path(path).absolute()


def match_rule(
    rule: PermissionRule,
    call: PermissionCall,
    *,
    direction: Direction,
    workspace: Path,
    home: Path,
    line: ParsedLine | None = None,
) -> Match:
    """Match one rule against one call (the tool name must already be covered).

    Args:
        rule: The rule.
        call: The call.
        direction: ALLOW for allow rules, ceilings and consent; DENY for deny and ask rules.
        workspace: Canonical workspace root.
        home: Canonical home directory.
        line: The already-parsed command line, if the argument is a command.

    Returns:
        :class:`Match`. A bare ``Tool`` rule and ``Tool(*)``/``Tool(**)`` match every call, even
        of a tool with no declared argument; any other pattern on such a tool is unevaluable
        (deny/ask) or no match (allow).
    """
    if rule.matches_everything:
        return Match.YES
    pattern = rule.pattern or ""
    argument = call.argument
    if direction is Direction.DENY:
        parameter = _PARAMETER_RULE.match(pattern)
        if parameter is not None and parameter.group(1) in call.parameters:
            name, glob_text = parameter.group(1), parameter.group(2)
            if argument is not None and name == argument.key:
                return Match.UNEVALUABLE  # names the primary field as a parameter: ask
            if name not in call.arguments:
                return Match.NO
            return match_text(glob_text, call.arguments[name])
    if argument is None:
        return Match.UNEVALUABLE if direction is Direction.DENY else Match.NO
    value = call.value
    if value is None:
        return Match.UNEVALUABLE if direction is Direction.DENY else Match.NO
    if argument.kind is ArgumentKind.PATH:
        answer = match_path(pattern, value, workspace=workspace, home=home, direction=direction)
    elif argument.kind is ArgumentKind.URL:
        answer = match_url(pattern, value)
    elif argument.kind is ArgumentKind.COMMAND:
        answer = match_command(pattern, value, direction=direction, parsed=line)
    else:
        answer = match_text(pattern, value)
    if direction is Direction.ALLOW and answer is Match.UNEVALUABLE:
        return Match.NO
    return answer


def evaluate_permission(call: PermissionCall, context: PermissionContext) -> PermissionDecision:
    """Run the policy steps of the one order (everything but the approver).

    Args:
        call: The call (:meth:`PermissionCall.of` builds it from a tool).
        context: The caller's context.

    Returns:
        A decision with behavior allow, deny or ask.
    """
    facts = _Facts(call, context)

    def decision(
        behavior: Behavior,
        step: DecisionStep,
        reason: str,
        rule: PermissionRule | None = None,
        *,
        always: bool = False,
    ) -> PermissionDecision:
        if (
            behavior is Behavior.ASK
            and context.mode is PermissionMode.PLAN
            and facts.risk is not RiskClass.INSPECT
        ):
            return PermissionDecision(
                behavior=Behavior.DENY,
                step=DecisionStep.PLAN_REFUSAL,
                reason=f"plan mode refuses changes ({reason})",
                tool_name=call.tool_name,
                argument=call.value_text,
                mode=context.mode,
                rule=rule.text if rule else None,
                asked_because=step,
                risk=facts.risk,
            )
        return PermissionDecision(
            behavior=behavior,
            step=step,
            reason=reason,
            tool_name=call.tool_name,
            argument=call.value_text,
            mode=context.mode,
            rule=rule.text if rule else None,
            always_ask=always,
            risk=facts.risk,
        )

    def matched(rule: PermissionRule, direction: Direction) -> Match:
        if not rule.names_tool(call.tool_name):
            return Match.NO
        return match_rule(
            rule,
            call,
            direction=direction,
            workspace=facts.workspace,
            home=facts.home,
            line=facts.line,
        )

    unevaluable: PermissionRule | None = None
    for rule in context.deny:
        answer = matched(rule, Direction.DENY)
        if answer is Match.YES:
            return decision(
                Behavior.DENY, DecisionStep.DENY_RULE, f"denied by rule {rule.text}", rule
            )
        if answer is Match.UNEVALUABLE and unevaluable is None:
            unevaluable = rule

    ceiling = context.ceiling
    if (
        ceiling is not None
        and facts.risk not in ceiling.risks
        and not any(matched(rule, Direction.ALLOW) is Match.YES for rule in ceiling.rules)
    ):
        risk = facts.risk.value if facts.risk is not None else "undeclared"
        return decision(
            Behavior.DENY,
            DecisionStep.CEILING,
            f"outside the {ceiling.name} ({risk}-class call of {call.tool_name})",
        )

    asked: PermissionRule | None = None
    for rule in context.ask:
        answer = matched(rule, Direction.DENY)
        if answer is Match.UNEVALUABLE and unevaluable is None:
            unevaluable = rule
        if answer is Match.YES and asked is None:
            asked = rule
    if unevaluable is not None:
        return decision(
            Behavior.ASK,
            DecisionStep.UNEVALUABLE_RULE,
            f"rule {unevaluable.text} cannot be evaluated against this call",
            unevaluable,
            always=True,
        )
    if asked is not None:
        return decision(
            Behavior.ASK, DecisionStep.ASK_RULE, f"rule {asked.text} asks", asked, always=True
        )
    if facts.line_parsed:
        removal = catastrophic_removal(
            facts.line, workspace=facts.workspace, home=facts.home, cwd=facts.cwd
        )
        if removal is not None:
            return decision(Behavior.ASK, DecisionStep.CATASTROPHIC, removal, always=True)
    kind = call.argument.kind if call.argument is not None else None
    if kind is ArgumentKind.PATH and facts.risk is not RiskClass.INSPECT:
        paths = argument_paths(call.value, workspace=facts.workspace, home=facts.home)
        location = widens_trust(paths) if paths is not None else None
        if location is not None:
            return decision(
                Behavior.ASK,
                DecisionStep.TRUST_WIDENING,
                f"writing {call.value_text} widens what later sessions trust ({location})",
                always=True,
            )
    if context.ask_everything:
        return decision(
            Behavior.ASK,
            DecisionStep.ASK_EVERYTHING,
            "this caller asks about every call",
            always=True,
        )

    mode = mode_answer(context.mode, facts.risk, inside=facts.inside)
    if mode is ModeAnswer.ALLOW:
        risk = facts.risk.value if facts.risk is not None else "undeclared"
        return decision(
            Behavior.ALLOW,
            DecisionStep.MODE,
            f"{context.mode.value} mode allows {risk}-class calls",
        )
    for rule in context.allow:
        if matched(rule, Direction.ALLOW) is Match.YES:
            return decision(
                Behavior.ALLOW, DecisionStep.ALLOW_RULE, f"allowed by rule {rule.text}", rule
            )
    # Remembered consent never lets a change run in plan mode: only an explicit allow rule
    # does (seed 000, "Plan mode does not ask about changes"). A consent given in default mode
    # would otherwise carry over a mode switch.
    if context.consent is not None and mode is not ModeAnswer.REFUSE_UNLESS_ALLOWED:
        for grant in context.consent.grants(context.session_id):
            if _consent_covers(grant, call, facts):
                return decision(
                    Behavior.ALLOW, DecisionStep.CONSENT, "allowed earlier in this session"
                )
    if mode is ModeAnswer.REFUSE_UNLESS_ALLOWED:
        return decision(Behavior.DENY, DecisionStep.PLAN_REFUSAL, "plan mode refuses changes")
    if facts.risk is None:
        reason = f"{call.tool_name} declares no risk class"
    else:
        reason = f"no rule allows this {facts.risk.value}-class call"
    return decision(Behavior.ASK, DecisionStep.NO_RULE, reason)


def _consent_covers(grant: ConsentGrant, call: PermissionCall, facts: _Facts) -> bool:
    if grant.tool != call.tool_name:
        return False
    if grant.argument is None and grant.pattern is None:
        return True
    if grant.argument is not None:
        return call.value_text == grant.argument
    try:
        rule = parse_rule(f"{grant.tool}({grant.pattern})", RuleBehavior.ALLOW)
    except PermissionRuleError:
        return False
    answer = match_rule(
        rule,
        call,
        direction=Direction.ALLOW,
        workspace=facts.workspace,
        home=facts.home,
        line=facts.line,
    )
    return answer is Match.YES


async def decide_permission(
    call: PermissionCall,
    context: PermissionContext,
    *,
    direct: bool = False,
    call_id: str = "",
    owner: OwnerPath | None = None,
    emit: Callable[[Event], None] | None = None,
) -> PermissionDecision:
    """Evaluate, then resolve an ask through the approver; emit the events.

    Args:
        call: The call.
        context: The caller's context.
        direct: True for direct invocation: an ask is a denial, the approver is never opened.
        call_id: Robota's id of the call (carried into events and the request).
        owner: Owner path for events.
        emit: Receives ``permission.requested`` (when the approver is asked) and exactly one
            ``permission.decided``.

    Returns:
        A decision with behavior allow or deny.
    """
    sink: Callable[[Event], None] = emit if emit is not None else (lambda _e: None)
    where = owner if owner is not None else OwnerPath()
    first = evaluate_permission(call, context)
    final = first
    answered_by = "policy"
    if first.behavior is Behavior.ASK:
        if direct:
            final = _resolved(
                first,
                Behavior.DENY,
                DecisionStep.DIRECT,
                f"direct invocation cannot ask ({first.reason})",
            )
        elif context.approver is None:
            final = _resolved(
                first,
                Behavior.DENY,
                DecisionStep.NO_APPROVER,
                f"needs approval and no approver is attached ({first.reason})",
            )
        else:
            sink(
                PermissionRequested(
                    owner=where,
                    tool_name=call.tool_name,
                    call_id=call_id,
                    argument=first.argument,
                    reason=first.reason,
                    step=first.step.value,
                )
            )
            final = await _ask(first, call, context, call_id=call_id)
            answered_by = "approver"
    sink(
        PermissionDecided(
            owner=where,
            tool_name=call.tool_name,
            call_id=call_id,
            behavior=final.behavior.value,
            step=final.step.value,
            reason=final.reason,
            rule=final.rule,
            mode=final.mode.value,
            answered_by=answered_by,
        )
    )
    return final


async def _ask(
    first: PermissionDecision, call: PermissionCall, context: PermissionContext, *, call_id: str
) -> PermissionDecision:
    assert context.approver is not None
    request = PermissionRequest(
        tool_name=call.tool_name,
        argument=first.argument,
        arguments_text=json.dumps(dict(call.arguments), default=str, sort_keys=True),
        reason=first.reason,
        decision=first,
        call_id=call_id,
        session_id=context.session_id,
    )
    try:
        approval = await context.approver(request)
    except Exception as error:  # an approver that fails must resolve to deny (seed 003)
        return _resolved(
            first,
            Behavior.DENY,
            DecisionStep.APPROVER_FAILED,
            f"the approver failed ({type(error).__name__}); denied",
        )
    if not isinstance(approval, Approval) or approval.kind == "deny":
        message = approval.message if isinstance(approval, Approval) else None
        return _resolved(
            first, Behavior.DENY, DecisionStep.APPROVER, message or "the user denied this call"
        )
    if approval.kind == "allow_session" and not first.always_ask and context.consent is not None:
        if approval.pattern is not None:
            grant = ConsentGrant(tool=call.tool_name, pattern=approval.pattern)
        else:
            grant = ConsentGrant(tool=call.tool_name, argument=call.value_text)
        context.consent.remember(context.session_id, grant)
    how = "for this session" if approval.kind == "allow_session" else "once"
    return _resolved(first, Behavior.ALLOW, DecisionStep.APPROVER, f"the user allowed this {how}")


def _resolved(
    first: PermissionDecision, behavior: Behavior, step: DecisionStep, reason: str
) -> PermissionDecision:
    return PermissionDecision(
        behavior=behavior,
        step=step,
        reason=reason,
        tool_name=first.tool_name,
        argument=first.argument,
        mode=first.mode,
        rule=first.rule,
        always_ask=first.always_ask,
        asked_because=first.step,
        risk=first.risk,
    )
