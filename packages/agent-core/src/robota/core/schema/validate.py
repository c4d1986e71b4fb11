"""Argument and output validation against a JSON Schema (seed 000, "Structured Output Schema
Conversion": "Depth is owned by exactly one traversal").

:func:`validate_arguments` is that one traversal: tool-argument validation and structured-output
validation both call it, so the two paths cannot disagree about the same schema. It uses the
``jsonschema`` package (Draft 2020-12, with format checking for the formats whose checkers are
installed) and caches one compiled validator per schema object.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

__all__ = ["validate_arguments"]

_CACHE_SIZE = 256
_cache: OrderedDict[int, tuple[Mapping[str, Any], Any]] = OrderedDict()
_lock = threading.Lock()


def _validator(schema: Mapping[str, Any]) -> Any:
    key = id(schema)
    with _lock:
        hit = _cache.get(key)
        # The cache holds the schema itself, so its id cannot be reused while cached.
        if hit is not None and hit[0] is schema:
            _cache.move_to_end(key)
            return hit[1]
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    with _lock:
        _cache[key] = (schema, validator)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return validator


def validate_arguments(schema: Mapping[str, Any], value: Any) -> list[str]:
    """Validate ``value`` against ``schema`` and describe every issue.

    Args:
        schema: A JSON Schema (Draft 2020-12), usually a tool's ``parameters`` or an output
            schema. It must not be mutated after the first call (validators are cached per
            schema object).
        value: The decoded JSON value (e.g. a tool call's arguments dict).

    Returns:
        Issues ordered by JSON path, each ``"<json path>: <message>"``, e.g.
        ``"$.items[2].name: 'x' is not of type 'integer'"``; empty when ``value`` is valid.

    Raises:
        jsonschema.exceptions.SchemaError: never for a schema from
            :func:`~robota.core.schema.json_schema_of`; the schema is not checked against the
            metaschema (a broken third-party schema surfaces as an error while validating).

    Example:
        >>> schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
        >>> validate_arguments(schema, {"n": "x"})
        ["$.n: 'x' is not of type 'integer'"]
    """
    errors = sorted(_validator(schema).iter_errors(value), key=lambda e: e.json_path)
    return [f"{error.json_path}: {error.message}" for error in errors]
