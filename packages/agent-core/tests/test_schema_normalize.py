"""Building Robota's one schema shape from Python types (seed 000, "Structured Output Schema
Conversion")."""

from __future__ import annotations

from enum import Enum, IntEnum
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field
from robota.core.schema import SchemaConversionError, function_schema, json_schema_of
from robota.core.tools import ToolContext


class Color(Enum):
    RED = "red"
    GREEN = "green"


class Priority(IntEnum):
    LOW = 1
    HIGH = 2


class Address(BaseModel):
    """A postal address."""

    city: str = Field(description="City name")


class Cat(BaseModel):
    kind: Literal["cat"] = "cat"


class Dog(BaseModel):
    kind: Literal["dog"]
    barks: bool


class Order(BaseModel):
    model_config = ConfigDict(extra="forbid")

    color: Color = Color.RED
    priority: Priority
    note: str | None = None
    address: Address
    pet: Annotated[Cat | Dog, Field(discriminator="kind")]
    tags: dict[str, int]
    anything: Any = None


def test_model_schema_is_inlined_untitled_and_keeps_nullable_enums_and_defaults() -> None:
    assert json_schema_of(Order) == {
        "type": "object",
        "additionalProperties": False,
        "required": ["priority", "address", "pet", "tags"],
        "properties": {
            "color": {"type": "string", "enum": ["red", "green"], "default": "red"},
            "priority": {"type": "integer", "enum": [1, 2]},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            "address": {
                "type": "object",
                "description": "A postal address.",
                "properties": {"city": {"type": "string", "description": "City name"}},
                "required": ["city"],
                "additionalProperties": True,
            },
            "pet": {
                "anyOf": [
                    {
                        "type": "object",
                        "properties": {
                            "kind": {"type": "string", "const": "cat", "default": "cat"}
                        },
                        "additionalProperties": True,
                    },
                    {
                        "type": "object",
                        "properties": {
                            "kind": {"type": "string", "const": "dog"},
                            "barks": {"type": "boolean"},
                        },
                        "required": ["kind", "barks"],
                        "additionalProperties": True,
                    },
                ]
            },
            "tags": {"type": "object", "additionalProperties": {"type": "integer"}},
            "anything": {"default": None},
        },
    }


def test_extra_allow_opens_the_object() -> None:
    class Open(BaseModel):
        model_config = ConfigDict(extra="allow")
        a: int

    assert json_schema_of(Open)["additionalProperties"] is True


def test_recursive_model_is_refused_naming_the_field_and_an_alternative() -> None:
    class Node(BaseModel):
        name: str
        children: list[Node]

    with pytest.raises(SchemaConversionError) as info:
        json_schema_of(Node)
    assert info.value.field == "children[]"
    assert "use a flat list with parent ids, or dict[str, Any]" in str(info.value)


def test_tuple_field_is_refused_naming_the_field() -> None:
    class Point(BaseModel):
        xy: tuple[int, int]

    with pytest.raises(SchemaConversionError, match="field 'xy' is a tuple") as info:
        json_schema_of(Point)
    assert info.value.field == "xy"


def test_homogeneous_tuple_is_an_array() -> None:
    class Many(BaseModel):
        values: tuple[int, ...]

    assert json_schema_of(Many)["properties"]["values"] == {
        "type": "array",
        "items": {"type": "integer"},
    }


def test_non_object_root_is_refused() -> None:
    with pytest.raises(SchemaConversionError, match="root must be an object"):
        json_schema_of(list[int])


def test_mixed_enum_gets_an_inferred_type_list() -> None:
    class Mixed(BaseModel):
        v: Literal["a", 1]

    assert json_schema_of(Mixed)["properties"]["v"] == {
        "enum": ["a", 1],
        "type": ["integer", "string"],
    }


def lookup(ctx: ToolContext[None], city: str, days: int = 1, *, units: str = "metric") -> str:
    """Forecast for a city.

    Longer explanation.

    Args:
        city: City name.
        days: Days ahead.
    """
    return city


def test_function_schema_reads_hints_docstring_and_skips_the_context() -> None:
    schema, description = function_schema(lookup)
    assert description == "Forecast for a city.\n\nLonger explanation."
    assert schema == {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "city": {"type": "string", "description": "City name."},
            "days": {"type": "integer", "description": "Days ahead.", "default": 1},
            "units": {"type": "string", "default": "metric"},
        },
        "required": ["city"],
    }


def test_function_schema_refuses_var_args() -> None:
    def f(*names: str) -> None:
        del names

    with pytest.raises(SchemaConversionError, match="named parameter"):
        function_schema(f)


def test_context_parameter_must_come_first() -> None:
    def f(city: str, ctx: ToolContext[None]) -> None:
        del city, ctx

    with pytest.raises(SchemaConversionError, match="not the first"):
        function_schema(f)
