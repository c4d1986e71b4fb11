"""PermissionGate in the agent loop's seam: offers, before_tool, events."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from robota.core.events import Event
from robota.core.gate import Allow, Deny, ToolCallRequest
from robota.core.messages import ToolCallPart
from robota.core.permissions import (
    Approval,
    PermissionContext,
    PermissionDecided,
    PermissionGate,
    PermissionRequest,
    PermissionRequested,
)
from robota.core.tools.base import ArgumentKind, PermissionArgument, RiskClass, Tool, ToolContext


class Shell(Tool):
    name = "Bash"
    risk = RiskClass.EXECUTE
    permission_argument = PermissionArgument(key="command", kind=ArgumentKind.COMMAND)
    parameters = {"type": "object", "properties": {"command": {"type": "string"}}}  # noqa: RUF012

    async def call(self, arguments: dict[str, Any], ctx: ToolContext[Any]) -> str:
        return "ran"


class Clock(Tool):
    name = "Clock"
    risk = RiskClass.INSPECT

    async def call(self, arguments: dict[str, Any], ctx: ToolContext[Any]) -> str:
        return "noon"


def request(
    tool: Tool, arguments: dict[str, Any], events: list[Event], *, direct: bool = False
) -> ToolCallRequest:
    return ToolCallRequest(
        call=ToolCallPart(
            id="c1", name=tool.name, arguments=arguments, raw_arguments=json.dumps(arguments)
        ),
        tool=tool,
        arguments=arguments,
        run_id="run_1",
        call_id="call_1",
        direct=direct,
        emit=events.append,
    )


def test_tool_denied_outright_is_withheld(tmp_path: Path) -> None:
    gate = PermissionGate(PermissionContext.from_rules(tmp_path, deny=["Bash", "Clock(noon)"]))
    assert gate.offers(Shell()) is False
    assert gate.offers(Clock()) is True


@pytest.mark.anyio
async def test_deny_becomes_gate_deny_with_readable_reason(tmp_path: Path) -> None:
    events: list[Event] = []
    gate = PermissionGate(PermissionContext.from_rules(tmp_path, deny=["Bash(rm *)"]))
    verdict = await gate.before_tool(request(Shell(), {"command": "ls; rm x"}, events))
    assert verdict == Deny(message="Permission denied: denied by rule Bash(rm *)")
    assert [e.type for e in events] == ["permission.decided"]
    decided = events[0]
    assert isinstance(decided, PermissionDecided)
    assert (decided.behavior, decided.step, decided.rule, decided.call_id) == (
        "deny",
        "deny_rule",
        "Bash(rm *)",
        "call_1",
    )


@pytest.mark.anyio
async def test_ask_goes_to_approver_and_is_evented(tmp_path: Path) -> None:
    events: list[Event] = []
    shown: list[PermissionRequest] = []

    async def approve(req: PermissionRequest) -> Approval:
        shown.append(req)
        return Approval(kind="allow_once")

    gate = PermissionGate(PermissionContext.from_rules(tmp_path, approver=approve))
    verdict = await gate.before_tool(request(Shell(), {"command": "make"}, events))
    assert verdict == Allow(effective_risk=RiskClass.EXECUTE)
    assert [e.type for e in events] == ["permission.requested", "permission.decided"]
    requested = events[0]
    assert isinstance(requested, PermissionRequested)
    assert (requested.argument, requested.reason) == (
        "make",
        "no rule allows this execute-class call",
    )
    assert shown[0].arguments_text == '{"command": "make"}'


@pytest.mark.anyio
async def test_direct_invocation_never_opens_the_approver(tmp_path: Path) -> None:
    events: list[Event] = []
    opened: list[str] = []

    async def approve(req: PermissionRequest) -> Approval:
        opened.append(req.tool_name)
        return Approval(kind="allow_once")

    gate = PermissionGate(PermissionContext.from_rules(tmp_path, approver=approve))
    verdict = await gate.before_tool(request(Shell(), {"command": "make"}, events, direct=True))
    assert isinstance(verdict, Deny)
    assert verdict.message.startswith("Permission denied: direct invocation cannot ask")
    assert opened == []
    assert [e.type for e in events] == ["permission.decided"]


@pytest.mark.anyio
async def test_inspect_tool_without_argument_is_allowed(tmp_path: Path) -> None:
    gate = PermissionGate(PermissionContext.from_rules(tmp_path))
    assert await gate.before_tool(request(Clock(), {}, [])) == Allow(
        effective_risk=RiskClass.INSPECT
    )
