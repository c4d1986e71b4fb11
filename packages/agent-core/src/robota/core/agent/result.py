"""The result of one run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from robota.core.messages import FinishReason, Message
from robota.core.usage import Usage

__all__ = ["RunResult"]


@dataclass(frozen=True, kw_only=True, slots=True)
class RunResult:
    """What ``Agent.run`` returns.

    Attributes:
        run_id: Robota's id of the run.
        text: The final assistant text (the text committed before cancellation when
            ``interrupted``; the fallback text when a forced summary produced none).
        output: The validated structured output (a pydantic model instance, or the JSON value
            for a dict schema), or None when the run asked for no output type or was
            interrupted.
        new_messages: The messages this run appended to history, in order.
        usage: Usage summed over the run's provider requests.
        interrupted: True when cancellation ended the run.
        rounds: Provider rounds made, the forced summary included.
        finish_reason: Normalized finish reason of the run's final response (``stop``,
            ``length`` for a truncated answer the caller accepted with ``accept_truncated``,
            ``tool_calls``, ``content_filter``, ``other``); the reason of the last complete
            response when the run was interrupted, None when it was interrupted before any
            (seed 002, "Model contract": successful results expose the final reason).
        raw_finish_reason: The vendor's own finish reason of that response (e.g.
            ``"end_turn"``, ``"max_tokens"``), if it gave one.
    """

    run_id: str
    text: str
    output: Any = None
    new_messages: tuple[Message, ...] = ()
    usage: Usage = field(default_factory=Usage)
    interrupted: bool = False
    rounds: int = 0
    finish_reason: FinishReason | None = None
    raw_finish_reason: str | None = None
