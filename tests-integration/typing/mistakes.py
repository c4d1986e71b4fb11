"""Wrong uses the type checker reports (each marked line must carry that error, nothing else)."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel
from robota.core import Agent, ToolContext, tool
from robota.core.testing.scripted import ScriptedProvider


class Weather(BaseModel):
    city: str


@dataclass
class Deps:
    unit: str


@tool
def add(a: int, b: int = 1) -> int:
    """Add two numbers."""
    return a + b


@tool
def convert(ctx: ToolContext[Deps], value: float) -> str:
    """Convert a value."""
    unit: int = ctx.deps.unit  # expect-error: reportAssignmentType
    return f"{value}{unit}"


def main() -> None:
    agent = Agent(ScriptedProvider(['{"city": "Oslo"}']), output_type=Weather)
    result = agent.run_sync("Weather?")
    wrong: str = result.output  # expect-error: reportAssignmentType
    add("two")  # expect-error: reportArgumentType
    total: str = add(1)  # expect-error: reportAssignmentType
    plain = Agent(ScriptedProvider(["hi"]))
    number: int = plain.run_sync("Hi").output  # expect-error: reportAssignmentType
    typed: Agent[None, int] = agent  # expect-error: reportAssignmentType
    result.output.celsius = 2.0  # expect-error: reportAttributeAccessIssue
    Agent(ScriptedProvider(["hi"]), tools=[42])  # expect-error: reportArgumentType
    with_deps = Deps(unit="C")
    agent.run_sync("Again", deps=with_deps)  # expect-error: reportArgumentType
    print(wrong, total, number, typed)
