"""The provider-facing view of a round: history processors, the pairing repair before every send,
``on_payload`` on every request, and the ``round``/``index`` a gate sees."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from robota.core.agent import (
    INTERRUPTED_RESULT_TEXT,
    Agent,
    HistoryRepaired,
    PairingRepair,
    repair_pairing,
)
from robota.core.events import Event
from robota.core.gate import Allow, GateVerdict, ToolCallRequest, ToolGate
from robota.core.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    ToolResultPart,
    UserMessage,
)
from robota.core.provider import PayloadEvent
from robota.core.testing.scripted import ScriptedProvider, text, tool_call
from robota.core.tools.function import tool

pytestmark = pytest.mark.anyio


@tool
async def echo(value: str) -> str:
    """Echo a value."""
    return value


def call(cid: str, name: str = "echo") -> ToolCallPart:
    return ToolCallPart(id=cid, name=name, arguments={})


def result(cid: str, name: str = "echo") -> ToolResultPart:
    return ToolResultPart(call_id=cid, name=name, content=(TextPart(text="ok"),))


class Sink:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)


class Recorder(ToolGate):
    def __init__(self) -> None:
        self.seen: list[tuple[int, int, str]] = []

    async def before_tool(self, request: ToolCallRequest) -> GateVerdict:
        self.seen.append((request.round, request.index, request.call.id))
        return Allow()


async def test_gates_see_the_round_and_the_position_of_each_call_in_its_batch() -> None:
    gate = Recorder()
    provider = ScriptedProvider(
        [
            [tool_call("x", "echo", {"value": "1"}), tool_call("y", "echo", {"value": "2"})],
            [tool_call("z", "echo", {"value": "3"})],
            "done",
        ]
    )
    await Agent(provider, tools=[echo], gates=[gate]).run("go")
    assert sorted(gate.seen) == [(1, 0, "x"), (1, 1, "y"), (2, 0, "z")]


async def test_history_processors_shape_the_request_and_never_the_history() -> None:
    def last_two(messages: Sequence[Message]) -> tuple[Message, ...]:
        head = tuple(m for m in messages[:1] if isinstance(m, SystemMessage))
        return head + tuple(messages[-2:])

    provider = ScriptedProvider(["one", "two", "three"])
    agent = Agent(provider, system_prompt="sys", history_processors=[last_two])
    await agent.run("a")
    await agent.run("b")
    await agent.run("c")
    sent = provider.requests[2].messages
    assert [type(m).__name__ for m in sent] == ["SystemMessage", "AssistantMessage", "UserMessage"]
    assert sent[-1] == UserMessage.of("c")
    assert len(agent.history) == 1 + 6  # canonical history keeps everything


async def test_a_view_that_cuts_a_tool_result_is_repaired_and_reported() -> None:
    def drop_results(messages: Sequence[Message]) -> tuple[Message, ...]:
        return tuple(m for m in messages if not isinstance(m, ToolResultMessage))

    sink = Sink()
    provider = ScriptedProvider([[tool_call("x", "echo", {"value": "1"})], "done"])
    agent = Agent(provider, tools=[echo], history_processors=[drop_results], sinks=[sink])
    await agent.run("go")
    sent = provider.requests[1].messages
    assert isinstance(sent[-1], ToolResultMessage)
    assert sent[-1].results[0].content == (TextPart(text=INTERRUPTED_RESULT_TEXT),)
    repaired = [e for e in sink.events if isinstance(e, HistoryRepaired)]
    assert [(e.kind, e.call_id, e.name, e.round) for e in repaired] == [
        ("orphan_call", "x", "echo", 2)
    ]
    assert repaired[0].type == "history.repaired"
    # canonical history still holds the real result
    stored = agent.history[-2]
    assert isinstance(stored, ToolResultMessage)
    assert stored.results[0].content == (TextPart(text="1"),)


async def test_a_broken_restored_history_is_repaired_before_the_first_send() -> None:
    history: list[Message] = [
        UserMessage.of("earlier"),
        AssistantMessage(parts=(call("a"),)),  # never answered
        ToolResultMessage(results=(result("ghost"),)),  # answers nothing
    ]
    provider = ScriptedProvider(["fine"])
    agent = Agent(provider, history=history)
    await agent.run("next")
    sent = provider.requests[0].messages
    assert isinstance(sent[2], ToolResultMessage)
    assert [r.call_id for r in sent[2].results] == ["a"]
    assert sent[2].results[0].is_error


def test_repair_pairing_reports_orphans_and_duplicates_and_keeps_valid_histories() -> None:
    repairs: list[PairingRepair] = []
    history: list[Message] = [
        AssistantMessage(parts=(call("a"), call("b"))),
        ToolResultMessage(results=(result("b"), result("b"), result("zzz"))),
    ]
    fixed = repair_pairing(history, on_repair=repairs.append)
    assert [(r.kind, r.call_id) for r in repairs] == [
        ("duplicate_result", "b"),
        ("orphan_result", "zzz"),
        ("orphan_call", "a"),
    ]
    answered = fixed[1]
    assert isinstance(answered, ToolResultMessage)
    assert [r.call_id for r in answered.results] == ["a", "b"]
    assert answered.results[0].is_error
    assert not answered.results[1].is_error
    valid: list[Message] = [
        AssistantMessage(parts=(call("a"),)),
        ToolResultMessage(results=(result("a"),)),
    ]
    assert repair_pairing(valid) == tuple(valid)
    assert repair_pairing(fixed) == fixed


async def test_on_payload_is_put_on_every_request() -> None:
    seen: list[PayloadEvent] = []
    provider = ScriptedProvider([[tool_call("x", "echo", {"value": "1"})], [text("done")]])
    await Agent(provider, tools=[echo], on_payload=seen.append).run("go")
    assert [r.on_payload for r in provider.requests] == [seen.append, seen.append]
