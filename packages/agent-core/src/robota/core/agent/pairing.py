"""Tool-call pairing repair and the history-processor type (seed 002, history processors; seed
004, tool-result pairing repair).

Every request the loop sends goes through :func:`repair_pairing` after the host's history
processors ran, so any view — a trimmed one, a restored one, a hand-edited session — is valid for
every vendor: an assistant tool call with no result gets a synthesized interrupted result, a
result answering no call is dropped, a duplicate result is removed. The canonical history is
never rewritten; each repair is reported (the loop emits
:class:`~robota.core.agent.events.HistoryRepaired`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from robota.core.messages import (
    AssistantMessage,
    Message,
    TextPart,
    ToolResultMessage,
    ToolResultPart,
)

__all__ = [
    "INTERRUPTED_RESULT_TEXT",
    "HistoryProcessor",
    "PairingRepair",
    "RepairKind",
    "repair_pairing",
]

HistoryProcessor = Callable[[Sequence[Message]], tuple[Message, ...]]
"""A pure function from the canonical history (system head first) to the provider-facing view.
It must not mutate its input."""

INTERRUPTED_RESULT_TEXT = "interrupted: this tool call did not complete"
"""Neutral text of a synthesized result for an orphan tool call."""

RepairKind = Literal["orphan_call", "orphan_result", "duplicate_result"]
"""``orphan_call``: a call had no result (one was synthesized); ``orphan_result``: a result
answered no call (dropped); ``duplicate_result``: a second result for one call (dropped)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class PairingRepair:
    """One repair made by :func:`repair_pairing`.

    Attributes:
        kind: See :data:`RepairKind`.
        call_id: The provider call id concerned.
        name: The tool name.
    """

    kind: RepairKind
    call_id: str
    name: str


def repair_pairing(
    messages: Sequence[Message],
    *,
    on_repair: Callable[[PairingRepair], None] | None = None,
) -> tuple[Message, ...]:
    """Return a history in which every tool call is answered exactly once, right after it.

    Results are matched to calls by provider call id, in order (a provider may reuse an id
    within one response; each result fills the first unanswered slot with its id). Results keep
    the order of their calls. ``on_repair`` is called for each repair, in the order they were
    found, *as it is found* (so a strict caller may raise from it to refuse the history).

    Args:
        messages: The history (not modified).
        on_repair: Called with each repair made.

    Returns:
        The repaired messages; equal to ``tuple(messages)`` when nothing needed repair.

    Example:
        >>> from robota.core.messages import ToolCallPart, UserMessage
        >>> call = ToolCallPart(id="c1", name="ls", arguments={})
        >>> fixed = repair_pairing([UserMessage.of("hi"), AssistantMessage(parts=(call,))])
        >>> fixed[-1].results[0].is_error
        True
    """

    def note(kind: RepairKind, call_id: str, name: str) -> None:
        if on_repair is not None:
            on_repair(PairingRepair(kind=kind, call_id=call_id, name=name))

    out: list[Message] = []
    index = 0
    while index < len(messages):
        message = messages[index]
        index += 1
        if isinstance(message, ToolResultMessage):
            # not right after an assistant message with calls: every result is an orphan
            for result in message.results:
                note("orphan_result", result.call_id, result.name)
            continue
        out.append(message)
        if not isinstance(message, AssistantMessage) or not message.tool_calls:
            continue
        following = messages[index] if index < len(messages) else None
        results: tuple[ToolResultPart, ...] = ()
        if isinstance(following, ToolResultMessage):
            results = following.results
            index += 1
        pending = [(c.id, c.name) for c in message.tool_calls]
        by_slot: dict[int, ToolResultPart] = {}
        for result in results:
            slot = next(
                (
                    i
                    for i, (cid, _) in enumerate(pending)
                    if cid == result.call_id and i not in by_slot
                ),
                None,
            )
            if slot is None:
                known = any(cid == result.call_id for cid, _ in pending)
                note("duplicate_result" if known else "orphan_result", result.call_id, result.name)
                continue
            by_slot[slot] = result
        answered: list[ToolResultPart] = []
        for i, (cid, name) in enumerate(pending):
            found = by_slot.get(i)
            if found is None:
                note("orphan_call", cid, name)
                found = ToolResultPart(
                    call_id=cid,
                    name=name,
                    content=(TextPart(text=INTERRUPTED_RESULT_TEXT),),
                    is_error=True,
                )
            answered.append(found)
        if isinstance(following, ToolResultMessage) and tuple(answered) == following.results:
            out.append(following)
        else:
            out.append(ToolResultMessage(results=tuple(answered)))
    return tuple(out)
