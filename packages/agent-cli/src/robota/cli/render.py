"""Terminal output: streamed text, compact tool cards, the closing usage line, and ``--json``
(one JSON object per event per line)."""

from __future__ import annotations

import dataclasses
import enum
import json
import sys
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TextIO

from robota.cli.terminal_text import shown
from robota.core.agent.events import (
    ModelResponded,
    ModelTextDelta,
    ToolCallCompleted,
    ToolCallSkipped,
    ToolCallStarted,
)
from robota.core.events import Event
from robota.core.permissions import PermissionDecided
from robota.core.usage import Usage

if TYPE_CHECKING:
    from robota.framework.interactive import InteractiveSession

__all__ = ["EventPrinter", "event_to_json", "format_usage", "key_argument"]

_KEY_ARGUMENTS = ("path", "command", "url", "pattern", "query", "name")


def _jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    if isinstance(value, BaseException):
        return {"error": type(value).__name__, "message": str(value)}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def event_to_json(event: Event) -> str:
    """One line of JSON for ``event``: ``{"type": ..., "owner": "...", ...fields}``."""
    body = _jsonable(event)
    assert isinstance(body, dict)
    body["owner"] = str(event.owner)
    return json.dumps({"type": event.type, **body}, ensure_ascii=False, default=str)


def key_argument(arguments: Mapping[str, Any]) -> str:
    """The argument a tool card names, or "" when the call has none.

    The first of ``path``, ``command``, ``url``, ``pattern``, ``query``, ``name`` that is a
    string (``path=README.md``: at most 60 characters of its value); else the first two
    arguments, compactly (``a=2, b=3``: a string as is, anything else as compact JSON, each
    value at most 24 characters, ``, ...`` when there are more). Written through
    :func:`~robota.cli.terminal_text.shown`: the model chose it.

    Example:
        >>> key_argument({"path": "README.md", "limit": 5})
        'path=README.md'
        >>> key_argument({"a": 2, "b": 3, "c": [1, 2]})
        'a=2, b=3, ...'
    """
    for key in _KEY_ARGUMENTS:
        value = arguments.get(key)
        if isinstance(value, str):
            return f"{key}={shown(_cut(value, 60))}"
    shown_pairs = [
        f"{shown(_cut(str(key), 24))}={shown(_cut(_compact(value), 24))}"
        for key, value in list(arguments.items())[:2]
    ]
    more = ", ..." if len(arguments) > 2 else ""
    return ", ".join(shown_pairs) + more


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _compact(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError):  # a circular structure: not from a JSON call, but still
        return str(value)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):  # a closed or unusual stream
        return False


def format_usage(usage: Usage, cost: object | None) -> str:
    """The closing line: tokens and cost."""
    parts = [f"tokens: in={usage.input_tokens} out={usage.output_tokens}"]
    if usage.cache_read_tokens:
        parts.append(f"cache_read={usage.cache_read_tokens}")
    if usage.reasoning_tokens:
        parts.append(f"reasoning={usage.reasoning_tokens}")
    parts.append(f"requests={usage.requests}")
    parts.append(f"cost=${cost}" if cost is not None else "cost=unknown")
    return " ".join(parts)


class EventPrinter:
    """Prints events as they happen.

    Text deltas go to ``out`` as they arrive; tool cards (name, key argument, outcome,
    duration) and diagnostics go to ``err`` so ``out`` holds only the answer. A card's
    duration counts from the call's permission decision (the time a person took to answer a
    permission question is not the call's). A failed run is not printed here: the command
    says it once, in one line. With ``json_mode`` every event is one JSON line on ``out``.

    What the model or a tool chose is written through :func:`~robota.cli.terminal_text.shown`
    wherever a person reads it: the cards on ``err`` always, the answer on ``out`` when ``out``
    is a terminal (a pipe gets the model's text byte for byte).

    Args:
        out: Where the answer goes (standard output by default).
        err: Where the cards go (standard error by default).
        json_mode: One JSON line per event on ``out`` instead.
        clock: Monotonic seconds (injected in tests).
    """

    def __init__(
        self,
        *,
        out: TextIO | None = None,
        err: TextIO | None = None,
        json_mode: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.json_mode = json_mode
        self.clock = clock
        """Monotonic seconds, for the cards' durations (injected in tests)."""
        self._terminal = _isatty(self.out)
        self._started: dict[str, tuple[float, ToolCallStarted]] = {}
        self._mid_line = False
        self.denied = 0
        self.usage_by_model: dict[str, Usage] = {}
        self.last_finish_reason: str | None = None

    def tally(self, event: Event) -> None:
        """Count what the run's outcome needs: denials, usage per model, the finish reason."""
        if isinstance(event, PermissionDecided) and event.behavior == "deny":
            self.denied += 1
        if isinstance(event, ModelResponded):
            self.last_finish_reason = event.message.finish_reason
            model = event.model or "unknown"
            self.usage_by_model[model] = self.usage_by_model.get(model, Usage()) + event.usage

    def emit(self, event: Event) -> None:
        """Handle one event."""
        self.tally(event)
        if self.json_mode:
            self.out.write(event_to_json(event) + "\n")
            self.out.flush()
            return
        if isinstance(event, ModelTextDelta):
            self.out.write(shown(event.text, keep_lines=True) if self._terminal else event.text)
            self.out.flush()
            self._mid_line = not event.text.endswith("\n")
        elif isinstance(event, ToolCallStarted):
            self._started[event.call_id] = (self.clock(), event)
        elif isinstance(event, PermissionDecided) and event.behavior == "allow":
            started = self._started.get(event.call_id)
            if started is not None:  # timed from when it may run, not from the question
                self._started[event.call_id] = (self.clock(), started[1])
        elif isinstance(event, ToolCallCompleted):
            self._card(event)
        elif isinstance(event, ToolCallSkipped):
            self._line(f"  ⊘ {shown(event.call.name)}: {shown(event.message)}")

    def _line(self, text: str) -> None:
        if self._mid_line:
            self.out.write("\n")
            self.out.flush()
            self._mid_line = False
        self.err.write(text + "\n")
        self.err.flush()

    def _card(self, event: ToolCallCompleted) -> None:
        started = self._started.pop(event.call_id, None)
        duration = f"{self.clock() - started[0]:.1f}s" if started else "-"
        name = shown(event.result.name)
        argument = key_argument(started[1].arguments) if started else ""
        if event.result.is_error:
            first = (event.result.text[:4096].strip().splitlines() or [""])[0][:100]
            outcome = f"✗ {shown(first)}"
        else:
            outcome = "✓"
        self._line(f"  ⏺ {name}({argument}) {outcome} {duration}")

    def follow(self, session: InteractiveSession) -> None:
        """The chat's current session is now ``session`` (nothing to do here; the rich printer's
        status line reports on it)."""

    @property
    def mid_line(self) -> bool:
        """True while the streamed answer's last line has no newline yet."""
        return self._mid_line

    def finish(self) -> None:
        """End the streamed answer with a newline."""
        if self._mid_line and not self.json_mode:
            self.out.write("\n")
            self.out.flush()
            self._mid_line = False

    @property
    def usage(self) -> Usage:
        """Usage summed over every model."""
        total = Usage()
        for usage in self.usage_by_model.values():
            total = total + usage
        return total
