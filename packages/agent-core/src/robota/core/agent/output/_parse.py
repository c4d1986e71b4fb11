"""Lenient parsing of a JSON value out of model text.

The rules, in order (the first that yields a value wins):

1. the whole text (stripped) is one JSON value;
2. the whole text is one ```` ``` ```` fence whose body is one JSON value;
3. fenced blocks anywhere in the text: the JSON objects/arrays their bodies hold;
4. prose around JSON: every complete top-level JSON object or array found by decoding at each
   ``{``/``[`` outside an already found value (a brace in prose such as ``{units}`` does not
   decode and is skipped).

In 3 and 4 an object is preferred over arrays (the wire answer is always an object: a
non-object root travels as ``{"result": ...}``, so an array beside it is prose such as
``[1]``); the value is accepted only when exactly one candidate of the preferred kind is found
(equal duplicates count once). Two different candidates are never guessed between.

Strict JSON only (RFC 8259): ``NaN``, ``Infinity`` and ``-Infinity`` are refused. A value nested
deeper than the interpreter's recursion limit is refused as an invalid answer, never a crash.
Work is bounded: decoding attempts read at most ``_WORK_FACTOR`` times the text's length in
total.
"""

from __future__ import annotations

import json
import re
from typing import Any, NoReturn

__all__ = ["parse_json_leniently"]

_WHOLE_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_-]*\s*\n(?P<body>.*?)\n?\s*```\s*$", re.DOTALL)
_FENCE = re.compile(
    r"^[ \t]*```[a-zA-Z0-9_-]*[ \t]*\n(?P<body>.*?)\n[ \t]*```", re.DOTALL | re.MULTILINE
)
_OPENER = re.compile(r"[{\[]")
_PLAUSIBLE = re.compile(r'\{\s*["}]|\[\s*[-0-9"{\[\]tfn]')
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')
_WORK_FACTOR = 16
_WORK_FLOOR = 65_536


class _NotJson(ValueError):
    """A token JSON does not have (``NaN``, ``Infinity``) or nesting too deep to read."""


class _TooDeep(_NotJson):
    """A value nested deeper than the interpreter's recursion limit."""


def _refuse_constant(token: str) -> NoReturn:
    raise _NotJson(f"{token} is not a JSON number")


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)


def _loads(text: str) -> Any:
    """Strict ``json.loads``; raises ``ValueError`` (a ``JSONDecodeError`` or :class:`_NotJson`)."""
    try:
        return _DECODER.decode(text)
    except RecursionError:
        raise _TooDeep("the JSON value is nested too deeply") from None


def _span_end(text: str, start: int) -> int:
    """Index after the bracket closing the one opened at ``start`` (strings skipped), or -1."""
    depth = 0
    for token in _TOKEN.finditer(text, start):
        char = token.group()[0]
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return token.end()
    return -1


def _candidates(text: str) -> tuple[list[Any], ValueError | None]:
    """Top-level JSON objects/arrays in ``text`` (in order) and the first hard error
    (:class:`_NotJson`) met while decoding, if any.

    At each ``{``/``[`` that can start a value (``{"``, ``{}``, ``[`` followed by a value or
    ``]``) the span up to its matching bracket is decoded; a decoded value is skipped over,
    a refused span is searched again from its next character. The characters read are counted
    against a budget of ``_WORK_FACTOR`` times the text (at least ``_WORK_FLOOR``).
    """
    found: list[Any] = []
    hard: ValueError | None = None
    budget = max(_WORK_FLOOR, _WORK_FACTOR * len(text))
    position = 0
    while budget > 0:
        opener = _OPENER.search(text, position)
        if opener is None:
            break
        start = opener.start()
        position = start + 1
        if not _PLAUSIBLE.match(text, start):
            continue  # prose such as {units} or [see below]
        end = _span_end(text, start)
        budget -= (end if end >= 0 else len(text)) - start
        if end < 0:
            continue
        budget -= end - start
        try:
            value = _loads(text[start:end])
        except _TooDeep as exc:
            return found, exc  # deeper starts inside it are as deep: stop here
        except _NotJson as exc:
            hard = hard or exc
            continue
        except ValueError:
            continue
        found.append(value)
        position = end
    return found, hard


def _pick(values: list[Any]) -> tuple[bool, Any]:
    """``(True, value)`` for the one candidate of the preferred kind (objects, else arrays),
    else ``(False, None)``."""
    objects = [v for v in values if isinstance(v, dict)]
    preferred = objects or values
    distinct: list[Any] = []
    for value in preferred:
        if value not in distinct:
            distinct.append(value)
    if len(distinct) == 1:
        return True, distinct[0]
    return False, None


def parse_json_leniently(text: str) -> Any:
    """Parse one JSON value from model text (the rules are in this module's docstring).

    Args:
        text: The model's final answer text.

    Returns:
        The parsed value (``dict``, ``list``, ``str``, ``int``, ``float``, ``bool`` or None).

    Raises:
        ValueError: when no single JSON value can be found (none, or several different ones),
            naming the JSON error.

    Example:
        >>> parse_json_leniently('Here: {"qty": 2} (in {units}).')
        {'qty': 2}
        >>> parse_json_leniently('See [1]: {"result": [7]}')
        {'result': [7]}
    """
    error: ValueError | None = None
    whole = [text.strip()]
    fenced = _WHOLE_FENCE.match(text)
    if fenced:
        whole.append(fenced.group("body").strip())
    for candidate in whole:
        try:
            return _loads(candidate)
        except ValueError as exc:
            error = error or exc
    blocks: list[Any] = []
    for block in _FENCE.finditer(text):
        body = block.group("body").strip()
        try:
            value = _loads(body)
        except ValueError:
            continue
        if isinstance(value, dict | list):
            blocks.append(value)
    if blocks:
        ok, value = _pick(blocks)
        if ok:
            return value
        raise ValueError("the response holds several different JSON values in fenced blocks")
    found, hard = _candidates(text)
    if found:
        ok, value = _pick(found)
        if ok:
            return value
        raise ValueError("the response holds several different JSON values; answer with one")
    if hard is not None and not isinstance(error, _NotJson):
        error = hard  # e.g. NaN inside prose: more telling than the prose's own error
    raise ValueError(f"the response is not valid JSON ({error})")
