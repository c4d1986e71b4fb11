"""HookGate in the tool-call path: ``Blocked: <reason>``, substitution with after-hooks still
running, fail-closed PreToolUse, advisory PostToolUse, and a real Agent run with the scripted
provider (seed 004 gate semantics; seed 000 "Hook System")."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from robota.core.agent import Agent
from robota.core.gate import Allow, Deny, Substitute, ToolCallRequest
from robota.core.hooks import (
    HookAllow,
    HookAsk,
    HookConfig,
    HookDeny,
    HookEventName,
    HookGate,
    HookInput,
    HookResult,
    HookRunner,
    PostToolUseFailureInput,
    PostToolUseInput,
    PreToolUseInput,
)
from robota.core.messages import TextPart, ToolCallPart, ToolResultMessage, ToolResultPart
from robota.core.permissions import PermissionContext, PermissionGate
from robota.core.testing.scripted import ScriptedProvider, text, tool_call
from robota.core.tools.base import RiskClass, Tool, ToolContext, ToolOutput, ToolReturn

PRE = HookEventName.PRE_TOOL_USE
POST = HookEventName.POST_TOOL_USE
FAIL = HookEventName.POST_TOOL_USE_FAILURE


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Shell(Tool):
    name = "Bash"
    description = "Run a command."
    parameters = {"type": "object", "properties": {"command": {"type": "string"}}}  # noqa: RUF012
    risk = RiskClass.EXECUTE

    def __init__(self) -> None:
        self.ran: list[str] = []

    async def call(self, arguments: dict[str, Any], ctx: ToolContext[Any]) -> ToolOutput:
        self.ran.append(arguments["command"])
        return f"ran {arguments['command']}"


def request(
    tool: Tool | None = None, *, direct: bool = False, cwd: str = "/work/app"
) -> ToolCallRequest:
    return ToolCallRequest(
        call=ToolCallPart(id="toolu_7", name="Bash", arguments={"command": "make deploy"}),
        tool=tool or Shell(),
        arguments={"command": "make deploy"},
        run_id="run_1",
        call_id="call_1",
        direct=direct,
        metadata={"session_id": "sess_9", "cwd": cwd},
    )


def recording(seen: list[HookInput], result: HookResult) -> Any:
    async def handler(payload: HookInput) -> HookResult:
        seen.append(payload)
        return result

    return handler


def gate(*hooks: HookConfig, **kw: Any) -> HookGate:
    return HookGate(HookRunner(hooks), **kw)


def cb(
    event: HookEventName, result: HookResult, seen: list[HookInput] | None = None, **kw: Any
) -> HookConfig:
    return HookConfig(
        event=event,
        type="callable",
        handler=recording(seen if seen is not None else [], result),
        **kw,
    )


@pytest.mark.anyio
async def test_before_tool_sends_the_pre_tool_use_input() -> None:
    seen: list[HookInput] = []
    verdict = await gate(cb(PRE, HookAllow(), seen)).before_tool(request())
    assert verdict == Allow()
    assert seen == [
        PreToolUseInput(
            session_id="sess_9",
            cwd="/work/app",
            tool_name="Bash",
            tool_input={"command": "make deploy"},
            tool_use_id="toolu_7",
            call_id="call_1",
            run_id="run_1",
        )
    ]


@pytest.mark.anyio
async def test_a_deny_is_blocked_with_the_reason() -> None:
    verdict = await gate(cb(PRE, HookDeny(reason="deploys need a ticket"))).before_tool(request())
    assert verdict == Deny(message="Blocked: deploys need a ticket")


@pytest.mark.anyio
async def test_a_substitute_skips_the_body_with_the_hooks_result() -> None:
    sub = HookAllow(substitute=ToolReturn.text("deployed (cached)"))
    verdict = await gate(cb(PRE, sub)).before_tool(request())
    assert verdict == Substitute(
        result=ToolResultPart(
            call_id="toolu_7", name="Bash", content=(TextPart(text="deployed (cached)"),)
        )
    )


@pytest.mark.anyio
async def test_block_beats_substitute_at_the_gate() -> None:
    sub = HookAllow(substitute=ToolReturn.text("cached"))
    g = gate(cb(PRE, sub, id="cache"), cb(PRE, HookDeny(reason="frozen"), id="freeze"))
    assert await g.before_tool(request()) == Deny(message="Blocked: frozen")


@pytest.mark.anyio
async def test_a_failing_command_hook_blocks_with_a_named_reason(tmp_path: Path) -> None:
    hang = HookConfig(
        event=PRE,
        id="slow-audit",
        command=f"{shlex.quote(sys.executable)} -c 'import time; time.sleep(60)'",
        timeout=0.5,
    )
    garbage = HookConfig(event=PRE, id="broken", command="echo '{oops'")
    assert await gate(hang).before_tool(request(cwd=str(tmp_path))) == Deny(
        message="Blocked: hook 'slow-audit' failed: timed out after 0.5s"
    )
    verdict = await gate(garbage).before_tool(request(cwd=str(tmp_path)))
    assert isinstance(verdict, Deny)
    assert verdict.message.startswith("Blocked: hook 'broken' failed: invalid output: not JSON")
    missing_cwd = await gate(garbage).before_tool(request(cwd=str(tmp_path / "gone")))
    assert missing_cwd == Deny(
        message=f"Blocked: hook 'broken' failed: failed to start: working directory "
        f"{str(tmp_path / 'gone')!r} does not exist"
    )


@pytest.mark.anyio
async def test_an_ask_needs_an_approver() -> None:
    ask = cb(PRE, HookAsk(reason="deploy to prod?"))
    assert await gate(ask).before_tool(request()) == Deny(
        message="Blocked: deploy to prod? (a hook asked for confirmation and no approver is "
        "attached)"
    )
    asked: list[str] = []

    async def yes(_req: ToolCallRequest, reason: str) -> bool:
        asked.append(reason)
        return True

    async def no(_req: ToolCallRequest, reason: str) -> bool:
        return False

    assert await gate(ask, approve=yes).before_tool(request()) == Allow()
    assert asked == ["deploy to prod?"]
    assert await gate(ask, approve=no).before_tool(request()) == Deny(
        message="Blocked: deploy to prod?"
    )
    # A direct invocation never opens a prompt.
    verdict = await gate(ask, approve=yes).before_tool(request(direct=True))
    assert isinstance(verdict, Deny)


@pytest.mark.anyio
async def test_after_tool_fires_post_tool_use_and_appends_context_and_feedback() -> None:
    seen: list[HookInput] = []
    g = gate(
        cb(POST, HookAllow(additional_context="remember to tag the release"), seen, id="ctx"),
        cb(POST, HookAllow(), id="noop"),
    )
    result = ToolResultPart(call_id="toolu_7", name="Bash", content=(TextPart(text="ok"),))
    after = await g.after_tool(request(), result)
    assert after.text == "ok\nremember to tag the release"
    assert seen[0] == PostToolUseInput(
        session_id="sess_9",
        cwd="/work/app",
        tool_name="Bash",
        tool_input={"command": "make deploy"},
        tool_response={"content": "ok", "is_error": False},
        tool_use_id="toolu_7",
        call_id="call_1",
        run_id="run_1",
    )
    blocked = gate(cb(POST, HookDeny(reason="output contains a secret")))
    assert (await blocked.after_tool(request(), result)).text == (
        "ok\nPostToolUse hook feedback: output contains a secret"
    )


@pytest.mark.anyio
async def test_failure_hooks_can_rewrite_the_error_and_errors_there_are_advisory() -> None:
    seen: list[HookInput] = []
    failed = ToolResultPart(
        call_id="toolu_7",
        name="Bash",
        content=(TextPart(text="Traceback ... /srv/secret"),),
        is_error=True,
    )
    rewrite = HookAllow(substitute=ToolReturn.text("make failed; run `make check`", is_error=True))
    after = await gate(cb(FAIL, rewrite, seen)).after_tool(request(), failed)
    assert (after.text, after.is_error) == ("make failed; run `make check`", True)
    assert isinstance(seen[0], PostToolUseFailureInput)
    assert seen[0].error == "Traceback ... /srv/secret"

    async def boom(_p: HookInput) -> HookResult:
        raise OSError("disk full")

    broken = HookGate(HookRunner([HookConfig(event=FAIL, type="callable", handler=boom)]))
    assert await broken.after_tool(request(), failed) == failed


# --- a real Agent run ----------------------------------------------------------------------


def _tool_results(messages: Any) -> list[ToolResultPart]:
    return [r for m in messages if isinstance(m, ToolResultMessage) for r in m.results]


@pytest.mark.anyio
async def test_agent_run_blocked_by_a_command_hook_never_runs_the_body(tmp_path: Path) -> None:
    guard = tmp_path / "guard.py"
    guard.write_text(
        "import json, sys\n"
        "data = json.load(sys.stdin)\n"
        "if 'deploy' in data['tool_input']['command']:\n"
        "    sys.stderr.write('deploys are frozen')\n"
        "    sys.exit(2)\n"
    )
    hook = HookConfig(
        event=PRE,
        matcher="Bash",
        command=f"{shlex.quote(sys.executable)} {shlex.quote(str(guard))}",
    )
    shell = Shell()
    provider = ScriptedProvider(
        [
            [tool_call("c1", "Bash", {"command": "make deploy"})],
            [tool_call("c2", "Bash", {"command": "make test"})],
            [text("done")],
        ]
    )
    runner = HookRunner([hook])
    async with Agent(provider, tools=[shell], gates=(HookGate(runner),)) as agent:
        result = await agent.run("ship it")
    await runner.aclose()
    assert shell.ran == ["make test"]
    assert [(r.text, r.is_error) for r in _tool_results(result.new_messages)] == [
        ("Blocked: deploys are frozen", True),
        ("ran make test", False),
    ]
    assert result.text == "done"


@pytest.mark.anyio
async def test_agent_permission_deny_beats_a_hook_allow(tmp_path: Path) -> None:
    seen: list[HookInput] = []
    runner = HookRunner([cb(PRE, HookAllow(), seen)])
    permissions = PermissionGate(PermissionContext.from_rules(tmp_path, deny=["Bash(make deploy)"]))
    shell = Shell()
    provider = ScriptedProvider(
        [[tool_call("c1", "Bash", {"command": "make deploy"})], [text("ok")]]
    )
    async with Agent(provider, tools=[shell], gates=(permissions, HookGate(runner))) as agent:
        result = await agent.run("ship it")
    [denied] = _tool_results(result.new_messages)
    assert shell.ran == []
    assert seen == []  # the hook gate, later in the chain, was never asked
    assert denied.is_error
    assert denied.text.startswith("Permission denied")


@pytest.mark.anyio
async def test_agent_substitute_skips_body_and_post_hooks_still_run() -> None:
    post_seen: list[HookInput] = []
    runner = HookRunner(
        [
            cb(PRE, HookAllow(substitute=ToolReturn.text("cached build"))),
            cb(POST, HookAllow(), post_seen),
        ]
    )
    shell = Shell()
    provider = ScriptedProvider([[tool_call("c1", "Bash", {"command": "make"})], [text("ok")]])
    async with Agent(provider, tools=[shell], gates=(HookGate(runner),)) as agent:
        result = await agent.run("build")
    assert shell.ran == []
    assert [r.text for r in _tool_results(result.new_messages)] == ["cached build"]
    assert [p.tool_response for p in post_seen if isinstance(p, PostToolUseInput)] == [
        {"content": "cached build", "is_error": False}
    ]
