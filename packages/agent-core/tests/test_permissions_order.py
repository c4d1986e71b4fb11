"""The one evaluation order: deny and ceiling first, always-ask next, then mode, allow rules and
consent, else ask (seed 000, "Permission System")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from robota.core.permissions import (
    Approval,
    Behavior,
    ConsentGrant,
    ConsentStore,
    DecisionStep,
    PermissionCall,
    PermissionCeiling,
    PermissionContext,
    PermissionMode,
    PermissionRequest,
    decide_permission,
    evaluate_permission,
)
from robota.core.tools.base import ArgumentKind, PermissionArgument, RiskClass

COMMAND = PermissionArgument(key="command", kind=ArgumentKind.COMMAND)
SANDBOXED = PermissionArgument(key="command", kind=ArgumentKind.COMMAND, sandboxed_inspect=True)
PATH = PermissionArgument(key="path", kind=ArgumentKind.PATH)
URL = PermissionArgument(key="url", kind=ArgumentKind.URL)


def bash(line: str) -> PermissionCall:
    return PermissionCall(
        tool_name="Bash", risk=RiskClass.EXECUTE, argument=COMMAND, arguments={"command": line}
    )


def edit(path: str) -> PermissionCall:
    return PermissionCall(
        tool_name="Edit", risk=RiskClass.MODIFY, argument=PATH, arguments={"path": path}
    )


def read(path: str) -> PermissionCall:
    return PermissionCall(
        tool_name="Read", risk=RiskClass.INSPECT, argument=PATH, arguments={"path": path}
    )


def ctx(root: Path, **options: Any) -> PermissionContext:
    return PermissionContext.from_rules(root, home=root / "home", **options)


def test_deny_beats_bypass_and_allow(tmp_path: Path) -> None:
    context = ctx(tmp_path, deny=["Bash(rm *)"], allow=["Bash(rm *)"], mode=PermissionMode.BYPASS)
    decision = evaluate_permission(bash("rm -r build"), context)
    assert (decision.behavior, decision.step, decision.rule) == (
        Behavior.DENY,
        DecisionStep.DENY_RULE,
        "Bash(rm *)",
    )
    assert decision.reason == "denied by rule Bash(rm *)"


def test_ceiling_beats_allow_rule_and_bypass(tmp_path: Path) -> None:
    ceiling = PermissionCeiling.of(risks=["inspect"], name="subagent policy")
    context = ctx(tmp_path, allow=["Edit"], mode=PermissionMode.BYPASS, ceiling=ceiling)
    decision = evaluate_permission(edit("src/a.py"), context)
    assert (decision.behavior, decision.step) == (Behavior.DENY, DecisionStep.CEILING)
    assert decision.reason == "outside the subagent policy (modify-class call of Edit)"
    assert evaluate_permission(read("src/a.py"), context).behavior is Behavior.ALLOW


def test_ceiling_rules_admit_named_calls_only_in_the_narrow_direction(tmp_path: Path) -> None:
    ceiling = PermissionCeiling.of(rules=["Bash(make test)"])
    context = ctx(tmp_path, allow=["Bash(make *)"], ceiling=ceiling)
    assert evaluate_permission(bash("make test"), context).behavior is Behavior.ALLOW
    assert evaluate_permission(bash("make test; make deploy"), context).step is DecisionStep.CEILING


def sandboxed_bash(line: str) -> PermissionCall:
    return PermissionCall(
        tool_name="Bash", risk=RiskClass.EXECUTE, argument=SANDBOXED, arguments={"command": line}
    )


def test_read_only_command_line_is_inspect_class_inside_the_ceiling(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    context = ctx(tmp_path, ceiling=PermissionCeiling.of(risks=["inspect"]))
    assert evaluate_permission(sandboxed_bash("pwd && ls src | wc -l"), context).allowed
    for line in ("cat /etc/passwd", "find . -delete", "printf x"):
        assert evaluate_permission(sandboxed_bash(line), context).step is DecisionStep.CEILING


def test_read_only_fast_path_needs_the_sandboxed_inspect_flag(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    context = ctx(tmp_path, ceiling=PermissionCeiling.of(risks=["inspect"]))
    assert evaluate_permission(bash("ls src"), context).step is DecisionStep.CEILING
    assert evaluate_permission(sandboxed_bash("ls src"), context).allowed


def test_always_ask_beats_remembered_consent_and_bypass(tmp_path: Path) -> None:
    consent = ConsentStore()
    consent.remember("s", ConsentGrant(tool="Edit"))
    context = ctx(tmp_path, consent=consent, session_id="s", mode=PermissionMode.BYPASS)
    decision = evaluate_permission(edit(".robota/settings.json"), context)
    assert (decision.behavior, decision.step, decision.always_ask) == (
        Behavior.ASK,
        DecisionStep.TRUST_WIDENING,
        True,
    )
    for path in (".git/hooks/pre-commit", ".claude/settings.json", "~/.bashrc", "a/.mcp.json"):
        assert evaluate_permission(edit(path), context).step is DecisionStep.TRUST_WIDENING
    assert evaluate_permission(edit("src/a.py"), context).behavior is Behavior.ALLOW
    assert evaluate_permission(read(".robota/settings.json"), ctx(tmp_path)).allowed


@pytest.mark.parametrize(
    "line",
    ["rm -rf /", "rm -rf ~", "rm -rf *", "rm -fr .", "sudo rm -r --no-preserve-root /",
     "rm -rf /usr", "rm -rf \"$DIR\"/", "bash -c 'rm -rf ~/'", "rm -Rf ..", "echo $((1))"],
)  # fmt: skip
def test_catastrophic_removals_ask_even_in_bypass(tmp_path: Path, line: str) -> None:
    consent = ConsentStore()
    consent.remember("session", ConsentGrant(tool="Bash", argument=line))
    context = ctx(tmp_path, mode=PermissionMode.BYPASS, allow=["Bash(rm *)"], consent=consent)
    decision = evaluate_permission(bash(line), context)
    assert (decision.behavior, decision.step) == (Behavior.ASK, DecisionStep.CATASTROPHIC)


def test_ordinary_removal_is_not_catastrophic(tmp_path: Path) -> None:
    context = ctx(tmp_path, mode=PermissionMode.BYPASS)
    assert evaluate_permission(bash("rm -rf build/ dist"), context).allowed


def test_unevaluable_deny_asks_instead_of_falling_to_allow(tmp_path: Path) -> None:
    context = ctx(tmp_path, deny=["Bash(rm -rf /)"], allow=["Bash"], mode=PermissionMode.BYPASS)
    decision = evaluate_permission(bash("rm -rf $TARGET"), context)
    assert (decision.behavior, decision.step, decision.rule) == (
        Behavior.ASK,
        DecisionStep.UNEVALUABLE_RULE,
        "Bash(rm -rf /)",
    )


def test_pattern_rule_on_a_tool_without_argument_asks(tmp_path: Path) -> None:
    call = PermissionCall(tool_name="Clock", risk=RiskClass.INSPECT)
    assert evaluate_permission(call, ctx(tmp_path, deny=["Clock(x)"])).step is (
        DecisionStep.UNEVALUABLE_RULE
    )
    assert evaluate_permission(call, ctx(tmp_path, deny=["Clock(*)"])).behavior is Behavior.DENY


def test_parameter_rule_in_deny(tmp_path: Path) -> None:
    call = PermissionCall(
        tool_name="Deploy",
        risk=RiskClass.EXECUTE,
        argument=PermissionArgument(key="service", kind=ArgumentKind.TEXT),
        arguments={"service": "api", "env": "prod"},
        parameters=frozenset({"service", "env"}),
    )
    assert evaluate_permission(call, ctx(tmp_path, deny=["Deploy(env:prod*)"])).behavior is (
        Behavior.DENY
    )
    assert evaluate_permission(call, ctx(tmp_path, deny=["Deploy(service:api)"])).step is (
        DecisionStep.UNEVALUABLE_RULE
    )


def test_explicit_ask_rule_beats_allow(tmp_path: Path) -> None:
    context = ctx(tmp_path, ask=["Bash(git push:*)"], allow=["Bash(git *)"])
    decision = evaluate_permission(bash("git push origin main"), context)
    assert (decision.behavior, decision.step) == (Behavior.ASK, DecisionStep.ASK_RULE)


def test_plan_mode(tmp_path: Path) -> None:
    context = ctx(tmp_path, mode=PermissionMode.PLAN, allow=["Bash(make lint)"])
    assert evaluate_permission(read("src/a.py"), context).allowed
    refused = evaluate_permission(edit("src/a.py"), context)
    assert (refused.behavior, refused.step) == (Behavior.DENY, DecisionStep.PLAN_REFUSAL)
    assert evaluate_permission(bash("make lint"), context).step is DecisionStep.ALLOW_RULE
    undeclared = PermissionCall(tool_name="Mystery")
    assert evaluate_permission(undeclared, context).behavior is Behavior.DENY
    trust = evaluate_permission(edit(".claude/settings.json"), context)
    assert (trust.behavior, trust.asked_because) == (Behavior.DENY, DecisionStep.TRUST_WIDENING)


def test_accept_edits_allows_modify_inside_workspace_only(tmp_path: Path) -> None:
    context = ctx(tmp_path, mode=PermissionMode.ACCEPT_EDITS)
    assert evaluate_permission(edit("src/a.py"), context).step is DecisionStep.MODE
    assert evaluate_permission(edit("/etc/hosts"), context).behavior is Behavior.ASK
    assert evaluate_permission(bash("make"), context).behavior is Behavior.ASK


def test_default_mode_undeclared_risk_asks(tmp_path: Path) -> None:
    decision = evaluate_permission(PermissionCall(tool_name="Mystery"), ctx(tmp_path))
    assert (decision.behavior, decision.reason) == (
        Behavior.ASK,
        "Mystery declares no risk class",
    )


def test_inspect_outside_workspace_asks(tmp_path: Path) -> None:
    assert evaluate_permission(read("/etc/passwd"), ctx(tmp_path)).behavior is Behavior.ASK
    assert evaluate_permission(read("src/a.py"), ctx(tmp_path)).allowed


def test_ask_everything_is_not_answered_by_mode_or_allow(tmp_path: Path) -> None:
    context = ctx(tmp_path, ask_everything=True, allow=["Read"], mode=PermissionMode.BYPASS)
    assert evaluate_permission(read("a"), context).step is DecisionStep.ASK_EVERYTHING


def test_url_rules_in_order(tmp_path: Path) -> None:
    def fetch(url: str) -> PermissionCall:
        return PermissionCall(
            tool_name="WebFetch", risk=RiskClass.EXECUTE, argument=URL, arguments={"url": url}
        )

    context = ctx(
        tmp_path,
        allow=["WebFetch(domain:*.example.com)"],
        deny=["WebFetch(domain:bad.example.com)"],
    )
    assert evaluate_permission(fetch("https://docs.example.com/x"), context).allowed
    assert (
        evaluate_permission(fetch("https://bad.example.com/x"), context).behavior is Behavior.DENY
    )
    assert evaluate_permission(fetch("https://evil\\@docs.example.com"), context).step is (
        DecisionStep.UNEVALUABLE_RULE
    )


@pytest.mark.anyio
async def test_no_approver_means_deny(tmp_path: Path) -> None:
    decision = await decide_permission(bash("make"), ctx(tmp_path))
    assert (decision.behavior, decision.step, decision.asked_because) == (
        Behavior.DENY,
        DecisionStep.NO_APPROVER,
        DecisionStep.NO_RULE,
    )


@pytest.mark.anyio
async def test_approver_that_raises_means_deny(tmp_path: Path) -> None:
    async def broken(_request: PermissionRequest) -> Approval:
        raise RuntimeError("ui crashed")

    decision = await decide_permission(bash("make"), ctx(tmp_path, approver=broken))
    assert (decision.behavior, decision.step) == (Behavior.DENY, DecisionStep.APPROVER_FAILED)


@pytest.mark.anyio
async def test_allow_session_is_remembered_for_that_session_only(tmp_path: Path) -> None:
    seen: list[PermissionRequest] = []

    async def approve(request: PermissionRequest) -> Approval:
        seen.append(request)
        return Approval(kind="allow_session")

    consent = ConsentStore()
    context = ctx(tmp_path, approver=approve, consent=consent, session_id="one")
    assert (await decide_permission(bash("make test"), context)).allowed
    again = await decide_permission(bash("make test"), context)
    assert (again.step, len(seen)) == (DecisionStep.CONSENT, 1)
    other = await decide_permission(bash("make deploy"), context)
    assert (other.step, len(seen)) == (DecisionStep.APPROVER, 2)
    assert consent.grants("two") == ()


@pytest.mark.anyio
async def test_allow_session_pattern_scope_and_always_ask_not_remembered(tmp_path: Path) -> None:
    async def approve(_request: PermissionRequest) -> Approval:
        return Approval(kind="allow_session", pattern="make:*")

    consent = ConsentStore()
    context = ctx(tmp_path, approver=approve, consent=consent)
    await decide_permission(bash("make a"), context)
    assert evaluate_permission(bash("make b"), context).step is DecisionStep.CONSENT
    assert evaluate_permission(bash("make b; curl x"), context).behavior is Behavior.ASK
    await decide_permission(bash("rm -rf /"), context)
    assert consent.grants("session") == (ConsentGrant(tool="Bash", pattern="make:*"),)


@pytest.mark.anyio
async def test_approver_deny_message_and_direct_invocation(tmp_path: Path) -> None:
    calls: list[str] = []

    async def refuse(request: PermissionRequest) -> Approval:
        calls.append(request.tool_name)
        return Approval(kind="deny", message="not today")

    context = ctx(tmp_path, approver=refuse)
    denied = await decide_permission(bash("make"), context)
    assert (denied.behavior, denied.reason) == (Behavior.DENY, "not today")
    direct = await decide_permission(bash("make"), context, direct=True)
    assert (direct.step, calls) == (DecisionStep.DIRECT, ["Bash"])
