"""Outsider (issue 17): types a correct API gives for deps flowing into tools and output
functions, more output shapes, per-run overrides, pause/resume, tools as methods and the stream
helpers. A line whose revealed comment differs from what the checker says is a hole."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, cast, reveal_type

import anyio
from pydantic import BaseModel
from robota.core import Agent, OutputContext, RunResult, ToolContext, tool
from robota.core.agent import Approve, RunPaused
from robota.core.testing.scripted import ScriptedProvider, text, tool_call
from typing_extensions import TypedDict


class Weather(BaseModel):
    city: str


@dataclass
class Deps:
    unit: str


@dataclass
class Box:
    size: int


class Point(TypedDict):
    x: int


@tool
def convert(ctx: ToolContext[Deps], value: float) -> str:
    """Convert a value."""
    reveal_type(ctx.deps)  # revealed: Deps
    return f"{value}{ctx.deps.unit}"


@tool(execution="approval")
async def delete(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


def make_box(ctx: OutputContext[Deps], size: int) -> Box:
    """Output function that reads deps."""
    reveal_type(ctx.deps)  # revealed: Deps
    return Box(size=size)


async def make_point(x: int) -> Point:
    """Async output function."""
    return {"x": x}


class Calculator:
    """Tools as methods."""

    @tool
    def double(self, a: int) -> int:
        """Double a number."""
        return 2 * a


async def main() -> None:
    reveal_type(convert)  # revealed: FunctionTool[(ctx: ToolContext[Deps], value: float), str]
    pending = delete("x")
    reveal_type(pending)  # revealed: CoroutineType[Any, Any, str]
    assert await pending == "deleted x"
    ctx = ToolContext(run_id="r", call_id="c", tool_call_id="t", tool_name="n", deps=Deps("C"))
    assert convert(ctx, 1.5) == "1.5C"

    deps = Deps(unit="C")
    boxes = Agent(ScriptedProvider(['{"size": 3}']), output_type=make_box, deps=deps)
    reveal_type(boxes)  # revealed: Agent[Deps, Box]
    assert (await boxes.run("Box")).output == Box(size=3)

    points = Agent(ScriptedProvider(['{"x": 1}']), output_type=make_point)
    reveal_type((await points.run("Point")).output)  # revealed: Point

    dc = Agent(ScriptedProvider(['{"size": 2}']), output_type=Box)
    reveal_type((await dc.run("Box")).output)  # revealed: Box

    listed = Agent(ScriptedProvider(['{"result": [{"city": "Oslo"}]}']), output_type=list[Weather])
    reveal_type((await listed.run("Cities")).output)  # revealed: list[Weather]

    choice = Agent(ScriptedProvider(['{"result": "a"}']), output_type=Literal["a", "b"])
    reveal_type((await choice.run("Pick")).output)  # LIMIT: a Literal value is no type[T]
    workaround: Agent[None, Literal["a", "b"]] = Agent(
        ScriptedProvider(['{"result": "b"}']), output_type=cast(Any, Literal["a", "b"])
    )
    reveal_type((await workaround.run("Pick")).output)  # revealed: Literal['a', 'b']

    plain = Agent(ScriptedProvider(["hi", '{"city": "Oslo"}', '{"result": 4}']))
    text_result = await plain.run("Hi")
    reveal_type(text_result.output)  # revealed: str
    assert text_result.output == "hi"
    reveal_type((await plain.run("W", output_type=Weather)).output)  # revealed: Weather
    stream = plain.stream("N", output_type=int)
    reveal_type(stream.partial_outputs())  # revealed: AsyncGenerator[int, None]
    assert [n async for n in stream.partial_outputs()] in ([], [4])
    reveal_type(stream.result.output)  # revealed: int

    chat = boxes.new_conversation(name="u1")
    reveal_type(chat)  # revealed: Agent[Deps, Box]
    reveal_type(chat.new_conversation().deps)  # revealed: Deps | None

    approvals = Agent(
        ScriptedProvider([[tool_call("c1", "delete", {"path": "a"})], '{"city": "Oslo"}']),
        tools=[delete],
    )
    paused = await approvals.run_until_pause("Delete a", output_type=Weather)
    reveal_type(paused)  # revealed: RunResult[Weather] | RunPaused
    assert isinstance(paused, RunPaused)
    resumed = await approvals.resume(paused.state, {"c1": Approve()}, output_type=Weather)
    reveal_type(resumed)  # revealed: RunResult[Weather] | RunPaused
    assert isinstance(resumed, RunResult)
    weather: Any = resumed.output
    assert weather == Weather(city="Oslo")

    talk = Agent(ScriptedProvider([[text("a"), text("b")]]))
    reveal_type(talk.stream("x").text())  # revealed: AsyncGenerator[str, None]
    assert [t async for t in talk.stream("x").text()] == ["a", "ab"]

    calc = Calculator()
    reveal_type(calc.double(2))  # revealed: int
    assert "self" not in Calculator.double.parameters["properties"]


if __name__ == "__main__":
    anyio.run(main)
