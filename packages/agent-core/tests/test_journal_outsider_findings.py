"""Regressions for an outside review of the journal: a hook configuration added after a crash is
state drift, and two responders answering one saved wait never replace each other's response."""

from __future__ import annotations

import json
from typing import Any

import pytest
from robota.core.agent import Agent, RunPaused
from robota.core.agent.pause import Approve, Deny
from robota.core.hooks import HookAllow, HookConfig, HookEventName, HookGate, HookInput, HookRunner
from robota.core.hooks.outcome import HookResult
from robota.core.journal import (
    AlreadyRecordedError,
    MemoryJournal,
    ReconciliationError,
    WaitResponseError,
)
from robota.core.messages import JsonValue
from robota.core.testing.scripted import ScriptedProvider, Turn, text, tool_call
from robota.core.tools.base import Tool
from robota.core.tools.function import tool

pytestmark = pytest.mark.anyio


class Crash(BaseException):
    """The process dies."""


class DiesAtFirstResponse(MemoryJournal):
    def __init__(self) -> None:
        super().__init__()
        self.armed = True

    async def record_response(self, run_id: str, step: int, response: JsonValue) -> None:
        await super().record_response(run_id, step, response)
        if self.armed:
            self.armed = False
            raise Crash


async def allow(hook_input: HookInput) -> HookResult:
    return HookAllow()


async def other(hook_input: HookInput) -> HookResult:
    return HookAllow()


def hook(hook_id: str, **fields: Any) -> HookConfig:
    return HookConfig(event=HookEventName.PRE_TOOL_USE, matcher="append", id=hook_id, **fields)


def append_tools(effects: list[str]) -> list[Tool]:
    @tool(sequential=True)
    async def append(line: str) -> str:
        """Append a line."""
        effects.append(line)
        return f"appended {line}"

    return [append]


TURNS: list[Turn] = [[tool_call("t1", "append", {"line": "a"})], [text("done")]]


def agent_with(journal: MemoryJournal, turns: list[Turn], hooks: list[HookConfig]) -> Agent:
    gate = HookGate(HookRunner(hooks))
    return Agent(ScriptedProvider(turns), tools=append_tools([]), gates=(gate,), journal=journal)


def test_hook_gate_fingerprints_hooks_but_not_secrets() -> None:
    base = [hook("pre", type="callable", handler=allow)]
    state = HookGate(HookRunner(base)).journal_state()
    assert state == HookGate(HookRunner(list(base))).journal_state()
    assert "pre" in json.dumps(state)
    assert "allow" in json.dumps(state)
    added = HookGate(HookRunner([*base, hook("x", type="callable", handler=other)]))
    assert added.journal_state() != state
    secret = HookGate(
        HookRunner(
            [
                hook(
                    "web",
                    type="http",
                    url="https://user:pw-SECRET@hooks.example/check?token=SECRET#frag",
                    headers={"Authorization": "Bearer SECRET"},
                ),
                hook("cmd", type="command", command="guard.sh", env={"API_KEY": "SECRET"}),
            ]
        )
    ).journal_state()
    dumped = json.dumps(secret)
    assert "SECRET" not in dumped
    assert "hooks.example/check" in dumped
    assert "guard.sh" in dumped
    assert "API_KEY" in dumped


async def test_a_hook_added_after_the_crash_is_refused_as_state_drift() -> None:
    journal = DiesAtFirstResponse()
    base = [hook("pre", type="callable", handler=allow)]
    with pytest.raises(Crash):
        await agent_with(journal, list(TURNS), base).run("go", run_id="r1")
    extra = [*base, hook("extra", type="callable", handler=other)]
    with pytest.raises(ReconciliationError) as info:
        await agent_with(journal, [TURNS[1]], extra).continue_run("r1")
    assert [d.what for d in info.value.differences] == ["gates"]
    result = await agent_with(journal, [TURNS[1]], extra).continue_run(
        "r1", accept_state_drift=True
    )
    assert result.text == "done"


class RacedJournal(MemoryJournal):
    """Another host saves ``first`` between this host's check and its write."""

    def __init__(self) -> None:
        super().__init__()
        self.first: JsonValue | None = None

    async def record_wait_response(self, run_id: str, request_id: str, response: JsonValue) -> None:
        if self.first is not None:
            first, self.first = self.first, None
            await super().record_wait_response(run_id, request_id, first)
        await super().record_wait_response(run_id, request_id, response)


def approval_tools() -> list[Tool]:
    @tool(execution="approval", sequential=True)
    async def release(version: str) -> str:
        """Release a version."""
        return f"released {version}"

    return [release]


async def paused(journal: MemoryJournal) -> None:
    agent = Agent(
        ScriptedProvider([[tool_call("c1", "release", {"version": "1"})]]),
        tools=approval_tools(),
        journal=journal,
    )
    assert isinstance(await agent.run_until_pause("go", run_id="r"), RunPaused)


async def test_a_response_saved_by_another_host_first_is_never_replaced() -> None:
    from robota.core.agent._waits import encode_response

    journal = RacedJournal()
    await paused(journal)
    journal.first = encode_response("1:0", Approve())
    host = Agent(ScriptedProvider([]), tools=approval_tools(), journal=journal)
    with pytest.raises(WaitResponseError) as info:
        await host.respond("r", "1:0", Deny(message="no"))
    assert info.value.reason == "already_answered"
    run = await journal.load_run("r")
    assert run is not None
    assert run.waits["1:0"].response == encode_response("1:0", Approve())

    # the same response saved by the other host first: not saved again, no error
    journal2 = RacedJournal()
    await paused(journal2)
    journal2.first = encode_response("1:0", Approve())
    host2 = Agent(ScriptedProvider([]), tools=approval_tools(), journal=journal2)
    assert await host2.respond("r", "1:0", Approve()) is False


async def test_the_default_compare_and_set_refuses_a_second_result() -> None:
    journal = MemoryJournal()
    await journal.start_run("r", {})
    await journal.record_wait_request("r", "1:0", {"q": 1})
    await journal.record_wait_response("r", "1:0", {"a": 1})
    with pytest.raises(AlreadyRecordedError):
        await journal.record_wait_response("r", "1:0", {"a": 2})
    run = await journal.load_run("r")
    assert run is not None
    assert run.waits["1:0"].response == {"a": 1}
