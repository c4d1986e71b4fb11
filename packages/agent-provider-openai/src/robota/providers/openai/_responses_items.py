"""Responses API output items → neutral assistant parts, keeping what replay needs (one job:
the item ↔ part mapping; the request side reads the same conventions back).

Source: https://platform.openai.com/docs/api-reference/responses/object. Items map as:

- ``message`` → a :class:`~robota.core.messages.ProviderDetailsPart` *item header* (the item
  without its ``content``: ``type``, ``id``, ``role``, ``status``, ``phase``…) followed by one
  :class:`~robota.core.messages.TextPart` per ``output_text`` / ``refusal`` content. The text
  parts stay the one copy of the text; the header keeps the item id.
- ``reasoning`` → a :class:`~robota.core.messages.ThinkingPart` (summary or reasoning text, the
  ``encrypted_content`` as ``signature``, the item id as ``id``);
- ``function_call`` → a :class:`~robota.core.messages.ToolCallPart` keyed by ``call_id`` (else
  the item id, else a minted ``call_robota_…`` id, see :func:`._common.mint_call_id`), with
  the item id (``fc_…``) in its provider-native ``signature`` field (``provider`` set);
- vendor-run tool items (``web_search_call``, ``code_interpreter_call``, ``file_search_call``,
  ``mcp_call``, ``image_generation_call``, …) → a hosted tool call plus a hosted result holding
  the item verbatim;
- any other item → a provider-details part holding the item verbatim.

Why the ids matter: a reasoning model links its reasoning item to the item that follows it, and
the API refuses a replayed ``rs_…`` item without its following item by id ("Item 'rs_…' of type
'reasoning' was provided without its required following item"), see
https://platform.openai.com/docs/guides/reasoning#keeping-reasoning-items-in-context.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from robota.core.messages import (
    AssistantPart,
    HostedToolResultPart,
    ProviderDetailsPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from robota.providers.openai._common import as_list, as_mapping, mint_call_id, parse_arguments

__all__ = ["HOSTED_NAMES", "decode_items", "is_message_header", "message_header"]

HOSTED_NAMES: Mapping[str, str] = {
    "web_search_call": "web_search",
    "code_interpreter_call": "code_execution",
    "file_search_call": "file_search",
    "mcp_call": "mcp",
    "mcp_list_tools": "mcp_list_tools",
    "image_generation_call": "image_generation",
    "computer_call": "computer",
    "local_shell_call": "local_shell",
}
"""Vendor-run tool item types → the hosted tool name on the neutral call."""


def message_header(item: Mapping[str, Any]) -> dict[str, Any]:
    """The item header of a ``message`` item: the item without ``content``.

    Example:
        >>> message_header({"type": "message", "id": "msg_1", "role": "assistant",
        ...                 "content": [{"type": "output_text", "text": "hi"}]})
        {'type': 'message', 'id': 'msg_1', 'role': 'assistant'}
    """
    return {key: value for key, value in item.items() if key != "content"}


def is_message_header(data: object) -> bool:
    """True for the data of a message item header (``type`` message, an ``id``, no
    ``content``), as :func:`decode_items` writes it."""
    fields = as_mapping(data)
    return fields.get("type") == "message" and "content" not in fields and bool(fields.get("id"))


def _thinking(item: Mapping[str, Any], provider: str) -> ThinkingPart:
    texts = [
        str(s.get("text") or "")
        for s in map(as_mapping, as_list(item.get("summary")))
        if s.get("text")
    ]
    if not texts:
        texts = [
            str(c.get("text") or "")
            for c in map(as_mapping, as_list(item.get("content")))
            if c.get("text")
        ]
    signature = item.get("encrypted_content")
    item_id = item.get("id")
    return ThinkingPart(
        text="\n\n".join(texts),
        signature=str(signature) if signature else None,
        provider=provider,
        id=str(item_id) if item_id else None,
    )


def _hosted_arguments(item: Mapping[str, Any]) -> dict[str, Any]:
    for key in ("action", "arguments", "code", "queries"):
        value = item.get(key)
        if isinstance(value, Mapping):
            return dict(as_mapping(value))
        if isinstance(value, str) and key == "arguments":
            parsed, _ = parse_arguments(value)
            return parsed or {}
        if value is not None:
            return {key: value}
    return {}


def _message(item: Mapping[str, Any], provider: str) -> list[AssistantPart]:
    texts: list[AssistantPart] = []
    for content in map(as_mapping, as_list(item.get("content"))):
        kind = content.get("type")
        text = content.get("text") if kind == "output_text" else None
        if kind == "refusal":
            text = content.get("refusal")
        if isinstance(text, str) and text:
            texts.append(TextPart(text=text))
    if texts and item.get("id"):
        return [ProviderDetailsPart(provider=provider, data=message_header(item)), *texts]
    return texts


def _function_call(item: Mapping[str, Any], provider: str, position: int) -> ToolCallPart:
    arguments, raw_arguments = parse_arguments(item.get("arguments"))
    item_id = item.get("id")
    return ToolCallPart(
        id=str(item.get("call_id") or item_id or mint_call_id(position)),
        name=str(item.get("name") or ""),
        arguments=arguments,
        raw_arguments=raw_arguments,
        signature=str(item_id) if item_id else None,
        provider=provider if item_id else None,
    )


def decode_items(items: list[Any], provider: str) -> list[AssistantPart]:
    """Neutral parts of a list of output items, in order (module docstring for the mapping)."""
    parts: list[AssistantPart] = []
    for raw in items:
        item = as_mapping(raw)
        kind = str(item.get("type") or "")
        if not item:
            continue
        if kind == "message":
            parts.extend(_message(item, provider))
        elif kind == "reasoning":
            parts.append(_thinking(item, provider))
        elif kind == "function_call":
            calls = sum(isinstance(p, ToolCallPart) and not p.hosted for p in parts)
            parts.append(_function_call(item, provider, calls))
        elif kind in HOSTED_NAMES:
            call_id = str(item.get("id") or "")
            name = HOSTED_NAMES[kind]
            arguments = _hosted_arguments(item)
            parts.append(
                ToolCallPart(
                    id=call_id,
                    name=name,
                    arguments=arguments,
                    raw_arguments=json.dumps(arguments),
                    hosted=True,
                    provider=provider,
                )
            )
            parts.append(
                HostedToolResultPart(
                    call_id=call_id, name=name, content=dict(item), provider=provider
                )
            )
        else:
            parts.append(ProviderDetailsPart(provider=provider, data=dict(item)))
    return parts
