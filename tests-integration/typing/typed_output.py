"""Typed structured output: ``output_type=`` types ``result.output``; a typed tool sees its deps."""

from __future__ import annotations

from dataclasses import dataclass
from typing import reveal_type

from pydantic import BaseModel
from robota.core import Agent, RunResult, ToolContext, tool
from robota.core.testing.scripted import ScriptedProvider, tool_call
from typing_extensions import TypedDict


class Weather(BaseModel):
    city: str
    celsius: float


@dataclass
class Deps:
    unit: str


class Point(TypedDict):
    x: int
    y: int


@tool
async def forecast(ctx: ToolContext[Deps], city: str) -> str:
    """The forecast for a city."""
    reveal_type(ctx.deps)  # revealed: Deps
    return f"21 {ctx.deps.unit} in {city}"


def main() -> None:
    provider = ScriptedProvider(
        [[tool_call("c1", "forecast", {"city": "Oslo"})], '{"city": "Oslo", "celsius": 21}']
    )
    agent = Agent(provider, tools=[forecast], output_type=Weather, deps=Deps(unit="C"))
    reveal_type(agent)  # revealed: Agent[Deps, Weather]
    result = agent.run_sync("Weather in Oslo?")
    reveal_type(result)  # revealed: RunResult[Weather]
    reveal_type(result.output)  # revealed: Weather
    assert result.output == Weather(city="Oslo", celsius=21)

    plain = Agent(ScriptedProvider(["Hello"]))
    reveal_type(plain)  # revealed: Agent[None, str]
    reveal_type(plain.run_sync("Hi").output)  # revealed: str

    numbers = Agent(ScriptedProvider(['{"result": [1, 2]}']), output_type=list[int])
    reveal_type(numbers.run_sync("Two numbers").output)  # revealed: list[int]

    count = Agent(ScriptedProvider(['{"result": 3}']), output_type=int)
    reveal_type(count.run_sync("Three").output)  # revealed: int

    point = Agent(ScriptedProvider(['{"x": 1, "y": 2}']), output_type=Point)
    reveal_type(point.run_sync("A point").output)  # revealed: Point

    either = Agent(ScriptedProvider(['{"result": {"x": 1, "y": 2}}']), output_type=Weather | Point)
    reveal_type(either.run_sync("Either").output)  # revealed: Weather | Point

    typed: RunResult[Weather] = result
    print(typed.output.city)


if __name__ == "__main__":
    main()
