"""Outsider attack on issue 17 (typed agent API): conversations under concurrency, ``tools=``
shapes, stream helpers and ``RunResult``. ``# HOLE:`` tests fail on the current code; ``# HELD``
tests pass and guard behaviour that holds."""

from __future__ import annotations

import copy
import functools
import pickle
from collections.abc import AsyncIterator
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from pydantic import BaseModel
from robota.core import Agent, OutputUnavailableError, RunResult, ToolContext, tool
from robota.core.errors import ConfigurationError
from robota.core.messages import ToolResultMessage, UserMessage, text_of
from robota.core.provider import ModelRequest, StreamEvent
from robota.core.testing.scripted import ScriptedProvider, Turn, text, tool_call, wait_for

pytestmark = pytest.mark.anyio


class City(BaseModel):
    name: str


def _last_user(request: ModelRequest) -> str:
    users = [m for m in request.messages if isinstance(m, UserMessage)]
    return text_of(users[-1].parts)


class RouterProvider(ScriptedProvider):
    """Answers from the request itself, so concurrent conversations can share it: a user
    prompt ``"<user>:<i>"`` gets a ``whoami`` call (``<user>:0`` first loads ``secret`` through
    ``tool_search`` when the user is ``ann``), a tool result gets ``"<user>:<i>=<results>"``."""

    def __init__(self) -> None:
        super().__init__()
        self.offered: dict[str, list[tuple[str, ...]]] = {"ann": [], "bob": []}

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        prompt = _last_user(request)
        user, index = prompt.split(":")
        self.offered[user].append(tuple(t.name for t in request.tools))
        after_prompt = request.messages[
            max(i for i, m in enumerate(request.messages) if isinstance(m, UserMessage)) + 1 :
        ]
        results = [
            text_of(p.content) if not isinstance(p.content, str) else p.content
            for m in after_prompt
            if isinstance(m, ToolResultMessage)
            for p in m.results
        ]
        turn: Turn
        if user == "ann" and index == "0" and not results:
            turn = [tool_call(f"s-{prompt}", "tool_search", {"query": "select:secret"})]
        elif not results or (user == "ann" and index == "0" and len(results) == 1):
            turn = [tool_call(f"w-{prompt}", "whoami", {})]
        else:
            turn = [text(f"{prompt}={results[-1]}")]
        self.add(turn)
        async for event in super().stream(request):
            yield event
        await anyio.lowlevel.checkpoint()


@tool(residency="resident")
async def whoami(ctx: ToolContext[str]) -> str:
    """Say whose deps these are."""
    await anyio.lowlevel.checkpoint()
    return ctx.deps


@tool(residency="deferred")
def secret() -> str:
    """A deferred tool only ann loads."""
    return "s"


async def test_fifty_interleaved_runs_per_user_never_leak_history_deps_or_loads() -> None:
    # HELD
    provider = RouterProvider()
    definition = Agent(
        provider, system_prompt="sys", tools=[whoami, secret], deps="shared", defer_tools=True
    )
    ann = definition.new_conversation(name="ann", deps="ann-deps")
    bob = definition.new_conversation(name="bob", deps="bob-deps")
    outputs: dict[str, list[str]] = {"ann": [], "bob": []}

    async def user(name: str, chat: Agent[str, str]) -> None:
        for i in range(50):
            outputs[name].append((await chat.run(f"{name}:{i}")).output)

    async with anyio.create_task_group() as group:
        group.start_soon(user, "ann", ann)
        group.start_soon(user, "bob", bob)
    assert outputs["ann"] == [f"ann:{i}=ann-deps" for i in range(50)]
    assert outputs["bob"] == [f"bob:{i}=bob-deps" for i in range(50)]
    for name, chat in (("ann", ann), ("bob", bob)):
        prompts = [text_of(m.parts) for m in chat.history if isinstance(m, UserMessage)]
        assert prompts == [f"{name}:{i}" for i in range(50)]
    assert ann.catalog.loaded == ("secret",)
    assert bob.catalog.loaded == () == definition.catalog.loaded
    assert not any("secret" in names for names in provider.offered["bob"])
    assert len(definition.history) == 1
    assert definition.deps == "shared"


async def test_steer_and_cancel_tool_stay_in_their_conversation() -> None:
    # HELD
    started, release = anyio.Event(), anyio.Event()
    call_ids: list[str] = []

    @tool
    async def slow(ctx: ToolContext[None]) -> str:
        """Wait."""
        call_ids.append(ctx.call_id)
        started.set()
        await release.wait()
        return "slow done"

    provider = ScriptedProvider([[tool_call("c1", "slow", {})], "ann answer", "bob answer"])
    definition = Agent(provider, tools=[slow])
    ann = definition.new_conversation(name="ann")
    bob = definition.new_conversation(name="bob")
    outputs: list[str] = []

    async def run_ann() -> None:
        outputs.append((await ann.run("go")).output)

    async with anyio.create_task_group() as group:
        group.start_soon(run_ann)
        await started.wait()
        assert bob.steer("to bob") is False
        assert definition.steer("to definition") is False
        assert bob.cancel_tool(call_ids[0]) is False
        assert definition.cancel_tool(call_ids[0]) is False
        assert ann.steer("to ann") is True
        release.set()
    assert outputs == ["ann answer"]
    prompts = [text_of(m.parts) for m in ann.history if isinstance(m, UserMessage)]
    assert prompts == ["go", "to ann"]
    assert len(bob.history) == 0
    assert len(definition.history) == 0
    assert (await bob.run("hi")).output == "bob answer"


async def test_closing_a_conversation_leaves_the_definition_and_others_running() -> None:
    # HELD
    definition = Agent(ScriptedProvider(["one", "two", "three"]))
    ann = definition.new_conversation(name="ann")
    bob = definition.new_conversation(name="bob")
    await ann.aclose()
    assert ann.closed
    assert not bob.closed
    assert not definition.closed
    assert (await bob.run("x")).output == "one"
    assert (await definition.run("y")).output == "two"
    carol = definition.new_conversation(name="carol")
    assert (await carol.run("z")).output == "three"
    assert len(definition.history) == 2


async def test_closing_the_definition_leaves_its_conversations_usable() -> None:
    # HELD
    definition = Agent(ScriptedProvider(["one"]))
    ann = definition.new_conversation(name="ann")
    assert await definition.aclose() == []
    assert not ann.closed
    assert (await ann.run("x")).output == "one"


def test_a_generator_of_tools_is_consumed_once_and_conversations_keep_the_tools() -> None:
    # HELD
    @tool
    def one() -> str:
        """One."""
        return "1"

    definition = Agent(ScriptedProvider([]), tools=(t for t in [one]))
    assert list(definition.tools) == ["one"]
    assert list(definition.new_conversation().tools) == ["one"]


def test_a_bound_method_is_a_tool_without_self() -> None:
    # HELD
    class Counter:
        def bump(self, by: int) -> int:
            """Bump."""
            return by

    agent = Agent(ScriptedProvider([]), tools=[Counter().bump])
    assert "self" not in agent.tools["bump"].parameters["properties"]


def test_a_tool_decorated_method_does_not_show_self_to_the_model_and_binds() -> None:
    # HOLE: @tool on a method puts `self` in the model-facing schema (required, untyped) and
    # FunctionTool has no __get__, so `instance.method(1)` fails with a missing argument.
    class Calc:
        @tool
        def double(self, a: int) -> int:
            """Double."""
            return 2 * a

    assert "self" not in Calc.double.parameters["properties"]
    assert Calc().double(2) == 4  # pyright: ignore[reportCallIssue]


class NotATool:
    """A class handed to tools= instead of an instance."""


def test_a_class_is_refused_by_its_name() -> None:
    # HOLE: the message says "item 0 is type (<class 'packages.agent-core.tests.t...)": the repr
    # is cut at 60 characters before the class name, so the user is not told which class.
    with pytest.raises(TypeError, match="NotATool"):
        Agent(ScriptedProvider([]), tools=[NotATool])  # pyright: ignore[reportArgumentType]


def test_a_partial_and_a_lambda_are_refused_by_name() -> None:
    # HELD (runtime; a type checker now reports the partial: see outsider_typed_mistakes.py)
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    with pytest.raises(TypeError, match="partial"):
        Agent(ScriptedProvider([]), tools=[functools.partial(add, b=1)])  # pyright: ignore[reportArgumentType]
    with pytest.raises(ConfigurationError, match="<lambda>"):
        Agent(ScriptedProvider([]), tools=[lambda: "x"])


def test_duplicate_names_across_a_toolset_and_a_function_are_refused() -> None:
    # HELD
    def ping() -> str:
        """Ping."""
        return "p"

    class Group:
        tools = (tool(ping),)

    with pytest.raises(ConfigurationError, match="ping"):
        Agent(ScriptedProvider([]), tools=[Group(), ping])


def test_tools_none_is_a_clear_type_error() -> None:
    # HOLE: tools=None raises "'NoneType' object is not iterable", not a message naming tools=.
    with pytest.raises(TypeError, match="tools="):
        Agent(ScriptedProvider([]), tools=None)  # pyright: ignore[reportArgumentType]


def test_tools_as_a_bare_string_names_the_string() -> None:
    # HOLE: tools="search" is iterated: the error says "item 0 is str ('s')", not that tools= is
    # a string.
    with pytest.raises(TypeError, match="search"):
        Agent(ScriptedProvider([]), tools="search")  # pyright: ignore[reportArgumentType]


async def test_breaking_out_of_text_deltas_frees_the_slot_for_the_next_run() -> None:
    # HELD
    gate = anyio.Event()
    agent = Agent(ScriptedProvider([[text("a"), wait_for(gate), text("b")], "next"]))
    stream = agent.stream("first")
    with anyio.fail_after(10):  # a hang guard, not a timing assert
        async for _delta in stream.text_deltas():
            break
        result = await agent.run("second")
    assert result.output == "next"
    assert stream.result.interrupted
    prompts = [text_of(m.parts) for m in agent.history if isinstance(m, UserMessage)]
    assert prompts == ["first", "second"]


async def test_a_stream_is_consumed_once_and_result_waits_for_the_end() -> None:
    # HELD
    agent = Agent(ScriptedProvider([[text("a"), text("b")]]))
    stream = agent.stream("x")
    with pytest.raises(RuntimeError, match="not finished"):
        _ = stream.result
    assert [d async for d in stream.text_deltas()] == ["a", "b"]
    with pytest.raises(RuntimeError, match="already consumed"):
        _ = [d async for d in stream.text_deltas()]
    assert stream.result.output == "ab"


async def test_partial_outputs_of_a_text_run_yield_nothing_and_the_text_is_the_output() -> None:
    # HELD
    agent = Agent(ScriptedProvider([[text("a"), text("b")]]))
    stream = agent.stream("x")
    assert [p async for p in stream.partial_outputs()] == []
    assert stream.result.output == "ab"


def test_a_tool_called_directly_is_the_plain_function() -> None:
    # HELD: no validation on the direct path (documented): wrong args fail as Python does.
    @tool
    def add(a: int, b: int = 1) -> int:
        """Add."""
        return a + b

    with pytest.raises(TypeError):
        add()  # pyright: ignore[reportCallIssue]
    with pytest.raises(TypeError):
        add(1, c=2)  # pyright: ignore[reportCallIssue]


async def _interrupted(output_type: type[City] | None) -> RunResult[Any]:
    gate = anyio.Event()
    agent = Agent(ScriptedProvider([[text('{"na'), wait_for(gate)]]))
    stream = agent.stream("x", output_type=output_type)
    async for _delta in stream.text_deltas():
        await stream.aclose()
    return stream.result


async def test_an_interrupted_structured_run_has_no_output_and_a_text_run_has_its_text() -> None:
    # HELD
    structured = await _interrupted(City)
    text_only = await _interrupted(None)
    assert structured.interrupted
    assert text_only.interrupted
    with pytest.raises(OutputUnavailableError):
        _ = structured.output
    assert text_only.output == '{"na'


async def test_a_pickled_or_copied_interrupted_result_still_has_no_output() -> None:
    # HOLE: NO_OUTPUT is checked by identity; pickle/deepcopy make a new _NoOutput, so
    # `.output` of the copy returns the marker instead of raising OutputUnavailableError.
    structured = await _interrupted(City)
    for clone in (pickle.loads(pickle.dumps(structured)), copy.deepcopy(structured)):
        with pytest.raises(OutputUnavailableError):
            _ = clone.output


async def test_a_finished_result_survives_pickle_and_copy() -> None:
    # HELD
    agent = Agent(ScriptedProvider(['{"name": "Oslo"}']), output_type=City)
    result = await agent.run("x")
    for clone in (pickle.loads(pickle.dumps(result)), copy.deepcopy(result), copy.copy(result)):
        assert clone == result
        assert clone.output == City(name="Oslo")


async def test_the_definition_after_conversations_ran_is_unchanged() -> None:
    # HELD
    definition = Agent(ScriptedProvider(["a", "b"]), system_prompt="sys")
    chat = definition.new_conversation(system_prompt="other")
    await chat.run("x")
    assert definition.system_prompt == "sys"
    assert chat.system_prompt == "other"
    assert len(definition.history) == 1
    assert (await definition.run("y")).output == "b"
