"""Agent disposal (seed 000, "Disposal Contract")."""

from __future__ import annotations

import anyio
import pytest
from robota.core.agent import Agent
from robota.core.errors import AgentClosedError
from robota.core.gate import ToolGate
from robota.core.testing.scripted import ScriptedProvider, reached, text, wait_for


class ClosingGate(ToolGate):
    def __init__(self, log: list[str], fail: bool = False) -> None:
        self.log = log
        self.fail = fail

    async def aclose(self) -> None:
        self.log.append("closed")
        if self.fail:
            raise OSError("socket already gone")


@pytest.mark.anyio
async def test_aclose_waits_for_running_and_queued_runs_then_refuses_new_ones() -> None:
    release = anyio.Event()
    started = anyio.Event()
    provider = ScriptedProvider([[reached(started), wait_for(release), text("one")], "two"])
    log: list[str] = []
    agent = Agent(provider, gates=[ClosingGate(log)])
    finished: list[str] = []

    async def run(prompt: str) -> None:
        finished.append((await agent.run(prompt)).text)

    async def close() -> None:
        errors = await agent.aclose()
        log.append(f"aclose returned {errors}")

    async with anyio.create_task_group() as tg:
        tg.start_soon(run, "1")
        await started.wait()
        tg.start_soon(run, "2")
        await anyio.wait_all_tasks_blocked()
        tg.start_soon(close)
        await anyio.wait_all_tasks_blocked()
        assert log == []
        release.set()
    assert finished == ["one", "two"]
    assert log == ["closed", "aclose returned []"]
    with pytest.raises(AgentClosedError):
        await agent.run("3")
    with pytest.raises(AgentClosedError):
        await agent.call_tool("anything", {})


@pytest.mark.anyio
async def test_aclose_collects_gate_failures_and_is_idempotent() -> None:
    log: list[str] = []
    agent = Agent(ScriptedProvider([]), gates=[ClosingGate(log, fail=True), ClosingGate(log)])
    errors = await agent.aclose()
    assert [type(e).__name__ for e in errors] == ["OSError"]
    assert log == ["closed", "closed"]
    again = await agent.aclose()
    assert [str(e) for e in again] == ["socket already gone"]
    assert log == ["closed", "closed"]
    assert agent.closed


@pytest.mark.anyio
async def test_async_with_closes_and_a_later_stream_is_refused() -> None:
    async with Agent(ScriptedProvider(["hi"])) as agent:
        assert (await agent.run("q")).text == "hi"

    async def consume() -> None:
        async with agent.stream("late") as stream:
            async for _ in stream:
                pass

    with pytest.raises(AgentClosedError):
        await consume()
