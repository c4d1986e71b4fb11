"""Issue 17, the typed agent API: tools= shapes, hosted tools, output validators, conversations."""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pytest
from pydantic import BaseModel
from robota.core import Agent, FunctionTool, HostedTool, ModelRetry, ToolContext, tool
from robota.core.capabilities import ModelCapabilities
from robota.core.errors import AgentClosedError, ConfigurationError, UnsupportedCapabilityError
from robota.core.gate import Allow, ToolCallRequest, ToolGate
from robota.core.messages import ToolResultMessage, UserMessage, text_of
from robota.core.testing.scripted import ScriptedProvider, tool_call
from robota.core.tools.base import Tool


class City(BaseModel):
    name: str


def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()


async def whisper(text: str) -> str:
    """Lower-case a text."""
    return text.lower()


@tool
def add(a: int, b: int = 1) -> int:
    """Add two numbers."""
    return a + b


class Group:
    def __init__(self, *tools: Tool) -> None:
        self.tools = tools


def test_a_tool_decorated_function_is_still_the_function() -> None:
    assert add(2, b=3) == 5
    assert isinstance(add, FunctionTool)
    assert add.name == "add"


@pytest.mark.anyio
async def test_plain_functions_toolsets_and_iterables_are_registered_and_run() -> None:
    provider = ScriptedProvider(
        [
            [
                tool_call("c1", "shout", {"text": "a"}),
                tool_call("c2", "whisper", {"text": "B"}),
                tool_call("c3", "add", {"a": 1}),
            ],
            "done",
        ]
    )
    agent = Agent(provider, tools=[shout, Group(FunctionTool(whisper)), [add]])
    assert list(agent.tools) == ["shout", "whisper", "add"]
    result = await agent.run("go")
    results = [m for m in result.new_messages if isinstance(m, ToolResultMessage)]
    assert [part.text for part in results[0].results] == ["A", "b", "2"]


@pytest.mark.parametrize(
    ("item", "named"),
    [(42, "tools= item 0 is int (42)"), ("shout", "tools= item 0 is str ('shout')")],
)
def test_anything_else_in_tools_is_refused_naming_it(item: object, named: str) -> None:
    with pytest.raises(TypeError, match="expected a Tool, a function, a toolset") as caught:
        Agent(ScriptedProvider(["x"]), tools=[item])  # type: ignore[list-item]
    assert named in str(caught.value)


def test_a_toolset_holding_a_non_tool_is_refused_naming_its_element() -> None:
    with pytest.raises(TypeError, match=r"item 0 \(Group.tools\), element 1 is function"):
        Agent(ScriptedProvider(["x"]), tools=[Group(add, shout)])  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_hosted_tools_reach_every_request_and_a_run_replaces_them() -> None:
    provider = ScriptedProvider(["one", "two", "three"])
    agent = Agent(provider, hosted_tools=["web_search", HostedTool.CODE_EXECUTION])
    await agent.run("a")
    await agent.run("b", hosted_tools=["web_fetch"])
    await agent.run("c", hosted_tools=())
    assert [r.hosted_tools for r in provider.requests] == [
        frozenset({HostedTool.WEB_SEARCH, HostedTool.CODE_EXECUTION}),
        frozenset({HostedTool.WEB_FETCH}),
        frozenset(),
    ]


def test_an_unknown_hosted_tool_name_is_refused_listing_the_known_ones() -> None:
    with pytest.raises(ConfigurationError, match="unknown hosted tool 'web_serch'; known: web_"):
        Agent(ScriptedProvider(["x"]), hosted_tools=["web_serch"])  # pyright: ignore[reportArgumentType]


@pytest.mark.anyio
async def test_a_hosted_tool_the_model_lacks_fails_before_any_request() -> None:
    caps = ModelCapabilities(hosted_tools=frozenset({HostedTool.WEB_SEARCH}))
    provider = ScriptedProvider(["x"], capabilities=caps)
    agent = Agent(provider, hosted_tools=["code_execution"])
    with pytest.raises(UnsupportedCapabilityError, match="code_execution"):
        await agent.run("go")
    assert provider.requests == []


@pytest.mark.anyio
async def test_agent_output_validators_apply_to_the_agent_type_only() -> None:
    def no_paris(city: City) -> City:
        if city.name == "Paris":
            raise ModelRetry("not Paris")
        return city

    provider = ScriptedProvider(['{"name": "Paris"}', '{"name": "Oslo"}', '{"name": "Paris"}'])
    agent = Agent(provider, output_type=City, output_validators=[no_paris])
    first = await agent.run("a city")
    assert (first.output, len(provider.requests)) == (City(name="Oslo"), 2)
    second = await agent.run("again", output_type=City)
    assert (second.output, len(provider.requests)) == (City(name="Paris"), 3)


class CountingGate(ToolGate):
    def __init__(self) -> None:
        self.closed = 0

    async def check(self, request: ToolCallRequest) -> Allow:
        return Allow()

    async def aclose(self) -> None:
        self.closed += 1


@pytest.mark.anyio
async def test_conversations_run_concurrently_with_their_own_history() -> None:
    gate = CountingGate()

    @tool
    async def whose(ctx: ToolContext[str]) -> str:
        """Whose conversation this is."""
        return ctx.deps

    definition = Agent(
        ScriptedProvider(["to ann", "to bob"]),
        system_prompt="Be kind.",
        tools=[whose],
        gates=[gate],
        deps="shared",
    )
    before = definition.history
    ann = definition.new_conversation(name="ann", deps="ann")
    bob = definition.new_conversation(history=[UserMessage.of("earlier")], name="bob")
    async with anyio.create_task_group() as group:
        group.start_soon(ann.run, "from ann")
        group.start_soon(bob.run, "from bob")
    users = [
        [text_of(m.parts) for m in c.history if isinstance(m, UserMessage)] for c in (ann, bob)
    ]
    assert users == [["from ann"], ["earlier", "from bob"]]
    assert [len(c.history) for c in (definition, ann, bob)] == [1, 3, 4]
    assert definition.history == before
    assert ann.system_prompt == bob.system_prompt == "Be kind."
    assert ann.tools["whose"] is definition.tools["whose"]
    owners = [(await c.call_tool("whose", {})).text for c in (ann, bob, definition)]
    assert owners == ["ann", "shared", "shared"]
    await ann.aclose()
    assert gate.closed == 0
    assert (await definition.aclose()) == []
    assert gate.closed == 1
    with pytest.raises(AgentClosedError, match="closed"):
        definition.new_conversation()


def test_an_unusable_output_type_fails_when_the_agent_is_built_not_at_its_first_run() -> None:
    # typing.TypedDict on Python < 3.12 is refused by pydantic: the error must come from
    # Agent(...), before any prompt is committed or request sent.
    import typing

    class Legacy(typing.TypedDict):
        a: int

    provider = ScriptedProvider(["{}"])
    if sys.version_info >= (3, 12):  # pydantic accepts typing.TypedDict there
        assert Agent(provider, output_type=Legacy).output_type is Legacy
        return
    with pytest.raises(TypeError, match="TypedDict"):
        Agent(provider, output_type=Legacy)
    assert provider.requests == []


def test_a_replaced_output_type_is_used_by_the_next_run() -> None:
    provider = ScriptedProvider(["7", '"seven"'])
    agent: Agent[None, Any] = Agent(provider, output_type=int)
    assert agent.run_sync("n?").output == 7
    agent.output_type = str
    assert agent.run_sync("s?").output == "seven"
