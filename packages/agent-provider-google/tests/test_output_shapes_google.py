"""Issue 17 output shapes on Gemini's wire: a union and a list go as one wrapped object
``responseJsonSchema`` (one ``anyOf``, ``$defs`` at the root), and the streamed wrapped JSON
comes back as the unwrapped typed value (real adapter over a loopback server, no network)."""

from __future__ import annotations

import json
from typing import Any, Literal

import pytest
from _google_serve import candidate, serving, sse, text  # pyright: ignore[reportImplicitRelativeImport]
from pydantic import BaseModel
from robota.core.agent import Agent
from robota.core.agent.events import FinalResult, PartialOutput
from robota.core.events import Event
from robota.core.schema.projection import Rejected, VendorPolicy, project_schema
from robota.core.testing.recording import EventRecorder


class Cat(BaseModel):
    kind: Literal["cat"] = "cat"
    lives: int


class Dog(BaseModel):
    kind: Literal["dog"] = "dog"
    name: str


async def run(output_type: Any, answer: str) -> tuple[Any, dict[str, Any], list[Event]]:
    pieces = [answer[i : i + 6] for i in range(0, len(answer), 6)]
    chunks = [candidate(text(p), finish=None) for p in pieces[:-1]]
    chunks.append(
        candidate(
            text(pieces[-1]),
            usage={"promptTokenCount": 5, "candidatesTokenCount": 3, "totalTokenCount": 8},
        )
    )
    server = serving((200, sse(*chunks)))
    sink = EventRecorder()
    agent = Agent(server.provider(), model="gemini-2.5-flash", sinks=[sink])
    result = await agent.run("q", output_type=output_type)
    body = json.loads(server.requests[0].content)
    return result.output, body["generationConfig"], sink.events


@pytest.mark.anyio
async def test_union_goes_wrapped_and_comes_back_unwrapped() -> None:
    output, config, events = await run(Cat | Dog, '{"result": {"kind": "dog", "name": "Rex"}}')
    assert output == Dog(name="Rex")
    assert config["responseMimeType"] == "application/json"
    schema = config["responseJsonSchema"]
    assert schema["required"] == ["result"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["result"] == {
        "anyOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}]
    }
    assert not isinstance(project_schema(schema, VendorPolicy.GEMINI), Rejected)
    assert [e.output for e in events if isinstance(e, FinalResult)] == [Dog(name="Rex")]


@pytest.mark.anyio
async def test_list_goes_wrapped_and_streams_unwrapped_partials() -> None:
    answer = '{"result": [{"lives": 1}, {"lives": 9}]}'
    output, config, events = await run(list[Cat], answer)
    assert output == [Cat(lives=1), Cat(lives=9)]
    schema = config["responseJsonSchema"]
    assert schema["properties"]["result"] == {"items": {"$ref": "#/$defs/Cat"}, "type": "array"}
    partials = [e.snapshot for e in events if isinstance(e, PartialOutput)]
    assert partials
    assert all(isinstance(p, list) for p in partials)
