"""History processors and tool-call pairing repair (issue: agent-session; seed 002, history
processors; seed 004, tool-result pairing repair).

A history processor is a pure function ``(messages) -> messages`` that builds the view a provider
is sent; the canonical history is never rewritten by it (every function here returns new tuples
and never mutates its input). Pass them to the agent as ``history_processors=``.

:func:`repair_pairing` makes any history valid for every vendor before a send: an assistant tool
call with no result gets a synthesized interrupted result, a result answering no call is dropped,
duplicate results are removed. Each repair is reported as a :class:`PairingRepair`; strict mode
raises :class:`PairingError` instead, for hosts that want to find the bug.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from robota.core.agent.pairing import (
    INTERRUPTED_RESULT_TEXT,
    HistoryProcessor,
    PairingRepair,
)
from robota.core.agent.pairing import repair_pairing as core_repair_pairing
from robota.core.errors import RobotaError
from robota.core.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    TextPart,
    ThinkingPart,
    ToolResultMessage,
    ToolResultPart,
    UserMessage,
)

__all__ = [
    "INTERRUPTED_RESULT_TEXT",
    "DropOldThinking",
    "HistoryProcessor",
    "KeepLastTurns",
    "PairingError",
    "PairingRepair",
    "TrimOldToolOutputs",
    "repair_pairing",
]


class PairingError(RobotaError):
    """Strict pairing found a broken history."""

    code = "history_pairing"


def repair_pairing(
    messages: Sequence[Message],
    *,
    strict: bool = False,
    on_repair: Callable[[PairingRepair], None] | None = None,
) -> tuple[Message, ...]:
    """Return a history in which every tool call is answered exactly once, right after it.

    The repair itself is core's (:func:`robota.core.agent.repair_pairing`, which the agent also
    runs before every send); this adds a strict mode for hosts that want to find the bug.

    Args:
        messages: The history (not modified).
        strict: Raise :class:`PairingError` at the first problem instead of repairing.
        on_repair: Called with each repair made (e.g. to emit an event).

    Raises:
        PairingError: in strict mode, for the first orphan or duplicate.
    """

    def note(repair: PairingRepair) -> None:
        if strict:
            raise PairingError(
                f"tool pairing: {repair.kind} for call {repair.call_id!r} ({repair.name})"
            )
        if on_repair is not None:
            on_repair(repair)

    return core_repair_pairing(messages, on_repair=note)


def _turn_starts(messages: Sequence[Message]) -> list[int]:
    return [i for i, m in enumerate(messages) if isinstance(m, UserMessage)]


@dataclass(frozen=True, kw_only=True, slots=True)
class KeepLastTurns:
    """Keep the system message and the last ``turns`` user turns (a turn starts at a user
    message, so tool calls and their results are never split).

    Example:
        >>> KeepLastTurns(turns=1)([UserMessage.of("a"), UserMessage.of("b")])
        (UserMessage(kind='user', parts=(TextPart(kind='text', text='b'),)),)
    """

    turns: int

    def __call__(self, messages: Sequence[Message]) -> tuple[Message, ...]:
        head = tuple(m for m in messages[:1] if isinstance(m, SystemMessage))
        starts = _turn_starts(messages)
        if self.turns <= 0 or len(starts) <= self.turns:
            return tuple(messages)
        cut = starts[-self.turns]
        return head + tuple(messages[cut:])


@dataclass(frozen=True, kw_only=True, slots=True)
class DropOldThinking:
    """Remove thinking parts from all but the last ``keep_last`` assistant messages (vendors
    ignore old reasoning anyway; this saves request bytes). Signed thinking in the current turn is
    kept so tool-use continuations stay valid."""

    keep_last: int = 1

    def __call__(self, messages: Sequence[Message]) -> tuple[Message, ...]:
        positions = [i for i, m in enumerate(messages) if isinstance(m, AssistantMessage)]
        drop = set(positions[: max(0, len(positions) - self.keep_last)])
        out: list[Message] = []
        for i, message in enumerate(messages):
            if i in drop and isinstance(message, AssistantMessage):
                parts = tuple(p for p in message.parts if not isinstance(p, ThinkingPart))
                if len(parts) != len(message.parts):
                    message = replace(message, parts=parts)
            out.append(message)
        return tuple(out)


@dataclass(frozen=True, kw_only=True, slots=True)
class TrimOldToolOutputs:
    """Shorten text of tool results older than the last ``keep_last`` result messages to
    ``max_chars`` characters, with a note saying how much was cut."""

    keep_last: int = 2
    max_chars: int = 200

    def __call__(self, messages: Sequence[Message]) -> tuple[Message, ...]:
        positions = [i for i, m in enumerate(messages) if isinstance(m, ToolResultMessage)]
        trim = set(positions[: max(0, len(positions) - self.keep_last)])
        out: list[Message] = []
        for i, message in enumerate(messages):
            if i in trim and isinstance(message, ToolResultMessage):
                message = ToolResultMessage(results=tuple(self._trim(r) for r in message.results))
            out.append(message)
        return tuple(out)

    def _trim(self, result: ToolResultPart) -> ToolResultPart:
        parts: list[TextPart] = []
        changed = False
        for part in result.content:
            if isinstance(part, TextPart) and len(part.text) > self.max_chars:
                cut = len(part.text) - self.max_chars
                parts.append(
                    TextPart(text=part.text[: self.max_chars] + f"\n[{cut} characters trimmed]")
                )
                changed = True
            elif isinstance(part, TextPart):
                parts.append(part)
            else:
                changed = True  # media of old results is dropped from the view
        if not changed:
            return result
        return replace(result, content=tuple(parts))
