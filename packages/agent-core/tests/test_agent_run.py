"""The agent loop's basic behaviour: streaming order, history, system prompt, usage, settings,
provider failures, run_sync (seed 000, "Execution Loop and Error Handling", "System Prompt",
"Conversation History Principles")."""

from __future__ import annotations

import doctest
from typing import Any

import anyio
import pytest
from robota.core.agent import (
    Agent,
    HistoryCommitted,
    ModelTextDelta,
    ModelThinkingDelta,
    ModelToolCallDelta,
    RoundCompleted,
    RunCompleted,
    RunFailed,
)
from robota.core.agent import agent as agent_module
from robota.core.capabilities import ModelCapabilities
from robota.core.errors import RateLimitError, UnsupportedSettingError
from robota.core.events import Event
from robota.core.messages import AssistantMessage, SystemMessage, TextPart, UserMessage
from robota.core.settings import ModelSettings
from robota.core.testing import scripted
from robota.core.testing.scripted import (
    ScriptedProvider,
    fail,
    text,
    thinking,
    tool_call,
    usage,
)
from robota.core.tools.function import tool


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)


@tool
async def echo(text: str) -> str:
    """Echo the text."""
    return f"echo:{text}"


@pytest.mark.anyio
async def test_stream_yields_deltas_in_order_then_the_result() -> None:
    provider = ScriptedProvider(
        [
            [thinking("plan", signature="sig"), tool_call("c1", "echo", {"text": "a"})],
            [text("Hel"), text("lo"), usage(input_tokens=7, output_tokens=2)],
        ]
    )
    agent = Agent(provider, tools=[echo])
    seen: list[str] = []
    async with agent.stream("hi") as stream:
        async for event in stream:
            if isinstance(event, ModelTextDelta | ModelThinkingDelta):
                seen.append(f"{event.type}:{event.text}")
            elif isinstance(event, ModelToolCallDelta):
                seen.append(f"{event.type}:{event.name}")
            elif event.type in ("tool.call_completed", "run.completed"):
                seen.append(event.type)
    assert seen == [
        "model.thinking_delta:plan",
        "model.tool_call_delta:echo",
        "tool.call_completed",
        "model.text_delta:Hel",
        "model.text_delta:lo",
        "run.completed",
    ]
    assert stream.result.text == "Hello"
    assert stream.result.rounds == 2


@pytest.mark.anyio
async def test_events_carry_owner_path_and_reach_sinks_and_stream_as_same_objects() -> None:
    sink = Recorder()
    provider = ScriptedProvider([[tool_call("c1", "echo", {"text": "x"})], "done"])
    agent = Agent(provider, tools=[echo], sinks=[sink], name="helper")
    streamed: list[Event] = []
    async with agent.stream("go") as stream:
        async for event in stream:
            streamed.append(event)
    assert all(any(s is e for s in sink.events) for e in streamed)
    completed = next(e for e in streamed if e.type == "tool.call_completed")
    kinds = [segment.kind for segment in completed.owner.segments]
    assert kinds == ["agent", "run", "round", "tool_call"]
    assert completed.owner.find("agent") == "helper"
    assert completed.owner.find("run") == stream.result.run_id
    assert completed.owner.find("round") == "1"


@pytest.mark.anyio
async def test_history_usage_and_new_messages() -> None:
    provider = ScriptedProvider(
        [
            [tool_call("c1", "echo", {"text": "q"}), usage(input_tokens=10, output_tokens=4)],
            [text("answer"), usage(input_tokens=20, output_tokens=6, cache_read_tokens=5)],
        ]
    )
    agent = Agent(provider, tools=[echo], system_prompt="Be brief.")
    result = await agent.run("question")
    kinds = [m.kind for m in agent.history]
    assert kinds == ["system", "user", "assistant", "tool_results", "assistant"]
    assert [m.kind for m in result.new_messages] == kinds[1:]
    first = agent.history[2]
    assert isinstance(first, AssistantMessage)
    assert first.usage is not None
    assert first.usage.input_tokens == 10
    assert result.usage.input_tokens == 30
    assert result.usage.output_tokens == 10
    assert result.usage.cache_read_tokens == 5
    assert result.usage.requests == 2
    tool_results = agent.history[3]
    assert tool_results.kind == "tool_results"
    assert [r.text for r in tool_results.results] == ["echo:q"]
    # The second request carried the whole conversation, the tool schema every round.
    assert [m.kind for m in provider.requests[1].messages] == kinds[:4]
    assert [t.name for t in provider.requests[1].tools] == ["echo"]


@pytest.mark.anyio
async def test_system_prompt_is_one_head_replaced_live() -> None:
    provider = ScriptedProvider(["one", "two"])
    agent = Agent(provider, system_prompt="first persona")
    await agent.run("a")
    agent.system_prompt = "second persona"
    await agent.run("b")
    second = provider.requests[1].messages
    systems = [m for m in second if isinstance(m, SystemMessage)]
    assert systems == [SystemMessage(content="second persona")]
    assert second[0] == SystemMessage(content="second persona")
    assert sum(isinstance(m, SystemMessage) for m in agent.history) == 1


@pytest.mark.anyio
async def test_history_commits_are_observable_in_order() -> None:
    sink = Recorder()
    agent = Agent(ScriptedProvider(["ok"]), sinks=[sink])
    await agent.run("hello")
    commits = [e for e in sink.events if isinstance(e, HistoryCommitted)]
    assert [(c.index, c.message.kind) for c in commits] == [(0, "user"), (1, "assistant")]


@pytest.mark.anyio
async def test_provider_failure_fails_run_with_typed_error_and_keeps_history() -> None:
    sink = Recorder()
    error = RateLimitError("slow down", provider="scripted", status=429, retry_after=3.0)
    provider = ScriptedProvider([[text("partial "), fail(error)]])
    agent = Agent(provider, sinks=[sink])
    with pytest.raises(RateLimitError) as caught:
        await agent.run("hi")
    assert caught.value.status == 429
    assert caught.value.retry_after == 3.0
    failed = [e for e in sink.events if isinstance(e, RunFailed)]
    assert len(failed) == 1
    assert failed[0].error is caught.value
    rounds = [e for e in sink.events if isinstance(e, RoundCompleted)]
    assert [r.outcome for r in rounds] == ["failure"]
    assert not any(isinstance(e, RunCompleted) for e in sink.events)
    last = agent.history[-1]
    assert isinstance(last, AssistantMessage)
    assert last.interrupted
    assert last.text == "partial "


@pytest.mark.anyio
async def test_interrupted_text_is_annotated_when_sent_back() -> None:
    error = RateLimitError("x", provider="scripted")
    provider = ScriptedProvider([[text("half an ans"), fail(error)], "fresh"])
    agent = Agent(provider)
    with pytest.raises(RateLimitError):
        await agent.run("first")
    await agent.run("second")
    sent = provider.requests[1].messages[1]
    assert isinstance(sent, AssistantMessage)
    assert sent.parts == (TextPart(text="half an ans\n[response interrupted]"),)
    stored = agent.history[1]
    assert isinstance(stored, AssistantMessage)
    assert stored.text == "half an ans"


@pytest.mark.anyio
async def test_interrupted_annotation_is_overridable() -> None:
    from robota.core.agent import AgentTexts

    error = RateLimitError("x", provider="scripted")
    provider = ScriptedProvider([[fail(error)], "fresh"])
    # retry=None: the default retries would answer the failed call with the next turn
    agent = Agent(provider, texts=AgentTexts(interrupted_annotation="(cut)"), retry=None)
    with pytest.raises(RateLimitError):
        await agent.run("first")
    await agent.run("second")
    sent = provider.requests[1].messages[1]
    assert isinstance(sent, AssistantMessage)
    assert sent.text == "(cut)"


@pytest.mark.anyio
async def test_settings_merge_agent_then_run() -> None:
    provider = ScriptedProvider(["a"])
    agent = Agent(provider, settings=ModelSettings(temperature=0.2, max_tokens=100))
    await agent.run("x", settings=ModelSettings(temperature=0.9))
    sent = provider.requests[0].settings
    assert (sent.temperature, sent.max_tokens) == (0.9, 100)


@pytest.mark.anyio
async def test_unsupported_setting_fails_before_any_request() -> None:
    caps = ModelCapabilities(unsupported_settings=frozenset({"temperature"}))
    provider = ScriptedProvider(["never"], capabilities=caps)
    agent = Agent(provider)
    with pytest.raises(UnsupportedSettingError) as caught:
        await agent.run("x", settings=ModelSettings(temperature=0.5))
    assert caught.value.setting == "temperature"
    assert provider.requests == []
    assert agent.history == ()


def test_run_sync_runs_outside_a_loop() -> None:
    agent = Agent(ScriptedProvider(["sync answer"]))
    assert agent.run_sync("q").text == "sync answer"
    assert [m.kind for m in agent.history] == ["user", "assistant"]


@pytest.mark.anyio
async def test_run_sync_refuses_inside_a_running_loop() -> None:
    agent = Agent(ScriptedProvider(["x"]))
    with pytest.raises(RuntimeError, match="running event loop"):
        agent.run_sync("q")


@pytest.mark.anyio
async def test_user_message_prompt_and_stream_requires_context_manager() -> None:
    agent = Agent(ScriptedProvider(["ok"]))
    result = await agent.run(UserMessage.of("hi"))
    assert result.text == "ok"
    stream = agent.stream("again")
    with pytest.raises(RuntimeError, match="async with"):
        await stream.__anext__()


def test_docstring_examples_run() -> None:
    for module in (agent_module, scripted):
        failures, _ = doctest.testmod(module, raise_on_error=False)
        assert failures == 0


@pytest.mark.anyio
async def test_anyio_checkpoint_helpers_exist() -> None:
    # The scripted provider's checkpoints are anyio events; make sure a test can use them.
    reached_event = anyio.Event()
    provider = ScriptedProvider([[scripted.reached(reached_event), text("x")]])
    result: Any = await Agent(provider).run("q")
    assert reached_event.is_set()
    assert result.text == "x"
