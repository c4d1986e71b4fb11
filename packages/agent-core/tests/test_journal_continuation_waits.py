"""Durable pre-effect waits on a journaled agent (seed 000, "Execution Journal and Continuation":
"Requests and responses are durable under stable identities; a response can answer only its own
request, is saved before it is used, and never admits an effect by itself — current admission
still decides")."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from robota.core.agent import Agent, RunPaused, RunResult
from robota.core.agent.pause import Approve, Deny, ExternalResult, PauseRequiredError
from robota.core.errors import JournalError
from robota.core.events import Event
from robota.core.journal import MemoryJournal, WaitResponseError
from robota.core.messages import JsonValue, ToolResultMessage, text_of
from robota.core.permissions import PermissionContext, PermissionGate, PermissionMode
from robota.core.testing.scripted import ScriptedProvider, Turn, text, tool_call
from robota.core.tools.base import Tool
from robota.core.tools.function import tool

pytestmark = pytest.mark.anyio


class Crash(BaseException):
    """The process dies."""


class LoggingJournal(MemoryJournal):
    """Logs the order of writes; can die at the first tool start of ``die_at_start``."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[str] = []
        self.die_at_start: str | None = None

    async def record_wait_request(self, run_id: str, request_id: str, request: JsonValue) -> None:
        self.log.append(f"request {request_id}")
        await super().record_wait_request(run_id, request_id, request)

    async def record_wait_response(self, run_id: str, request_id: str, response: JsonValue) -> None:
        self.log.append(f"response {request_id}")
        await super().record_wait_response(run_id, request_id, response)

    async def record_tool_admitted(
        self, run_id: str, key: str, tool_name: str, arguments: JsonValue, admission: JsonValue
    ) -> None:
        if tool_name == self.die_at_start:
            self.die_at_start = None
            raise Crash
        self.log.append(f"start {key} {tool_name}")
        await super().record_tool_admitted(run_id, key, tool_name, arguments, admission)


def tools(effects: list[str]) -> list[Tool]:
    @tool(execution="approval", sequential=True)
    async def deploy(target: str) -> str:
        """Deploy to a target."""
        effects.append(f"deploy {target}")
        return f"deployed {target}"

    @tool(execution="external", sequential=True)
    async def ticket(title: str) -> str:
        """Open a ticket (answered by the host)."""
        effects.append(f"ticket {title}")  # never run by the loop
        return "never"

    return [deploy, ticket]


TURNS: list[Turn] = [
    [tool_call("d1", "deploy", {"target": "prod"}), tool_call("k1", "ticket", {"title": "t"})],
    [text("done")],
]


def make(
    journal: MemoryJournal,
    turns: list[Turn],
    effects: list[str],
    *,
    mode: PermissionMode = PermissionMode.BYPASS,
) -> tuple[Agent, ScriptedProvider]:
    provider = ScriptedProvider(turns)
    gate = PermissionGate(PermissionContext.from_rules(Path("."), mode=mode))
    return Agent(provider, tools=tools(effects), gates=(gate,), journal=journal), provider


def results(result: RunResult) -> list[tuple[str, bool]]:
    return [
        (text_of(r.content), r.is_error)
        for m in result.new_messages
        if isinstance(m, ToolResultMessage)
        for r in m.results
    ]


async def paused_run(
    journal: LoggingJournal, effects: list[str], mode: PermissionMode = PermissionMode.BYPASS
) -> RunPaused:
    agent, _ = make(journal, list(TURNS), effects, mode=mode)
    paused = await agent.run_until_pause("ship it", run_id="r1")
    assert isinstance(paused, RunPaused)
    return paused


async def test_requests_are_saved_before_suspending_and_never_twice() -> None:
    journal = LoggingJournal()
    effects: list[str] = []
    paused = await paused_run(journal, effects)
    assert [(p.key, p.request_id, p.execution) for p in paused.pending] == [
        ("d1", "1:0", "approval"),
        ("k1", "1:1", "external"),
    ]
    assert journal.log == ["request 1:0", "request 1:1"]
    run = await journal.load_run("r1")
    assert run is not None
    assert run.outcome is None
    request: Any = run.waits["1:0"].request
    assert (request["name"], request["arguments"], request["execution"]) == (
        "deploy",
        {"target": "prod"},
        "approval",
    )

    # a fresh process: the continuation reaches the same wait and suspends again
    fresh, provider = make(journal, [], effects)
    again = await fresh.continue_until_pause("r1")
    assert isinstance(again, RunPaused)
    assert [p.request_id for p in again.pending] == ["1:0", "1:1"]
    assert journal.log == ["request 1:0", "request 1:1"]  # nothing saved twice
    assert provider.requests == []  # the model call came from the journal
    assert effects == []


async def test_a_resume_saves_each_response_before_using_it() -> None:
    journal = LoggingJournal()
    effects: list[str] = []
    paused = await paused_run(journal, effects)
    fresh, _ = make(journal, [TURNS[1]], effects)
    result = await fresh.resume(
        paused.state, {"d1": Approve(), "k1": ExternalResult.text("ticket #7")}
    )
    assert isinstance(result, RunResult)
    assert journal.log == [
        "request 1:0",
        "request 1:1",
        "response 1:0",
        "response 1:1",
        "start 1:0 deploy",
    ]
    assert effects == ["deploy prod"]  # the external tool's body never runs
    assert results(result) == [("deployed prod", False), ("ticket #7", False)]


async def test_responses_saved_with_respond_answer_the_wait_in_a_later_continuation() -> None:
    journal = LoggingJournal()
    effects: list[str] = []
    await paused_run(journal, effects)
    host, _ = make(journal, [], effects)
    assert await host.respond("r1", "1:0", Deny(message="not today"))
    assert await host.respond("r1", "1:1", ExternalResult.text("ticket #7"))
    assert not await host.respond("r1", "1:1", ExternalResult.text("ticket #7"))  # same: no-op

    fresh, _ = make(journal, [TURNS[1]], effects)
    result = await fresh.continue_run("r1")
    assert results(result) == [("not today", True), ("ticket #7", False)]
    assert effects == []


async def test_a_response_answers_only_its_own_request() -> None:
    journal = LoggingJournal()
    effects: list[str] = []
    await paused_run(journal, effects)
    host, _ = make(journal, [], effects)
    with pytest.raises(WaitResponseError) as other:
        await host.respond("r1", "2:0", Approve())  # another request id
    assert (other.value.reason, other.value.request_id) == ("unknown_request", "2:0")
    with pytest.raises(WaitResponseError) as kind:
        await host.respond("r1", "1:1", Approve())  # an external request takes a result
    assert kind.value.reason == "mismatched"
    await host.respond("r1", "1:0", Approve())
    with pytest.raises(WaitResponseError) as twice:
        await host.respond("r1", "1:0", Deny(message="changed my mind"))
    assert twice.value.reason == "already_answered"
    assert journal.log.count("response 1:0") == 1


async def test_a_pause_state_that_is_not_the_runs_saved_wait_is_refused() -> None:
    journal = LoggingJournal()
    effects: list[str] = []
    paused = await paused_run(journal, effects)
    forged = replace(
        paused.state,
        pending=tuple(replace(p, request_id=f"9:{p.index}") for p in paused.state.pending),
    )
    fresh, _ = make(journal, [TURNS[1]], effects)
    with pytest.raises(WaitResponseError) as info:
        await fresh.resume(forged, {"d1": Approve(), "k1": ExternalResult.text("x")})
    assert info.value.reason == "unknown_request"
    assert effects == []
    assert "response 1:0" not in journal.log


async def test_an_approval_never_admits_an_effect_by_itself() -> None:
    journal = LoggingJournal()
    effects: list[str] = []
    # default mode, no approver: a call of a tool without a declared risk class is asked about,
    # and an ask nobody can answer is a denial
    paused = await paused_run(journal, effects, PermissionMode.DEFAULT)
    strict, _ = make(journal, [TURNS[1]], effects, mode=PermissionMode.DEFAULT)
    result = await strict.resume(paused.state, {"d1": Approve(), "k1": ExternalResult.text("x")})
    assert isinstance(result, RunResult)
    assert effects == []
    (denied, is_error), _ = results(result)
    assert is_error
    assert denied.startswith("Permission denied")


async def test_a_crash_after_the_responses_were_saved_continues_with_them() -> None:
    journal = LoggingJournal()
    effects: list[str] = []
    paused = await paused_run(journal, effects)
    journal.die_at_start = "deploy"
    dying, _ = make(journal, [TURNS[1]], effects)
    with pytest.raises(Crash):
        await dying.resume(paused.state, {"d1": Approve(), "k1": ExternalResult.text("#7")})
    assert effects == []

    fresh, provider = make(journal, [TURNS[1]], effects)
    result = await fresh.continue_run("r1")  # no decision given again: the saved ones answer
    assert effects == ["deploy prod"]
    assert results(result) == [("deployed prod", False), ("#7", False)]
    assert len(provider.requests) == 1
    assert journal.log.count("response 1:0") == 1


async def test_a_failing_response_write_fails_the_resume_and_runs_nothing() -> None:
    class Broken(LoggingJournal):
        async def record_wait_response(
            self, run_id: str, request_id: str, response: JsonValue
        ) -> None:
            raise OSError("disk full")

    journal = Broken()
    effects: list[str] = []
    paused = await paused_run(journal, effects)
    fresh, provider = make(journal, [TURNS[1]], effects)
    with pytest.raises(JournalError, match="disk full"):
        await fresh.resume(paused.state, {"d1": Approve(), "k1": ExternalResult.text("x")})
    assert (effects, provider.requests) == ([], [])


async def test_run_on_a_journaled_agent_keeps_the_wait_durable() -> None:
    journal = LoggingJournal()
    effects: list[str] = []
    agent, _ = make(journal, list(TURNS), effects)
    seen: list[str] = []

    class Sink:
        def emit(self, event: Event) -> None:
            seen.append(event.type)

    agent.sinks = (Sink(),)
    with pytest.raises(PauseRequiredError) as info:
        await agent.run("ship it", run_id="r1")
    assert "run.suspended" in seen  # suspension is control flow, not a failure
    assert "run.failed" not in seen
    assert [p.request_id for p in info.value.paused.pending] == ["1:0", "1:1"]
    run = await journal.load_run("r1")
    assert run is not None
    assert run.outcome is None  # suspended, not failed
    assert sorted(run.waits) == ["1:0", "1:1"]
