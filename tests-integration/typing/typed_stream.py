"""Streaming in one line: text deltas without ``async with``; the typed result after."""

from __future__ import annotations

from typing import reveal_type

import anyio
from pydantic import BaseModel
from robota.core import Agent, AgentStream, ModelTextDelta
from robota.core.testing.scripted import ScriptedProvider, text


class City(BaseModel):
    name: str


async def main() -> None:
    agent = Agent(ScriptedProvider([[text("Hel"), text("lo")], [text('{"name": "Oslo"}')]]))
    stream = agent.stream("Hi")
    reveal_type(stream)  # revealed: AgentStream[str]
    deltas = [delta async for delta in stream.text_deltas()]
    reveal_type(deltas)  # revealed: list[str]
    assert deltas == ["Hel", "lo"]
    reveal_type(stream.result.output)  # revealed: str

    async with agent.stream("A city", output_type=City) as city_stream:
        reveal_type(city_stream)  # revealed: AgentStream[City]
        async for event in city_stream:
            if isinstance(event, ModelTextDelta):
                print(event.text)
    reveal_type(city_stream.result.output)  # revealed: City
    assert city_stream.result.output == City(name="Oslo")
    typed: AgentStream[City] = city_stream
    print(typed.done)


if __name__ == "__main__":
    anyio.run(main)
