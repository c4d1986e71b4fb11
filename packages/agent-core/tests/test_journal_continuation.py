"""Continuation re-decides nothing that was settled (seed 000, "Execution Journal and
Continuation": "reusing every durable settlement instead of repeating it and keeping the limits
and tool residency the execution started with").

A crash is a :class:`Crash` raised around one journal write of a :class:`CrashingJournal`; the
"fresh process" is a new agent over the same journal whose approver and hooks would now answer
differently. Effects, approver questions and hook firings are counted."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import pytest
from robota.core.agent import Agent
from robota.core.hooks import HookAllow, HookConfig, HookEventName, HookGate, HookInput, HookRunner
from robota.core.journal import (
    INTERRUPTED_EFFECT_TEXT,
    RESERVED_PREFIX,
    JournaledProvider,
    MemoryJournal,
)
from robota.core.messages import JsonValue, ToolResultMessage, text_of
from robota.core.permissions import (
    Approval,
    PermissionContext,
    PermissionGate,
    PermissionRequest,
)
from robota.core.provider import EndpointProvenance
from robota.core.testing.scripted import ScriptedProvider, Turn, text, tool_call
from robota.core.tools.base import RiskClass
from robota.core.tools.function import FunctionTool, tool

pytestmark = pytest.mark.anyio

Method = Literal["record_response", "record_tool_start", "record_tool_result"]


class Crash(BaseException):
    """Stands in for the process dying at a journal boundary."""


class CrashingJournal(MemoryJournal):
    """Raises :class:`Crash` before or after the ``occurrence``-th write of ``method`` (tool
    records only: model starts, residency and waits are not counted)."""

    def __init__(self, method: Method, occurrence: int, when: Literal["before", "after"]) -> None:
        super().__init__()
        self.crash_at: tuple[Method, int, str] | None = (method, occurrence, when)
        self.calls: dict[str, int] = {}

    def _gate(self, method: Method, when: str) -> None:
        if self.crash_at is None:
            return
        count = self.calls.get(method, 0)
        if when == "after":
            self.calls[method] = count + 1
        if self.crash_at == (method, count, when):
            self.crash_at = None
            raise Crash

    async def record_response(self, run_id: str, step: int, response: JsonValue) -> None:
        self._gate("record_response", "before")
        await super().record_response(run_id, step, response)
        self._gate("record_response", "after")

    async def record_tool_start(
        self, run_id: str, key: str, tool_name: str, arguments: JsonValue
    ) -> None:
        if key.startswith(RESERVED_PREFIX):
            await super().record_tool_start(run_id, key, tool_name, arguments)
            return
        self._gate("record_tool_start", "before")
        await super().record_tool_start(run_id, key, tool_name, arguments)
        self._gate("record_tool_start", "after")

    async def record_tool_result(self, run_id: str, key: str, result: JsonValue) -> None:
        if key.startswith(RESERVED_PREFIX):
            await super().record_tool_result(run_id, key, result)
            return
        self._gate("record_tool_result", "before")
        await super().record_tool_result(run_id, key, result)
        self._gate("record_tool_result", "after")


class Approver:
    """Answers every question with ``answer`` and counts the questions."""

    def __init__(self, answer: Literal["allow_once", "deny"]) -> None:
        self.answer: Literal["allow_once", "deny"] = answer
        self.asked: list[str] = []

    async def __call__(self, request: PermissionRequest) -> Approval:
        self.asked.append(request.tool_name)
        return Approval(kind=self.answer, message="user said no this time")


def deploy_tool(effects: list[str], *, idempotent: bool = False) -> FunctionTool:
    @tool(risk=RiskClass.EXECUTE, idempotent=idempotent, sequential=True)
    async def deploy(target: str) -> str:
        """Deploy the service to a target."""
        effects.append(target)
        return "deployed"

    return deploy


DEPLOY_TURNS: list[Turn] = [[tool_call("t1", "deploy", {"target": "prod"})], [text("done")]]


def gated_agent(
    journal: MemoryJournal,
    turns: list[Turn],
    effects: list[str],
    approver: Approver,
    *,
    idempotent: bool = False,
    extra_gates: tuple[Any, ...] = (),
) -> tuple[Agent, ScriptedProvider]:
    provider = ScriptedProvider(turns)
    gate = PermissionGate(PermissionContext.from_rules(Path("."), approver=approver))
    agent = Agent(
        provider,
        system_prompt="You deploy.",
        tools=[deploy_tool(effects, idempotent=idempotent)],
        gates=(gate, *extra_gates),
        journal=journal,
    )
    return agent, provider


def results_of(messages: tuple[Any, ...]) -> list[tuple[str, bool]]:
    return [
        (text_of(r.content), r.is_error)
        for m in messages
        if isinstance(m, ToolResultMessage)
        for r in m.results
    ]


async def test_a_settled_call_is_answered_from_the_journal_without_asking_the_approver() -> None:
    journal = CrashingJournal("record_tool_result", 0, "after")  # "deployed" is journaled
    effects: list[str] = []
    first = Approver("allow_once")
    agent, _ = gated_agent(journal, list(DEPLOY_TURNS), effects, first)
    with pytest.raises(Crash):
        await agent.run("deploy", run_id="r1")
    assert (effects, first.asked) == (["prod"], ["deploy"])

    now_no = Approver("deny")  # would answer differently now
    fresh, provider = gated_agent(journal, [DEPLOY_TURNS[1]], effects, now_no)
    result = await fresh.continue_run("r1")
    assert now_no.asked == []  # never re-asked
    assert effects == ["prod"]  # never re-run
    assert results_of(result.new_messages) == [("deployed", False)]  # the result stays
    assert len(provider.requests) == 1  # only the answer after the tool round was sent


async def test_an_effect_without_a_recorded_result_is_unknown_and_nobody_is_asked_again() -> None:
    journal = CrashingJournal("record_tool_result", 0, "before")  # effect ran, no result
    effects: list[str] = []
    agent, _ = gated_agent(journal, list(DEPLOY_TURNS), effects, Approver("allow_once"))
    with pytest.raises(Crash):
        await agent.run("deploy", run_id="r1")

    now_no = Approver("deny")
    fresh, _ = gated_agent(journal, [DEPLOY_TURNS[1]], effects, now_no)
    result = await fresh.continue_run("r1")
    assert now_no.asked == []
    assert effects == ["prod"]
    assert results_of(result.new_messages) == [(INTERRUPTED_EFFECT_TEXT, True)]


async def test_the_admission_is_journaled_with_the_start() -> None:
    journal = MemoryJournal()
    effects: list[str] = []
    agent, _ = gated_agent(journal, list(DEPLOY_TURNS), effects, Approver("allow_once"))
    await agent.run("deploy", run_id="r1")
    run = await journal.load_run("r1")
    assert run is not None
    record = run.tools["1:0"]
    assert record.arguments == {"target": "prod"}
    admission: Any = record.admission
    assert admission["verdict"] == "allow"
    assert admission["effective_risk"] == "execute"
    assert admission["call"] == {"id": "t1", "name": "deploy", "arguments": {"target": "prod"}}
    [decision] = admission["decisions"]
    assert (decision["type"], decision["behavior"], decision["answered_by"]) == (
        "permission.decided",
        "allow",
        "approver",
    )
    assert decision["mode"] == "default"


async def test_an_idempotent_rerun_uses_the_journaled_admission() -> None:
    journal = CrashingJournal("record_tool_result", 0, "before")
    effects: list[str] = []
    agent, _ = gated_agent(
        journal, list(DEPLOY_TURNS), effects, Approver("allow_once"), idempotent=True
    )
    with pytest.raises(Crash):
        await agent.run("deploy", run_id="r1")

    now_no = Approver("deny")
    fresh, _ = gated_agent(journal, [DEPLOY_TURNS[1]], effects, now_no, idempotent=True)
    result = await fresh.continue_run("r1")
    assert now_no.asked == []  # the journaled decision admits the rerun
    assert effects == ["prod", "prod"]  # idempotent: run again
    assert results_of(result.new_messages) == [("deployed", False)]
    run = await journal.load_run("r1")
    assert run is not None
    assert run.tools["1:0"].result is not None


async def test_a_journaled_denial_stays_a_denial_when_the_approver_would_now_allow() -> None:
    journal = CrashingJournal("record_response", 1, "before")  # after the denial, before text
    effects: list[str] = []
    no = Approver("deny")
    agent, _ = gated_agent(journal, list(DEPLOY_TURNS), effects, no)
    with pytest.raises(Crash):
        await agent.run("deploy", run_id="r1")
    assert (effects, no.asked) == ([], ["deploy"])

    yes = Approver("allow_once")
    fresh, _ = gated_agent(journal, [DEPLOY_TURNS[1]], effects, yes)
    result = await fresh.continue_run("r1", resend_unrecorded_model_call=True)
    assert yes.asked == []
    assert effects == []
    [(denial, is_error)] = results_of(result.new_messages)
    assert is_error
    assert "user said no this time" in denial


async def test_pre_and_post_tool_use_hooks_do_not_fire_again_for_a_settled_call() -> None:
    fired: list[str] = []

    async def pre(payload: HookInput) -> HookAllow:
        fired.append(f"hook:{payload.event}")
        return HookAllow()

    def hooks() -> HookGate:
        return HookGate(
            HookRunner(
                [
                    HookConfig(event=HookEventName.PRE_TOOL_USE, type="callable", handler=pre),
                    HookConfig(event=HookEventName.POST_TOOL_USE, type="callable", handler=pre),
                ]
            )
        )

    journal = CrashingJournal("record_tool_result", 0, "after")
    effects: list[str] = []
    agent, _ = gated_agent(
        journal, list(DEPLOY_TURNS), effects, Approver("allow_once"), extra_gates=(hooks(),)
    )
    with pytest.raises(Crash):
        await agent.run("deploy", run_id="r1")
    assert fired == ["hook:PreToolUse", "hook:PostToolUse"]

    fresh, _ = gated_agent(
        journal, [DEPLOY_TURNS[1]], effects, Approver("deny"), extra_gates=(hooks(),)
    )
    result = await fresh.continue_run("r1")
    assert fired == ["hook:PreToolUse", "hook:PostToolUse"]  # nothing fired again
    assert results_of(result.new_messages) == [("deployed", False)]


# --- residency -------------------------------------------------------------------------------


def residency_agent(
    journal: MemoryJournal, turns: list[Turn], effects: list[str]
) -> tuple[Agent, ScriptedProvider]:
    @tool
    async def read(path: str) -> str:
        """Read a file."""
        return f"read {path}"

    @tool(residency="deferred", sequential=True)
    async def deploy(target: str) -> str:
        """Deploy the service to a target."""
        effects.append(target)
        return "deployed"

    provider = ScriptedProvider(turns)
    agent = Agent(provider, system_prompt="sys", tools=[read, deploy], journal=journal)
    return agent, provider


SEARCH_TURNS: list[Turn] = [
    [tool_call("s1", "tool_search", {"query": "select:deploy"})],
    [tool_call("d1", "deploy", {"target": "prod"})],
    [text("done")],
]


@pytest.mark.parametrize(
    ("method", "occurrence", "when"),
    [
        ("record_response", 1, "after"),  # deploy's call recorded, not run
        ("record_tool_result", 1, "after"),  # deploy's result recorded
        ("record_tool_result", 1, "before"),  # deploy ran, result not recorded
    ],
)
async def test_a_tool_loaded_by_tool_search_is_offered_and_answered_on_continuation(
    method: Method, occurrence: int, when: Literal["before", "after"]
) -> None:
    journal = CrashingJournal(method, occurrence, when)
    effects: list[str] = []
    agent, _ = residency_agent(journal, list(SEARCH_TURNS), effects)
    with pytest.raises(Crash):
        await agent.run("deploy", run_id="r1")
    run = await journal.load_run("r1")
    assert run is not None
    assert run.residency == {"1:0": ("deploy",)}

    fresh, provider = residency_agent(journal, [SEARCH_TURNS[2]], effects)
    assert fresh.catalog.loaded == ()
    result = await fresh.continue_run("r1")
    assert fresh.catalog.loaded == ("deploy",)
    texts = [t for t, _ in results_of(result.new_messages)]
    assert texts[0].startswith("Loaded 1 tool(s)")
    expected = (
        INTERRUPTED_EFFECT_TEXT
        if when == "before" and method == "record_tool_result"
        else "deployed"
    )
    assert texts[1] == expected  # never an unknown-tool skip
    assert effects == ["prod"]
    # the next call offers the loaded tool
    assert "deploy" in [t.name for t in provider.requests[-1].tools]


async def test_the_residency_a_run_started_with_is_restored() -> None:
    journal = CrashingJournal("record_response", 0, "after")
    effects: list[str] = []
    agent, _ = residency_agent(
        journal, [[tool_call("d1", "deploy", {"target": "a"})], "ok"], effects
    )
    agent.catalog.load(["deploy"])  # loaded by an earlier run of the conversation
    with pytest.raises(Crash):
        await agent.run("deploy", run_id="r1")
    fresh, provider = residency_agent(journal, ["ok"], effects)
    result = await fresh.continue_run("r1")
    assert effects == ["a"]
    assert results_of(result.new_messages) == [("deployed", False)]
    assert [t.name for t in provider.requests[0].tools] == ["read", "deploy"]


def test_the_journaled_provider_reports_the_inner_providers_endpoint() -> None:
    class Hosted(ScriptedProvider):
        @property
        def endpoint(self) -> EndpointProvenance:
            return EndpointProvenance(base_url="https://gateway.example/v1", vendor=False)

    wrapped = JournaledProvider(Hosted([]), MemoryJournal(), "r1")
    assert wrapped.endpoint == EndpointProvenance(
        base_url="https://gateway.example/v1", vendor=False
    )
