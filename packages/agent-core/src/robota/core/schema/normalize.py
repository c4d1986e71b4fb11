"""Robota's one JSON-Schema shape, built from pydantic output (seed 000, "Structured Output Schema
Conversion").

The same shape describes the root object and every nested node; :func:`normalize_schema` turns a
pydantic JSON Schema (``TypeAdapter(...).json_schema()``) into it:

* ``$defs``/``$ref`` are inlined; a recursive type is refused (:class:`SchemaConversionError`
  naming the field and suggesting a flat alternative), because the target subset has no ``$ref``.
* Tuples (``prefixItems``) and intersections (``allOf`` with more than one member) are refused,
  naming the field: mapping them lossily would tell the model a laxer contract than the author's.
  A homogeneous ``tuple[int, ...]`` is an array and is kept.
* Nullable is kept in one shape: ``Optional[X]`` stays ``{"anyOf": [X, {"type": "null"}]}``
  (pydantic's own output); dropping the null half would reject payloads the type accepts.
* Enums are their values (``Enum`` classes become ``enum`` of the member values; int enums the
  ints). ``oneOf`` (pydantic's discriminated unions) becomes ``anyOf`` and the OpenAPI
  ``discriminator`` is removed: the branches are exclusive by their tag, so both mean the same.
* ``title`` noise is removed; ``default`` and ``description`` are kept.
* Exactly one of ``type``/``anyOf`` per node. A node with neither is refused, except the
  intentionally free-form node ``{}`` (``typing.Any``; it may carry ``description``/``default``)
  and an ``enum``/``const`` node whose JSON type is inferred from its values.
* ``additionalProperties`` is always explicit on a node that declares ``properties``: ``false``
  for ``extra="forbid"``, ``true`` otherwise (pydantic's default ``extra="ignore"`` accepts extra
  keys and drops them, like Zod's strip mode, so the seed says it emits ``true``). A node without
  ``properties`` keeps what pydantic said (``dict[str, int]`` → a schema, ``dict[str, Any]`` →
  ``true``).
* The root must be an object; anything else is refused.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from robota.core.errors import ConfigurationError

__all__ = ["SchemaConversionError", "json_schema_of", "normalize_schema"]

_FLAT_HINT = "use a flat list with parent ids, or dict[str, Any]"
_ANNOTATION_ONLY = frozenset({"description", "default", "examples", "deprecated"})


class SchemaConversionError(ConfigurationError):
    """A Python type cannot be expressed in Robota's schema shape without changing its meaning.

    Raised at conversion time (when a tool or output type is declared), never during a run.

    Attributes:
        field: Dotted path of the offending field (``""`` for the root).
    """

    code = "schema_conversion"

    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message)
        self.field = field


def json_schema_of(tp: Any) -> dict[str, Any]:
    """The normalized JSON Schema of a pydantic model or any type pydantic understands.

    Args:
        tp: A ``BaseModel`` subclass, dataclass, ``TypedDict`` or other type whose JSON Schema
            (validation mode) is an object.

    Returns:
        A new dict in Robota's normalized shape (see the module docstring).

    Raises:
        SchemaConversionError: for a non-object root, a recursive type, a tuple, an intersection,
            or a node that would have neither ``type`` nor ``anyOf``.
    """
    from pydantic import BaseModel, TypeAdapter

    if isinstance(tp, type) and issubclass(tp, BaseModel):
        raw = tp.model_json_schema(mode="validation")
    else:
        raw = TypeAdapter(tp).json_schema(mode="validation")
    return normalize_schema(raw)


def normalize_schema(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Normalize a pydantic-generated JSON Schema (see the module docstring for the rules).

    Args:
        raw: A JSON Schema with an optional ``$defs`` section; not modified.

    Returns:
        A new dict: the normalized schema with an object root.

    Raises:
        SchemaConversionError: as described for :func:`json_schema_of`.
    """
    defs: Mapping[str, Any] = raw.get("$defs", {})
    root = {k: v for k, v in raw.items() if k != "$defs"}
    node = _Normalizer(defs).node(root, path="", active=())
    if node.get("type") != "object":
        raise SchemaConversionError(
            "the schema root must be an object (a model, dataclass or TypedDict); "
            f"got {_describe(node)}. Wrap the value in a model with one field.",
            field="",
        )
    return node


def _describe(node: Mapping[str, Any]) -> str:
    if "type" in node:
        return f"type {node['type']!r}"
    if "anyOf" in node:
        return "a union (anyOf)"
    return "a free-form value"


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _field_label(path: str) -> str:
    return f"field {path!r}" if path else "the root"


class _Normalizer:
    def __init__(self, defs: Mapping[str, Any]) -> None:
        self._defs = defs

    def node(self, raw: Any, *, path: str, active: tuple[str, ...]) -> dict[str, Any]:
        if raw is True:
            return {}
        if not isinstance(raw, Mapping):
            raise SchemaConversionError(
                f"{_field_label(path)} has a schema that is not an object: {raw!r}", field=path
            )
        src: dict[str, Any] = dict(raw)
        if "$ref" in src:
            src = self._resolve(src, path=path, active=active)
            active = (*active, str(raw["$ref"]))
        all_of = src.pop("allOf", None)
        if all_of is not None:
            if len(all_of) != 1:
                raise SchemaConversionError(
                    f"{_field_label(path)} is an intersection (allOf), which the tool schema "
                    "subset cannot carry; merge the types into one model instead.",
                    field=path,
                )
            inner = self.node(all_of[0], path=path, active=active)
            return self.node({**inner, **src}, path=path, active=active)
        if "prefixItems" in src:
            raise SchemaConversionError(
                f"{_field_label(path)} is a tuple (positional items), which the tool schema "
                "subset cannot carry; use a list of one type or a model with named fields.",
                field=path,
            )
        out: dict[str, Any] = {}
        for key, value in src.items():
            if key in ("title", "discriminator", "$defs", "$schema"):
                continue
            if key == "oneOf" or key == "anyOf":
                out["anyOf"] = [self.node(v, path=path, active=active) for v in value]
            elif key == "properties":
                out["properties"] = {
                    name: self.node(v, path=_child(path, name), active=active)
                    for name, v in value.items()
                }
            elif key == "items":
                out["items"] = self.node(value, path=f"{path}[]", active=active)
            elif key == "additionalProperties":
                out[key] = (
                    value
                    if isinstance(value, bool)
                    else self.node(value, path=f"{path}{{}}", active=active)
                )
            elif key in ("not", "if", "then", "else", "patternProperties", "dependentSchemas"):
                raise SchemaConversionError(
                    f"{_field_label(path)} uses {key!r}, which the tool schema subset cannot "
                    "carry; express the rule as a validator on the model instead.",
                    field=path,
                )
            else:
                out[key] = copy.deepcopy(value)
        return self._finish(out, path=path)

    def _resolve(
        self, src: dict[str, Any], *, path: str, active: tuple[str, ...]
    ) -> dict[str, Any]:
        ref = str(src.pop("$ref"))
        if ref in active:
            name = ref.rsplit("/", 1)[-1]
            raise SchemaConversionError(
                f"{_field_label(path)} refers back to {name!r}: recursive types cannot be "
                f"expressed without $ref; {_FLAT_HINT}.",
                field=path,
            )
        prefix = "#/$defs/"
        if not ref.startswith(prefix) or ref[len(prefix) :] not in self._defs:
            raise SchemaConversionError(
                f"{_field_label(path)} has an unresolvable reference {ref!r}", field=path
            )
        target = dict(self._defs[ref[len(prefix) :]])
        target.update(src)  # siblings of $ref (description, default) win over the definition
        return target

    def _finish(self, out: dict[str, Any], *, path: str) -> dict[str, Any]:
        if "type" in out and "anyOf" in out:
            raise SchemaConversionError(
                f"{_field_label(path)} declares both 'type' and 'anyOf'; exactly one is allowed.",
                field=path,
            )
        if "type" not in out and "anyOf" not in out:
            values: list[Any] | None = None
            if "enum" in out:
                values = list(out["enum"])
            elif "const" in out:
                values = [out["const"]]
            if values is not None:
                types = sorted({_json_type(v) for v in values})
                out["type"] = types[0] if len(types) == 1 else types
            elif not set(out) <= _ANNOTATION_ONLY:
                raise SchemaConversionError(
                    f"{_field_label(path)} has neither 'type' nor 'anyOf' "
                    f"(keys: {sorted(out)}); give the field a concrete type or typing.Any.",
                    field=path,
                )
        if "properties" in out and "additionalProperties" not in out:
            out["additionalProperties"] = True
        return out


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"
