"""The agent loop with an execution journal: what a run records, continuation after a crash at
each journal boundary, and journal failures (seed 000, "Execution Journal and Continuation")."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from robota.core.agent import Agent
from robota.core.errors import JournalError
from robota.core.journal import (
    INTERRUPTED_EFFECT_TEXT,
    RESERVED_PREFIX,
    ContinuationError,
    MemoryJournal,
    ReconciliationError,
    decode_result,
)
from robota.core.messages import (
    AssistantMessage,
    JsonValue,
    TextPart,
    ToolResultMessage,
    UserMessage,
    dump_messages,
    text_of,
)
from robota.core.testing.scripted import ScriptedProvider, Turn, text, tool_call
from robota.core.tools.function import FunctionTool, tool

pytestmark = pytest.mark.anyio

Method = Literal["record_response", "record_tool_start", "record_tool_result"]


class Crash(BaseException):
    """Stands in for the process dying at a journal boundary."""


class CrashingJournal(MemoryJournal):
    """A MemoryJournal whose state survives a simulated crash raised around one chosen write.

    ``crash_at = (method, occurrence, when)``: the ``occurrence``-th (0-based) call of
    ``method`` raises :class:`Crash` before writing or after writing.
    """

    def __init__(self) -> None:
        super().__init__()
        self.crash_at: tuple[Method, int, Literal["before", "after"]] | None = None
        self.fail_at: tuple[Method, int] | None = None
        self.calls: dict[str, int] = {}

    def _gate(self, method: Method) -> tuple[bool, bool]:
        count = self.calls.get(method, 0)
        self.calls[method] = count + 1
        if self.fail_at == (method, count):
            raise OSError("disk full")
        if self.crash_at is None or self.crash_at[:2] != (method, count):
            return False, False
        return self.crash_at[2] == "before", self.crash_at[2] == "after"

    async def record_response(self, run_id: str, step: int, response: JsonValue) -> None:
        before, after = self._gate("record_response")
        if before:
            raise Crash
        await super().record_response(run_id, step, response)
        if after:
            raise Crash

    async def record_tool_start(
        self, run_id: str, key: str, tool_name: str, arguments: JsonValue
    ) -> None:
        if key.startswith(RESERVED_PREFIX):  # model starts, residency, waits: not tool calls
            await super().record_tool_start(run_id, key, tool_name, arguments)
            return
        before, after = self._gate("record_tool_start")
        if before:
            raise Crash
        await super().record_tool_start(run_id, key, tool_name, arguments)
        if after:
            raise Crash

    async def record_tool_result(self, run_id: str, key: str, result: JsonValue) -> None:
        before, after = self._gate("record_tool_result")
        if before:
            raise Crash
        await super().record_tool_result(run_id, key, result)
        if after:
            raise Crash


TURNS: list[Turn] = [
    [tool_call("t1", "append", {"line": "a"}), tool_call("t2", "append", {"line": "b"})],
    [tool_call("t3", "append", {"line": "c"})],
    [text("done")],
]


def make_tool(effects: list[str], *, idempotent: bool = False) -> FunctionTool:
    @tool(sequential=True, idempotent=idempotent)
    async def append(line: str) -> str:
        """Append a line to the file."""
        effects.append(line)
        return f"appended {line}"

    return append


def make_agent(
    journal: MemoryJournal, turns: list[Turn], effects: list[str], **kw: Any
) -> tuple[Agent, ScriptedProvider]:
    provider = ScriptedProvider(turns)
    agent = Agent(
        provider,
        system_prompt="You append lines.",
        tools=[make_tool(effects, idempotent=kw.pop("idempotent", False))],
        journal=journal,
        **kw,
    )
    return agent, provider


async def reference_messages() -> bytes:
    effects: list[str] = []
    agent, _ = make_agent(MemoryJournal(), list(TURNS), effects)
    result = await agent.run("write a, b, c", run_id="ref")
    assert effects == ["a", "b", "c"]
    return dump_messages(result.new_messages)


def result_texts(messages: tuple[Any, ...]) -> list[tuple[str, bool]]:
    out: list[tuple[str, bool]] = []
    for message in messages:
        if isinstance(message, ToolResultMessage):
            for result in message.results:
                out.append((text_of(result.content), result.is_error))
    return out


async def test_a_journaled_run_records_checkpoint_responses_tools_and_outcome() -> None:
    journal = MemoryJournal()
    effects: list[str] = []
    agent, _ = make_agent(journal, list(TURNS), effects, max_rounds=7)
    result = await agent.run("write a, b, c", run_id="r1")
    assert result.run_id == "r1"
    assert result.text == "done"
    run = await journal.load_run("r1")
    assert run is not None
    assert run.outcome == "completed"
    checkpoint: Any = run.checkpoint
    assert checkpoint["max_rounds"] == 7
    assert checkpoint["system_prompt"] == "You append lines."
    assert checkpoint["history"] == {"version": 1, "messages": []}
    assert checkpoint["prompt"]["messages"][0]["parts"][0]["text"] == "write a, b, c"
    assert checkpoint["tools"] == ["append"]
    assert checkpoint["output_schema"] is None
    assert sorted(run.responses) == [0, 1, 2]
    assert sorted(run.tools) == ["1:0", "1:1", "2:0"]
    assert [run.tools[k].arguments for k in ("1:0", "1:1", "2:0")] == [
        {"line": "a"},
        {"line": "b"},
        {"line": "c"},
    ]
    record = run.tools["1:1"].result
    assert record is not None
    assert decode_result(record).content[0].text == "appended b"  # type: ignore[union-attr]


async def test_the_checkpoint_holds_the_history_before_the_run() -> None:
    journal = MemoryJournal()
    agent, _ = make_agent(journal, ["first", "second"], [])
    await agent.run("one", run_id="r1")
    await agent.run("two", run_id="r2")
    run = await journal.load_run("r2")
    assert run is not None
    checkpoint: Any = run.checkpoint
    kinds = [m["kind"] for m in checkpoint["history"]["messages"]]
    assert kinds == ["user", "assistant"]


async def test_continuation_after_a_crash_once_a_response_is_recorded_sends_no_settled_call() -> (
    None
):
    journal = CrashingJournal()
    journal.crash_at = ("record_response", 1, "after")  # round 2's response recorded, then death
    effects: list[str] = []
    agent, provider = make_agent(journal, list(TURNS), effects)
    with pytest.raises(Crash):
        await agent.run("write a, b, c", run_id="r1")
    assert len(provider.requests) == 2
    assert effects == ["a", "b"]

    journal.crash_at = None
    fresh, provider2 = make_agent(journal, [TURNS[2]], effects)
    result = await fresh.continue_run("r1")
    assert len(provider2.requests) == 1  # only round 3 was sent; rounds 1-2 came from the journal
    assert effects == ["a", "b", "c"]
    assert dump_messages(result.new_messages) == await reference_messages()
    run = await journal.load_run("r1")
    assert run is not None
    assert run.outcome == "completed"


async def test_a_response_that_was_not_recorded_is_refused_then_requested_again_on_opt_in() -> None:
    journal = CrashingJournal()
    journal.crash_at = ("record_response", 1, "before")
    effects: list[str] = []
    agent, _ = make_agent(journal, list(TURNS), effects)
    with pytest.raises(Crash):
        await agent.run("write a, b, c", run_id="r1")
    assert effects == ["a", "b"]

    journal.crash_at = None
    refused, provider1 = make_agent(journal, list(TURNS[1:]), effects)
    with pytest.raises(ReconciliationError) as info:
        await refused.continue_run("r1")
    assert (info.value.reason, info.value.steps) == ("unrecorded_model_call", (1,))
    assert provider1.requests == []  # nothing was sent, restored or run
    assert refused.history[1:] == ()
    fresh, provider2 = make_agent(journal, list(TURNS[1:]), effects)
    result = await fresh.continue_run("r1", resend_unrecorded_model_call=True)
    assert len(provider2.requests) == 2  # round 2 again, then round 3
    assert effects == ["a", "b", "c"]
    assert dump_messages(result.new_messages) == await reference_messages()


async def test_an_effect_that_started_without_a_recorded_result_is_reported_not_rerun() -> None:
    journal = CrashingJournal()
    journal.crash_at = ("record_tool_result", 1, "before")  # "b" ran, its result never recorded
    effects: list[str] = []
    agent, _ = make_agent(journal, list(TURNS), effects)
    with pytest.raises(Crash):
        await agent.run("write a, b, c", run_id="r1")
    assert effects == ["a", "b"]

    journal.crash_at = None
    fresh, provider2 = make_agent(journal, list(TURNS[1:]), effects)
    result = await fresh.continue_run("r1")
    assert effects == ["a", "b", "c"]  # b is not run twice
    assert len(provider2.requests) == 2
    assert result_texts(result.new_messages) == [
        ("appended a", False),
        (INTERRUPTED_EFFECT_TEXT, True),
        ("appended c", False),
    ]
    # the model was told: round 2's request carries the interrupted result
    sent = provider2.requests[0].messages
    assert isinstance(sent[-1], ToolResultMessage)
    assert sent[-1].results[1].content[0].text == INTERRUPTED_EFFECT_TEXT  # type: ignore[union-attr]


async def test_a_start_recorded_before_the_effect_ran_is_still_reported_interrupted() -> None:
    journal = CrashingJournal()
    journal.crash_at = ("record_tool_start", 2, "after")  # "c" recorded as started, not run
    effects: list[str] = []
    agent, _ = make_agent(journal, list(TURNS), effects)
    with pytest.raises(Crash):
        await agent.run("write a, b, c", run_id="r1")
    assert effects == ["a", "b"]

    journal.crash_at = None
    fresh, provider2 = make_agent(journal, [TURNS[2]], effects)
    result = await fresh.continue_run("r1")
    # the journal cannot prove whether "c" ran: it is reported, never guessed or repeated
    assert effects == ["a", "b"]
    assert len(provider2.requests) == 1
    assert result_texts(result.new_messages)[-1] == (INTERRUPTED_EFFECT_TEXT, True)


async def test_an_idempotent_tool_is_run_again_after_an_unrecorded_result() -> None:
    journal = CrashingJournal()
    journal.crash_at = ("record_tool_result", 0, "before")
    effects: list[str] = []
    agent, _ = make_agent(journal, list(TURNS), effects, idempotent=True)
    with pytest.raises(Crash):
        await agent.run("write a, b, c", run_id="r1")
    assert effects == ["a"]

    journal.crash_at = None
    fresh, _ = make_agent(journal, list(TURNS[1:]), effects, idempotent=True)
    result = await fresh.continue_run("r1")
    assert effects == ["a", "a", "b", "c"]
    assert dump_messages(result.new_messages) == await reference_messages()


async def test_a_crash_before_the_tool_start_write_reruns_that_call() -> None:
    journal = CrashingJournal()
    journal.crash_at = ("record_tool_start", 1, "before")  # nothing about "b" is recorded
    effects: list[str] = []
    agent, _ = make_agent(journal, list(TURNS), effects)
    with pytest.raises(Crash):
        await agent.run("write a, b, c", run_id="r1")
    assert effects == ["a"]

    journal.crash_at = None
    fresh, provider2 = make_agent(journal, list(TURNS[1:]), effects)
    result = await fresh.continue_run("r1")
    assert effects == ["a", "b", "c"]
    assert len(provider2.requests) == 2
    assert dump_messages(result.new_messages) == await reference_messages()


async def test_a_failing_journal_write_fails_the_run_and_is_never_a_tool_error() -> None:
    journal = CrashingJournal()
    journal.fail_at = ("record_tool_start", 1)
    effects: list[str] = []
    agent, provider = make_agent(journal, list(TURNS), effects)
    with pytest.raises(JournalError, match="disk full"):
        await agent.run("write a, b, c", run_id="r1")
    assert effects == ["a"]  # "b" never started
    assert len(provider.requests) == 1  # the model never saw a tool error to retry
    run = await journal.load_run("r1")
    assert run is not None
    assert run.outcome is None


async def test_a_failing_result_write_stops_further_dispatch_in_the_batch() -> None:
    journal = CrashingJournal()
    journal.fail_at = ("record_tool_result", 0)
    effects: list[str] = []
    agent, provider = make_agent(journal, list(TURNS), effects)
    with pytest.raises(JournalError):
        await agent.run("write a, b, c", run_id="r1")
    assert effects == ["a"]
    assert len(provider.requests) == 1


async def test_a_failing_response_write_fails_the_run_before_any_tool_runs() -> None:
    journal = CrashingJournal()
    journal.fail_at = ("record_response", 0)
    effects: list[str] = []
    agent, _ = make_agent(journal, list(TURNS), effects)
    with pytest.raises(JournalError):
        await agent.run("write a, b, c", run_id="r1")
    assert effects == []


async def test_a_failing_start_write_fails_before_the_first_model_call() -> None:
    class Broken(MemoryJournal):
        async def start_run(self, run_id: str, checkpoint: JsonValue) -> None:
            raise OSError("read-only file system")

    effects: list[str] = []
    agent, provider = make_agent(Broken(), list(TURNS), effects)
    with pytest.raises(JournalError, match="read-only"):
        await agent.run("write a, b, c")
    assert provider.requests == []
    assert agent.history[1:] == ()


async def test_live_history_that_conflicts_with_the_checkpoint_is_refused() -> None:
    journal = CrashingJournal()
    journal.crash_at = ("record_response", 0, "after")
    agent, _ = make_agent(journal, list(TURNS), [])
    with pytest.raises(Crash):
        await agent.run("write a, b, c", run_id="r1")
    journal.crash_at = None
    other = Agent(
        ScriptedProvider([]),
        system_prompt="You append lines.",
        tools=[make_tool([])],
        journal=journal,
        history=[UserMessage.of("something else"), AssistantMessage(parts=(TextPart(text="ok"),))],
    )
    before = other.history
    with pytest.raises(ContinuationError) as info:
        await other.continue_run("r1")
    assert info.value.reason == "conflicting_history"
    assert other.history == before


async def test_the_same_live_history_as_the_checkpoint_is_accepted() -> None:
    journal = CrashingJournal()
    effects: list[str] = []
    agent, _ = make_agent(journal, ["hello", *TURNS], effects)
    await agent.run("hi", run_id="r0")
    journal.crash_at = ("record_response", 2, "after")  # r1's round 2 (r0 wrote response 0)
    with pytest.raises(Crash):
        await agent.run("write a, b, c", run_id="r1")
    journal.crash_at = None
    fresh, _ = make_agent(journal, [TURNS[2]], effects, history=agent.history[1:3])
    result = await fresh.continue_run("r1")
    assert result.text == "done"
    assert effects == ["a", "b", "c"]
    assert len(fresh.history) == 1 + 2 + 6


async def test_unknown_finished_and_unjournaled_runs_are_refused() -> None:
    journal = MemoryJournal()
    agent, _ = make_agent(journal, ["hi"], [])
    await agent.run("hello", run_id="done")
    with pytest.raises(ContinuationError) as unknown:
        await agent.continue_run("nope")
    assert unknown.value.reason == "unknown_run"
    with pytest.raises(ContinuationError) as finished:
        await agent.continue_run("done")
    assert finished.value.reason == "finished"
    with pytest.raises(ContinuationError) as none:
        await Agent(ScriptedProvider([])).continue_run("done")
    assert none.value.reason == "no_journal"


async def test_an_agent_without_the_runs_tools_is_refused() -> None:
    journal = CrashingJournal()
    journal.crash_at = ("record_response", 0, "after")
    agent, _ = make_agent(journal, list(TURNS), [])
    with pytest.raises(Crash):
        await agent.run("write a, b, c", run_id="r1")
    bare = Agent(ScriptedProvider([]), system_prompt="You append lines.", journal=journal)
    with pytest.raises(ContinuationError) as info:
        await bare.continue_run("r1")
    assert info.value.reason == "incompatible"
    assert "append" in str(info.value)


async def test_continuation_keeps_the_round_budget_the_run_started_with() -> None:
    journal = CrashingJournal()
    journal.crash_at = ("record_response", 0, "after")
    turns: list[Turn] = [[tool_call("t1", "append", {"line": "a"})], "summary text"]
    agent, _ = make_agent(journal, turns, [], max_rounds=1)
    with pytest.raises(Crash):
        await agent.run("go", run_id="r1")
    journal.crash_at = None
    fresh, provider2 = make_agent(journal, ["summary text"], [], max_rounds=25)
    result = await fresh.continue_run("r1")
    assert result.text == "summary text"
    assert provider2.requests[0].settings.tool_choice == "none"  # the forced summary of round 2
