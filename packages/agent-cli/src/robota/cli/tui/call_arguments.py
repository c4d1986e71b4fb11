"""A tool call's arguments cut to a size a permission question can show, counting what is not
shown: a long string keeps its head and its tail (the end of a command is where a hostile one
puts what it really does) around ``… (+N characters hidden) …``; lists and objects keep their
first items; the whole view is bounded in lines.

Two foldings hide nothing and are not counted as hidden: a run of more than 40 blanks is shown
as ``… N blank characters hidden …`` and a line repeated three times or more in a row is shown
once, followed by ``… the line above K more times (N characters hidden) …``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

__all__ = [
    "MAX_ITEMS",
    "MAX_VALUE_CHARS",
    "MAX_VALUE_LINES",
    "MAX_VIEW_LINES",
    "BoundedArguments",
    "bound_arguments",
]

MAX_VALUE_CHARS = 600
"""Characters of one string argument shown; the rest is counted."""

MAX_VALUE_LINES = 10
"""Lines of one string argument shown; the rest is counted."""

MAX_ITEMS = 20
"""Items of one list, or keys of one object, shown; the rest is counted."""

MAX_DEPTH = 6
"""Nesting of lists and objects shown; a deeper value is counted."""

MAX_VIEW_LINES = 80
"""Lines of the whole argument view (indented JSON) shown; the middle of a longer one is
counted."""

_BLANKS = re.compile(r"[ \t]{41,}")


def _fold_blanks(text: str) -> str:
    return _BLANKS.sub(lambda m: f"… {len(m.group()):,} blank characters hidden …", text)


def _front(value: str, lines: int, chars: int) -> tuple[int, str]:
    """Up to ``lines`` display lines and ``chars`` display characters from the start of
    ``value``: (the offset reached, the display text)."""
    position, used, count = 0, 0, 0
    parts: list[str] = []
    while position < len(value) and count < lines:
        end = value.find("\n", position)
        end = len(value) if end < 0 else end + 1
        line = value[position:end]
        following, repeats = end, 0
        while line.endswith("\n") and line.strip() and value.startswith(line, following):
            following += len(line)
            repeats += 1
        display = _fold_blanks(line)
        if repeats >= 2:
            hidden = following - end
            display += f"… the line above {repeats:,} more times ({hidden:,} characters hidden) …\n"
        else:
            following = end
        room = chars - used
        if len(display) > room:
            if room > 0:
                parts.append(value[position : position + room])
                position += room
            break
        parts.append(display)
        used += len(display)
        count += 2 if repeats >= 2 else 1
        position = following
    return position, "".join(parts)


def _back(value: str, start: int, lines: int, chars: int) -> tuple[int, str]:
    """Up to ``lines`` lines and ``chars`` characters from the end of ``value``, not before
    ``start``: (the offset they begin at, the display text)."""
    position, used, count = len(value), 0, 0
    while position > start and count < lines:
        begin = max(value.rfind("\n", start, position - 1) + 1, start)
        if used + position - begin > chars:
            position = max(position - (chars - used), start)
            break
        used += position - begin
        count += 1
        position = begin
    return position, _fold_blanks(value[position:])


def cut_text(value: str, limit: int = MAX_VALUE_CHARS) -> tuple[str, int]:
    """``value`` as shown: whole (folded) when it fits in ``limit`` characters and
    :data:`MAX_VALUE_LINES` lines, else its head and tail around ``… (+N characters hidden,
    K more lines) …``.

    Returns:
        (The display text, the characters hidden that are not blanks: 0 when nothing that
        could change what the call does is hidden.)

    Example:
        >>> cut_text("rm -rf x" + " " * 900 + "; touch PWNED")
        ('rm -rf x… 900 blank characters hidden …; touch PWNED', 0)
        >>> cut_text("0123456789" * 3, limit=9)
        ('012345… (+21 characters hidden) …789', 21)
    """
    end, whole = _front(value, MAX_VALUE_LINES, limit)
    if end >= len(value):
        return whole, 0
    head_chars = limit * 2 // 3
    head_end, head = _front(value, MAX_VALUE_LINES * 2 // 3, head_chars)
    tail_start, tail = _back(value, head_end, MAX_VALUE_LINES // 3, limit - head_chars)
    middle = value[head_end:tail_start]
    lines = middle.count("\n")
    more = f", {lines:,} more lines" if lines else ""
    marker = f"… (+{len(middle):,} characters hidden{more}) …"
    return f"{head}{marker}{tail}", len(middle) if middle.strip() else 0


@dataclass(kw_only=True, slots=True)
class BoundedArguments:
    """A call's arguments as shown.

    Attributes:
        text: Indented JSON (or the arguments' own text when it is not JSON), cut; not yet
            safe for a terminal (see :func:`~robota.cli.terminal_text.shown`).
        parsed: The arguments when they are JSON, else None.
        hidden: Characters not shown, by top-level argument name ("" for what is not under
            one: the view's own cut, text that is not JSON); blanks are not counted.
    """

    text: str
    parsed: Any = None
    hidden: dict[str, int] = field(default_factory=lambda: {})


class _Cutter:
    def __init__(self, limit: int, hidden: dict[str, int]) -> None:
        self.limit = limit
        self.hidden = hidden

    def count(self, key: str, value: Any) -> None:
        size = value if isinstance(value, int) else len(json.dumps(value, ensure_ascii=False))
        self.hidden[key] = self.hidden.get(key, 0) + size

    def cut(self, value: Any, top: str, depth: int) -> Any:
        if isinstance(value, str):
            text, hidden = cut_text(value, self.limit)
            if hidden:
                self.count(top, hidden)
            return text
        if isinstance(value, (Mapping, list)) and depth >= MAX_DEPTH:
            self.count(top, value)
            return "… (nested value hidden) …"
        if isinstance(value, Mapping):
            items = list(cast(Mapping[str, Any], value).items())
            out: dict[str, Any] = {}
            for key, item in items[:MAX_ITEMS]:
                name = str(key)
                if len(name) > 80:
                    self.count(top or name, len(name) - 80)
                    name = name[:80] + "…"
                out[name] = self.cut(item, top or str(key), depth + 1)
            if len(items) > MAX_ITEMS:
                for key, item in items[MAX_ITEMS:]:
                    self.count(top or str(key), {str(key): item})
                out["…"] = f"(+{len(items) - MAX_ITEMS:,} more keys hidden)"
            return out
        if isinstance(value, list):
            entries = cast(list[Any], value)
            kept = [self.cut(item, top, depth + 1) for item in entries[:MAX_ITEMS]]
            if len(entries) > MAX_ITEMS:
                self.count(top, entries[MAX_ITEMS:])
                kept.append(f"… (+{len(entries) - MAX_ITEMS:,} more items hidden)")
            return kept
        return value


def _cut_view(text: str, hidden: dict[str, int]) -> str:
    lines = text.split("\n")
    if len(lines) <= MAX_VIEW_LINES:
        return text
    head, tail = lines[: MAX_VIEW_LINES * 3 // 4], lines[-(MAX_VIEW_LINES // 5) :]
    middle = lines[len(head) : len(lines) - len(tail)]
    hidden[""] = hidden.get("", 0) + sum(len(line) + 1 for line in middle)
    return "\n".join([*head, f"  … (+{len(middle):,} lines hidden) …", *tail])


def bound_arguments(arguments_text: str, *, limit: int = MAX_VALUE_CHARS) -> BoundedArguments:
    """The call's arguments (JSON text) as indented JSON cut to a size a question can show;
    text that is not JSON is cut as one string value.

    Args:
        arguments_text: The call's arguments as the model sent them.
        limit: Characters of one string value shown.
    """
    hidden: dict[str, int] = {}
    try:
        parsed = json.loads(arguments_text) if arguments_text.strip() else {}
    except (ValueError, RecursionError):
        text, cut = cut_text(arguments_text, limit)
        if cut:
            hidden[""] = cut
        return BoundedArguments(text=text, hidden=hidden)
    shown = _Cutter(limit, hidden).cut(parsed, "", 0)
    text = json.dumps(shown, indent=2, ensure_ascii=False)
    return BoundedArguments(text=_cut_view(text, hidden), parsed=parsed, hidden=hidden)
