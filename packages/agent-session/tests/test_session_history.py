"""History processors never rewrite the canonical history; pairing repair fixes every orphan."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from robota.core.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultMessage,
    ToolResultPart,
    UserMessage,
)
from robota.session.history import (
    INTERRUPTED_RESULT_TEXT,
    DropOldThinking,
    KeepLastTurns,
    PairingError,
    PairingRepair,
    TrimOldToolOutputs,
    repair_pairing,
)


def call(cid: str, name: str = "t") -> ToolCallPart:
    return ToolCallPart(id=cid, name=name, arguments={}, raw_arguments="{}")


def result(cid: str, text: str = "ok", name: str = "t") -> ToolResultPart:
    return ToolResultPart(call_id=cid, name=name, content=(TextPart(text=text),))


def test_orphan_call_gets_an_interrupted_result() -> None:
    history: list[Message] = [
        UserMessage.of("go"),
        AssistantMessage(parts=(call("a"), call("b"))),
        ToolResultMessage(results=(result("a"),)),
    ]
    repairs: list[PairingRepair] = []
    fixed = repair_pairing(history, on_repair=repairs.append)
    last = fixed[-1]
    assert isinstance(last, ToolResultMessage)
    assert [r.call_id for r in last.results] == ["a", "b"]
    assert last.results[1].is_error
    assert last.results[1].text == INTERRUPTED_RESULT_TEXT
    assert repairs == [PairingRepair(kind="orphan_call", call_id="b", name="t")]


def test_session_that_ended_mid_tool_is_usable() -> None:
    history = [UserMessage.of("go"), AssistantMessage(parts=(call("a"),))]
    fixed = repair_pairing(history)
    assert isinstance(fixed[-1], ToolResultMessage)
    assert fixed[-1].results[0].call_id == "a"


def test_orphan_and_duplicate_results_are_dropped() -> None:
    history: list[Message] = [
        UserMessage.of("go"),
        ToolResultMessage(results=(result("zzz"),)),
        AssistantMessage(parts=(call("a"),)),
        ToolResultMessage(results=(result("a"), result("a", "again"), result("x"))),
    ]
    repairs: list[PairingRepair] = []
    fixed = repair_pairing(history, on_repair=repairs.append)
    assert fixed == (
        UserMessage.of("go"),
        AssistantMessage(parts=(call("a"),)),
        ToolResultMessage(results=(result("a"),)),
    )
    assert [r.kind for r in repairs] == ["orphan_result", "duplicate_result", "orphan_result"]


def test_reused_call_ids_across_turns_are_fine() -> None:
    history: list[Message] = [
        AssistantMessage(parts=(call("0"),)),
        ToolResultMessage(results=(result("0"),)),
        AssistantMessage(parts=(call("0"),)),
        ToolResultMessage(results=(result("0"),)),
    ]
    assert repair_pairing(history) == tuple(history)


def test_strict_mode_raises() -> None:
    with pytest.raises(PairingError, match="orphan_call"):
        repair_pairing([AssistantMessage(parts=(call("a"),))], strict=True)


def test_results_are_put_in_call_order() -> None:
    history: list[Message] = [
        AssistantMessage(parts=(call("a"), call("b"))),
        ToolResultMessage(results=(result("b"), result("a"))),
    ]
    fixed = repair_pairing(history)
    assert isinstance(fixed[1], ToolResultMessage)
    assert [r.call_id for r in fixed[1].results] == ["a", "b"]


def test_keep_last_turns_keeps_system_and_whole_turns() -> None:
    history: list[Message] = [
        SystemMessage(content="s"),
        UserMessage.of("1"),
        AssistantMessage(parts=(call("a"),)),
        ToolResultMessage(results=(result("a"),)),
        UserMessage.of("2"),
        AssistantMessage(parts=(TextPart(text="done"),)),
    ]
    before = list(history)
    view = KeepLastTurns(turns=1)(history)
    assert view == (SystemMessage(content="s"), UserMessage.of("2"), history[-1])
    assert history == before


def test_drop_old_thinking_keeps_the_last() -> None:
    a1 = AssistantMessage(parts=(ThinkingPart(text="old", signature="s1"), TextPart(text="x")))
    a2 = AssistantMessage(parts=(ThinkingPart(text="new", signature="s2"), TextPart(text="y")))
    view = DropOldThinking()([UserMessage.of("q"), a1, UserMessage.of("q2"), a2])
    assert view[1] == AssistantMessage(parts=(TextPart(text="x"),))
    assert view[3] is a2


def test_trim_old_tool_outputs() -> None:
    history: list[Message] = [
        AssistantMessage(parts=(call("a"),)),
        ToolResultMessage(results=(result("a", "x" * 500),)),
        AssistantMessage(parts=(call("b"),)),
        ToolResultMessage(results=(result("b", "y" * 500),)),
    ]
    view = TrimOldToolOutputs(keep_last=1, max_chars=10)(history)
    first = view[1]
    assert isinstance(first, ToolResultMessage)
    assert first.results[0].text == "x" * 10 + "\n[490 characters trimmed]"
    assert view[3] is history[3]


@st.composite
def histories(draw: st.DrawFn) -> list[Message]:
    out: list[Message] = []
    for _ in range(draw(st.integers(0, 6))):
        ids = draw(st.lists(st.sampled_from("abc"), max_size=3))
        if draw(st.booleans()):
            out.append(UserMessage.of("u"))
        if ids:
            out.append(AssistantMessage(parts=tuple(call(i) for i in ids)))
        if draw(st.booleans()):
            res = draw(st.lists(st.sampled_from("abcd"), max_size=4))
            out.append(ToolResultMessage(results=tuple(result(i) for i in res)))
    return out


@given(histories())
def test_repaired_history_is_always_paired(history: list[Message]) -> None:
    fixed = repair_pairing(history)
    for i, message in enumerate(fixed):
        if isinstance(message, AssistantMessage) and message.tool_calls:
            nxt = fixed[i + 1]
            assert isinstance(nxt, ToolResultMessage)
            assert [r.call_id for r in nxt.results] == [c.id for c in message.tool_calls]
        if isinstance(message, ToolResultMessage):
            prev = fixed[i - 1]
            assert isinstance(prev, AssistantMessage)
    assert repair_pairing(fixed) == fixed
