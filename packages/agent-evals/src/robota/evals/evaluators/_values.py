"""Value helpers shared by the built-in evaluators: a JSON-compatible form of any output, a
type-aware equality on it (``True`` is not ``1``), a nested subset match, and bounded text for
reasons."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, TypeAdapter

__all__ = [
    "NotDataError",
    "brief",
    "cut",
    "data_form",
    "is_subset",
    "jsonable",
    "same_value",
    "to_tuples",
]

_ANY: TypeAdapter[Any] = TypeAdapter(Any)

REASON_LIMIT = 200
"""Characters of a value a reason shows before it is cut with ``…``."""


class NotDataError(ValueError):
    """A value (or a value inside it) that pydantic cannot serialise: it has no JSON form."""


def jsonable(value: Any) -> Any:
    """``value`` as JSON-compatible data: a pydantic model dumped (JSON mode), a dataclass as a
    dict, tuples as lists, a set as a sorted list (insertion order when its items do not sort),
    mapping keys as text; anything else pydantic can serialise in JSON mode, else ``repr`` (for
    display only: comparisons use :func:`data_form`, which refuses such values)."""
    return _convert(value, strict=False)


def data_form(value: Any) -> Any:
    """``value`` as JSON-compatible data, like :func:`jsonable` but without the ``repr``
    fallback.

    Raises:
        NotDataError: ``value`` holds an object pydantic cannot serialise.
        RecursionError: ``value`` is nested deeper than Python's recursion limit.
    """
    return _convert(value, strict=True)


def _convert(value: Any, strict: bool) -> Any:
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, BaseModel):
        return _convert(value.model_dump(mode="json"), strict)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _convert(getattr(value, f.name), strict) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _convert(v, strict) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_convert(v, strict) for v in value]
    if isinstance(value, set | frozenset):
        items = [_convert(v, strict) for v in value]
        try:
            return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
        except (TypeError, ValueError):
            return items
    try:
        return _ANY.dump_python(value, mode="json")
    except Exception as error:
        if strict:
            raise NotDataError(f"{type(value).__name__} has no JSON form") from error
        return repr(value)


def same_value(left: Any, right: Any) -> bool:
    """Whether two values are equal as data (see :func:`data_form`): a model equals the dict of
    its fields, a tuple the list of its items, ``1`` equals ``1.0``, but a bool equals only a
    bool. When either has no JSON form (an object pydantic cannot serialise), the Python values
    themselves are compared with ``==`` (never their ``repr``: an object is not the text of its
    ``repr``)."""
    try:
        return _equal(data_form(left), data_form(right))
    except (NotDataError, RecursionError):
        return _python_equal(left, right)


def _python_equal(left: Any, right: Any) -> bool:
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left is right
    try:
        return bool(left == right)
    except Exception:  # an __eq__ that raises (numpy arrays, ...): not equal
        return False


def _equal(left: Any, right: Any) -> bool:
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left is right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_equal(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(
            _equal(a, b) for a, b in zip(left, right, strict=True)
        )
    if isinstance(left, dict | list) or isinstance(right, dict | list):
        return False
    return bool(left == right)


def is_subset(expected: Any, actual: Any) -> bool:
    """Whether ``actual`` holds ``expected``: for dicts, every key of ``expected`` is in
    ``actual`` with a value that holds the expected one (nested dicts match as subsets too);
    anything else (lists included) must be equal as data (:func:`same_value`)."""
    try:
        return _subset(data_form(expected), data_form(actual))
    except (NotDataError, RecursionError):
        return _python_equal(expected, actual)


def _subset(expected: Any, actual: Any) -> bool:
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return False
        return all(k in actual and _subset(v, actual[k]) for k, v in expected.items())
    return _equal(expected, actual)


def to_tuples(value: Any) -> Any:
    """``value`` with lists turned into tuples, recursively (span attribute values hold
    sequences as tuples; a dataset file holds them as lists)."""
    if isinstance(value, list | tuple):
        return tuple(to_tuples(v) for v in value)
    return value


def brief(value: Any, limit: int = REASON_LIMIT) -> str:
    """``value`` as compact JSON text (``repr`` when it is not JSON), cut to ``limit``
    characters with a trailing ``…``."""
    try:
        text = json.dumps(jsonable(value), ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = _safe_repr(value)
    return cut(text, limit)


def cut(text: str, limit: int = REASON_LIMIT) -> str:
    """``text`` cut to ``limit`` characters (the last one a ``…`` when cut): a reason quotes
    model-made text (outputs, tool and span names, validator messages) without growing with
    it."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _safe_repr(value: Any) -> str:
    try:
        return repr(value)
    except Exception:  # a repr that raises, or nesting beyond the recursion limit
        return f"<{type(value).__name__}>"
