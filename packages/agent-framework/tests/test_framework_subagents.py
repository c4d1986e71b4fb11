"""Behaviour of subagent definitions, tiers, tool filtering and the in-process runner
(seed 003, "Subagent tool filtering ...", "Agent definitions resolve through three precedence
tiers ...")."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from robota.core.agent import Agent
from robota.core.cancellation import CancelToken
from robota.core.errors import AuthenticationError, ConfigurationError
from robota.core.events import Event
from robota.core.messages import SystemMessage, ToolResultMessage
from robota.core.testing.scripted import (
    ScriptedProvider,
    fail,
    reached,
    text,
    tool_call,
    usage,
    wait_for,
)
from robota.core.tools.base import RiskClass, Tool, ToolContext, ToolOutput
from robota.core.tools.function import FunctionTool
from robota.executor import ExecutionContext, TaskSnapshot, TaskState
from robota.framework.subagents import (
    BUILTIN_AGENTS,
    AgentDefinition,
    AgentDefinitionError,
    SpawnAgentTool,
    SubagentFinished,
    SubagentStarted,
    filter_child_tools,
    load_agent_definitions,
    parse_agent_definition,
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Sink:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)


def write_agent(root: Path, file: str, name: str, description: str, body: str = "") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    path = root / file
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n{body}\n")
    return path


def make_tool(name: str, risk: RiskClass = RiskClass.INSPECT) -> FunctionTool:
    def body(value: str = "") -> str:
        return f"{name}:{value}"

    return FunctionTool(body, name=name, description=f"The {name} tool.", risk=risk)


# --- definitions ----------------------------------------------------------------------------


def test_definition_file_is_parsed_with_front_matter_and_body() -> None:
    definition = parse_agent_definition(
        "---\n"
        "name: code-reviewer\n"
        "description: Reviews diffs for bugs.\n"
        "tools: [read_file, grep]\n"
        "disallowedTools: shell, web_fetch\n"
        "model: small-model\n"
        "---\n"
        "You review code.\n\nReport bugs only.\n",
        source=Path("/agents/code-reviewer.md"),
    )
    assert definition == AgentDefinition(
        name="code-reviewer",
        description="Reviews diffs for bugs.",
        prompt="You review code.\n\nReport bugs only.",
        tools=("read_file", "grep"),
        disallowed_tools=("shell", "web_fetch"),
        model="small-model",
        tier="disk",
        source=Path("/agents/code-reviewer.md"),
    )


def test_omitted_tools_mean_all_and_inherit_model_means_parent() -> None:
    definition = parse_agent_definition("---\nname: a\ndescription: d\nmodel: inherit\n---\n")
    assert definition.tools is None
    assert definition.model is None
    empty = parse_agent_definition("---\nname: a\ndescription: d\ntools: []\n---\n")
    assert empty.tools == ()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("name: a\ndescription: d\n", "front matter"),
        ("---\nname: a\ndescription: d\n", "not closed"),
        ("---\nname: [a\n---\n", "not valid YAML"),
        ("---\n- a\n- b\n---\n", "mapping"),
        ("---\nname: bad name!\ndescription: d\n---\n", "'name'"),
        ("---\nname: a\n---\n", "'description'"),
        ("---\nname: a\ndescription: d\ntools: 3\n---\n", "'tools'"),
        ("---\nname: a\ndescription: d\nmodel: [x]\n---\n", "'model'"),
    ],
)
def test_unusable_definition_files_raise_a_typed_error(content: str, message: str) -> None:
    with pytest.raises(AgentDefinitionError, match=message):
        parse_agent_definition(content)


names = st.from_regex(r"[a-zA-Z0-9_-]{1,64}", fullmatch=True)
tool_names = st.lists(st.from_regex(r"[a-zA-Z][a-zA-Z0-9_]{0,20}", fullmatch=True), max_size=5)


@given(
    name=names,
    description=st.text(min_size=1, max_size=80).filter(lambda s: s.strip() == s and s != ""),
    tools=st.none() | tool_names,
    denied=tool_names,
    body=st.text(max_size=200).map(str.strip),
)
def test_parsing_returns_what_the_front_matter_says(
    name: str, description: str, tools: list[str] | None, denied: list[str], body: str
) -> None:
    meta: dict[str, Any] = {"name": name, "description": description, "disallowed_tools": denied}
    if tools is not None:
        meta["tools"] = tools
    if any(line.strip() == "---" for line in body.splitlines()) or "\r" in body:
        body = "body"
    document = f"---\n{yaml.safe_dump(meta)}---\n{body}\n"

    definition = parse_agent_definition(document)

    assert definition.name == name
    assert definition.description == description
    assert definition.tools == (None if tools is None else tuple(tools))
    assert definition.disallowed_tools == tuple(denied)
    assert definition.prompt == body.strip()


# --- tiers ----------------------------------------------------------------------------------


def test_disk_beats_injected_beats_builtin_with_one_entry_per_name(tmp_path: Path) -> None:
    write_agent(tmp_path / "project", "reviewer.md", "reviewer", "Disk reviewer.", "disk prompt")
    write_agent(tmp_path / "user", "reviewer.md", "reviewer", "User reviewer.", "user prompt")
    write_agent(tmp_path / "user", "helper.md", "helper", "User helper.")
    injected = [
        AgentDefinition(name="general-purpose", description="Injected GP.", prompt="mine"),
        AgentDefinition(name="reviewer", description="Injected reviewer.", prompt="x"),
        AgentDefinition(name="general-purpose", description="Second injected GP.", prompt="y"),
    ]

    roster = load_agent_definitions(
        [tmp_path / "project", tmp_path / "user", tmp_path / "missing"], injected=injected
    )

    assert roster.names == ("reviewer", "helper", "general-purpose")
    reviewer = roster.get("reviewer")
    assert reviewer is not None
    assert (reviewer.description, reviewer.prompt, reviewer.tier) == (
        "Disk reviewer.",
        "disk prompt",
        "disk",
    )
    general = roster.get("general-purpose")
    assert general is not None
    assert general.description == "Injected GP."
    assert roster.issues == ()


def test_builtins_are_used_unless_replaced(tmp_path: Path) -> None:
    assert load_agent_definitions().definitions == BUILTIN_AGENTS
    assert load_agent_definitions(builtins=()).definitions == ()
    own = AgentDefinition(name="solo", description="Only one.", prompt="p", tier="builtin")
    assert load_agent_definitions(builtins=[own]).names == ("solo",)


def test_a_bad_file_is_reported_and_the_rest_still_loads(tmp_path: Path) -> None:
    write_agent(tmp_path, "good.md", "good", "Fine.")
    bad = tmp_path / "bad.md"
    bad.write_text("no front matter here")
    (tmp_path / "notes.txt").write_text("ignored: not markdown")

    roster = load_agent_definitions([tmp_path], builtins=())

    assert roster.names == ("good",)
    assert [issue.path for issue in roster.issues] == [bad]
    assert "front matter" in roster.issues[0].message


# --- tool filtering -------------------------------------------------------------------------


class Handoff(Tool):
    """A stand-in handoff wrapper: exposes the wrapped tool as ``handoff_inner``."""

    def __init__(self, inner: Tool) -> None:
        self.name = inner.name
        self._inner = inner

    @property
    def handoff_inner(self) -> Tool:
        return self._inner

    async def call(self, arguments: dict[str, Any], ctx: ToolContext[Any]) -> ToolOutput:
        return await self._inner.call(arguments, ctx)


def test_filter_unwraps_then_denies_then_allows_then_drops_spawning_tools() -> None:
    read = make_tool("read_file")
    shell = make_tool("shell", RiskClass.EXECUTE)
    grep = make_tool("grep")
    spawn = SpawnAgentTool(provider=ScriptedProvider(), roster=load_agent_definitions())
    parent_tools: list[Tool] = [Handoff(read), shell, grep, spawn]
    definition = AgentDefinition(
        name="r",
        description="d",
        prompt="",
        tools=("read_file", "shell", "agent"),
        disallowed_tools=("shell",),
    )

    child = filter_child_tools(parent_tools, definition)

    assert child == [read]  # unwrapped; shell denied despite the allowlist; agent always removed
    everything = AgentDefinition(name="all", description="d", prompt="")
    assert [t.name for t in filter_child_tools(parent_tools, everything)] == [
        "read_file",
        "shell",
        "grep",
    ]
    nothing = AgentDefinition(name="none", description="d", prompt="", tools=())
    assert filter_child_tools(parent_tools, nothing) == []


# --- the in-process runner ------------------------------------------------------------------


def test_a_spawn_tool_needs_a_roster() -> None:
    with pytest.raises(ConfigurationError, match="at least one agent definition"):
        SpawnAgentTool(provider=ScriptedProvider(), roster=load_agent_definitions(builtins=()))


REVIEWER = AgentDefinition(
    name="reviewer",
    description="Reviews code.",
    prompt="You are the reviewer.",
    disallowed_tools=("shell",),
    model="child-model",
)


def parent_with_spawn(
    provider: ScriptedProvider, **kwargs: Any
) -> tuple[Agent, SpawnAgentTool, Sink]:
    sink = Sink()
    base_tools: list[Tool] = [make_tool("read_file"), make_tool("shell", RiskClass.EXECUTE)]
    spawn = SpawnAgentTool(
        provider=provider,
        roster=load_agent_definitions(injected=[REVIEWER], builtins=()),
        tools=lambda: [*base_tools, spawn],
        model="parent-model",
        sinks=[sink],
        **kwargs,
    )
    parent = Agent(provider, model="parent-model", tools=[*base_tools, spawn])
    return parent, spawn, sink


@pytest.mark.anyio
async def test_child_runs_with_its_prompt_filtered_tools_and_model_and_usage_is_charged() -> None:
    provider = ScriptedProvider(
        [
            [
                tool_call("p1", "agent", {"subagent_type": "reviewer", "prompt": "Check x.py"}),
                usage(input_tokens=100, output_tokens=10),
            ],
            [tool_call("k1", "read_file", {"value": "x.py"}), usage(input_tokens=40)],
            [text("x.py looks fine"), usage(input_tokens=50, output_tokens=5)],
            [text("The reviewer says x.py looks fine."), usage(input_tokens=120)],
        ]
    )
    parent, spawn, sink = parent_with_spawn(provider)

    result = await parent.run("Review x.py")

    assert result.text == "The reviewer says x.py looks fine."
    child_request = provider.requests[1]
    assert child_request.model == "child-model"
    assert child_request.messages[0] == SystemMessage(content="You are the reviewer.")
    assert [t.name for t in child_request.tools] == ["read_file"]
    tool_results = [m for m in result.new_messages if isinstance(m, ToolResultMessage)]
    assert tool_results[0].results[0].text == "x.py looks fine"

    [child_id] = spawn.usage_by_child
    assert spawn.usage_by_child[child_id].input_tokens == 90
    assert spawn.usage_by_child[child_id].requests == 2
    assert spawn.charged_usage.output_tokens == 5
    assert result.usage.input_tokens == 220  # the parent's own rounds
    started, finished = sink.events
    assert isinstance(started, SubagentStarted)
    assert (started.agent, started.model, started.tools) == (
        "reviewer",
        "child-model",
        ("read_file",),
    )
    assert isinstance(finished, SubagentFinished)
    assert (finished.child_id, finished.state, finished.usage.input_tokens) == (
        child_id,
        "completed",
        90,
    )
    assert finished.owner.find("subagent") == child_id


@pytest.mark.anyio
async def test_unknown_agent_name_is_an_error_result_the_model_can_fix() -> None:
    provider = ScriptedProvider(
        [
            [tool_call("p1", "agent", {"subagent_type": "ghost", "prompt": "boo"})],
            "ok",
        ]
    )
    parent, spawn, _ = parent_with_spawn(provider)
    result = await parent.run("go")
    [message] = [m for m in result.new_messages if isinstance(m, ToolResultMessage)]
    assert message.results[0].is_error
    # the roster is the schema's enum, so validation names the choices before the body runs
    assert "$.subagent_type: 'ghost' is not one of ['reviewer']" in message.results[0].text
    assert spawn.usage_by_child == {}


@pytest.mark.anyio
async def test_child_is_a_subagent_task_through_its_lifecycle() -> None:
    provider = ScriptedProvider(
        [
            [tool_call("p1", "agent", {"subagent_type": "reviewer", "prompt": "p"})],
            [text("child done"), usage(input_tokens=3)],
            "parent done",
        ]
    )
    states: list[TaskState] = []

    def record(snapshot: TaskSnapshot) -> None:
        states.append(snapshot.state)

    async with ExecutionContext(on_change=record) as execution:
        parent, spawn, sink = parent_with_spawn(provider, execution=execution)
        result = await parent.run("go")
        [task] = execution.list()

    assert result.text == "parent done"
    assert states == [TaskState.RUNNING, TaskState.COMPLETED]
    assert task.kind.value == "subagent"
    assert task.result == "child done"
    finished = sink.events[-1]
    assert isinstance(finished, SubagentFinished)
    assert finished.task_id == task.id
    assert spawn.charged_usage.input_tokens == 3


@pytest.mark.anyio
async def test_failed_child_is_charged_for_its_calls_and_reported_failed() -> None:
    provider = ScriptedProvider(
        [
            [tool_call("p1", "agent", {"subagent_type": "reviewer", "prompt": "p"})],
            [tool_call("k1", "read_file", {}), usage(input_tokens=11)],
            [fail(AuthenticationError("bad key", provider="scripted", status=401))],
            "parent recovers",
        ]
    )
    async with ExecutionContext() as execution:
        parent, spawn, sink = parent_with_spawn(provider, execution=execution)
        result = await parent.run("go")
        [task] = execution.list()

    assert task.state is TaskState.FAILED
    [message] = [m for m in result.new_messages if isinstance(m, ToolResultMessage)]
    assert message.results[0].is_error
    assert message.results[0].text == "Subagent reviewer failed: AuthenticationError: bad key"
    finished = sink.events[-1]
    assert isinstance(finished, SubagentFinished)
    assert finished.state == "failed"
    assert finished.usage.input_tokens == 11
    assert spawn.charged_usage.input_tokens == 11


@pytest.mark.anyio
async def test_cancelling_the_parent_cancels_the_child_task() -> None:
    child_waiting = anyio.Event()
    never = anyio.Event()
    provider = ScriptedProvider(
        [
            [tool_call("p1", "agent", {"subagent_type": "reviewer", "prompt": "p"})],
            [reached(child_waiting), wait_for(never)],
        ]
    )
    token = CancelToken()
    outcome: list[bool] = []
    async with ExecutionContext() as execution:
        parent, _, sink = parent_with_spawn(provider, execution=execution)
        async with anyio.create_task_group() as group:

            async def run_parent() -> None:
                outcome.append((await parent.run("go", cancel=token)).interrupted)

            group.start_soon(run_parent)
            await child_waiting.wait()
            token.cancel("user stop")
        [task] = execution.list()

    assert outcome == [True]
    assert task.state is TaskState.CANCELLED
    finished = sink.events[-1]
    assert isinstance(finished, SubagentFinished)
    assert finished.state == "cancelled"


@pytest.mark.parametrize(
    "module", ["robota.framework.subagents.definition", "robota.framework.subagents.filtering"]
)
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0
    assert result.failed == 0
