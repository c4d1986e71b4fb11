"""Anthropic Messages API response → neutral values (one direction only).

Block mapping (https://docs.anthropic.com/en/api/messages, content block types):

- ``text`` → :class:`TextPart`; ``thinking`` → :class:`ThinkingPart` (text + ``signature``);
  ``redacted_thinking`` → :class:`ThinkingPart` (``redacted=True``, ``signature`` = ``data``).
- ``tool_use`` → :class:`ToolCallPart`; ``server_tool_use`` → :class:`ToolCallPart`
  (``hosted=True``, never dispatched locally).
- ``*_tool_result`` blocks with a ``tool_use_id`` (``web_search_tool_result``,
  ``web_fetch_tool_result``, ``bash_code_execution_tool_result``, ...) →
  :class:`HostedToolResultPart` whose ``content`` is the whole block, sent back verbatim.
- Anything else (``mcp_tool_use``, ``compaction``, ``container_upload``, future types) →
  :class:`ProviderDetailsPart` holding the block, sent back verbatim to Anthropic only.

Whitespace-only text blocks: the API refuses them when they are sent back ("text content blocks
must contain non-whitespace text"), so none is ever decoded into a part of its own — its text is
appended to the text part right before it (so the joined text is unchanged), or dropped when no
text part precedes it (:func:`add_part`).

A complete answer (issue #14) is an object whose ``content`` is a list of blocks, each an object
with a ``type``, and whose ``stop_reason`` is a string (Anthropic: "in non-streaming mode this
value is always non-null"); a ``stop_reason`` of ``tool_use`` needs a ``tool_use`` block beside
it; anything less is :class:`~robota.core.errors.MalformedResponseError`.

Usage: Anthropic's ``input_tokens`` EXCLUDES prompt-cache reads and writes, while Robota's
:attr:`Usage.input_tokens` includes them, so input = ``input_tokens`` +
``cache_read_input_tokens`` + ``cache_creation_input_tokens``. A count that is not a
non-negative integer is unknown (0, and the usage ``partial``), see :func:`usage_of`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from robota.core.capabilities import HostedTool
from robota.core.messages import (
    AssistantMessage,
    FinishReason,
    HostedToolResultPart,
    JsonValue,
    ProviderDetailsPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from robota.core.provider import EffortResolution, ModelResponse
from robota.core.usage import Usage, hosted_detail
from robota.core.wire import malformed

__all__ = [
    "API",
    "FINISH_REASONS",
    "add_part",
    "block_to_part",
    "decode_message",
    "finish_reason_of",
    "parse_arguments",
    "usage_of",
]

API = "messages"
"""The API surface name used in errors and payload records."""

AssistantPartT = TextPart | ThinkingPart | ToolCallPart | HostedToolResultPart | ProviderDetailsPart

FINISH_REASONS: Mapping[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
    "pause_turn": "other",
}
"""Anthropic ``stop_reason`` → neutral finish reason; the raw reason is always kept beside it
(https://docs.anthropic.com/en/api/handling-stop-reasons).

- ``model_context_window_exceeded`` → ``length``: the answer was cut by a limit (the context
  window instead of ``max_tokens``), so it is truncated exactly like ``max_tokens``.
- ``pause_turn`` → ``other``: the server paused a long server-tool turn; the turn did NOT end,
  and it continues only if the response is sent back. It is not ``stop`` (that would claim a
  finished answer); callers that see ``other`` with ``raw_finish_reason == "pause_turn"``
  resend the conversation to continue.
- Any reason not listed → ``other``.
"""

_HOSTED_CALL_TYPES = frozenset({"server_tool_use"})


def finish_reason_of(raw: str | None) -> FinishReason:
    """Normalize an Anthropic ``stop_reason`` (see :data:`FINISH_REASONS`).

    Example:
        >>> finish_reason_of("pause_turn"), finish_reason_of("max_tokens")
        ('other', 'length')
    """
    if raw is None:
        return "other"
    return FINISH_REASONS.get(raw, "other")


def _count(value: object) -> int | None:
    """A token count: a non-negative integer (an integral JSON number such as ``3.0`` too);
    None for anything else (negative, fractional, NaN, a string, a boolean)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float) and value.is_integer() and value >= 0:
        return int(value)
    return None


@dataclass(kw_only=True, slots=True)
class _Counts:
    """Reads counts of one ``usage`` object, remembering whether any was unreadable."""

    raw: Mapping[str, Any]
    partial: bool = False

    def get(
        self, key: str, *, required: bool = False, within: Mapping[str, Any] | None = None
    ) -> int:
        source = self.raw if within is None else within
        value = source.get(key)
        if value is None:
            self.partial = self.partial or required
            return 0
        count = _count(value)
        if count is None:
            self.partial = True
            return 0
        return count


_SERVER_TOOL_DETAILS: Mapping[str, str] = {
    "web_search_requests": hosted_detail(HostedTool.WEB_SEARCH),
    "web_fetch_requests": hosted_detail(HostedTool.WEB_FETCH),
    "code_execution_requests": hosted_detail(HostedTool.CODE_EXECUTION),
}
"""``usage.server_tool_use`` counters → neutral ``Usage.details`` keys (Anthropic's usage object,
https://docs.anthropic.com/en/api/messages; web search and web fetch tool pages). Counters with
no neutral name keep Anthropic's own name."""


def usage_of(raw: Mapping[str, Any] | None) -> Usage:
    """Neutral usage from an Anthropic ``usage`` object (one request).

    ``input_tokens`` here excludes cache reads/writes; the neutral input includes them.
    ``output_tokens_details.thinking_tokens`` (when reported) becomes ``reasoning_tokens``;
    ``server_tool_use`` counters go to ``details``: ``web_search_requests`` /
    ``web_fetch_requests`` as ``hosted.web_search`` / ``hosted.web_fetch`` (calls the vendor ran),
    any other counter under its own name.

    A count that is not a non-negative integer (negative, fractional, NaN, a string) is unknown:
    it reads as 0 and the usage is ``partial`` — never attested. So is a missing usage, or one
    without ``input_tokens`` or ``output_tokens`` (both always present in Anthropic's usage).

    Example:
        >>> u = usage_of({"input_tokens": -9, "output_tokens": 3})
        >>> u.input_tokens, u.output_tokens, u.partial
        (0, 3, True)
    """
    if not raw:
        return Usage(requests=1, partial=True)
    counts = _Counts(raw=raw)
    cache_read = counts.get("cache_read_input_tokens")
    cache_write = counts.get("cache_creation_input_tokens")
    details: dict[str, int] = {}
    server = raw.get("server_tool_use")
    if isinstance(server, Mapping):
        for key, value in cast(Mapping[str, object], server).items():
            count = _count(value)
            if count is not None:
                details[_SERVER_TOOL_DETAILS.get(key, key)] = count
            elif isinstance(value, int | float) and not isinstance(value, bool):
                counts.partial = True  # a counter, but not a count (negative, fractional, NaN)
    elif server is not None:
        counts.partial = True
    reasoning = 0
    out_details = raw.get("output_tokens_details")
    if isinstance(out_details, Mapping):
        reasoning = counts.get("thinking_tokens", within=cast(Mapping[str, Any], out_details))
    elif out_details is not None:
        counts.partial = True
    input_tokens = counts.get("input_tokens", required=True)
    output_tokens = counts.get("output_tokens", required=True)
    return Usage(
        input_tokens=input_tokens + cache_read + cache_write,
        output_tokens=output_tokens,
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
        reasoning_tokens=reasoning,
        requests=1,
        details=details,
        partial=counts.partial,
    )


def parse_arguments(raw: str) -> dict[str, JsonValue] | None:
    """Parse a raw tool-argument string: ``""`` → ``{}``; a JSON object → dict; else (not
    JSON, not an object, nested too deeply to decode) None."""
    if raw.strip() == "":
        return {}
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than the decoder goes
        return None
    return cast(dict[str, JsonValue], value) if isinstance(value, dict) else None


def _raw_of(input_value: object) -> str:
    if input_value is None or input_value == {}:
        return ""
    return json.dumps(input_value, ensure_ascii=False)


def _field(
    block: Mapping[str, Any], key: str, kind: str, *, provider: str, request_id: str | None
) -> str:
    value = block.get(key)
    if not isinstance(value, str):
        raise malformed(
            provider,
            API,
            f"{key} of a {kind} block",
            detail=f"got {type(value).__name__}",
            request_id=request_id,
        )
    return value


def block_to_part(
    block: Mapping[str, Any],
    *,
    provider: str,
    raw_arguments: str | None = None,
    hosted_names: Mapping[str, str] | None = None,
    request_id: str | None = None,
) -> AssistantPartT | None:
    """Decode one content block (as JSON) into a neutral part.

    Args:
        block: The content block.
        provider: This provider's name (recorded on thinking, hosted and detail parts).
        raw_arguments: For a streamed ``tool_use``/``server_tool_use``: the argument string
            exactly as streamed; None to serialize ``input``.
        hosted_names: Hosted call id → tool name, to name hosted results.
        request_id: The vendor request id, for errors.

    Returns:
        The part, or None for an empty text block.

    Raises:
        robota.core.errors.MalformedResponseError: for a block without a string ``type``, a text block without
            its text, a thinking block without its thinking, a tool call without a string id
            and name or with an ``input`` that is not an object.
    """
    kind = block.get("type")
    if not isinstance(kind, str):
        raise malformed(provider, API, "type of a content block", request_id=request_id)
    if kind == "text":
        text = _field(block, "text", kind, provider=provider, request_id=request_id)
        return TextPart(text=text) if text else None
    if kind == "thinking":
        signature = block.get("signature")
        return ThinkingPart(
            text=_field(block, "thinking", kind, provider=provider, request_id=request_id),
            signature=signature if isinstance(signature, str) and signature else None,
            provider=provider,
        )
    if kind == "redacted_thinking":
        data = _field(block, "data", kind, provider=provider, request_id=request_id)
        return ThinkingPart(text="", signature=data, redacted=True, provider=provider)
    if kind == "tool_use" or kind in _HOSTED_CALL_TYPES:
        call_id = _field(block, "id", kind, provider=provider, request_id=request_id)
        name = _field(block, "name", kind, provider=provider, request_id=request_id)
        value = block.get("input")
        if raw_arguments is None and value is not None and not isinstance(value, Mapping):
            raise malformed(
                provider, API, f"an object input of {kind} block {call_id}", request_id=request_id
            )
        raw = raw_arguments if raw_arguments is not None else _raw_of(value)
        return ToolCallPart(
            id=call_id,
            name=name,
            arguments=parse_arguments(raw),
            raw_arguments=raw,
            hosted=kind != "tool_use",
            provider=provider if kind != "tool_use" else None,
        )
    call_id = block.get("tool_use_id")
    if kind.endswith("_tool_result") and isinstance(call_id, str):
        name = (hosted_names or {}).get(call_id, kind.removesuffix("_tool_result"))
        return HostedToolResultPart(
            call_id=call_id,
            name=name,
            content=cast(JsonValue, dict(block)),
            provider=provider,
        )
    return ProviderDetailsPart(provider=provider, data=cast(JsonValue, dict(block)))


def add_part(parts: list[AssistantPartT], part: AssistantPartT | None) -> bool:
    """Append ``part``; a whitespace-only text part is folded into the text part right before
    it, or dropped when there is none (the API refuses whitespace-only text blocks).

    Returns:
        True when the part's text (if any) is now in ``parts``; False when it was dropped.

    Example:
        >>> parts = []
        >>> add_part(parts, TextPart(text="\\n\\n")), parts
        (False, [])
        >>> add_part(parts, TextPart(text="Hi")), add_part(parts, TextPart(text=" ")), parts
        (True, True, [TextPart(kind='text', text='Hi ')])
    """
    if part is None:
        return False
    if isinstance(part, TextPart) and not part.text.strip():
        if parts and isinstance(parts[-1], TextPart):
            parts[-1] = TextPart(text=parts[-1].text + part.text)
            return True
        return False
    parts.append(part)
    return True


def decode_message(
    message: Mapping[str, Any],
    *,
    provider: str,
    request_id: str | None = None,
    effort: EffortResolution | None = None,
) -> ModelResponse:
    """Decode a complete (non-streamed) Messages API response body.

    Raises:
        robota.core.errors.MalformedResponseError: when the body is not a complete message (see
            the module doc).
    """
    kind = message.get("type")
    if kind is not None and kind != "message":
        raise malformed(
            provider, API, 'a "message" object', detail=f"type {kind!r}", request_id=request_id
        )
    content = message.get("content")
    if not isinstance(content, list):
        raise malformed(provider, API, "content (a list of blocks)", request_id=request_id)
    stop = message.get("stop_reason")
    if not isinstance(stop, str):
        raise malformed(provider, API, "stop_reason", request_id=request_id)
    parts: list[AssistantPartT] = []
    hosted_names: dict[str, str] = {}
    for block in cast(list[object], content):
        if not isinstance(block, Mapping):
            raise malformed(provider, API, "an object per content block", request_id=request_id)
        entry = cast(Mapping[str, Any], block)
        if entry.get("type") in _HOSTED_CALL_TYPES:
            hosted_names[str(entry.get("id"))] = str(entry.get("name"))
        part = block_to_part(
            entry, provider=provider, hosted_names=hosted_names, request_id=request_id
        )
        add_part(parts, part)
    usage = message.get("usage")
    return assemble(
        parts,
        model=str(message.get("model") or ""),
        response_id=message.get("id"),
        raw_stop=stop,
        usage=usage_of(cast(Mapping[str, Any], usage) if isinstance(usage, Mapping) else None),
        provider=provider,
        request_id=request_id,
        effort=effort,
    )


def assemble(
    parts: list[AssistantPartT],
    *,
    model: str,
    response_id: object,
    raw_stop: object,
    usage: Usage,
    provider: str,
    request_id: str | None,
    effort: EffortResolution | None,
) -> ModelResponse:
    """Build the :class:`ModelResponse` from decoded parts and response facts.

    Raises:
        robota.core.errors.MalformedResponseError: when ``stop_reason`` is ``tool_use`` but no
            ``tool_use`` block arrived (``missing="tool_use block announced by stop_reason"``):
            the answer stopped to call a tool that is not there, so its text is a preamble,
            never a final answer.
    """
    raw = raw_stop if isinstance(raw_stop, str) else None
    if raw == "tool_use" and not any(isinstance(p, ToolCallPart) and not p.hosted for p in parts):
        raise malformed(
            provider,
            API,
            "tool_use block announced by stop_reason",
            detail='stop_reason is "tool_use" but the answer holds no tool_use block',
            request_id=request_id,
        )
    finish = finish_reason_of(raw)
    message = AssistantMessage(
        parts=tuple(parts),
        model=model,
        provider=provider,
        usage=usage,
        finish_reason=finish,
        raw_finish_reason=raw,
        response_id=response_id if isinstance(response_id, str) else None,
    )
    return ModelResponse(
        message=message,
        usage=usage,
        finish_reason=finish,
        raw_finish_reason=raw,
        model=model,
        request_id=request_id,
        effort=effort,
    )
