"""Issue 17 output shapes on OpenAI's Responses wire: a union and a list are sent as one
wrapped object schema (``{"result": …}``, one ``anyOf``, ``$defs`` at the root) that the strict
projection accepts, and the streamed wrapped JSON comes back as the unwrapped typed value
(real adapter, mocked HTTP, no network)."""

from __future__ import annotations

import json
from typing import Any, Literal

import httpx
import pytest
from pydantic import BaseModel
from robota.core.agent import Agent
from robota.core.agent.events import FinalResult, PartialOutput
from robota.core.agent.output import OutputSpec
from robota.core.events import Event
from robota.core.schema.projection import Rejected, VendorPolicy, project_schema
from robota.providers.openai import OpenAIResponsesProvider


class Cat(BaseModel):
    kind: Literal["cat"] = "cat"
    lives: int


class Dog(BaseModel):
    kind: Literal["dog"] = "dog"
    name: str


class Recorder:
    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.bodies: list[dict[str, Any]] = []
        self.events: list[Event] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.bodies.append(json.loads(request.content))
        return sse(self.answer)

    def emit(self, event: Event) -> None:
        self.events.append(event)


def sse(answer: str) -> httpx.Response:
    final: dict[str, Any] = {
        "id": "resp_1",
        "object": "response",
        "status": "completed",
        "model": "gpt-4.1",
        "output": [
            {
                "type": "message",
                "id": "m1",
                "role": "assistant",
                "content": [{"type": "output_text", "text": answer, "annotations": []}],
            }
        ],
        "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
    }
    pieces = [answer[i : i + 7] for i in range(0, len(answer), 7)]
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**final, "status": "in_progress", "output": []}},
        *({"type": "response.output_text.delta", "output_index": 0, "delta": p} for p in pieces),
        {"type": "response.completed", "response": final},
    ]
    text = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, text=text)


async def run(output_type: Any, answer: str) -> tuple[Any, dict[str, Any], Recorder]:
    rec = Recorder(answer)
    client = httpx.AsyncClient(transport=httpx.MockTransport(rec))
    provider = OpenAIResponsesProvider("sk-test", http_client=client)
    agent = Agent(provider, model="gpt-4.1", sinks=[rec])
    result = await agent.run("q", output_type=output_type)
    return result.output, rec.bodies[0]["text"]["format"], rec


@pytest.mark.anyio
async def test_union_goes_wrapped_and_comes_back_unwrapped() -> None:
    output, fmt, rec = await run(Cat | Dog, '{"result": {"kind": "dog", "name": "Rex"}}')
    assert output == Dog(name="Rex")
    assert fmt["type"] == "json_schema"
    assert fmt["name"] == "final_result"
    schema = fmt["schema"]
    assert schema["required"] == ["result"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["result"] == {
        "anyOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}]
    }
    assert set(schema["$defs"]) == {"Cat", "Dog"}
    assert not isinstance(project_schema(schema, VendorPolicy.OPENAI_STRICT), Rejected)
    assert [e.output for e in rec.events if isinstance(e, FinalResult)] == [Dog(name="Rex")]


@pytest.mark.anyio
async def test_list_goes_wrapped_and_streams_unwrapped_partials() -> None:
    answer = '{"result": [{"lives": 1}, {"lives": 2}, {"lives": 3}]}'
    output, fmt, rec = await run(list[Cat], answer)
    assert output == [Cat(lives=1), Cat(lives=2), Cat(lives=3)]
    schema = fmt["schema"]
    assert schema["properties"]["result"] == {"items": {"$ref": "#/$defs/Cat"}, "type": "array"}
    assert not isinstance(project_schema(schema, VendorPolicy.OPENAI_STRICT), Rejected)
    partials = [e.snapshot for e in rec.events if isinstance(e, PartialOutput)]
    assert partials
    assert all(isinstance(p, list) for p in partials)


def test_strict_projection_accepts_every_wrapped_root() -> None:
    # (a free-form dict[str, X] is an object root OpenAI strict mode cannot express at all)
    for output_type in (int, list[str], Literal["a", "b"], Cat | Dog):
        schema = OutputSpec.of(output_type).wire_schema
        projected = project_schema(schema, VendorPolicy.OPENAI_STRICT)
        assert not isinstance(projected, Rejected), (output_type, projected)
