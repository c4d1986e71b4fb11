"""Resolving an output type into its value schema, wire schema, name and validator.

A pydantic model keeps ``model_json_schema()`` byte for byte (recorded traffic replays). Any
other type goes through ``pydantic.TypeAdapter``. A schema whose root is not an object (an
array, a primitive, a union — a union root is always one ``anyOf``, ``oneOf`` and pydantic's
``discriminator`` keyword dropped, validation still uses the discriminator) is wrapped on the
wire as ``{"result": <schema>}`` with ``$defs`` kept at the root.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from robota.core.agent.validation import validate_against

__all__ = ["Shape", "StructuredDict", "sanitize_name", "shape_of", "wrap_schema"]

DEFAULT_NAME = "final_result"
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]+")

Check = Callable[[Any], tuple[Any, list[str]]]


@dataclass(frozen=True, kw_only=True, slots=True)
class Shape:
    """A resolved output type.

    Attributes:
        schema: JSON Schema of the value.
        name: Schema name (``^[a-zA-Z0-9_-]{1,64}$``).
        description: Description sent with the schema, or None.
        check: ``data -> (value, issues)`` (the typed value, or None and the issues).
        adapter: The ``TypeAdapter`` for partial values, or None (a JSON Schema dict).
    """

    schema: Mapping[str, Any]
    name: str
    description: str | None
    check: Check
    adapter: Any


def sanitize_name(raw: str | None) -> str:
    """A vendor-safe schema name: runs of other characters become ``_``, at most 64 long.

    Example:
        >>> sanitize_name("list[City]"), sanitize_name(None), sanitize_name("!!")
        ('list_City_', 'final_result', '_')
    """
    if not raw:
        return DEFAULT_NAME
    return _UNSAFE.sub("_", raw)[:64]


def is_object_root(schema: Mapping[str, Any]) -> bool:
    """True when the schema's root is a plain object (sent as is)."""
    return schema.get("type") == "object" and not any(
        k in schema for k in ("anyOf", "oneOf", "allOf")
    )


def wrap_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``{"type": "object", "properties": {"result": schema}, ...}`` with ``$defs`` at the root.

    Example:
        >>> wrap_schema({"type": "integer"})["properties"]
        {'result': {'type': 'integer'}}
    """
    inner = {k: v for k, v in schema.items() if k != "$defs"}
    wrapped: dict[str, Any] = {
        "type": "object",
        "properties": {"result": inner},
        "required": ["result"],
        "additionalProperties": False,
    }
    if "$defs" in schema:
        wrapped["$defs"] = schema["$defs"]
    return wrapped


def _one_any_of(schema: dict[str, Any]) -> dict[str, Any]:
    if "oneOf" in schema:
        schema = {("anyOf" if k == "oneOf" else k): v for k, v in schema.items()}
    schema.pop("discriminator", None)
    return schema


def StructuredDict(
    schema: Mapping[str, Any], *, name: str | None = None, description: str | None = None
) -> type[dict[str, Any]]:
    """A ``dict[str, Any]`` output type described by a JSON Schema dict.

    The run validates the answer against ``schema`` and returns the JSON object, typed as
    ``dict[str, Any]``.

    Args:
        schema: JSON Schema of the object (object root).
        name: Schema name (default: the schema's ``title``, else ``final_result``).
        description: Description sent with the schema.

    Raises:
        TypeError: when ``schema`` is not a mapping.

    Example:
        >>> Person = StructuredDict({"type": "object", "properties": {"n": {"type": "string"}}})
        >>> issubclass(Person, dict)
        True
    """
    if not isinstance(schema, Mapping):
        raise TypeError(f"StructuredDict takes a JSON Schema dict, got {schema!r}")
    title = schema.get("title")
    label = name or (title if isinstance(title, str) else None)

    def core_schema(cls: Any, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema as cs

        def check(value: Any) -> Any:
            issues = validate_against(schema, value)
            if issues:
                raise ValueError("; ".join(issues))
            return value

        return cs.no_info_after_validator_function(check, cs.dict_schema(cs.str_schema()))

    def json_schema(cls: Any, core: Any, handler: Any) -> dict[str, Any]:
        return dict(schema)

    namespace: dict[str, Any] = {
        "__robota_schema__": dict(schema),
        "__robota_name__": label,
        "__robota_description__": description,
        "__get_pydantic_core_schema__": classmethod(core_schema),
        "__get_pydantic_json_schema__": classmethod(json_schema),
    }
    return cast("type[dict[str, Any]]", type(sanitize_name(label), (dict,), namespace))


def _schema_check(schema: Mapping[str, Any]) -> Check:
    def check(data: Any) -> tuple[Any, list[str]]:
        issues = validate_against(schema, data)
        return (data, []) if not issues else (None, issues)

    return check


def _adapter_check(adapter: Any) -> Check:
    from pydantic import ValidationError

    def check(data: Any) -> tuple[Any, list[str]]:
        try:
            return adapter.validate_python(data), []
        except ValidationError as exc:
            return None, [
                f"{'/'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}"
                for err in exc.errors()
            ]

    return check


def shape_of(output_type: Any) -> Shape:
    """Resolve a JSON Schema dict, a ``StructuredDict`` or any type pydantic can validate.

    Raises:
        TypeError: for anything else (a non-type object, a type pydantic cannot build a
            schema for), naming pydantic's reason.
    """
    if isinstance(output_type, Mapping):
        schema = cast("Mapping[str, Any]", output_type)
        title = schema.get("title")
        return Shape(
            schema=schema,
            name=sanitize_name(title if isinstance(title, str) else None),
            description=None,
            check=_schema_check(schema),
            adapter=None,
        )
    given = getattr(output_type, "__robota_schema__", None)
    if isinstance(output_type, type) and isinstance(given, dict):
        fixed = cast("dict[str, Any]", given)
        return Shape(
            schema=fixed,
            name=sanitize_name(getattr(output_type, "__robota_name__", None)),
            description=getattr(output_type, "__robota_description__", None),
            check=_schema_check(fixed),
            adapter=None,
        )
    if isinstance(output_type, list | tuple | set | frozenset):
        members = " | ".join(getattr(t, "__name__", repr(t)) for t in cast("Any", output_type))
        raise TypeError(
            f"output_type is a {type(output_type).__name__} of types; for one of several types "
            f"write a union: output_type={members or 'A | B'}"
        )
    from pydantic import BaseModel, TypeAdapter
    from pydantic.errors import PydanticUserError

    try:
        adapter: Any = TypeAdapter(output_type)
        if isinstance(output_type, type) and issubclass(output_type, BaseModel):
            schema = output_type.model_json_schema()  # byte-identical to earlier releases
        else:
            schema = _one_any_of(dict(adapter.json_schema()))
    except (PydanticUserError, TypeError) as exc:
        raise TypeError(
            "output_type must be a type pydantic can validate (a model, dataclass, TypedDict, "
            "primitive, list/dict, Literal or union), a JSON Schema dict or an output function; "
            f"got {output_type!r}: {exc}"
        ) from exc
    name = output_type.__name__ if isinstance(output_type, type) else None
    return Shape(
        schema=schema,
        name=sanitize_name(name),
        description=None,
        check=_adapter_check(adapter),
        adapter=adapter,
    )
