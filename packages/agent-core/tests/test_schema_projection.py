"""Projecting schemas onto vendor wire subsets (seed 000, "Tool Schema Projection")."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from robota.core.agent.validation import validate_against
from robota.core.provider import ToolDefinition
from robota.core.schema import (
    Adapted,
    Adopted,
    Rejected,
    VendorPolicy,
    project_schema,
    project_tool,
)
from robota.core.schema.projection import MAX_DEPTH, drop_strict_nulls

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "pattern": "^/", "description": "Absolute path"},
        "limit": {"type": "integer", "minimum": 1, "default": 10},
        "mode": {"anyOf": [{"type": "string", "enum": ["r", "w"]}, {"type": "null"}]},
        "opts": {
            "type": "object",
            "properties": {"deep": {"type": "boolean"}},
            "additionalProperties": True,
        },
    },
    "required": ["path"],
    "additionalProperties": False,
}


def test_openai_non_strict_adopts_the_same_object() -> None:
    result = project_schema(SCHEMA, VendorPolicy.OPENAI)
    assert isinstance(result, Adopted)
    assert result.schema is SCHEMA


def test_anthropic_adopts_standard_schema_and_strips_vendor_extensions() -> None:
    adopted = project_schema(SCHEMA, VendorPolicy.ANTHROPIC)
    assert isinstance(adopted, Adopted)
    assert adopted.schema is SCHEMA
    odd = {"type": "object", "properties": {"a": {"type": "string", "nullable": True}}}
    result = project_schema(odd, VendorPolicy.ANTHROPIC)
    assert result == Adapted(
        schema={"type": "object", "properties": {"a": {"type": "string"}}},
        changes=("$.a: removed 'nullable'",),
        dropped_constraints=(),
    )


def test_openai_strict_closes_objects_requires_all_and_makes_optional_nullable() -> None:
    original = copy.deepcopy(SCHEMA)
    result = project_schema(SCHEMA, VendorPolicy.OPENAI_STRICT)
    assert original == SCHEMA
    assert isinstance(result, Adapted)
    assert result.schema == {
        "type": "object",
        "properties": {
            "path": {"type": "string", "pattern": "^/", "description": "Absolute path"},
            "limit": {"type": ["integer", "null"], "minimum": 1},
            "mode": {"anyOf": [{"type": "string", "enum": ["r", "w"]}, {"type": "null"}]},
            "opts": {
                "type": ["object", "null"],
                "properties": {"deep": {"type": ["boolean", "null"]}},
                "additionalProperties": False,
                "required": ["deep"],
            },
        },
        "required": ["path", "limit", "mode", "opts"],
        "additionalProperties": False,
    }
    assert result.dropped_constraints == ()


def test_openai_strict_refuses_free_form_maps() -> None:
    schema = {"type": "object", "properties": {"env": {"type": "object"}}, "required": ["env"]}
    result = project_schema(schema, VendorPolicy.OPENAI_STRICT)
    assert isinstance(result, Rejected)
    assert result.reason.startswith("$.env: an object without declared properties")


def test_gemini_uses_nullable_and_drops_additional_properties() -> None:
    result = project_schema(SCHEMA, VendorPolicy.GEMINI)
    assert isinstance(result, Adapted)
    assert result.schema == {
        "type": "object",
        "properties": {
            "path": {"type": "string", "pattern": "^/", "description": "Absolute path"},
            "limit": {"type": "integer", "minimum": 1, "default": 10},
            "mode": {"type": "string", "enum": ["r", "w"], "nullable": True},
            "opts": {"type": "object", "properties": {"deep": {"type": "boolean"}}},
        },
        "required": ["path"],
    }
    assert result.dropped_constraints == ("$: additionalProperties",)


def test_gemini_inlines_refs_and_refuses_recursion() -> None:
    schema = {
        "type": "object",
        "$defs": {"Id": {"type": "integer", "exclusiveMinimum": 0}},
        "properties": {"id": {"$ref": "#/$defs/Id"}},
    }
    result = project_schema(schema, VendorPolicy.GEMINI)
    assert isinstance(result, Adapted)
    assert result.schema == {"type": "object", "properties": {"id": {"type": "integer"}}}
    assert result.dropped_constraints == ("$.id: exclusiveMinimum",)
    looped = {
        "type": "object",
        "$defs": {"N": {"type": "object", "properties": {"n": {"$ref": "#/$defs/N"}}}},
        "properties": {"root": {"$ref": "#/$defs/N"}},
    }
    refused = project_schema(looped, VendorPolicy.GEMINI)
    assert isinstance(refused, Rejected)
    assert "recursive reference '#/$defs/N'" in refused.reason


@pytest.mark.parametrize("policy", list(VendorPolicy))
def test_refusals_common_to_every_policy(policy: VendorPolicy) -> None:
    assert isinstance(project_schema({"type": "array"}, policy), Rejected)
    proto = {"type": "object", "properties": {"__proto__": {"type": "string"}}}
    assert project_schema(proto, policy) == Rejected(
        reason="$: dangerous property name '__proto__'"
    )
    cyclic: dict[str, Any] = {"type": "object", "properties": {}}
    cyclic["properties"]["self"] = cyclic
    assert project_schema(cyclic, policy) == Rejected(
        reason="$.self: cycle (the schema object contains itself)"
    )
    deep: dict[str, Any] = {"type": "object", "properties": {}}
    node = deep
    for _ in range(MAX_DEPTH):
        child: dict[str, Any] = {"type": "object", "properties": {}}
        node["properties"]["x"] = child
        node = child
    refused = project_schema(deep, policy)
    assert isinstance(refused, Rejected)
    assert refused.reason.endswith(f"nested deeper than {MAX_DEPTH} schema levels")


@pytest.mark.parametrize("policy", [VendorPolicy.OPENAI_STRICT, VendorPolicy.GEMINI])
def test_type_and_any_of_together_are_refused_by_strict_shapes(policy: VendorPolicy) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "anyOf": []}}}
    assert project_schema(schema, policy) == Rejected(
        reason="$.a: declares both 'type' and 'anyOf'; exactly one is allowed"
    )


def test_project_tool_appends_one_note_for_dropped_constraints() -> None:
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string", "minLength": 2, "title": "Name"}},
        "required": ["name"],
        "additionalProperties": False,
    }
    defn = ToolDefinition(name="greet", description="Greets someone.", parameters=schema)
    projected = project_tool(defn, VendorPolicy.OPENAI_STRICT)
    assert isinstance(projected, ToolDefinition)
    assert projected.parameters["properties"]["name"] == {"type": "string", "title": "Name"}
    assert projected.description == (
        "Greets someone.\n\n"
        "(Constraints not shown to this provider but still enforced: $.name: minLength.)"
    )
    assert projected.parameters is not schema
    assert project_tool(defn, VendorPolicy.OPENAI) is defn


def test_annotation_only_changes_add_no_note() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "default": "x"}}}
    defn = ToolDefinition(name="t", description="D.", parameters=schema)
    projected = project_tool(defn, VendorPolicy.OPENAI_STRICT)
    assert isinstance(projected, ToolDefinition)
    assert projected.description == "D."


def test_drop_strict_nulls_restores_omitted_optionals() -> None:
    args = {"path": "/a", "limit": None, "mode": None, "opts": {"deep": None}}
    assert drop_strict_nulls(SCHEMA, args) == {"path": "/a", "mode": None, "opts": {}}


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"inner": {"z": None, "w": None}}, {"inner": {"z": None}}),
        ({"items": [{"z": None, "w": None}, {"w": "a"}]}, {"items": [{"z": None}, {"w": "a"}]}),
        ({"inner": None, "items": None}, {"inner": None, "items": None}),
    ],
)
def test_drop_strict_nulls_reaches_into_optional_models_and_lists(
    arguments: dict[str, Any], expected: dict[str, Any]
) -> None:
    inner = {
        "type": "object",
        "properties": {
            "z": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "w": {"type": "string"},
        },
    }
    schema = {
        "type": "object",
        "properties": {
            "inner": {"anyOf": [inner, {"type": "null"}]},
            "items": {"anyOf": [{"type": "array", "items": inner}, {"type": "null"}]},
        },
    }
    assert drop_strict_nulls(schema, arguments) == expected
    assert validate_against(schema, expected) == []
