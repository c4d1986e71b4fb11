"""Outsider (issue 17): wrong uses a strict checker must report. A marked line the checker
accepts is a hole."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from pydantic import BaseModel
from robota.core import Agent, OutputContext, ToolContext, tool
from robota.core.agent import Approve, RunPaused
from robota.core.testing.scripted import ScriptedProvider


class Weather(BaseModel):
    city: str


@dataclass
class Deps:
    unit: str


@dataclass
class Other:
    x: int


@tool
def convert(ctx: ToolContext[Deps], value: float) -> str:
    """Convert a value."""
    return f"{value}{ctx.deps.unit}"


def size_of(ctx: OutputContext[Other], size: int) -> int:
    """An output function that wants Other deps."""
    return size + ctx.deps.x


def wants_int(value: int) -> int:
    """A validator of int values."""
    return value


def add(a: int, b: int) -> int:
    """Add."""
    return a + b


class NotATool:
    """A class, not a tool."""


async def main() -> None:
    provider = ScriptedProvider(["x"])
    deps = Deps(unit="C")
    Agent(provider, tools=[convert])  # LIMIT: tools= items are not typed by the agent's DepsT
    Agent(provider, tools=[convert], deps=Other(x=1))  # LIMIT: as above (tool deps untied)
    Agent(provider, output_type=size_of, deps=deps)  # LIMIT: output fn params are Callable[...]
    ok = [wants_int]
    # __init__ is overloaded (a JSON-schema-dict overload too): the checker says "no overloads"
    # and shows the last overload's complaint (output_type is no dict).
    Agent(  # expect-error: reportCallIssue
        provider,
        output_type=Weather,  # expect-error: reportArgumentType
        output_validators=ok,  # the wrong one (int validators for a Weather output)
    )
    agent = Agent(provider, deps=deps, output_type=Weather)
    await agent.run("x", deps=Other(x=1))  # expect-error: reportArgumentType
    agent.new_conversation(deps=Other(x=1))  # expect-error: reportArgumentType
    paused = await agent.run_until_pause("x")
    if isinstance(paused, RunPaused):
        yes = {"c": Approve()}
        await agent.resume(paused.state, yes, deps=Other(x=1))  # expect-error: reportArgumentType
    Agent(provider, hosted_tools=["web_serch"])  # expect-error: reportArgumentType
    Agent(provider, tools=[functools.partial(add, b=1)])  # expect-error: reportArgumentType
    Agent(provider, tools=[NotATool])  # expect-error: reportArgumentType
    Agent(provider, tools=None)  # expect-error: reportArgumentType
    convert(1.0)  # expect-error: reportCallIssue
    # An unknown import is also Unknown-typed: strict mode reports its uses too.
    from robota.core import (
        RunPausd,  # expect-error: reportAttributeAccessIssue, reportUnknownVariableType
    )

    print(RunPausd)  # expect-error: reportUnknownArgumentType
