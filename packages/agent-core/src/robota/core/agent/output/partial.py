"""Repairing the JSON of an answer while it streams (seed 002, "Streaming parts…").

:class:`PartialJson` accumulates text deltas, anchors at the answer's opening bracket and
repairs the incomplete JSON with ``pydantic_core.from_json(..., allow_partial="trailing-strings",
allow_inf_nan=False)``. A trailing number or literal outside a string is left out until a
delimiter completes it, so a snapshot never shows ``12`` that later becomes ``123``.

Where the answer starts (prose is never presented as the output). The rules follow
:func:`~robota.core.agent.output.parse_json_leniently`, which prefers an object (the wire answer
is always one) over arrays found in prose:

* an opening ``{`` or ``[`` that is the first non-space character, or the first after a
  ```` ```lang ```` fence line, is the answer (native and JSON-mode answers always start so);
* after any other text (prose), only a ``{`` may start the answer: an array in prose such as
  ``See [1, 2]:`` is never shown;
* when the value at the anchor is not JSON (``{units}``, ``{name, qty}``, ``NaN``), the anchor
  moves to the next allowed bracket (after the refused value when it closed), at most
  ``_MAX_RESTARTS`` times; after that the round shows no more snapshots (the final parse
  still decides);
* once the anchored value closes, it is parsed one last time and later text is not read.

What remains possible (and only then does a shown snapshot differ from the final output): an
answer that starts with an array and is followed by an object in prose, or a prose object
followed by a fenced block; the final parser picks the later value. The run's monotonic rule
still holds within the round.

Cost: a string/escape/depth scanner reads every character once per anchor; a parse (linear in
the JSON so far) runs only when a delta added a structural character (``{}[],:"``) or 256
characters arrived, and never before ``len(json) // 32`` characters arrived since the previous
parse, so the total parsing work stays within about 32 times the answer's length (times the
bounded number of anchors).

:func:`extends` is the monotonic rule: a snapshot may add keys and elements and grow the
trailing string, never drop or change what an earlier snapshot showed.
"""

from __future__ import annotations

import re
from typing import Any, cast

__all__ = ["NOTHING", "PartialJson", "extends"]

NOTHING: Any = object()
"""Returned by :meth:`PartialJson.feed` when there is no new repaired value."""

_INVALID: Any = object()
_STRUCTURAL = frozenset('{}[],:"')
_OPENERS = frozenset("{[")
_CLOSERS = frozenset("}]")
_SCALAR_TAIL = "0123456789.eE+-truefalsn"
_EVERY = 256
_RATIO = 32
_MAX_RESTARTS = 16
_FENCE_LINE = re.compile(r"```[a-zA-Z0-9_-]*[ \t]*\r?\n[ \t]*$")
_BRACKET = re.compile(r"[{\[]")
_FIRST = re.compile(r"\S")


class PartialJson:
    """Incremental repair of one answer's JSON (one per round).

    Attributes:
        text: All text fed so far.
        start: Index of the anchored opening bracket, or None before one is found.
    """

    def __init__(self) -> None:
        self.text = ""
        self.start: int | None = None
        self.search = 0
        self.scanned = 0
        self.in_string = False
        self.escape = False
        self.depth = 0
        self.end: int | None = None
        self.done = False
        self.restarts = 0
        self.structural = False
        self.pending = 0

    def feed(self, delta: str) -> Any:
        """Add ``delta``; returns the repaired JSON value when a parse ran and succeeded, else
        :data:`NOTHING`."""
        self.text += delta
        while not self.done:
            if self.start is None and not self._anchor():
                return NOTHING
            assert self.start is not None
            self._scan()
            if self.end is None:
                body_length = len(self.text) - self.start
                if not (self.structural or self.pending >= _EVERY):
                    return NOTHING
                if self.pending < body_length // _RATIO:
                    return NOTHING
            self.structural, self.pending = False, 0
            value = self._parse()
            if value is not _INVALID:
                self.done = self.end is not None
                return value
            self._restart()
        return NOTHING

    def _anchor(self) -> bool:
        """Find the answer's opening bracket from ``self.search``; True when anchored."""
        text = self.text
        while True:
            found = _BRACKET.search(text, self.search)
            if found is None:
                # nothing yet; a later delta may add a bracket (keep a bracket-free prefix)
                return False
            index = found.start()
            first = _FIRST.search(text)
            if (
                text[index] == "{"
                or (first is not None and first.start() == index)
                or _FENCE_LINE.search(text, max(0, index - 128), index)
            ):
                self.start = self.scanned = index
                return True
            self.search = index + 1  # an array after prose is never the answer

    def _restart(self) -> None:
        """Give up the current anchor (its value is not JSON) and search past it."""
        assert self.start is not None
        self.search = self.end if self.end is not None else self.start + 1
        self.start, self.end = None, None
        self.in_string = self.escape = False
        self.depth = self.pending = 0
        self.structural = False
        self.restarts += 1
        if self.restarts > _MAX_RESTARTS:
            self.done = True

    def _scan(self) -> None:
        if self.end is not None:
            return
        text, in_string, escape, depth = self.text, self.in_string, self.escape, self.depth
        end: int | None = None
        for index in range(self.scanned, len(text)):
            char = text[index]
            self.pending += 1
            if in_string:
                if escape:
                    escape = False
                elif char == "\\":
                    escape = True
                elif char == '"':
                    in_string = False
                    self.structural = True
            elif char in _STRUCTURAL:
                self.structural = True
                in_string = char == '"'
                if char in _OPENERS:
                    depth += 1
                elif char in _CLOSERS:
                    depth -= 1
                    if depth <= 0:
                        end = index + 1
                        break
        self.scanned = end if end is not None else len(text)
        self.in_string, self.escape, self.depth, self.end = in_string, escape, depth, end

    def _parse(self) -> Any:
        from pydantic_core import from_json

        assert self.start is not None
        body = self.text[self.start : self.end]
        if not self.in_string:
            body = body.rstrip().rstrip(_SCALAR_TAIL)  # an unfinished number or literal
        if not body:
            return NOTHING
        try:
            return from_json(body, allow_partial="trailing-strings", allow_inf_nan=False)
        except ValueError:
            return _INVALID  # not JSON (a bracket in prose, NaN, nested too deeply)


def extends(previous: Any, current: Any) -> bool:
    """True when ``current`` keeps everything ``previous`` showed (monotonic).

    Example:
        >>> extends({"a": [1], "b": "he"}, {"a": [1, 2], "b": "hello", "c": 0})
        True
        >>> extends({"a": [1, 2]}, {"a": [1]}), extends({"b": "hello"}, {"b": "help"})
        (False, False)
    """
    if isinstance(previous, dict):
        if not isinstance(current, dict):
            return False
        old = cast("dict[str, Any]", previous)
        new = cast("dict[str, Any]", current)
        return all(key in new and extends(value, new[key]) for key, value in old.items())
    if isinstance(previous, list):
        if not isinstance(current, list):
            return False
        old_items = cast("list[Any]", previous)
        new_items = cast("list[Any]", current)
        return len(new_items) >= len(old_items) and all(
            extends(a, b) for a, b in zip(old_items, new_items, strict=False)
        )
    if isinstance(previous, str):
        return isinstance(current, str) and current.startswith(previous)
    return type(previous) is type(current) and previous == current
