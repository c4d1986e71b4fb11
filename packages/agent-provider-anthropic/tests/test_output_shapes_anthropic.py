"""Issue 17 output shapes on Anthropic's Messages wire: a union and a list go as one wrapped
object schema in ``output_config.format`` (one ``anyOf``, ``$defs`` at the root), and the
streamed wrapped JSON comes back as the unwrapped typed value (real adapter over a fake server,
no network)."""

from __future__ import annotations

import json
from typing import Any, Literal

import pytest
from _anthropic_fakes import Server, sse, stream_events  # pyright: ignore[reportImplicitRelativeImport]
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
    pieces = [answer[i : i + 5] for i in range(0, len(answer), 5)]
    server = Server(body=sse(stream_events([({"type": "text", "text": ""}, pieces)])))
    sink = EventRecorder()
    agent = Agent(server.provider(), model="claude-sonnet-4-6", sinks=[sink])
    result = await agent.run("q", output_type=output_type)
    body = json.loads(server.requests[0].content)
    return result.output, body["output_config"]["format"], sink.events


@pytest.mark.anyio
async def test_union_goes_wrapped_and_comes_back_unwrapped() -> None:
    output, fmt, events = await run(Cat | Dog, '{"result": {"kind": "cat", "lives": 7}}')
    assert output == Cat(lives=7)
    assert fmt["type"] == "json_schema"
    schema = fmt["schema"]
    assert schema["required"] == ["result"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["result"] == {
        "anyOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}]
    }
    assert not isinstance(project_schema(schema, VendorPolicy.ANTHROPIC), Rejected)
    assert [e.output for e in events if isinstance(e, FinalResult)] == [Cat(lives=7)]


@pytest.mark.anyio
async def test_list_goes_wrapped_and_streams_unwrapped_partials() -> None:
    answer = '{"result": [{"name": "a"}, {"name": "b"}]}'
    output, fmt, events = await run(list[Dog], answer)
    assert output == [Dog(name="a"), Dog(name="b")]
    schema = fmt["schema"]
    assert schema["properties"]["result"] == {"items": {"$ref": "#/$defs/Dog"}, "type": "array"}
    assert set(schema["$defs"]) == {"Dog"}
    partials = [e.snapshot for e in events if isinstance(e, PartialOutput)]
    assert partials
    assert all(isinstance(p, list) for p in partials)
