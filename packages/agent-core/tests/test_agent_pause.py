"""Deferred tool execution: run_until_pause, the versioned pause state, resume decisions (seed 002,
"Deferred tool execution")."""

from __future__ import annotations

import doctest
import json
from typing import Any

import pytest
from robota.core.agent import Agent
from robota.core.agent import agent as agent_module
from robota.core.agent.events import RunResumed, RunSuspended, ToolCallSkipped
from robota.core.agent.pause import (
    Approve,
    DecisionError,
    Deny,
    ExternalResult,
    PauseRequiredError,
    PauseState,
    PauseStateError,
    RunPaused,
    dump_decisions,
    load_decisions,
)
from robota.core.agent.result import RunResult
from robota.core.events import Event
from robota.core.journal import MemoryJournal
from robota.core.messages import (
    AssistantMessage,
    MediaPart,
    TextPart,
    ToolResultMessage,
    UserMessage,
)
from robota.core.provider import ModelRequest
from robota.core.testing.scripted import ScriptedProvider, Turn, text, tool_call, usage
from robota.core.tools.base import Tool, ToolExecution
from robota.core.tools.function import FunctionTool, tool


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)


def make_tools(log: list[str]) -> list[Tool]:
    async def read(path: str) -> str:
        """Read a file."""
        log.append(f"read {path}")
        return f"contents of {path}"

    async def delete(path: str) -> str:
        """Delete a file."""
        log.append(f"delete {path}")
        return f"deleted {path}"

    async def ask_user(question: str) -> str:
        """Ask the user (answered by the host)."""
        log.append(f"ask_user body {question}")
        return "never"

    def gated(fn: Any, execution: ToolExecution) -> FunctionTool:
        made = tool(fn)
        made.execution = execution
        return made

    return [tool(read), gated(delete, "approval"), gated(ask_user, "external")]


def results(messages: tuple[Any, ...] | list[Any]) -> list[tuple[str, str, bool]]:
    """(call id, text, is_error) of every tool result, in order."""
    return [
        (r.call_id, r.text, r.is_error)
        for m in messages
        if isinstance(m, ToolResultMessage)
        for r in m.results
    ]


def user_texts(request: ModelRequest) -> list[str]:
    return [
        p.text
        for m in request.messages
        if isinstance(m, UserMessage)
        for p in m.parts
        if isinstance(p, TextPart)
    ]


def read_and_delete() -> list[Turn]:
    return [
        [
            tool_call("r1", "read", {"path": "a.txt"}),
            tool_call("d1", "delete", {"path": "b.txt"}),
            usage(input_tokens=10, output_tokens=4),
        ],
        [text("All done."), usage(input_tokens=20, output_tokens=2)],
    ]


async def pause_read_and_delete(log: list[str]) -> tuple[Agent, ScriptedProvider, RunPaused]:
    provider = ScriptedProvider(read_and_delete())
    agent = Agent(provider, tools=make_tools(log), system_prompt="Be careful.")
    paused = await agent.run_until_pause("clean up")
    assert isinstance(paused, RunPaused)
    return agent, provider, paused


@pytest.mark.anyio
async def test_pause_comes_before_any_call_of_the_response_runs() -> None:
    log: list[str] = []
    agent, provider, paused = await pause_read_and_delete(log)
    assert [(p.key, p.name, p.execution, p.index) for p in paused.pending] == [
        ("d1", "delete", "approval", 1)
    ]
    assert dict(paused.pending[0].arguments or {}) == {"path": "b.txt"}
    assert log == []  # neither the ordinary nor the gated call ran
    assert len(provider.requests) == 1
    last = agent.history[-1]
    assert isinstance(last, AssistantMessage)
    assert [c.id for c in last.tool_calls] == ["r1", "d1"]
    assert paused.new_messages == agent.history[1:]  # prompt and the assistant message
    assert (paused.rounds, paused.usage.input_tokens, paused.usage.requests) == (1, 10, 1)


@pytest.mark.anyio
async def test_approve_runs_both_calls_into_one_result_message_without_replay() -> None:
    log: list[str] = []
    agent, provider, paused = await pause_read_and_delete(log)
    result = await agent.resume(paused.state, {"d1": Approve()})
    assert isinstance(result, RunResult)
    assert result.text == "All done."
    assert log == ["read a.txt", "delete b.txt"]
    assert len(provider.requests) == 2
    second = provider.requests[1]
    assert user_texts(second) == ["clean up"]  # the prompt once: nothing replayed
    assert [type(m).__name__ for m in second.messages] == [
        "SystemMessage",
        "UserMessage",
        "AssistantMessage",
        "ToolResultMessage",
    ]
    assert results(second.messages) == [
        ("r1", "contents of a.txt", False),
        ("d1", "deleted b.txt", False),
    ]
    assert [type(m).__name__ for m in result.new_messages] == [
        "ToolResultMessage",
        "AssistantMessage",
    ]
    assert (result.rounds, result.usage.input_tokens, result.usage.requests) == (2, 30, 2)
    assert result.run_id == paused.run_id


@pytest.mark.anyio
async def test_deny_gives_the_message_as_an_error_and_the_body_never_runs() -> None:
    log: list[str] = []
    recorder = Recorder()
    agent, provider, paused = await pause_read_and_delete(log)
    agent.sinks = (recorder,)
    await agent.resume(paused.state, {"d1": Deny(message="The user said no.")})
    assert log == ["read a.txt"]
    assert results(provider.requests[1].messages) == [
        ("r1", "contents of a.txt", False),
        ("d1", "The user said no.", True),
    ]
    skipped = [e for e in recorder.events if isinstance(e, ToolCallSkipped)]
    assert [(e.call.id, e.reason, e.message) for e in skipped] == [
        ("d1", "denied", "The user said no.")
    ]
    resumed = [e for e in recorder.events if isinstance(e, RunResumed)]
    assert [e.decisions for e in resumed] == [(("d1", "deny"),)]


@pytest.mark.anyio
async def test_external_result_is_used_as_given_without_running_the_body() -> None:
    log: list[str] = []
    provider = ScriptedProvider(
        [
            [
                tool_call("q1", "ask_user", {"question": "Which file?"}),
                tool_call("r1", "read", {"path": "c.txt"}),
            ],
            "Reading done.",
        ]
    )
    agent = Agent(provider, tools=make_tools(log))
    paused = await agent.run_until_pause("go")
    assert isinstance(paused, RunPaused)
    assert [(p.key, p.execution) for p in paused.pending] == [("q1", "external")]
    image = MediaPart(media_kind="image", media_type="image/png", data=b"\x89PNG")
    answer = ExternalResult(content=(TextPart(text="c.txt, please"), image), is_error=False)
    result = await agent.resume(paused.state, {"q1": answer})
    assert isinstance(result, RunResult)
    assert log == ["read c.txt"]
    message = next(m for m in provider.requests[1].messages if isinstance(m, ToolResultMessage))
    assert [(r.call_id, r.content, r.is_error) for r in message.results] == [
        ("q1", (TextPart(text="c.txt, please"), image), False),
        ("r1", (TextPart(text="contents of c.txt"),), False),
    ]


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("decisions", "reason", "keys"),
    [
        ({}, "missing", ("d1",)),
        ({"d1": Approve(), "zz": Approve()}, "extra", ("zz",)),
        ({"d1": ExternalResult.text("made up")}, "mismatched", ("d1",)),
    ],
)
async def test_wrong_decisions_are_refused_before_anything_runs(
    decisions: dict[str, Any], reason: str, keys: tuple[str, ...]
) -> None:
    log: list[str] = []
    agent, provider, paused = await pause_read_and_delete(log)
    before = agent.history
    with pytest.raises(DecisionError) as caught:
        await agent.resume(paused.state, decisions)
    assert (caught.value.reason, caught.value.keys, caught.value.code) == (
        reason,
        keys,
        "resume_decisions_invalid",
    )
    assert log == []
    assert len(provider.requests) == 1
    assert agent.history == before
    # the same state still resumes once the decisions are right
    result = await agent.resume(paused.state, {"d1": Approve()})
    assert isinstance(result, RunResult)
    assert result.text == "All done."


@pytest.mark.anyio
async def test_approve_for_an_external_call_is_refused() -> None:
    provider = ScriptedProvider([[tool_call("q1", "ask_user", {"question": "?"})]])
    agent = Agent(provider, tools=make_tools([]))
    paused = await agent.run_until_pause("go")
    assert isinstance(paused, RunPaused)
    with pytest.raises(DecisionError) as caught:
        await agent.resume(paused.state, {"q1": Approve()})
    assert caught.value.reason == "mismatched"


@pytest.mark.anyio
async def test_state_json_round_trip_resumes_on_a_fresh_agent() -> None:
    log: list[str] = []
    first, provider, paused = await pause_read_and_delete(log)
    stored = json.dumps(paused.state.to_json())
    state = PauseState.from_json(json.loads(stored))
    assert state == paused.state
    fresh = Agent(provider, tools=make_tools(log), system_prompt="Something else")
    result = await fresh.resume(state, {"d1": Approve()})
    assert isinstance(result, RunResult)
    assert result.text == "All done."
    assert log == ["read a.txt", "delete b.txt"]
    assert len(provider.requests) == 2
    assert fresh.system_prompt == "Be careful."  # the saved instructions win
    assert fresh.history[: len(first.history)] == first.history
    assert results(fresh.history) == [
        ("r1", "contents of a.txt", False),
        ("d1", "deleted b.txt", False),
    ]


def test_unknown_state_version_and_corrupt_state_are_typed_errors() -> None:
    paused_state: dict[str, Any] = {"version": 2, "run_id": "x"}
    with pytest.raises(PauseStateError) as caught:
        PauseState.from_json(paused_state)
    assert (caught.value.reason, caught.value.code) == ("version", "pause_state_invalid")
    with pytest.raises(PauseStateError) as caught:
        PauseState.from_json({"version": 1, "run_id": "x"})
    assert caught.value.reason == "corrupt"


@pytest.mark.anyio
async def test_pending_call_that_does_not_match_the_history_is_corrupt() -> None:
    _, _, paused = await pause_read_and_delete([])
    document: Any = paused.state.to_json()
    document["pending"][0]["index"] = 0  # points at the read call
    with pytest.raises(PauseStateError) as caught:
        PauseState.from_json(document)
    assert caught.value.reason == "corrupt"


@pytest.mark.anyio
async def test_a_later_round_pauses_again_and_counters_carry_over() -> None:
    log: list[str] = []
    recorder = Recorder()
    provider = ScriptedProvider(
        [
            [tool_call("d1", "delete", {"path": "x"}), usage(input_tokens=5)],
            [tool_call("q1", "ask_user", {"question": "sure?"}), usage(input_tokens=7)],
            [text("Finished."), usage(input_tokens=11)],
        ]
    )
    agent = Agent(provider, tools=make_tools(log), sinks=[recorder], max_rounds=3)
    first = await agent.run_until_pause("go")
    assert isinstance(first, RunPaused)
    second = await agent.resume(first.state, {"d1": Approve()})
    assert isinstance(second, RunPaused)
    assert [(p.key, p.execution) for p in second.pending] == [("q1", "external")]
    assert (second.rounds, second.usage.input_tokens, second.run_id) == (2, 12, first.run_id)
    assert [type(m).__name__ for m in second.new_messages] == [
        "ToolResultMessage",
        "AssistantMessage",
    ]
    # through JSON on a fresh agent again
    state = PauseState.from_json(json.loads(json.dumps(second.state.to_json())))
    fresh = Agent(provider, tools=make_tools(log), max_rounds=99)
    final = await fresh.resume(state, {"q1": ExternalResult.text("yes")})
    assert isinstance(final, RunResult)
    assert (final.text, final.rounds, final.usage.input_tokens) == ("Finished.", 3, 23)
    assert log == ["delete x"]
    assert len(provider.requests) == 3
    assert user_texts(provider.requests[2]) == ["go"]
    assert results(provider.requests[2].messages) == [
        ("d1", "deleted x", False),
        ("q1", "yes", False),
    ]
    suspended = [e for e in recorder.events if isinstance(e, RunSuspended)]
    assert [e.pending for e in suspended] == [("d1",), ("q1",)]


@pytest.mark.anyio
async def test_round_budget_counts_across_the_pause() -> None:
    provider = ScriptedProvider(
        [[tool_call("d1", "delete", {"path": "x"})], "Summary after the budget."]
    )
    agent = Agent(provider, tools=make_tools([]), max_rounds=1)
    paused = await agent.run_until_pause("go")
    assert isinstance(paused, RunPaused)
    fresh = Agent(provider, tools=make_tools([]))  # its own budget (25) does not apply
    result = await fresh.resume(paused.state, {"d1": Deny(message="no")})
    assert isinstance(result, RunResult)
    assert result.text == "Summary after the budget."
    assert provider.requests[1].tools == ()  # the forced summary offers no tools


@pytest.mark.anyio
async def test_regular_run_refuses_to_discard_the_pause() -> None:
    log: list[str] = []
    provider = ScriptedProvider(read_and_delete())
    agent = Agent(provider, tools=make_tools(log))
    with pytest.raises(PauseRequiredError) as caught:
        await agent.run("clean up")
    assert caught.value.code == "pause_required"
    assert log == []
    paused = caught.value.paused
    assert [p.key for p in paused.pending] == ["d1"]
    result = await agent.resume(paused.state, {"d1": Approve()})
    assert isinstance(result, RunResult)
    assert result.text == "All done."
    assert log == ["read a.txt", "delete b.txt"]


@pytest.mark.anyio
async def test_resume_refuses_an_agent_whose_history_went_elsewhere() -> None:
    _, provider, paused = await pause_read_and_delete([])
    provider.add("hello")
    other = Agent(provider, tools=make_tools([]))
    await other.run("something else")
    with pytest.raises(PauseStateError) as caught:
        await other.resume(paused.state, {"d1": Approve()})
    assert caught.value.reason == "conflicting_history"


@pytest.mark.anyio
async def test_a_journaled_agent_pauses_with_its_requests_saved() -> None:
    journal = MemoryJournal()
    log: list[str] = []
    provider = ScriptedProvider([[tool_call("d1", "delete", {"path": "a"})], "done"])
    agent = Agent(provider, tools=make_tools(log), journal=journal)
    paused = await agent.run_until_pause("go", run_id="r1")
    assert isinstance(paused, RunPaused)
    run = await journal.load_run("r1")
    assert run is not None
    assert run.outcome is None
    assert sorted(run.waits) == ["1:0"]
    assert log == []


@pytest.mark.anyio
async def test_run_without_gated_calls_returns_a_plain_result() -> None:
    log: list[str] = []
    provider = ScriptedProvider([[tool_call("r1", "read", {"path": "a"})], "ok"])
    agent = Agent(provider, tools=make_tools(log))
    result = await agent.run_until_pause("go")
    assert isinstance(result, RunResult)
    assert (result.text, log) == ("ok", ["read a"])


def test_decisions_round_trip_through_their_versioned_json() -> None:
    decisions = {
        "a": Approve(),
        "b": Deny(message="nope"),
        "c": ExternalResult(
            content=(MediaPart(media_kind="image", media_type="image/png", data=b"\x00\x01"),)
        ),
        "d": ExternalResult.text("boom", is_error=True),
    }
    document = json.loads(json.dumps(dump_decisions(decisions)))
    assert document["version"] == 1
    assert document["decisions"]["b"] == {"kind": "deny", "message": "nope"}
    assert load_decisions(document) == decisions
    with pytest.raises(PauseStateError) as caught:
        load_decisions({"version": 9, "decisions": {}})
    assert caught.value.reason == "version"
    with pytest.raises(PauseStateError) as caught:
        load_decisions({"version": 1, "decisions": {"a": {"kind": "maybe"}}})
    assert caught.value.reason == "corrupt"


def test_duplicate_provider_ids_get_distinct_decision_keys() -> None:
    from robota.core.agent.pause import pending_calls
    from robota.core.messages import ToolCallPart

    calls = [
        ToolCallPart(id="same", name="delete", arguments={"path": "1"}),
        ToolCallPart(id="same", name="delete", arguments={"path": "2"}),
    ]
    pending = pending_calls(calls, {0: "approval", 1: "approval"})
    assert [p.key for p in pending] == ["same#0", "same#1"]


def test_run_until_pause_docstring_example_runs() -> None:
    finder = doctest.DocTestFinder()
    tests = [t for t in finder.find(agent_module) if t.name.endswith("run_until_pause")]
    assert len(tests) == 1
    runner = doctest.DocTestRunner()
    runner.run(tests[0])
    assert runner.summarize().failed == 0


@pytest.mark.anyio
async def test_same_agent_resumes_from_a_json_round_tripped_state() -> None:
    log: list[str] = []
    agent, provider, paused = await pause_read_and_delete(log)
    state = PauseState.from_json(json.loads(json.dumps(paused.state.to_json())))
    result = await agent.resume(state, {"d1": Deny(message="no")})
    assert isinstance(result, RunResult)
    assert result.text == "All done."
    assert len(provider.requests) == 2


@pytest.mark.anyio
async def test_stream_refuses_to_discard_the_pause() -> None:
    provider = ScriptedProvider(read_and_delete())
    agent = Agent(provider, tools=make_tools([]))

    async def consume() -> None:
        async with agent.stream("clean up") as stream:
            async for _ in stream:
                pass

    with pytest.raises(PauseRequiredError) as caught:
        await consume()
    assert [p.key for p in caught.value.paused.pending] == ["d1"]


@pytest.mark.anyio
async def test_cancelled_resume_keeps_the_decided_results_in_the_one_message() -> None:
    import anyio
    from robota.core.cancellation import CancelToken

    started = anyio.Event()

    async def slow(path: str) -> str:
        """Never finishes."""
        started.set()
        await anyio.sleep_forever()
        return path

    provider = ScriptedProvider(
        [[tool_call("s1", "slow", {"path": "x"}), tool_call("d1", "delete", {"path": "y"})]]
    )
    agent = Agent(provider, tools=[tool(slow), *make_tools([])[1:]])
    paused = await agent.run_until_pause("go")
    assert isinstance(paused, RunPaused)
    token = CancelToken()
    result: RunResult | RunPaused | None = None
    async with anyio.create_task_group() as tg:

        async def cancel_when_started() -> None:
            await started.wait()
            token.cancel()

        tg.start_soon(cancel_when_started)
        result = await agent.resume(paused.state, {"d1": Deny(message="no")}, cancel=token)
    assert isinstance(result, RunResult)
    assert result.interrupted
    assert [(c, e) for c, _, e in results(agent.history)] == [("s1", True), ("d1", True)]
    assert results(agent.history)[1] == ("d1", "no", True)
    assert len(provider.requests) == 1
