"""Output shapes through the real loop (issue 17): any type pydantic validates, StructuredDict,
wrapped schemas for non-object roots, the schema name (seed 002, "Native unions become one
anyOf schema")."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union

import pytest
from pydantic import BaseModel, Field
from robota.core.agent import Agent
from robota.core.agent.events import FinalResult, RunCompleted
from robota.core.agent.output import OutputSpec, StructuredDict
from robota.core.capabilities import ModelCapabilities
from robota.core.testing.recording import EventRecorder
from robota.core.testing.scripted import ScriptedProvider
from typing_extensions import TypedDict

_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


class Cat(BaseModel):
    kind: Literal["cat"] = "cat"
    lives: int


class Dog(BaseModel):
    kind: Literal["dog"] = "dog"
    name: str


@dataclass
class Point:
    x: int
    y: int


class Movie(TypedDict):
    title: str
    year: int


async def run_one(output_type: Any, answer: str, caps: ModelCapabilities | None = None) -> Any:
    provider = ScriptedProvider([answer], capabilities=caps)
    sink = EventRecorder()
    result = await Agent(provider, sinks=[sink]).run("q", output_type=output_type)
    request = provider.requests[0]
    assert request.output is not None
    assert _NAME.match(request.output.name)
    finals = [e for e in sink.events if isinstance(e, FinalResult)]
    assert len(finals) == 1
    assert finals[0].output == result.output
    kinds = [type(e) for e in sink.events]
    assert kinds.index(FinalResult) < kinds.index(RunCompleted)
    return result.output, dict(request.output.schema), request.output.name


@pytest.mark.anyio
async def test_a_model_keeps_its_schema_byte_for_byte() -> None:
    output, schema, name = await run_one(Cat, '{"lives": 9}')
    assert output == Cat(lives=9)
    assert json.dumps(schema) == json.dumps(Cat.model_json_schema())
    assert name == "Cat"


@pytest.mark.anyio
async def test_dataclass_and_typed_dict_are_object_roots() -> None:
    output, schema, name = await run_one(Point, '{"x": 1, "y": "2"}')
    assert output == Point(x=1, y=2)
    assert schema["type"] == "object"
    assert "result" not in schema["properties"]
    assert name == "Point"
    output, schema, name = await run_one(Movie, '{"title": "Heat", "year": 1995}')
    assert output == {"title": "Heat", "year": 1995}
    assert name == "Movie"
    assert schema["required"] == ["title", "year"]


@pytest.mark.anyio
async def test_primitive_is_wrapped_and_unwrapped() -> None:
    output, schema, name = await run_one(int, '{"result": 42}')
    assert output == 42
    assert schema == {
        "type": "object",
        "properties": {"result": {"type": "integer"}},
        "required": ["result"],
        "additionalProperties": False,
    }
    assert name == "int"


@pytest.mark.anyio
async def test_list_of_models_keeps_defs_at_the_root() -> None:
    output, schema, name = await run_one(list[Cat], '{"result": [{"lives": 1}, {"lives": 2}]}')
    assert output == [Cat(lives=1), Cat(lives=2)]
    assert set(schema["$defs"]) == {"Cat"}
    assert schema["properties"]["result"] == {"items": {"$ref": "#/$defs/Cat"}, "type": "array"}
    assert name == "final_result"


@pytest.mark.anyio
@pytest.mark.parametrize(
    "union",
    [Cat | Dog, Union[Cat, Dog], Annotated[Cat | Dog, Field(discriminator="kind")]],  # noqa: UP007
    ids=["pipe", "Union", "discriminated"],
)
async def test_unions_become_one_any_of(union: Any) -> None:
    output, schema, _ = await run_one(union, '{"result": {"kind": "dog", "name": "Rex"}}')
    assert output == Dog(name="Rex")
    inner = schema["properties"]["result"]
    assert inner == {"anyOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}]}
    assert "oneOf" not in json.dumps(schema)
    assert "discriminator" not in json.dumps(schema)


@pytest.mark.anyio
async def test_literal_and_bare_value_in_prompted_mode() -> None:
    caps = ModelCapabilities(native_structured_output=False, json_mode=False)
    provider = ScriptedProvider(['Sure: ["b"]'], capabilities=caps)
    result = await Agent(provider).run("q", output_type=list[Literal["a", "b"]])
    assert result.output == ["b"]
    system = provider.requests[0].messages[0]
    assert '"result"' in getattr(system, "content", "")  # the stated schema is the wire one
    output, _, _ = await run_one(Literal["a", "b"], '{"result": "a"}')
    assert output == "a"


@pytest.mark.anyio
async def test_structured_dict_validates_against_its_schema() -> None:
    person = StructuredDict(
        {"type": "object", "properties": {"age": {"type": "integer"}}, "required": ["age"]},
        name="Person",
        description="a person",
    )
    provider = ScriptedProvider(['{"age": "x"}', '{"age": 3}'])
    result = await Agent(provider).run("q", output_type=person)
    assert result.output == {"age": 3}
    output = provider.requests[0].output
    assert output is not None
    assert output.name == "Person"
    assert output.description == "a person"
    assert len(provider.requests) == 2  # the first answer was refused by the schema


def test_unsupported_output_types_fail_before_any_request() -> None:
    with pytest.raises(TypeError, match="output_type must be"):
        OutputSpec.of(object())
    with pytest.raises(TypeError, match="output_type must be"):
        OutputSpec.of(3)
    with pytest.raises(TypeError):
        StructuredDict([])  # type: ignore[arg-type]


def test_names_are_sanitized() -> None:
    weird = type("weird name!", (BaseModel,), {"__annotations__": {"a": int}})
    spec = OutputSpec.of(weird)
    assert spec.name == "weird_name_"
    assert OutputSpec.of(dict[str, int]).name == "final_result"


@pytest.mark.parametrize("given", [[Cat, Dog], (Cat, Dog), [], {Cat}])
def test_a_list_of_types_names_the_union_to_write_instead(given: Any) -> None:
    # the PydanticAI habit ``output_type=[A, B]``: a clear error before any request
    with pytest.raises(TypeError, match=r"write a union: output_type=") as caught:
        OutputSpec.of(given)
    assert "arbitrary_types_allowed" not in str(caught.value)
