"""Context-window breakdown (seed 004, "context breakdown"): how the next request's estimated
tokens divide between the system prompt, tool definitions and the conversation, against the
model's context window. Estimates are JSON characters / 4 (the agent's own estimator); the
provider's last reported input count is shown beside them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from robota.core.messages import Message, dump_messages
from robota.core.tools.base import Tool

__all__ = ["ContextBreakdown", "context_breakdown"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ContextBreakdown:
    """Estimated tokens per category.

    Attributes:
        system_prompt: Tokens of the system prompt.
        tools: Tokens of the offered tool definitions.
        conversation: Tokens of the messages.
        total: Sum of the three.
        context_window: The model's window in tokens, or None when unknown.
        free: ``context_window - total`` (never negative), or None when unknown.
        last_reported_input: The provider's input count for the last request, or None.
    """

    system_prompt: int
    tools: int
    conversation: int
    total: int
    context_window: int | None
    free: int | None
    last_reported_input: int | None

    def render(self) -> str:
        """One line per category, for a ``/context`` display."""
        rows = [
            ("system prompt", self.system_prompt),
            ("tool definitions", self.tools),
            ("conversation", self.conversation),
            ("total (estimated)", self.total),
        ]
        if self.context_window is not None:
            rows.append(("context window", self.context_window))
            rows.append(("free", self.free or 0))
        if self.last_reported_input is not None:
            rows.append(("last request (reported)", self.last_reported_input))
        return "\n".join(f"{name:>24}: {tokens}" for name, tokens in rows)


def _tokens(text: str) -> int:
    return (len(text) + 3) // 4


def context_breakdown(
    *,
    system_prompt: str | None,
    tools: Sequence[Tool],
    messages: Sequence[Message],
    context_window: int | None,
    last_reported_input: int | None,
) -> ContextBreakdown:
    """Estimate the next request's tokens by category."""
    system = _tokens(system_prompt or "")
    tool_tokens = _tokens(
        json.dumps(
            [
                {"name": t.name, "description": t.description, "parameters": t.parameters}
                for t in tools
            ]
        )
    )
    conversation = _tokens(dump_messages(messages).decode()) if messages else 0
    total = system + tool_tokens + conversation
    free = max(context_window - total, 0) if context_window is not None else None
    return ContextBreakdown(
        system_prompt=system,
        tools=tool_tokens,
        conversation=conversation,
        total=total,
        context_window=context_window,
        free=free,
        last_reported_input=last_reported_input,
    )
