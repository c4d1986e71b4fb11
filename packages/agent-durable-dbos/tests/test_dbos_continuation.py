"""DBOSAgent keeps the journal's continuation rules (seed 000, "Execution Journal and
Continuation"): a call's admission is a DBOS step (an approver is asked once per call, ever), a
model call sent without a recorded response is refused unless the host opts in, tool residency
is carried from run to run, and an ``approval``/``external`` call is a durable wait whose
response answers only its own request. In one process on SQLite; the crash cases are in
``tests-integration/test_dbos_kill.py``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from dbos import DBOS
from robota.core.agent.pause import Approve, Deny, ExternalResult
from robota.core.journal import ReconciliationError, WaitResponseError
from robota.core.messages import ToolResultMessage, UserMessage, text_of
from robota.core.permissions import Approval, PermissionContext, PermissionGate, PermissionRequest
from robota.core.provider import EndpointProvenance, ModelRequest
from robota.core.testing.scripted import ScriptedProvider, Turn, text, tool_call
from robota.core.tools.base import RiskClass
from robota.core.tools.function import tool
from robota.durable.dbos import DBOSAgent, DBOSProvider, DurableRunResult

pytestmark = pytest.mark.anyio

EFFECTS: list[str] = []
ASKED: list[str] = []


@tool(risk=RiskClass.EXECUTE)
async def deploy(target: str) -> str:
    """Deploy to a target."""
    EFFECTS.append(f"deploy {target}")
    return f"deployed {target}"


@tool(execution="approval")
async def release(version: str) -> str:
    """Publish a release (needs a person's approval)."""
    EFFECTS.append(f"release {version}")
    return f"released {version}"


@tool(residency="deferred")
async def rollback(target: str) -> str:
    """Roll a deployment back."""
    EFFECTS.append(f"rollback {target}")
    return f"rolled back {target}"


async def approver(request: PermissionRequest) -> Approval:
    ASKED.append(request.tool_name)
    return Approval(kind="allow_once")


def results(result: DurableRunResult) -> list[str]:
    return [
        text_of(r.content)
        for m in result.new_messages
        if isinstance(m, ToolResultMessage)
        for r in m.results
    ]


@pytest.fixture
async def launched(tmp_path: Path) -> AsyncIterator[None]:
    EFFECTS.clear()
    ASKED.clear()
    DBOS(
        config={
            "name": "robota-continuation",
            "system_database_url": f"sqlite:///{tmp_path}/dbos.db",
            "application_version": "unit-1",
            "executor_id": "unit",
            "log_level": "WARNING",
        }
    )
    yield
    DBOS.destroy(destroy_registry=True)


async def test_a_calls_admission_is_a_step_and_the_approver_is_asked_once(
    launched: None,
) -> None:
    turns: list[Turn] = [[tool_call("t1", "deploy", {"target": "prod"})], [text("done")]]
    gate = PermissionGate(PermissionContext.from_rules(Path("."), approver=approver))
    durable = DBOSAgent(ScriptedProvider(turns), tools=[deploy], name="gated", gates=[gate])
    DBOS.launch()
    result = await durable.run("ship", workflow_id="wf-gated")
    assert (results(result), EFFECTS, ASKED) == (["deployed prod"], ["deploy prod"], ["deploy"])
    steps = [s["function_name"] for s in await DBOS.list_workflow_steps_async("wf-gated")]
    assert steps.count("robota.tool_admission") == 1
    assert steps.count("robota.tool_after") == 1
    assert steps.count("robota.model_start") == 2


async def test_a_durable_wait_takes_only_a_response_to_its_own_request(launched: None) -> None:
    turns: list[Turn] = [[tool_call("r1", "release", {"version": "1.2"})], [text("done")]]
    durable = DBOSAgent(ScriptedProvider(turns), tools=[release], name="waits")
    DBOS.launch()
    workflow_id = await durable.start("release", workflow_id="wf-wait")
    with anyio.fail_after(30):
        while not await durable.requests(workflow_id):  # noqa: ASYNC110 - another party answers
            await anyio.sleep(0.05)
    pending = await durable.requests(workflow_id)
    assert list(pending) == ["1:0"]
    assert EFFECTS == []  # saved before any effect
    with pytest.raises(WaitResponseError) as other:
        await durable.respond(workflow_id, "2:0", Approve())
    assert other.value.reason == "unknown_request"
    with pytest.raises(WaitResponseError) as kind:
        await durable.respond(workflow_id, "1:0", ExternalResult.text("no"))
    assert kind.value.reason == "mismatched"
    assert await durable.respond(workflow_id, "1:0", Approve())
    result = await durable.result(workflow_id)
    assert (results(result), EFFECTS) == (["released 1.2"], ["release 1.2"])
    assert not await durable.respond(workflow_id, "1:0", Approve())  # the same, used: no-op
    with pytest.raises(WaitResponseError) as twice:
        await durable.respond(workflow_id, "1:0", Deny(message="no"))
    assert twice.value.reason == "already_answered"
    assert await durable.requests(workflow_id) == {}


async def test_residency_is_carried_from_run_to_run(launched: None) -> None:
    turns: list[Turn] = [
        [tool_call("s1", "tool_search", {"query": "select:rollback"})],
        [tool_call("b1", "rollback", {"target": "prod"})],
        [text("rolled back")],
        [tool_call("b2", "rollback", {"target": "staging"})],
        [text("again")],
    ]
    provider = ScriptedProvider(turns)
    durable = DBOSAgent(provider, tools=[deploy, rollback], name="residency")
    DBOS.launch()
    first = await durable.run("roll back prod", workflow_id="wf-res-1")
    assert first.loaded == ("rollback",)
    assert results(first)[1] == "rolled back prod"
    second = await durable.run(
        "and staging",
        history=[UserMessage.of("roll back prod"), *first.new_messages],
        workflow_id="wf-res-2",
        loaded=first.loaded,
    )
    assert results(second) == ["rolled back staging"]
    assert [t.name for t in provider.requests[3].tools] == ["deploy", "rollback"]


async def test_a_model_call_sent_by_an_earlier_execution_is_refused_unless_opted_in() -> None:
    request = ModelRequest(model="scripted-model", messages=(UserMessage.of("hi"),))
    refusing = DBOSProvider(ScriptedProvider(["hello"]), "now")
    with pytest.raises(ReconciliationError) as info:
        await refusing._call(True, 3, request)  # pyright: ignore[reportPrivateUsage]
    assert (info.value.reason, info.value.steps) == ("unrecorded_model_call", (3,))
    inner = ScriptedProvider(["hello"])
    resending = DBOSProvider(inner, "now", resend_unrecorded_model_call=True)
    await resending._call(True, 3, request)  # pyright: ignore[reportPrivateUsage]
    assert len(inner.requests) == 1


def test_the_dbos_provider_reports_the_inner_providers_endpoint() -> None:
    class Hosted(ScriptedProvider):
        @property
        def endpoint(self) -> EndpointProvenance:
            return EndpointProvenance(base_url="http://127.0.0.1:8080/v1", vendor=False)

    assert DBOSProvider(Hosted([])).endpoint.base_url == "http://127.0.0.1:8080/v1"


def launch(tmp_path: Path) -> None:
    DBOS(
        config={
            "name": "robota-drift",
            "system_database_url": f"sqlite:///{tmp_path}/drift.db",
            "application_version": "unit-1",
            "executor_id": "unit",
            "log_level": "WARNING",
        }
    )


@pytest.mark.parametrize("accept", [False, True])
async def test_a_workflow_recovered_under_other_runtime_state_is_refused_unless_accepted(
    tmp_path: Path, accept: bool
) -> None:
    EFFECTS.clear()
    turns: list[Turn] = [[tool_call("r1", "release", {"version": "1.2"})], [text("done")]]
    launch(tmp_path)
    first = DBOSAgent(ScriptedProvider(turns), tools=[release], name="drift", system_prompt="a")
    DBOS.launch()
    workflow_id = await first.start("release", workflow_id="wf-drift")
    with anyio.fail_after(30):
        while not await first.requests(workflow_id):  # noqa: ASYNC110 - the workflow saves it
            await anyio.sleep(0.05)
    DBOS.destroy(destroy_registry=True)  # the process "dies" while the workflow waits

    launch(tmp_path)
    later = DBOSAgent(
        ScriptedProvider([[text("done")]]),
        tools=[release],
        name="drift",
        system_prompt="b",  # another system prompt: runtime state that differs
        accept_state_drift=accept,
    )
    DBOS.launch()
    try:
        if not accept:
            with pytest.raises(ReconciliationError) as info:
                await later.result(workflow_id)
            assert info.value.reason == "state_drift"
            assert [d.what for d in info.value.differences] == ["system prompt"]
            assert EFFECTS == []
            return
        with anyio.fail_after(30):
            while not await later.requests(workflow_id):  # noqa: ASYNC110
                await anyio.sleep(0.05)
        await later.respond(workflow_id, "1:0", Approve())
        result = await later.result(workflow_id)
        assert (results(result), EFFECTS) == (["released 1.2"], ["release 1.2"])
    finally:
        DBOS.destroy(destroy_registry=True)
