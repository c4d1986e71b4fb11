"""Server-Sent Events framing and the vendors' completion rules, read from the bytes (test side;
shares no code with the adapters).

An event is a run of non-empty lines ended by an empty line (WHATWG HTML, "Server-sent events",
9.2.6): lines end in CRLF, LF or CR; an event still open at the end of the body is never
dispatched. Completion rules (seed 002, "Model contract"; the vendors' streaming references):

* Chat Completions: a ``finish_reason`` on a choice and then ``data: [DONE]``.
* Responses: a ``response.completed`` (or ``response.incomplete``) event; ``response.failed`` and
  ``error`` events are failures.
* Anthropic Messages: ``message_start`` ... ``message_stop``; an ``error`` event is a failure.
* Gemini: a chunk whose first candidate carries a ``finishReason``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = [
    "SseEvent",
    "StreamRule",
    "is_sse_body",
    "json_rule",
    "parse_events",
    "stream_rule",
]

TERMINAL_RESPONSES = ("response.completed", "response.incomplete")
FAILED_RESPONSES = ("response.failed", "error")
NOT_DONE_STATUSES = ("queued", "in_progress", "failed", "cancelled")


@dataclass(frozen=True, kw_only=True, slots=True)
class SseEvent:
    """One framed event.

    Attributes:
        index: 0-based position in the body.
        start: Offset of its first line.
        data_end: Offset just after its last line's content (before that line's end of line).
        end: Offset after the empty line that dispatches it (``len(body)`` when unterminated).
        terminated: True when an empty line ended it.
        name: The ``event:`` field, if any.
        data: The ``data:`` lines joined with ``\\n`` (None when it has no data line).
    """

    index: int
    start: int
    data_end: int
    end: int
    terminated: bool
    name: str | None
    data: str | None

    def json(self) -> Any:
        """The data as JSON, or None when it is absent or not JSON."""
        if self.data is None:
            return None
        try:
            return json.loads(self.data)
        except ValueError:
            return None

    def label(self) -> str:
        """A short name: the event name, the JSON ``type``, or a description of the data."""
        value = self.json()
        if isinstance(value, dict) and isinstance(value.get("type"), str):
            return str(value["type"])
        if self.name:
            return self.name
        if self.data is not None and self.data.strip() == "[DONE]":
            return "[DONE]"
        if isinstance(value, dict) and "candidates" in value:
            return "chunk+finishReason" if _gemini_finish(value) else "chunk"
        if isinstance(value, dict) and "choices" in value:
            return "chunk+finish_reason" if _chat_finish(value) else "chunk"
        return "data" if self.data is not None else "fields"


def is_sse_body(content_type: str, body: bytes) -> bool:
    """True when a recorded body is an event stream (by content type or by its first field)."""
    return "text/event-stream" in content_type or body.lstrip().startswith((b"data:", b"event:"))


def _lines(body: bytes) -> list[tuple[int, int, int]]:
    """(start, content_end, next_start) of every line; a last line without an end of line has
    ``content_end == next_start == len(body)``."""
    out: list[tuple[int, int, int]] = []
    pos = 0
    size = len(body)
    while pos < size:
        lf = body.find(b"\n", pos)
        cr = body.find(b"\r", pos)
        if lf < 0 and cr < 0:
            out.append((pos, size, size))
            break
        if cr >= 0 and (lf < 0 or cr < lf):
            nxt = cr + 2 if body[cr + 1 : cr + 2] == b"\n" else cr + 1
            out.append((pos, cr, nxt))
            pos = nxt
        else:
            out.append((pos, lf, lf + 1))
            pos = lf + 1
    return out


def parse_events(body: bytes) -> list[SseEvent]:
    """Frame ``body`` into events (blank-line separated runs of lines)."""
    events: list[SseEvent] = []
    current: list[tuple[int, int, int]] = []

    def close(end: int, terminated: bool) -> None:
        name: str | None = None
        data: list[str] = []
        for start, content_end, _ in current:
            line = body[start:content_end].decode("utf-8", "replace")
            field, colon, value = line.partition(":")
            if not colon:
                continue
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)
        events.append(
            SseEvent(
                index=len(events),
                start=current[0][0],
                data_end=current[-1][1],
                end=end,
                terminated=terminated,
                name=name,
                data="\n".join(data) if data else None,
            )
        )
        current.clear()

    for line in _lines(body):
        start, content_end, nxt = line
        if start == content_end:
            if current:
                close(nxt, True)
            continue
        current.append(line)
    if current:
        close(len(body), False)
    return events


def _chat_finish(chunk: dict[str, Any]) -> bool:
    choices = chunk.get("choices")
    return isinstance(choices, list) and any(
        isinstance(c, dict) and c.get("finish_reason") for c in choices
    )


def _gemini_finish(chunk: dict[str, Any]) -> bool:
    candidates = chunk.get("candidates")
    return (
        isinstance(candidates, list)
        and bool(candidates)
        and isinstance(candidates[0], dict)
        and bool(candidates[0].get("finishReason"))
    )


@dataclass(frozen=True, kw_only=True, slots=True)
class StreamRule:
    """What the vendor rule says about a whole recorded body.

    Attributes:
        complete: True when the body completed by the vendor's rule; False when it did not (an
            adapter must raise a typed error even on the uncut body); None when the rule cannot
            say (an unknown status value): the adapter's own reading of the uncut body is taken.
        final: For a stream, the event that completes it.
        why: For ``complete=False``, what is missing.
    """

    complete: bool | None
    final: SseEvent | None = None
    why: str = ""


def stream_rule(family: str, events: list[SseEvent]) -> StreamRule:
    """Apply ``family``'s completion rule to a whole stream (``family`` as in ``families``)."""
    if family in ("openai-chat",) or family.startswith("compat:"):
        finished = False
        for event in events:
            if event.data is not None and event.data.strip() == "[DONE]":
                if not finished:
                    return StreamRule(complete=False, why="finish_reason before [DONE]")
                return StreamRule(complete=True, final=event)
            value = event.json()
            if isinstance(value, dict) and _chat_finish(value):
                finished = True
        return StreamRule(complete=False, why="data: [DONE]")
    if family == "openai-responses":
        for event in events:
            kind = event.label()
            if kind in TERMINAL_RESPONSES:
                return StreamRule(complete=True, final=event)
            if kind in FAILED_RESPONSES:
                return StreamRule(complete=False, why=f"response.completed (got {kind})")
        return StreamRule(complete=False, why="response.completed")
    if family == "anthropic":
        started = False
        for event in events:
            kind = event.label()
            if kind == "message_start":
                started = True
            elif kind == "error":
                return StreamRule(complete=False, why="message_stop (got an error event)")
            elif kind == "message_stop":
                if not started:
                    return StreamRule(complete=False, why="message_start")
                return StreamRule(complete=True, final=event)
        return StreamRule(complete=False, why="message_stop")
    if family == "gemini":
        for event in events:
            value = event.json()
            if isinstance(value, dict) and _gemini_finish(value):
                return StreamRule(complete=True, final=event)
        return StreamRule(complete=False, why="a candidate with finishReason")
    raise ValueError(f"no stream rule for {family}")


def json_rule(family: str, document: object) -> StreamRule:
    """Apply ``family``'s completion rule to a whole buffered JSON body."""
    if not isinstance(document, dict):
        return StreamRule(complete=False, why="a JSON object body")
    body: dict[str, Any] = document
    if family == "openai-chat" or family.startswith("compat:"):
        choices = body.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return StreamRule(complete=False, why="choices")
        if not choices[0].get("finish_reason"):
            return StreamRule(complete=False, why="a finish_reason")
        return StreamRule(complete=True)
    if family == "openai-responses":
        status = body.get("status")
        if status in ("completed", "incomplete"):
            return StreamRule(complete=True)
        if status in NOT_DONE_STATUSES:
            return StreamRule(complete=False, why=f"status completed (got {status})")
        return StreamRule(complete=None)
    if family == "anthropic":
        if body.get("type") != "message":
            return StreamRule(complete=False, why="a message object")
        if not body.get("stop_reason"):
            return StreamRule(complete=False, why="a stop_reason")
        return StreamRule(complete=True)
    if family == "gemini":
        if _gemini_finish(body):
            return StreamRule(complete=True)
        return StreamRule(complete=False, why="a candidate with finishReason")
    raise ValueError(f"no JSON rule for {family}")
