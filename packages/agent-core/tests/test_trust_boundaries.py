"""Issue #13, core half: trust boundaries between the user, a project and the model.

Each test is the bug report it answers: remembered consent in plan mode, direct invocation of a
withheld tool, parameter-form allow rules, hook answers written for other hosts, and the
``PermissionRequest`` / ``Notification`` fire site.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from robota.core import Agent, ToolContext, tool
from robota.core.agent.events import ToolCallSkipped
from robota.core.events import Event
from robota.core.hooks import (
    POSTURE,
    HookAllow,
    HookAsk,
    HookConfig,
    HookDeny,
    HookError,
    HookEventName,
    HookGate,
    HookInput,
    HookResult,
    HookRunner,
    PermissionRequestInput,
    can_block,
    enforces,
    hook_ask_approver,
    hooked_approver,
)
from robota.core.hooks._decode import decode_answer
from robota.core.hooks.executors.command import interpret_exit
from robota.core.messages import ToolResultMessage
from robota.core.permissions import (
    Approval,
    Behavior,
    ConsentStore,
    DecisionStep,
    PermissionCall,
    PermissionContext,
    PermissionGate,
    PermissionMode,
    PermissionRequest,
    PermissionRuleError,
    decide_permission,
    evaluate_permission,
    parse_rule,
)
from robota.core.testing.scripted import ScriptedProvider, text, tool_call
from robota.core.tools.base import ArgumentKind, PermissionArgument, RiskClass

PATH = PermissionArgument(key="path", kind=ArgumentKind.PATH)


def edit(path: str) -> PermissionCall:
    return PermissionCall(
        tool_name="Edit", risk=RiskClass.MODIFY, argument=PATH, arguments={"path": path}
    )


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)


# --- row 1: plan mode is answered by allow rules only -----------------------------------------


@pytest.mark.anyio
async def test_a_session_allow_from_default_mode_does_not_let_a_write_run_in_plan_mode(
    tmp_path: Path,
) -> None:
    asked: list[str] = []

    async def person(request: PermissionRequest) -> Approval:
        asked.append(request.tool_name)
        return Approval(kind="allow_session")

    consent = ConsentStore()
    default = PermissionContext.from_rules(
        tmp_path, home=tmp_path / "home", approver=person, consent=consent, session_id="s"
    )
    first = await decide_permission(edit("src/a.py"), default)
    assert (first.behavior, first.step) == (Behavior.ALLOW, DecisionStep.APPROVER)
    # The same call is answered by the remembered consent in default mode ...
    again = evaluate_permission(edit("src/a.py"), default)
    assert (again.behavior, again.step) == (Behavior.ALLOW, DecisionStep.CONSENT)

    # ... and refused after switching to plan mode: only an allow rule lets a change run there.
    plan = PermissionContext.from_rules(
        tmp_path,
        home=tmp_path / "home",
        approver=person,
        consent=consent,
        session_id="s",
        mode=PermissionMode.PLAN,
    )
    refused = await decide_permission(edit("src/a.py"), plan)
    assert (refused.behavior, refused.step) == (Behavior.DENY, DecisionStep.PLAN_REFUSAL)
    assert refused.reason == "plan mode refuses changes"
    assert asked == ["Edit"]  # plan mode never asked the person either

    ruled = PermissionContext.from_rules(
        tmp_path,
        home=tmp_path / "home",
        allow=["Edit(src/**)"],
        consent=consent,
        session_id="s",
        mode=PermissionMode.PLAN,
    )
    allowed = evaluate_permission(edit("src/a.py"), ruled)
    assert (allowed.behavior, allowed.step, allowed.rule) == (
        Behavior.ALLOW,
        DecisionStep.ALLOW_RULE,
        "Edit(src/**)",
    )


# --- row 2: direct invocation never bypasses an allowlist -------------------------------------


@pytest.mark.anyio
async def test_call_tool_refuses_a_tool_a_deny_rule_withholds(tmp_path: Path) -> None:
    ran: list[str] = []

    @tool(risk=RiskClass.EXECUTE)
    async def deploy(ctx: ToolContext[Any], target: str) -> str:
        """Deploy."""
        ran.append(target)
        return "deployed"

    @tool(risk=RiskClass.INSPECT)
    async def status() -> str:
        """Status."""
        return "ok"

    sink = Recorder()
    gate = PermissionGate(
        PermissionContext.from_rules(tmp_path, deny=["deploy"], mode=PermissionMode.BYPASS)
    )
    agent = Agent(ScriptedProvider([]), tools=[deploy, status], gates=[gate], sinks=[sink])
    assert not gate.offers(deploy)  # the model is never offered it

    result = await agent.call_tool("deploy", {"target": "prod"})

    assert result.is_error
    assert result.text == (
        "Permission denied: tool 'deploy' is withheld by PermissionGate "
        "(direct invocation does not bypass a tool allowlist)"
    )
    assert ran == []
    skipped = [e for e in sink.events if isinstance(e, ToolCallSkipped)]
    assert [(e.call.name, e.reason) for e in skipped] == [("deploy", "denied")]
    assert not [e for e in sink.events if e.type == "tool.call_started"]
    # A tool the gate offers still runs directly.
    assert (await agent.call_tool("status", {})).text == "ok"


# --- row 3: allow rules have the narrower grammar ---------------------------------------------


@pytest.mark.parametrize(
    "rule", ["Edit(file_path:src/**)", "WebFetch(method:GET)", "Bash(command:git *)"]
)
def test_a_parameter_form_allow_rule_is_refused_at_parse_time(rule: str) -> None:
    with pytest.raises(PermissionRuleError) as caught:
        parse_rule(rule, "allow")
    assert caught.value.rule == rule
    assert "parameter form Tool(name:glob) is accepted only in deny and ask rules" in str(
        caught.value
    )
    with pytest.raises(PermissionRuleError):
        PermissionContext.from_rules(Path("."), allow=[rule])
    # The same text is a valid deny or ask rule.
    assert parse_rule(rule, "deny").pattern == rule[rule.index("(") + 1 : -1]
    assert parse_rule(rule, "ask").behavior == "ask"


@pytest.mark.parametrize(
    "rule",
    [
        "Bash(npm:*)",
        "Bash(npm run test:*)",
        "WebFetch(domain:example.com)",
        "WebFetch(https://x.org/**)",
    ],
)
def test_allow_patterns_that_only_look_like_the_parameter_form_stay_accepted(rule: str) -> None:
    assert parse_rule(rule, "allow").text == rule


# --- row 5: hook answers written for other hosts are honoured ---------------------------------


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({"continue": False, "stopReason": "frozen branch"}, "frozen branch"),
        ({"continue": False}, "blocked by hook"),
        ({"decision": "block", "reason": "no writes"}, "no writes"),
        (
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "outside the sprint",
                }
            },
            "outside the sprint",
        ),
        (
            {"hookSpecificOutput": {"decision": {"behavior": "deny", "message": "not today"}}},
            "not today",
        ),
        # a stated block wins beside an undecodable field
        ({"continue": False, "allow": "yes", "stopReason": "stop"}, "stop"),
    ],
)
def test_claude_code_block_answers_decode_as_deny(body: dict[str, Any], reason: str) -> None:
    assert decode_answer(body, require_verdict=False) == HookDeny(reason=reason)
    assert interpret_exit(0, json.dumps(body).encode(), b"") == HookDeny(reason=reason)


def test_exit_2_is_a_deny_with_stderr_and_undecodable_answers_are_errors() -> None:
    assert interpret_exit(2, b"", b"protected file\n") == HookDeny(reason="protected file")
    assert isinstance(interpret_exit(0, b'{"continue": "no"}', b""), HookError)
    assert isinstance(interpret_exit(0, b"{not json", b""), HookError)
    assert isinstance(interpret_exit(1, b"", b"boom"), HookError)


def test_only_an_outright_allow_is_stated() -> None:
    plain = interpret_exit(0, b"looked fine\n", b"")
    assert isinstance(plain, HookAllow)
    assert not plain.stated
    for body in (
        {"allow": True},
        {"decision": "approve"},
        {"hookSpecificOutput": {"permissionDecision": "allow"}},
        {"hookSpecificOutput": {"decision": {"behavior": "allow"}}},
    ):
        decoded = decode_answer(body, require_verdict=False)
        assert isinstance(decoded, HookAllow), body
        assert decoded.stated, body


def _script(tmp_path: Path, name: str, source: str) -> str:
    path = tmp_path / name
    path.write_text(source)
    return f"{sys.executable} {path}"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("source", "shown"),
    [
        ("import json; print(json.dumps({'continue': False, 'stopReason': 'frozen'}))", "frozen"),
        ("import json; print(json.dumps({'decision': 'block', 'reason': 'nope'}))", "nope"),
        (
            "import json; print(json.dumps({'hookSpecificOutput': "
            "{'permissionDecision': 'deny', 'permissionDecisionReason': 'pd'}}))",
            "pd",
        ),
        ("import sys; print('stderr reason', file=sys.stderr); sys.exit(2)", "stderr reason"),
        ("print('{broken')", "hook 'guard' failed: invalid output"),
    ],
)
async def test_a_pre_tool_use_command_hook_in_any_host_style_stops_the_tool(
    tmp_path: Path, source: str, shown: str
) -> None:
    ran: list[str] = []

    @tool(risk=RiskClass.MODIFY)
    async def write(content: str) -> str:
        """Write."""
        ran.append(content)
        return "written"

    hook = HookConfig(
        event=HookEventName.PRE_TOOL_USE,
        type="command",
        command=_script(tmp_path, "guard.py", source),
        id="guard",
    )
    gate = HookGate(HookRunner([hook]), cwd=str(tmp_path))
    provider = ScriptedProvider([[tool_call("c1", "write", {"content": "x"})], [text("done")]])
    agent = Agent(provider, tools=[write], gates=[gate])
    result = await agent.run("write")
    assert ran == []
    [results] = [m for m in result.new_messages if isinstance(m, ToolResultMessage)]
    assert results.results[0].is_error
    assert results.results[0].text.startswith(f"Blocked: {shown}")


# --- row 6: PermissionRequest / Notification fire where a person would be asked ---------------


def _handler_hook(event: HookEventName, answer: HookResult, seen: list[HookInput]) -> HookConfig:
    async def handler(payload: HookInput) -> HookResult:
        seen.append(payload)
        return answer

    return HookConfig(event=event, type="callable", handler=handler, id=f"{event.value}-hook")


def _request(*, always_ask: bool = False) -> PermissionRequest:
    call = edit("src/a.py")
    decision = evaluate_permission(call, PermissionContext.from_rules(Path("/tmp")))
    if always_ask:
        decision = type(decision)(
            behavior=decision.behavior,
            step=DecisionStep.CATASTROPHIC,
            reason="catastrophic",
            tool_name=decision.tool_name,
            always_ask=True,
        )
    return PermissionRequest(
        tool_name="Edit",
        argument="src/a.py",
        arguments_text='{"path": "src/a.py"}',
        reason=decision.reason,
        decision=decision,
        call_id="call_1",
        session_id="s1",
    )


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("answer", "always_ask", "expected", "person_asked"),
    [
        (HookDeny(reason="policy says no"), False, "deny", False),
        (HookError(reason="timed out after 1s"), False, "deny", False),  # enforcing: fail closed
        (HookAllow(stated=True), False, "allow_once", False),
        (HookAllow(stated=True), True, "allow_session", True),  # always-ask reaches a person
        (HookAllow(), False, "allow_session", True),  # silence approves nothing
        (HookAsk(reason="check"), False, "allow_session", True),
    ],
)
async def test_permission_request_hooks_answer_before_the_person(
    answer: HookResult, always_ask: bool, expected: str, person_asked: bool
) -> None:
    seen: list[HookInput] = []
    notified: list[HookInput] = []
    asked: list[PermissionRequest] = []

    async def person(request: PermissionRequest) -> Approval:
        asked.append(request)
        return Approval(kind="allow_session")

    runner = HookRunner(
        [
            _handler_hook(HookEventName.PERMISSION_REQUEST, answer, seen),
            _handler_hook(HookEventName.NOTIFICATION, HookAllow(), notified),
        ]
    )
    approval = await hooked_approver(runner, person, cwd="/ws")(_request(always_ask=always_ask))
    assert approval.kind == expected
    assert bool(asked) is person_asked
    assert bool(notified) is person_asked  # a Notification precedes every prompt
    [payload] = seen
    assert isinstance(payload, PermissionRequestInput)
    assert payload.to_json()["tool_input"] == {"path": "src/a.py"}
    assert (payload.tool_name, payload.tool_use_id, payload.session_id) == ("Edit", "call_1", "s1")
    if expected == "deny":
        assert approval.message is not None
        assert approval.message.startswith("Blocked by PermissionRequest hook: ")


@pytest.mark.anyio
async def test_a_hook_ask_goes_to_the_attached_person_and_is_never_remembered(
    tmp_path: Path,
) -> None:
    asked: list[PermissionRequest] = []
    answers = iter(["allow_session", "deny"])

    async def person(request: PermissionRequest) -> Approval:
        asked.append(request)
        return Approval(kind=next(answers))  # type: ignore[arg-type]

    ran: list[str] = []

    @tool(risk=RiskClass.MODIFY)
    async def write(content: str) -> str:
        """Write."""
        ran.append(content)
        return "written"

    runner = HookRunner(
        [_handler_hook(HookEventName.PRE_TOOL_USE, HookAsk(reason="confirm the write"), [])]
    )
    gate = HookGate(runner, approve=hook_ask_approver(person, session_id="s1"))
    provider = ScriptedProvider(
        [
            [tool_call("c1", "write", {"content": "a"})],
            [tool_call("c2", "write", {"content": "b"})],
            [text("done")],
        ]
    )
    await Agent(provider, tools=[write], gates=[gate]).run("go")
    assert ran == ["a"]  # asked twice: an allow_session answer was not remembered
    assert [r.reason for r in asked] == ["a PreToolUse hook asks: confirm the write"] * 2
    assert all(r.decision.always_ask for r in asked)


def test_the_posture_table_predicates() -> None:
    assert {e for e in HookEventName if enforces(e)} == {
        HookEventName.PRE_TOOL_USE,
        HookEventName.PERMISSION_REQUEST,
    }
    assert {e for e in HookEventName if can_block(e)} == {
        HookEventName.PRE_TOOL_USE,
        HookEventName.PERMISSION_REQUEST,
        HookEventName.USER_PROMPT_SUBMIT,
    }
    assert set(POSTURE) == set(HookEventName)
    assert all(p.blocks for p in POSTURE.values() if p.enforcing)
