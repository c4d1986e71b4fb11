"""Repairs of a ``GenerateContentResponse`` JSON object (a buffered body or one stream chunk)
before the SDK reads it, so that a broken field the answer does not depend on never costs the
answer, and is never attested either (issue #14).

- ``"error": null`` is no error (only a non-null error object is one); it is dropped, because
  the SDK takes any chunk starting with ``{"error":`` for an error chunk — and only such a
  chunk, so an error object that is not the first key is moved first (a chunk carrying an
  error is an error, wherever the key stands).
- ``usageMetadata`` token counts that are not non-negative integers (negative, fractional, NaN,
  a string, a boolean) are unknown: each becomes :data:`UNKNOWN` (-1), which the SDK accepts and
  :func:`~._response.usage_of` reads as 0 with the usage marked ``partial``. An integral number
  such as ``3.0`` is the count 3. A ``usageMetadata`` that is not an object has every count
  unknown. A per-modality detail list with a bad count is dropped (it is not reported).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

__all__ = ["COUNT_FIELDS", "UNKNOWN", "clean_response", "clean_usage", "token_count"]

UNKNOWN = -1
"""The count put where ``usageMetadata`` held something unreadable (read as unknown)."""

COUNT_FIELDS = (
    "promptTokenCount",
    "candidatesTokenCount",
    "cachedContentTokenCount",
    "thoughtsTokenCount",
    "toolUsePromptTokenCount",
    "totalTokenCount",
)
_DETAIL_FIELDS = (
    "promptTokensDetails",
    "cacheTokensDetails",
    "candidatesTokensDetails",
    "toolUsePromptTokensDetails",
)


def token_count(value: object) -> int | None:
    """``value`` as a token count, or None when it is not a non-negative integer.

    Example:
        >>> [token_count(v) for v in (3, 3.0, -1, 2.5, float("nan"), "3", True)]
        [3, 3, None, None, None, None, None]
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float) and value.is_integer() and value >= 0:
        return int(value)
    return None


def _details_readable(value: object) -> bool:
    if not isinstance(value, list):
        return False
    for entry in cast(list[object], value):
        if not isinstance(entry, Mapping):
            return False
        count = cast(Mapping[str, object], entry).get("tokenCount")
        if count is not None and token_count(count) is None:
            return False
    return True


def clean_usage(usage: object) -> dict[str, Any] | None:
    """The repaired ``usageMetadata``, or None when it needs no repair (absent or null too).

    Example:
        >>> clean_usage({"promptTokenCount": 9.5, "candidatesTokenCount": 3.0})
        {'promptTokenCount': -1, 'candidatesTokenCount': 3}
        >>> clean_usage({"promptTokenCount": 9}) is None
        True
    """
    if usage is None:
        return None
    if not isinstance(usage, Mapping):
        return dict.fromkeys(COUNT_FIELDS[:2], UNKNOWN)
    out = {str(k): v for k, v in cast(Mapping[Any, Any], usage).items()}
    changed = False
    for key in COUNT_FIELDS:
        value = out.get(key)
        if value is None:
            continue
        count = token_count(value)
        fixed = UNKNOWN if count is None else count
        if fixed != value or type(value) is not int:
            out[key] = fixed
            changed = True
    for key in _DETAIL_FIELDS:
        if out.get(key) is not None and not _details_readable(out[key]):
            del out[key]
            changed = True
    return out if changed else None


def clean_response(data: Mapping[str, Any]) -> dict[str, Any] | None:
    """The repaired response object, or None when it needs no repair.

    Example:
        >>> clean_response({"error": None, "candidates": []})
        {'candidates': []}
        >>> clean_response({"candidates": [], "error": {"code": 429}})
        {'error': {'code': 429}, 'candidates': []}
        >>> clean_response({"candidates": [], "usageMetadata": {"promptTokenCount": 1}}) is None
        True
    """
    out = dict(data)
    changed = False
    if "error" in out and out["error"] is None:
        del out["error"]
        changed = True
    elif isinstance(out.get("error"), Mapping) and next(iter(out)) != "error":
        out = {"error": out.pop("error"), **out}
        changed = True
    usage = clean_usage(out.get("usageMetadata"))
    if usage is not None:
        out["usageMetadata"] = usage
        changed = True
    return out if changed else None
