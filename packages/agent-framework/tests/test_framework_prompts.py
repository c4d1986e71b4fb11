"""Behaviour of the shared prompt registry (seed 003, "Prompt/permission settlement is
first-wins and fail-closed")."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import anyio
import anyio.lowlevel
import pytest
from robota.core.agent import Agent
from robota.core.events import Event
from robota.core.messages import ToolResultMessage
from robota.core.permissions import (
    Approval,
    Behavior,
    DecisionStep,
    PermissionContext,
    PermissionDecision,
    PermissionGate,
    PermissionRequest,
)
from robota.core.testing.scripted import ScriptedProvider, tool_call
from robota.core.tools.base import RiskClass
from robota.core.tools.function import FunctionTool
from robota.framework.prompts import PendingPrompt, PromptRegistry, PromptRequested, PromptResolved


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Sink:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)

    def resolved(self) -> list[PromptResolved]:
        return [e for e in self.events if isinstance(e, PromptResolved)]


def ask(tool: str = "shell", argument: str = "rm -rf build") -> PermissionRequest:
    decision = PermissionDecision(
        behavior=Behavior.ASK, step=DecisionStep.ASK_RULE, reason="asks", tool_name=tool
    )
    return PermissionRequest(
        tool_name=tool,
        argument=argument,
        arguments_text=f'{{"command": "{argument}"}}',
        reason="an ask rule matched",
        decision=decision,
        call_id="call_1",
    )


@pytest.mark.anyio
async def test_two_surfaces_race_the_first_answer_wins_with_one_resolution_event() -> None:
    sink = Sink()
    registry = PromptRegistry(sinks=[sink])
    release_slow = anyio.Event()
    slow_cancelled: list[bool] = []

    async def slow(prompt: PendingPrompt) -> Approval:
        try:
            await release_slow.wait()
        except anyio.get_cancelled_exc_class():
            slow_cancelled.append(True)
            raise
        return Approval(kind="allow_once")

    async def fast(prompt: PendingPrompt) -> Approval:
        await anyio.lowlevel.checkpoint()
        return Approval(kind="deny", message="not today")

    registry.attach(slow)
    registry.attach(fast)

    answer = await registry.approver(ask())

    assert answer == Approval(kind="deny", message="not today")
    assert slow_cancelled == [True]
    requested = [e for e in sink.events if isinstance(e, PromptRequested)]
    [resolved] = sink.resolved()
    assert resolved.request_id == requested[0].request_id
    assert resolved.source == "surface"
    assert registry.settle(resolved.request_id, Approval(kind="allow_once")) is False
    assert len(sink.resolved()) == 1
    assert registry.pending() == ()


@pytest.mark.anyio
async def test_a_surface_that_raises_resolves_to_deny() -> None:
    sink = Sink()
    registry = PromptRegistry(sinks=[sink])
    never = anyio.Event()

    async def broken(prompt: PendingPrompt) -> Approval:
        raise RuntimeError("the UI crashed")

    async def idle(prompt: PendingPrompt) -> Approval:
        await never.wait()
        return Approval(kind="allow_once")

    registry.attach(idle)
    registry.attach(broken)

    answer = await registry.approver(ask())

    assert answer.kind == "deny"
    assert answer.message == "The approval prompt failed, so the call was denied."
    assert [e.source for e in sink.resolved()] == ["surface_failed"]


@pytest.mark.anyio
async def test_no_surface_attached_denies_at_once() -> None:
    sink = Sink()
    registry = PromptRegistry(sinks=[sink])

    answer = await registry.approver(ask())

    assert answer.kind == "deny"
    assert [type(e) for e in sink.events] == [PromptRequested, PromptResolved]
    assert sink.resolved()[0].source == "no_surface"


@pytest.mark.anyio
async def test_wait_mode_is_settled_by_id_first_settlement_wins() -> None:
    sink = Sink()
    registry = PromptRegistry(sinks=[sink], wait_without_surface=True)
    answers: list[Approval] = []

    async with anyio.create_task_group() as group:

        async def waiting_run() -> None:
            answers.append(await registry.approver(ask()))

        group.start_soon(waiting_run)
        while not registry.pending():
            await anyio.lowlevel.checkpoint()
        [prompt] = registry.pending()
        assert prompt.request.argument == "rm -rf build"
        assert registry.settle(prompt.request_id, Approval(kind="allow_session")) is True
        assert registry.settle(prompt.request_id, Approval(kind="deny")) is False

    assert answers == [Approval(kind="allow_session")]
    assert [(e.source, e.approval.kind) for e in sink.resolved()] == [("settle", "allow_session")]


@pytest.mark.anyio
async def test_cancelling_the_waiting_run_denies_with_one_resolution_event() -> None:
    sink = Sink()
    registry = PromptRegistry(sinks=[sink])
    asked = anyio.Event()
    never = anyio.Event()

    async def person(prompt: PendingPrompt) -> Approval:
        asked.set()
        await never.wait()
        return Approval(kind="allow_once")

    registry.attach(person)
    finished: list[str] = []
    async with anyio.create_task_group() as group:

        async def waiting_run() -> None:
            try:
                await registry.approver(ask())
            except anyio.get_cancelled_exc_class():
                finished.append("cancelled")
                raise

        group.start_soon(waiting_run)
        await asked.wait()
        group.cancel_scope.cancel()

    assert finished == ["cancelled"]
    [resolved] = sink.resolved()
    assert (resolved.source, resolved.approval.kind) == ("cancelled", "deny")
    assert registry.pending() == ()


@pytest.mark.anyio
async def test_the_last_surface_leaving_denies_open_questions() -> None:
    sink = Sink()
    registry = PromptRegistry(sinks=[sink])
    asked = anyio.Event()
    never = anyio.Event()

    async def person(prompt: PendingPrompt) -> Approval:
        asked.set()
        await never.wait()
        return Approval(kind="allow_once")

    detach = registry.attach(person)
    answers: list[Approval] = []
    async with anyio.create_task_group() as group:

        async def waiting_run() -> None:
            answers.append(await registry.approver(ask()))

        group.start_soon(waiting_run)
        await asked.wait()
        detach()

    assert [a.kind for a in answers] == ["deny"]
    assert [e.source for e in sink.resolved()] == ["detached"]


@pytest.mark.anyio
async def test_agent_permission_asks_go_through_the_registry(tmp_path: Path) -> None:
    ran: list[str] = []

    def shell(command: str) -> str:
        ran.append(command)
        return "ok"

    tool = FunctionTool(shell, risk=RiskClass.EXECUTE, permission_argument=("command", "command"))
    registry = PromptRegistry()
    seen: list[str | None] = []

    async def surface(prompt: PendingPrompt) -> Approval:
        seen.append(prompt.request.argument)
        if prompt.request.argument == "make test":
            return Approval(kind="allow_once")
        return Approval(kind="deny", message="Not that one.")

    registry.attach(surface)
    context = PermissionContext.from_rules(tmp_path, ask=["shell"], approver=registry.approver)
    provider = ScriptedProvider(
        [
            [
                tool_call("c1", "shell", {"command": "make test"}),
                tool_call("c2", "shell", {"command": "make deploy"}),
            ],
            "done",
        ]
    )
    agent = Agent(provider, tools=[tool], gates=[PermissionGate(context)], max_parallel_tools=1)

    result = await agent.run("go")

    assert ran == ["make test"]
    assert sorted(s or "" for s in seen) == ["make deploy", "make test"]
    [message] = [m for m in result.new_messages if isinstance(m, ToolResultMessage)]
    denied = message.results[1]
    assert denied.is_error
    assert "Not that one." in denied.text


@pytest.mark.parametrize("module", ["robota.framework.prompts.registry"])
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0
    assert result.failed == 0
