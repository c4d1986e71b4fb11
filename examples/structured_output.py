"""Structured output of any shape, streamed as it arrives, offline.

Shows: ``output_type=`` with a pydantic model, a dataclass, ``list[...]`` and a union
(``result.output`` is typed accordingly); what goes on the wire (object roots as they are, other
roots wrapped in ``{"result": ...}``, a union as one ``anyOf``); an output validator raising
``ModelRetry`` so the model corrects its answer; an output function; and
``stream.partial_outputs()`` yielding typed snapshots of a list while the JSON streams.
``ScriptedProvider`` plays the model, so this runs without a key or a network.

Run: ``uv run python examples/structured_output.py``
"""

from __future__ import annotations

from dataclasses import dataclass

import anyio
from pydantic import BaseModel
from robota.core import Agent, ModelRetry, OutputContext
from robota.core.testing.scripted import ScriptedProvider, text


class City(BaseModel):
    """A city and its population."""

    name: str
    population: int


@dataclass
class Coordinates:
    """A place on the map, in degrees."""

    lat: float
    lon: float


@dataclass
class Atlas:
    """The dependencies of the output function below."""

    known: dict[str, Coordinates]


def plausible(city: City) -> City:
    """An output validator: refuse a population no city has."""
    if not 0 < city.population < 40_000_000:
        raise ModelRetry(f"a population of {city.population} is not plausible for a city")
    return city


def locate(ctx: OutputContext[Atlas], city: str) -> Coordinates:
    """An output function: the model names a city, the program looks it up.

    Args:
        city: The city's name, e.g. "Oslo".
    """
    found = ctx.deps.known.get(city)
    if found is None:
        raise ModelRetry(f"unknown city {city!r}; known: {sorted(ctx.deps.known)}")
    return found


def one_model() -> None:
    provider = ScriptedProvider(
        ['{"name": "Oslo", "population": -3}', '{"name": "Oslo", "population": 709000}']
    )
    agent = Agent(provider, output_type=City, output_validators=[plausible])
    result = agent.run_sync("The capital of Norway and its population?")
    city: City = result.output  # typed: the checker knows it is a City
    sent = provider.requests[0].output
    assert sent is not None
    assert sent.name == "City"
    print("model:", city, f"(after {result.rounds} answers; sent {sent.transport.value})")
    assert city == City(name="Oslo", population=709000)


def other_shapes() -> None:
    provider = ScriptedProvider(['{"result": [{"name": "Oslo", "population": 709000}]}'])
    cities = Agent(provider).run_sync("Norway's cities", output_type=list[City]).output
    sent = provider.requests[0].output
    assert sent is not None
    assert sent.schema["required"] == ["result"]
    print("list:", cities)

    provider = ScriptedProvider(['{"result": {"lat": 59.91, "lon": 10.75}}'])
    either = Agent(provider, output_type=City | Coordinates).run_sync("Oslo?").output
    sent = provider.requests[0].output
    assert sent is not None
    assert "anyOf" in sent.schema["properties"]["result"]
    print("union:", either)
    assert either == Coordinates(lat=59.91, lon=10.75)

    atlas = Atlas(known={"Bergen": Coordinates(lat=60.39, lon=5.32)})
    provider = ScriptedProvider(['{"city": "Bergn"}', '{"city": "Bergen"}'])
    spot = Agent(provider, output_type=locate, deps=atlas).run_sync("Where is Bergen?").output
    print("output function:", spot)
    assert spot == Coordinates(lat=60.39, lon=5.32)


async def streamed() -> None:
    chunks = [
        '{"result": [{"name": "Oslo", "pop',
        'ulation": 709000}, {"name": "Ber',
        'gen", "population": 291000}',
        "]}",
    ]
    agent = Agent(ScriptedProvider([[text(c) for c in chunks]]), output_type=list[City])
    stream = agent.stream("The two largest cities of Norway")
    async for cities in stream.partial_outputs():
        print("partial:", [c.name for c in cities])
    final = stream.result.output
    print("final:", final)
    assert [c.name for c in final] == ["Oslo", "Bergen"]


def main() -> None:
    one_model()
    other_shapes()
    anyio.run(streamed)


if __name__ == "__main__":
    main()
