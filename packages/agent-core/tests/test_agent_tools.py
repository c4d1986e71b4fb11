"""Tool batches: concurrency, order, unknown tools and the loop guard, argument validation and
retries, gates, timeouts, failures, identical-input guard, tool_choice none, direct invocation
(seed 000, "Unavailable Tool-Call Handling", "Execution Loop and Error Handling", "Canonical
Direct Runtime Tool Invocation")."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from robota.core.agent import Agent, ToolCallCompleted, ToolCallSkipped, ToolProgress
from robota.core.errors import (
    ConfigurationError,
    RepeatedToolInputError,
    ToolChoiceViolationError,
)
from robota.core.events import Event
from robota.core.gate import Allow, Deny, GateVerdict, Substitute, ToolCallRequest, ToolGate
from robota.core.messages import TextPart, ToolResultMessage, ToolResultPart, UserMessage
from robota.core.settings import ModelSettings
from robota.core.testing.scripted import ScriptedProvider, tool_call
from robota.core.tools.base import Tool, ToolContext
from robota.core.tools.function import tool


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)


def results_of(agent: Agent, index: int = -1) -> list[tuple[str, bool]]:
    message = [m for m in agent.history if isinstance(m, ToolResultMessage)][index]
    return [(r.text, r.is_error) for r in message.results]


@tool
async def echo(text: str) -> str:
    """Echo the text."""
    return f"echo:{text}"


@pytest.mark.anyio
async def test_parallel_calls_overlap_and_results_keep_call_order() -> None:
    entered = 0
    both_in = anyio.Event()

    @tool
    async def meet(name: str) -> str:
        """Wait until both calls are running at once."""
        nonlocal entered
        entered += 1
        if entered == 2:
            both_in.set()
        await both_in.wait()
        return f"met {name}"

    provider = ScriptedProvider(
        [[tool_call("1", "meet", {"name": "x"}), tool_call("2", "meet", {"name": "y"})], "ok"]
    )
    agent = Agent(provider, tools=[meet])
    with anyio.fail_after(5):
        await agent.run("go")
    assert results_of(agent) == [("met x", False), ("met y", False)]


@pytest.mark.anyio
async def test_sequential_tool_runs_alone() -> None:
    log: list[str] = []
    gate = anyio.Event()

    @tool
    async def par(n: int) -> str:
        """Parallel tool."""
        log.append(f"start {n}")
        await gate.wait()
        log.append(f"end {n}")
        return str(n)

    @tool(sequential=True)
    async def seq() -> str:
        """Sequential tool."""
        log.append("seq")
        gate.set()
        return "s"

    provider = ScriptedProvider(
        [
            [
                tool_call("1", "par", {"n": 1}),
                tool_call("2", "seq", {}),
                tool_call("3", "par", {"n": 3}),
            ],
            "ok",
        ]
    )

    async def release_first() -> None:
        await anyio.wait_all_tasks_blocked()
        gate.set()

    agent = Agent(provider, tools=[par, seq])
    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(release_first)
            await agent.run("go")
    # seq never overlaps: call 1 ended before it started, call 3 started after it.
    assert log == ["start 1", "end 1", "seq", "start 3", "end 3"]
    assert results_of(agent) == [("1", False), ("s", False), ("3", False)]


@pytest.mark.anyio
async def test_parallelism_is_bounded() -> None:
    running = 0
    peak = 0

    @tool
    async def work(n: int) -> str:
        """Count concurrency."""
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await anyio.wait_all_tasks_blocked()
        running -= 1
        return str(n)

    calls = [tool_call(str(i), "work", {"n": i}) for i in range(5)]
    agent = Agent(ScriptedProvider([calls, "ok"]), tools=[work], max_parallel_tools=2)
    await agent.run("go")
    assert peak == 2
    assert [t for t, _ in results_of(agent)] == ["0", "1", "2", "3", "4"]


@pytest.mark.anyio
async def test_unknown_tool_is_a_labelled_skip_never_executed() -> None:
    sink = Recorder()
    provider = ScriptedProvider([[tool_call("1", "ech", {"text": "x"})], "fine"])
    agent = Agent(provider, tools=[echo], sinks=[sink])
    await agent.run("go")
    assert results_of(agent) == [
        ("Tool call skipped: no tool named 'ech' is available. Available tools: echo.", True)
    ]
    skipped = [e for e in sink.events if isinstance(e, ToolCallSkipped)]
    assert [(e.reason, e.available) for e in skipped] == [("unknown_tool", ("echo",))]
    assert not any(isinstance(e, ToolCallCompleted) for e in sink.events)


@pytest.mark.anyio
async def test_unknown_tool_loop_guard_forces_one_final_no_tools_call() -> None:
    provider = ScriptedProvider(
        [
            [tool_call("1", "ghost", {})],
            [tool_call("2", "ghost", {})],
            [tool_call("3", "phantom", {})],
            "final words",
        ]
    )
    agent = Agent(provider, tools=[echo], unknown_tool_rounds=3)
    result = await agent.run("go")
    assert result.text == "final words"
    final = provider.requests[3]
    assert final.tools == ()
    assert final.settings.tool_choice == "none"
    instruction = final.messages[-1]
    assert isinstance(instruction, UserMessage)
    assert "ghost (id 1), ghost (id 2), phantom (id 3)" in instruction.parts[0].text  # type: ignore[union-attr]
    # The instruction is request-only.
    assert not any(
        isinstance(m, UserMessage) and "never executed" in m.parts[0].text  # type: ignore[union-attr]
        for m in agent.history
    )


@pytest.mark.anyio
async def test_invalid_arguments_become_an_error_result_the_model_repairs() -> None:
    provider = ScriptedProvider(
        [
            [tool_call("1", "echo", {"txt": "x"})],
            [tool_call("2", "echo", "{not json")],
            [tool_call("3", "echo", {"text": "fixed"})],
            "done",
        ]
    )
    agent = Agent(provider, tools=[echo])
    await agent.run("go")
    first, second, third = (results_of(agent, i) for i in range(3))
    assert first[0][1] is True
    assert first[0][0].startswith("Invalid arguments for tool 'echo':\n- ")
    assert "'text' is a required property" in first[0][0]
    assert "the arguments are not a JSON object: '{not json'" in second[0][0]
    assert third == [("echo:fixed", False)]


@pytest.mark.anyio
async def test_retry_budget_per_tool_tells_the_model_to_stop() -> None:
    bad = [tool_call(str(i), "echo", {"wrong": i}) for i in range(3)]
    provider = ScriptedProvider([[b] for b in bad] + ["gave up"])
    agent = Agent(provider, tools=[echo])
    echo.max_retries = 1
    try:
        result = await agent.run("go")
    finally:
        echo.max_retries = 2
    texts = [results_of(agent, i)[0][0] for i in range(3)]
    assert ["stop calling it" in t for t in texts] == [False, True, True]
    assert result.text == "gave up"


@pytest.mark.anyio
async def test_tool_exception_and_timeout_become_error_results() -> None:
    @tool
    async def boom() -> str:
        """Fail."""
        raise ValueError("disk on fire")

    @tool(timeout=0.01)
    async def stuck() -> str:
        """Never finish."""
        await anyio.sleep_forever()
        return "no"

    provider = ScriptedProvider([[tool_call("1", "boom", {}), tool_call("2", "stuck", {})], "ok"])
    agent = Agent(provider, tools=[boom, stuck])
    await agent.run("go")
    assert results_of(agent) == [
        ("ValueError: disk on fire", True),
        ("TimeoutError: tool 'stuck' did not finish within 0.01 s", True),
    ]


class RecordingGate(ToolGate):
    def __init__(self, name: str, verdict: GateVerdict, log: list[str]) -> None:
        self.name = name
        self.verdict = verdict
        self.log = log
        self.hidden: set[str] = set()

    def offers(self, tool: Tool) -> bool:
        return tool.name not in self.hidden

    async def before_tool(self, request: ToolCallRequest) -> GateVerdict:
        self.log.append(f"before {self.name} direct={request.direct}")
        return self.verdict

    async def after_tool(self, request: ToolCallRequest, result: ToolResultPart) -> ToolResultPart:
        self.log.append(f"after {self.name}")
        return result


@pytest.mark.anyio
async def test_deny_wins_over_substitute_and_body_never_runs() -> None:
    ran: list[str] = []

    @tool
    async def act() -> str:
        """Act."""
        ran.append("body")
        return "acted"

    log: list[str] = []
    sub = ToolResultPart(call_id="x", name="act", content=(TextPart(text="cached"),))
    gates = [
        RecordingGate("sub", Substitute(result=sub), log),
        RecordingGate("deny", Deny(message="Blocked: policy"), log),
    ]
    agent = Agent(ScriptedProvider([[tool_call("1", "act", {})], "ok"]), tools=[act], gates=gates)
    await agent.run("go")
    assert results_of(agent) == [("Blocked: policy", True)]
    assert ran == []
    assert log == ["before sub direct=False", "before deny direct=False"]


@pytest.mark.anyio
async def test_substitute_skips_body_and_after_hooks_run() -> None:
    ran: list[str] = []

    @tool
    async def act() -> str:
        """Act."""
        ran.append("body")
        return "acted"

    log: list[str] = []
    sub = ToolResultPart(call_id="x", name="act", content=(TextPart(text="cached"),))
    gates = [RecordingGate("a", Allow(), log), RecordingGate("s", Substitute(result=sub), log)]
    agent = Agent(ScriptedProvider([[tool_call("1", "act", {})], "ok"]), tools=[act], gates=gates)
    await agent.run("go")
    assert results_of(agent) == [("cached", False)]
    assert ran == []
    assert log == ["before a direct=False", "before s direct=False", "after a", "after s"]


@pytest.mark.anyio
async def test_gate_offers_false_withholds_the_tool_and_calls_to_it_are_skipped() -> None:
    log: list[str] = []
    gate = RecordingGate("g", Allow(), log)
    gate.hidden = {"echo"}

    @tool
    async def other() -> str:
        """Other."""
        return "o"

    provider = ScriptedProvider([[tool_call("1", "echo", {"text": "x"})], "ok"])
    agent = Agent(provider, tools=[echo, other], gates=[gate])
    await agent.run("go")
    assert [t.name for t in provider.requests[0].tools] == ["other"]
    assert results_of(agent)[0][0].startswith("Tool call skipped: no tool named 'echo'")
    assert log == []


@pytest.mark.anyio
async def test_identical_input_guard_raises_a_recoverable_named_error() -> None:
    same = [tool_call(str(i), "echo", {"text": "same"}) for i in range(3)]
    provider = ScriptedProvider([[c] for c in same])
    agent = Agent(provider, tools=[echo], max_identical_tool_calls=2)
    with pytest.raises(RepeatedToolInputError) as caught:
        await agent.run("go")
    assert caught.value.recoverable
    assert caught.value.tool_name == "echo"
    assert caught.value.count == 3
    # History stays valid: the refused call has a result; the first two ran.
    assert [results_of(agent, i) for i in range(3)] == [
        [("echo:same", False)],
        [("echo:same", False)],
        [
            (
                "Tool call not executed: 'echo' was already called 3 times with identical "
                "arguments in this run.",
                True,
            )
        ],
    ]


@pytest.mark.anyio
async def test_identical_input_compares_canonical_json() -> None:
    calls = [
        tool_call("1", "echo", '{"text": "a"}'),
        tool_call("2", "echo", '{ "text":"a" }'),
    ]
    agent = Agent(ScriptedProvider([[c] for c in calls]), tools=[echo], max_identical_tool_calls=1)
    with pytest.raises(RepeatedToolInputError):
        await agent.run("go")


@pytest.mark.anyio
async def test_tool_choice_none_omits_schemas_and_rejects_tool_calls() -> None:
    ran: list[str] = []

    @tool
    async def act() -> str:
        """Act."""
        ran.append("body")
        return "x"

    provider = ScriptedProvider(["plain", [tool_call("1", "act", {})], "later"])
    agent = Agent(provider, tools=[act])
    await agent.run("a", settings=ModelSettings(tool_choice="none"))
    assert provider.requests[0].tools == ()
    with pytest.raises(ToolChoiceViolationError):
        await agent.run("b", settings=ModelSettings(tool_choice="none"))
    assert ran == []
    # A later run without the override offers the tools again.
    await agent.run("c")
    assert [t.name for t in provider.requests[2].tools] == ["act"]


@pytest.mark.anyio
async def test_direct_invocation_uses_validation_gates_and_events() -> None:
    sink = Recorder()
    log: list[str] = []

    @tool(residency="deferred")
    async def hidden(ctx: ToolContext[Any], n: int) -> str:
        """A deferred tool."""
        ctx.emit_progress("half way")
        return f"n={n}"

    @tool(residency="resident")
    async def visible() -> str:
        """A resident tool (a catalog must keep one)."""
        return "ok"

    agent = Agent(
        ScriptedProvider([]),
        tools=[visible, hidden],
        gates=[RecordingGate("g", Allow(), log)],
        sinks=[sink],
    )
    result = await agent.call_tool("hidden", {"n": 4})
    assert (result.text, result.is_error) == ("n=4", False)
    assert log == ["before g direct=True", "after g"]
    started = [e for e in sink.events if e.type == "tool.call_started"]
    assert len(started) == 1
    assert [e.text for e in sink.events if isinstance(e, ToolProgress)] == ["half way"]
    invalid = await agent.call_tool("hidden", {"n": "four"})
    assert invalid.is_error
    assert "Invalid arguments for tool 'hidden'" in invalid.text
    with pytest.raises(ConfigurationError):
        await agent.call_tool("nope", {})
    assert agent.history == ()
