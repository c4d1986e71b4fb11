"""What a finished response means for the run: its finish category decides whether the answer
may be used at all (seed 002, "Model contract": truncation, content filtering and incomplete tool
calls fail with distinct errors before the generic empty-response check; issue #14).

Checked after every round's response (normal, forced summary, final no-tools call), before its
text or tool calls are used:

- ``length`` with a tool call whose arguments did not parse (``arguments`` is None):
  :class:`~robota.core.errors.IncompleteToolCallError`;
- ``length`` otherwise: :class:`~robota.core.errors.TruncatedResponseError`, unless the caller
  accepts truncated answers (``accept_truncated``);
- ``content_filter``: :class:`~robota.core.errors.ContentFilterError`;
- anything else: the answer is used.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from robota.core.agent.batch import error_result
from robota.core.agent.events import ToolCallSkipped
from robota.core.errors import (
    ContentFilterError,
    IncompleteToolCallError,
    ProviderError,
    TruncatedResponseError,
)
from robota.core.events import Event, OwnerPath
from robota.core.messages import AssistantMessage, ToolCallPart, ToolResultMessage

__all__ = ["answer_calls", "refusal"]


def refusal(
    message: AssistantMessage, *, provider: str, accept_truncated: bool
) -> ProviderError | None:
    """The error a run fails with instead of using ``message``, or None when it may be used.

    Args:
        message: The committed response (finish reasons filled in).
        provider: The provider's name (put on the error).
        accept_truncated: Use a ``length`` answer whose tool calls all parsed.

    Returns:
        An :class:`~robota.core.errors.IncompleteToolCallError`,
        :class:`~robota.core.errors.TruncatedResponseError` or
        :class:`~robota.core.errors.ContentFilterError` carrying the vendor's raw reason in
        ``vendor_type``; None otherwise.
    """
    raw = message.raw_finish_reason
    said = f" (the provider said {raw!r})" if raw else ""
    if message.finish_reason == "length":
        cut = [call for call in message.tool_calls if call.arguments is None]
        if cut:
            names = ", ".join(f"{call.name} (id {call.id})" for call in cut)
            return IncompleteToolCallError(
                f"the response reached the output token limit{said} while writing the "
                f"arguments of tool call {names}; no tool of the response was run. Raise "
                "max_tokens, or ask for smaller steps",
                provider=provider,
                vendor_type=raw,
            )
        if not accept_truncated:
            return TruncatedResponseError(
                f"the response reached the output token limit{said}, so the answer is cut "
                "off. Raise max_tokens, or pass accept_truncated=True to use truncated answers",
                provider=provider,
                vendor_type=raw,
            )
    elif message.finish_reason == "content_filter":
        return ContentFilterError(
            f"the provider stopped the response with its content filter{said}; the answer "
            "was not used",
            provider=provider,
            vendor_type=raw,
        )
    return None


def answer_calls(
    calls: Sequence[ToolCallPart],
    text: str,
    reason: Literal["interrupted", "refused_response"],
    *,
    owner: OwnerPath,
    append: Callable[[ToolResultMessage], object],
    emit: Callable[[Event], None],
) -> None:
    """Commit one error result per call of a response whose batch will never run (the round
    was cancelled, or the run refused the response), so history never keeps a tool call
    without a result; each call is reported with a ``tool.call_skipped`` event."""
    if not calls:
        return
    for call in calls:
        emit(ToolCallSkipped(owner=owner, call=call, reason=reason, message=text))
    append(ToolResultMessage(results=tuple(error_result(call, text) for call in calls)))
