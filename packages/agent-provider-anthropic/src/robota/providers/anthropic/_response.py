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

Usage: Anthropic's ``input_tokens`` EXCLUDES prompt-cache reads and writes, while Robota's
:attr:`Usage.input_tokens` includes them, so input = ``input_tokens`` +
``cache_read_input_tokens`` + ``cache_creation_input_tokens``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, cast

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
from robota.core.usage import Usage

__all__ = [
    "FINISH_REASONS",
    "block_to_part",
    "decode_message",
    "finish_reason_of",
    "parse_arguments",
    "usage_of",
]

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
"""Anthropic ``stop_reason`` → neutral finish reason (unknown reasons → ``other``)."""

_HOSTED_CALL_TYPES = frozenset({"server_tool_use"})


def finish_reason_of(raw: str | None) -> FinishReason:
    """Normalize an Anthropic ``stop_reason``."""
    if raw is None:
        return "other"
    return FINISH_REASONS.get(raw, "other")


def _int(value: object) -> int:
    return value if isinstance(value, int) else 0


def usage_of(raw: Mapping[str, Any] | None) -> Usage:
    """Neutral usage from an Anthropic ``usage`` object (one request).

    ``input_tokens`` here excludes cache reads/writes; the neutral input includes them.
    ``output_tokens_details.thinking_tokens`` (when reported) becomes ``reasoning_tokens``;
    ``server_tool_use`` counters (``web_search_requests``, ...) go to ``details``.
    """
    if not raw:
        return Usage(requests=1, partial=True)
    cache_read = _int(raw.get("cache_read_input_tokens"))
    cache_write = _int(raw.get("cache_creation_input_tokens"))
    details: dict[str, int] = {}
    server = raw.get("server_tool_use")
    if isinstance(server, Mapping):
        for key, value in cast(Mapping[str, object], server).items():
            if isinstance(value, int):
                details[key] = value
    reasoning = 0
    out_details = raw.get("output_tokens_details")
    if isinstance(out_details, Mapping):
        reasoning = _int(cast(Mapping[str, object], out_details).get("thinking_tokens"))
    return Usage(
        input_tokens=_int(raw.get("input_tokens")) + cache_read + cache_write,
        output_tokens=_int(raw.get("output_tokens")),
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
        reasoning_tokens=reasoning,
        requests=1,
        details=details,
    )


def parse_arguments(raw: str) -> dict[str, JsonValue] | None:
    """Parse a raw tool-argument string: ``""`` → ``{}``; a JSON object → dict; else None."""
    if raw.strip() == "":
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return cast(dict[str, JsonValue], value) if isinstance(value, dict) else None


def _raw_of(input_value: object) -> str:
    if input_value is None or input_value == {}:
        return ""
    return json.dumps(input_value, ensure_ascii=False)


def block_to_part(
    block: Mapping[str, Any],
    *,
    provider: str,
    raw_arguments: str | None = None,
    hosted_names: Mapping[str, str] | None = None,
) -> AssistantPartT | None:
    """Decode one content block (as JSON) into a neutral part.

    Args:
        block: The content block.
        provider: This provider's name (recorded on thinking, hosted and detail parts).
        raw_arguments: For a streamed ``tool_use``/``server_tool_use``: the argument string
            exactly as streamed; None to serialize ``input``.
        hosted_names: Hosted call id → tool name, to name hosted results.

    Returns:
        The part, or None for an empty text block.
    """
    kind = block.get("type")
    if kind == "text":
        text = str(block.get("text") or "")
        return TextPart(text=text) if text else None
    if kind == "thinking":
        return ThinkingPart(
            text=str(block.get("thinking") or ""),
            signature=block.get("signature") or None,
            provider=provider,
        )
    if kind == "redacted_thinking":
        return ThinkingPart(text="", signature=block.get("data"), redacted=True, provider=provider)
    if kind == "tool_use" or kind in _HOSTED_CALL_TYPES:
        raw = raw_arguments if raw_arguments is not None else _raw_of(block.get("input"))
        arguments = parse_arguments(raw)
        return ToolCallPart(
            id=str(block.get("id")),
            name=str(block.get("name")),
            arguments=arguments,
            raw_arguments=raw,
            hosted=kind != "tool_use",
            provider=provider if kind != "tool_use" else None,
        )
    call_id = block.get("tool_use_id")
    if isinstance(kind, str) and kind.endswith("_tool_result") and isinstance(call_id, str):
        name = (hosted_names or {}).get(call_id, kind.removesuffix("_tool_result"))
        return HostedToolResultPart(
            call_id=call_id,
            name=name,
            content=cast(JsonValue, dict(block)),
            provider=provider,
        )
    return ProviderDetailsPart(provider=provider, data=cast(JsonValue, dict(block)))


def decode_message(
    message: Mapping[str, Any],
    *,
    provider: str,
    request_id: str | None = None,
    effort: EffortResolution | None = None,
) -> ModelResponse:
    """Decode a complete (non-streamed) Messages API response body."""
    parts: list[AssistantPartT] = []
    hosted_names: dict[str, str] = {}
    content = message.get("content")
    blocks = cast(list[Mapping[str, Any]], content) if isinstance(content, list) else []
    for block in blocks:
        if block.get("type") in _HOSTED_CALL_TYPES:
            hosted_names[str(block.get("id"))] = str(block.get("name"))
        part = block_to_part(block, provider=provider, hosted_names=hosted_names)
        if part is not None:
            parts.append(part)
    return assemble(
        parts,
        model=str(message.get("model") or ""),
        response_id=message.get("id"),
        raw_stop=message.get("stop_reason"),
        usage=usage_of(message.get("usage")),
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
    """Build the :class:`ModelResponse` from decoded parts and response facts."""
    raw = raw_stop if isinstance(raw_stop, str) else None
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
