"""Property tests of the projector: it never raises, never mutates its input, and OpenAI strict
output is always closed and fully required."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from robota.core.schema import Adapted, Adopted, Rejected, VendorPolicy, project_schema

NAMES = st.sampled_from(["a", "b", "name", "__proto__", "x-y", "items", "type"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=3))
EXTRAS = st.dictionaries(
    st.sampled_from(
        [
            "title",
            "description",
            "default",
            "minLength",
            "pattern",
            "format",
            "nullable",
            "x-extra",
            "$comment",
            "exclusiveMinimum",
            "const",
        ]
    ),
    SCALARS,
    max_size=3,
)
TYPES = st.sampled_from(["string", "integer", "number", "boolean", "null", "object", "array"])


def _typed(t: str, extra: dict[str, Any]) -> dict[str, Any]:
    return {"type": t, **extra}


def _enum(values: list[Any]) -> dict[str, Any]:
    return {"enum": values}


def _type_list(types: list[str]) -> dict[str, Any]:
    return {"type": types}


def _leaf() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.builds(_typed, TYPES, EXTRAS),
        st.builds(_enum, st.lists(SCALARS, min_size=1, max_size=3)),
        st.builds(_type_list, st.lists(TYPES, min_size=1, max_size=3)),
        st.just({}),
        st.booleans(),
    )


def _object(props: dict[str, Any], required: set[str], extra: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": [n for n in props if n in required],
        **extra,
    }


def _additional(value: Any) -> dict[str, Any]:
    return {"additionalProperties": value}


def _array(items: Any) -> dict[str, Any]:
    return {"type": "array", "items": items}


def _union(keyword: str, branches: list[Any], extra: dict[str, Any]) -> dict[str, Any]:
    return {keyword: branches, **extra}


def _type_only(t: str) -> dict[str, Any]:
    return {"type": t}


def _extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    empty: dict[str, Any] = {}
    obj = st.builds(
        _object,
        st.dictionaries(NAMES, children, max_size=3),
        st.sets(NAMES),
        st.one_of(
            st.just(empty),
            st.builds(_additional, st.booleans()),
            st.builds(_additional, children),
        ),
    )
    union = st.builds(
        _union,
        st.sampled_from(["anyOf", "oneOf", "allOf"]),
        st.lists(children, max_size=3),
        st.one_of(st.just(empty), st.builds(_type_only, TYPES)),
    )
    return st.one_of(obj, st.just({"type": "object"}), st.builds(_array, children), union)


def _root(props: dict[str, Any], required: set[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": sorted(required & set(props))}


NODES = st.recursive(_leaf(), _extend, max_leaves=12)
ROOTS = st.builds(_root, st.dictionaries(NAMES, NODES, max_size=4), st.sets(NAMES))


def _objects(node: Any) -> Iterator[dict[str, Any]]:
    if not isinstance(node, dict):
        return
    t = node.get("type")
    if t == "object" or (isinstance(t, list) and "object" in t) or "properties" in node:
        yield node
    for key, value in node.items():
        if key in ("properties", "$defs"):
            for sub in value.values():
                yield from _objects(sub)
        elif key in ("anyOf", "oneOf", "allOf") and isinstance(value, list):
            for sub in value:
                yield from _objects(sub)
        elif key in ("items", "additionalProperties", "not"):
            yield from _objects(value)


@settings(max_examples=150, deadline=None)
@given(schema=ROOTS, policy=st.sampled_from(list(VendorPolicy)))
def test_projection_never_raises_and_never_mutates(
    schema: dict[str, Any], policy: VendorPolicy
) -> None:
    before = copy.deepcopy(schema)
    result = project_schema(schema, policy)
    assert schema == before
    assert isinstance(result, Adopted | Adapted | Rejected)
    if isinstance(result, Adopted):
        assert result.schema is schema
    if isinstance(result, Adapted):
        assert result.changes


@settings(max_examples=150, deadline=None)
@given(schema=ROOTS)
def test_openai_strict_output_objects_are_closed_and_fully_required(
    schema: dict[str, Any],
) -> None:
    result = project_schema(schema, VendorPolicy.OPENAI_STRICT)
    if isinstance(result, Rejected):
        return
    for obj in _objects(result.schema):
        assert obj.get("additionalProperties") is False
        assert sorted(obj.get("required", [])) == sorted(obj["properties"])


@settings(max_examples=100, deadline=None)
@given(schema=ROOTS)
def test_projection_is_deterministic(schema: dict[str, Any]) -> None:
    for policy in VendorPolicy:
        assert project_schema(schema, policy) == project_schema(copy.deepcopy(schema), policy)
