"""What the journal cannot prove is refused, never guessed (seed 000, "Execution Journal and
Continuation"): a model call recorded as sent without a recorded response, and runtime state
that differs from the saved checkpoint — each refused with a ``ReconciliationError`` that says
exactly what differs, before anything is sent, run or restored, unless the host opts in."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from robota.core.agent import Agent
from robota.core.journal import (
    CHECKPOINT_VERSION,
    ContinuationError,
    MemoryJournal,
    ReconciliationError,
)
from robota.core.messages import JsonValue, Message, UserMessage
from robota.core.permissions import PermissionContext, PermissionGate, PermissionMode
from robota.core.settings import ModelSettings
from robota.core.testing.scripted import ScriptedProvider, Turn, text, tool_call
from robota.core.tools.function import FunctionTool, tool

pytestmark = pytest.mark.anyio


class Crash(BaseException):
    """The process dies."""


class DiesAtResponse(MemoryJournal):
    """Dies right after recording response ``step`` (``before=True``: right before)."""

    def __init__(self, step: int, *, before: bool = False) -> None:
        super().__init__()
        self.step: int | None = step
        self.before = before

    async def record_response(self, run_id: str, step: int, response: JsonValue) -> None:
        if step == self.step and self.before:
            self.step = None
            raise Crash
        await super().record_response(run_id, step, response)
        if step == self.step:
            self.step = None
            raise Crash


def append_tool(effects: list[str]) -> FunctionTool:
    @tool(sequential=True)
    async def append(line: str) -> str:
        """Append a line."""
        effects.append(line)
        return f"appended {line}"

    return append


TURNS: list[Turn] = [[tool_call("t1", "append", {"line": "a"})], [text("done")]]


def make(
    journal: MemoryJournal,
    turns: list[Turn],
    effects: list[str],
    *,
    mode: PermissionMode = PermissionMode.BYPASS,
    model: str | None = None,
    settings: ModelSettings | None = None,
    processors: Sequence[Any] = (),
    system_prompt: str = "sys",
    allow: Sequence[str] = (),
) -> tuple[Agent, ScriptedProvider]:
    provider = ScriptedProvider(turns)
    agent = Agent(
        provider,
        model=model,
        system_prompt=system_prompt,
        tools=[append_tool(effects)],
        gates=(PermissionGate(PermissionContext.from_rules(Path("."), mode=mode, allow=allow)),),
        settings=settings,
        history_processors=processors,
        journal=journal,
    )
    return agent, provider


async def crashed(journal: MemoryJournal, effects: list[str]) -> None:
    agent, _ = make(journal, list(TURNS), effects)
    with pytest.raises(Crash):
        await agent.run("go", run_id="r1")


async def test_the_checkpoint_saves_residency_and_fingerprints() -> None:
    journal = MemoryJournal()
    agent, _ = make(journal, ["hi"], [], settings=ModelSettings(temperature=0.2))
    await agent.run("go", run_id="r1")
    run = await journal.load_run("r1")
    assert run is not None
    checkpoint: Any = run.checkpoint
    assert checkpoint["version"] == CHECKPOINT_VERSION == 2
    assert checkpoint["loaded"] == []
    assert checkpoint["deferred"] == []
    assert checkpoint["agent_settings"] == {"temperature": 0.2}
    [gate] = checkpoint["gates"]
    assert gate["gate"] == "robota.core.permissions.gate.PermissionGate"
    assert gate["state"]["mode"] == "bypass"
    start: Any = run.model_starts[0]
    assert start["model"] == "scripted-model"
    assert len(start["digest"]) == 64


@pytest.mark.parametrize(
    ("change", "what"),
    [
        ({"mode": PermissionMode.ACCEPT_EDITS, "allow": ["append"]}, "gates"),
        ({"settings": ModelSettings(temperature=0.9)}, "agent settings"),
        ({"model": "other-model"}, "model"),
        ({"system_prompt": "be terse"}, "system prompt"),
    ],
)
async def test_runtime_state_that_differs_is_refused_saying_what_differs(
    change: dict[str, Any], what: str
) -> None:
    journal = DiesAtResponse(0)
    effects: list[str] = []
    await crashed(journal, effects)

    drifted, provider = make(journal, [TURNS[1]], effects, **change)
    with pytest.raises(ReconciliationError) as info:
        await drifted.continue_run("r1")
    error = info.value
    assert isinstance(error, ContinuationError)
    assert error.reason == "state_drift"
    assert [d.what for d in error.differences] == [what]
    assert what in str(error)
    assert (provider.requests, effects, drifted.history[1:]) == ([], [], ())

    accepted, provider2 = make(journal, [TURNS[1]], effects, **change)
    result = await accepted.continue_run("r1", accept_state_drift=True)
    assert result.text == "done"
    assert effects == ["a"]
    assert len(provider2.requests) == 1


async def test_offered_tools_and_deferred_tools_that_differ_are_refused() -> None:
    journal = DiesAtResponse(0)
    effects: list[str] = []
    await crashed(journal, effects)

    @tool
    async def extra(value: str) -> str:
        """Another tool."""
        return value

    more = Agent(
        ScriptedProvider([]),
        system_prompt="sys",
        tools=[append_tool(effects), extra],
        gates=(
            PermissionGate(PermissionContext.from_rules(Path("."), mode=PermissionMode.BYPASS)),
        ),
        journal=journal,
    )
    with pytest.raises(ReconciliationError) as info:
        await more.continue_run("r1")
    [difference] = info.value.differences
    assert (difference.what, difference.saved, difference.live) == (
        "offered tools",
        ["append"],
        ["append", "extra"],
    )


async def test_a_replayed_request_that_differs_from_the_recorded_one_is_refused() -> None:
    journal = DiesAtResponse(1, before=True)
    effects: list[str] = []
    agent, _ = make(journal, [*TURNS, "later"], effects)
    with pytest.raises(Crash):
        await agent.run("go", run_id="r1")

    def note(messages: Sequence[Message]) -> tuple[Message, ...]:
        return (*messages, UserMessage.of("(a note the original run never sent)"))

    changed, provider = make(journal, [TURNS[1]], effects, processors=[note])
    with pytest.raises(ReconciliationError) as info:
        await changed.continue_run("r1", resend_unrecorded_model_call=True)
    assert [d.what for d in info.value.differences] == ["model call 0 request"]
    assert provider.requests == []
    assert effects == ["a"]  # the tool of round 1 did not run again either
    run = await journal.load_run("r1")
    assert run is not None
    assert run.outcome is None  # refused, not failed: the run can still be continued

    same, _ = make(journal, [TURNS[1]], effects)
    result = await same.continue_run("r1", resend_unrecorded_model_call=True)
    assert result.text == "done"
    assert effects == ["a"]


async def test_an_unrecorded_model_call_is_refused_before_anything_happens() -> None:
    journal = DiesAtResponse(1, before=True)
    effects: list[str] = []
    agent, _ = make(journal, list(TURNS), effects)
    with pytest.raises(Crash):
        await agent.run("go", run_id="r1")
    run = await journal.load_run("r1")
    assert run is not None
    assert run.unrecorded_model_calls == (1,)

    fresh, provider = make(journal, [TURNS[1]], effects)
    with pytest.raises(ReconciliationError) as info:
        await fresh.continue_run("r1")
    assert info.value.reason == "unrecorded_model_call"
    assert "model call 1 was sent and its response was never recorded" in str(info.value)
    assert (provider.requests, fresh.history[1:], effects) == ([], (), ["a"])

    result = await fresh.continue_run("r1", resend_unrecorded_model_call=True)
    assert result.text == "done"
    assert len(provider.requests) == 1
    assert effects == ["a"]


async def test_a_call_started_before_the_model_call_record_is_sent_once() -> None:
    """A crash before the model start is recorded: nothing says it was sent, so it is sent."""

    class DiesBeforeStart(MemoryJournal):
        def __init__(self) -> None:
            super().__init__()
            self.armed = True

        async def record_model_start(self, run_id: str, step: int, request: JsonValue) -> None:
            if step == 1 and self.armed:
                self.armed = False
                raise Crash
            await super().record_model_start(run_id, step, request)

    journal = DiesBeforeStart()
    effects: list[str] = []
    agent, provider = make(journal, list(TURNS), effects)
    with pytest.raises(Crash):
        await agent.run("go", run_id="r1")
    assert len(provider.requests) == 1
    fresh, provider2 = make(journal, [TURNS[1]], effects)
    result = await fresh.continue_run("r1")
    assert (result.text, len(provider2.requests), effects) == ("done", 1, ["a"])


async def test_a_version_1_checkpoint_still_continues() -> None:
    journal = DiesAtResponse(0)
    effects: list[str] = []
    await crashed(journal, effects)
    checkpoint: Any = journal.runs["r1"]["checkpoint"]
    for key in ("loaded", "deferred", "agent_settings", "gates"):
        del checkpoint[key]
    checkpoint["version"] = 1
    fresh, _ = make(journal, [TURNS[1]], effects, settings=ModelSettings(temperature=0.5))
    result = await fresh.continue_run("r1")  # what version 1 did not save is not compared
    assert result.text == "done"
