"""Issue 17 (outsider fixes): method tools, ``tools=`` errors, hosted-tool names, the pause
names and ``__version__`` at the package roots."""

from __future__ import annotations

import importlib
import typing

import pytest
import robota.core
from robota.core import Agent, DenyCall, HostedTool, ToolContext, ToolResultMessage, tool
from robota.core.agent import pause
from robota.core.agent._typing import HostedToolLike
from robota.core.gate import Deny as GateDeny
from robota.core.messages import text_of
from robota.core.testing.scripted import ScriptedProvider, tool_call

pytestmark = pytest.mark.anyio


class Calc:
    def __init__(self, factor: int) -> None:
        self.factor = factor

    @tool
    async def scale(self, ctx: ToolContext[str], a: int) -> str:
        """Scale a number."""
        return f"{ctx.deps}:{self.factor * a}"


@tool
def ping() -> str:
    """Ping."""
    return "pong"


class Holder:
    shared = ping


async def test_a_method_tool_binds_per_instance_and_runs_through_the_agent() -> None:
    calc = Calc(3)
    assert calc.scale is calc.scale
    assert Calc(1).scale is not calc.scale
    assert list(Calc.scale.parameters["properties"]) == ["a"]
    ctx = ToolContext(run_id="r", call_id="c", tool_call_id="t", tool_name="scale", deps="d")
    assert await calc.scale(ctx, 2) == "d:6"
    provider = ScriptedProvider([[tool_call("c1", "scale", {"a": 4})], "done"])
    agent = Agent(provider, tools=[calc.scale], deps="me")
    result = await agent.run("go")
    assert result.output == "done"
    results = [m for m in result.new_messages if isinstance(m, ToolResultMessage)]
    assert [text_of(p.content) for m in results for p in m.results] == ["me:12"]


async def test_a_method_tool_read_through_its_class_is_refused() -> None:
    with pytest.raises(TypeError, match=r"Calc\.scale.*instance"):
        Agent(ScriptedProvider([]), tools=[Calc.scale])

    class Group:
        tools = (Calc.scale,)

    with pytest.raises(TypeError, match="instance"):
        Agent(ScriptedProvider([]), tools=[Group()])
    ctx = ToolContext(run_id="r", call_id="c", tool_call_id="t", tool_name="scale", deps=None)
    with pytest.raises(TypeError, match="instance"):
        await Calc.scale.call({"a": 1}, ctx)


def test_a_function_tool_stored_on_a_class_stays_a_function_tool() -> None:
    assert ping.method_of is None
    assert Holder().shared is ping
    assert Agent(ScriptedProvider([]), tools=[Holder.shared]).tools["ping"] is ping


def test_the_hosted_tool_literal_lists_every_hosted_tool() -> None:
    literal = typing.get_args(HostedToolLike)[1]
    assert set(typing.get_args(literal)) == {t.value for t in HostedTool}


def test_pause_names_are_exported_and_deny_keeps_the_gate_meaning() -> None:
    assert robota.core.Deny is GateDeny
    assert DenyCall is pause.Deny
    assert robota.core.RunPaused is pause.RunPaused
    assert robota.core.Approve is pause.Approve


@pytest.mark.parametrize(
    "module",
    [
        "robota.cli",
        "robota.core",
        "robota.durable.dbos",
        "robota.executor",
        "robota.framework",
        "robota.plugins",
        "robota.providers.anthropic",
        "robota.providers.google",
        "robota.providers.openai",
        "robota.session",
        "robota.tools",
    ],
)
def test_every_package_root_has_a_version_and_refuses_unknown_names(module: str) -> None:
    try:
        root = importlib.import_module(module)
    except ImportError as missing:  # a package whose extra is not installed here
        pytest.skip(str(missing))
    version: object = getattr(root, "__version__")  # noqa: B009
    assert isinstance(version, str)
    assert version
    with pytest.raises(AttributeError, match="RunPausd"):
        getattr(root, "RunPausd")  # noqa: B009
