"""Context-window tracking and guards (seed 000, "Context Window Tracking", "Pre-send context
guard", "Tool-result context budget").

The estimate of a request's size is the maximum of a deterministic serialized estimate (JSON
characters / 4 of the request's messages and tool schemas) and the last provider-reported input
tokens plus the serialized estimate of the messages added since — never a sum over turns.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict

from robota.core.messages import Message, dump_messages
from robota.core.provider import ToolDefinition

__all__ = ["ContextTracker", "estimate_tokens"]

CHARS_PER_TOKEN = 4
"""The serialized estimate's ratio: one token per four JSON characters."""


def estimate_tokens(messages: Sequence[Message], tools: Sequence[ToolDefinition] = ()) -> int:
    """Deterministic token estimate: characters of the JSON form of ``messages`` and ``tools``
    divided by :data:`CHARS_PER_TOKEN` (rounded up)."""
    chars = len(dump_messages(messages)) if messages else 0
    if tools:
        chars += len(json.dumps([asdict(t) for t in tools], default=str))
    return -(-chars // CHARS_PER_TOKEN)


class ContextTracker:
    """Tracks the latest provider-reported input size for one agent's history.

    Attributes:
        reported_tokens: Input tokens the provider reported for the last request, or None.
        reported_at: Number of history body messages that request covered.
    """

    __slots__ = ("reported_at", "reported_tokens")

    def __init__(self) -> None:
        self.reported_tokens: int | None = None
        self.reported_at = 0

    def record(self, input_tokens: int, body_length: int) -> None:
        """Remember a provider-reported input count for a request that carried the first
        ``body_length`` history messages (after the system head)."""
        if input_tokens > 0:
            self.reported_tokens = input_tokens
            self.reported_at = body_length

    def estimate(
        self,
        request_messages: Sequence[Message],
        tools: Sequence[ToolDefinition],
        body: Sequence[Message],
        extra: Sequence[Message] = (),
    ) -> int:
        """Estimated input tokens of a request.

        Args:
            request_messages: The messages the request carries.
            tools: The tool schemas it carries.
            body: The history body (messages after the system head).
            extra: Messages not in either list that the estimate must include (a tool-result
                batch being committed).
        """
        serialized = estimate_tokens([*request_messages, *extra], tools)
        if self.reported_tokens is None:
            return serialized
        since = [*body[self.reported_at :], *extra]
        reported = self.reported_tokens + (estimate_tokens(since) if since else 0)
        return max(serialized, reported)
