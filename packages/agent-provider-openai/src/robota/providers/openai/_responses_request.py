"""Neutral request → Responses API request body (one direction, one module).

Source: https://platform.openai.com/docs/api-reference/responses/create. Reasoning items
round-trip with their ``encrypted_content`` (``include=["reasoning.encrypted_content"]`` with
``store=false``, https://platform.openai.com/docs/guides/reasoning#encrypted-reasoning-items);
hosted tool items and items with no neutral form are sent back verbatim from the provider's own
:class:`~robota.core.messages.HostedToolResultPart` / ``ProviderDetailsPart``. After a replayed
reasoning item, the ``function_call`` and ``message`` items of the same turn carry the item ids
the response gave them (stored as :mod:`._responses_items` describes), in the order they came.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from robota.core.capabilities import HostedTool, ModelInfo, StructuredOutputTransport
from robota.core.errors import UnsupportedCapabilityError, UnsupportedSettingError
from robota.core.messages import (
    AssistantMessage,
    HostedToolResultPart,
    MediaPart,
    Message,
    ProviderDetailsPart,
    SystemMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultMessage,
    UserMessage,
)
from robota.core.provider import EffortResolution, ModelRequest
from robota.core.settings import ToolChoiceName
from robota.providers.openai._common import (
    as_mapping,
    check_settings,
    data_url,
    document_text,
    is_text_document,
    own_extra_body,
    project_tools,
    tool_result_text,
)
from robota.providers.openai._models import resolve_effort
from robota.providers.openai._responses_items import is_message_header

__all__ = ["ResponsesCall", "build_responses_call"]

_HOSTED: dict[HostedTool, dict[str, Any]] = {
    HostedTool.WEB_SEARCH: {"type": "web_search"},
    HostedTool.CODE_EXECUTION: {"type": "code_interpreter", "container": {"type": "auto"}},
}


@dataclass(frozen=True, kw_only=True, slots=True)
class ResponsesCall:
    """A ready Responses API call.

    Attributes:
        body: JSON body fields (``stream`` included).
        extra_headers: Headers from the settings.
        timeout: Request timeout in seconds, or None.
        effort: How the reasoning effort was resolved, if one was requested.
    """

    body: dict[str, Any]
    extra_headers: dict[str, str]
    timeout: float | None
    effort: EffortResolution | None


def _media(part: MediaPart, provider: str) -> dict[str, Any]:
    if part.media_kind == "image":
        return {"type": "input_image", "image_url": data_url(part), "detail": "auto"}
    if is_text_document(part):
        return {"type": "input_text", "text": document_text(part)}
    if part.media_kind == "document":
        if part.url is not None:
            return {"type": "input_file", "file_url": part.url}
        return {
            "type": "input_file",
            "filename": part.name or "document.pdf",
            "file_data": data_url(part),
        }
    raise UnsupportedCapabilityError(
        f"{provider}: the Responses API takes no {part.media_kind} input ({part.media_type})"
    )


def _user(message: UserMessage, provider: str) -> dict[str, Any]:
    content = [
        {"type": "input_text", "text": part.text}
        if isinstance(part, TextPart)
        else _media(part, provider)
        for part in message.parts
    ]
    return {"role": "user", "content": content}


def _function_call(part: ToolCallPart, *, with_id: bool, provider: str) -> dict[str, Any]:
    arguments = (
        part.raw_arguments
        if part.arguments is None or part.raw_arguments
        else json.dumps(part.arguments)
    )
    item: dict[str, Any] = {
        "type": "function_call",
        "call_id": part.id,
        "name": part.name,
        "arguments": arguments,
    }
    if with_id and part.provider == provider and part.signature:
        item["id"] = part.signature
    return item


def _reasoning(part: ThinkingPart) -> dict[str, Any]:
    item: dict[str, Any] = {
        "type": "reasoning",
        "id": part.id,
        "summary": [{"type": "summary_text", "text": part.text}] if part.text else [],
    }
    if part.signature is not None:
        item["encrypted_content"] = part.signature
    return item


class _Items:
    """The input items of one assistant message, in the order the parts came back."""

    def __init__(self, provider: str) -> None:
        self.provider = provider
        self.items: list[dict[str, Any]] = []
        self.linked = False  # a reasoning item was replayed: later items carry their ids
        self._message: dict[str, Any] | None = None  # an open message item (header seen)

    def close(self) -> None:
        self._message = None

    def text(self, text: str) -> None:
        if not text:
            return
        if self._message is None:
            self.items.append({"role": "assistant", "content": text})
            return
        content = {"type": "output_text", "text": text, "annotations": []}
        self._message["content"].append(content)

    def header(self, data: Mapping[str, Any]) -> None:
        """Open the message item ``data`` heads; its texts follow. Unlinked to a reasoning item,
        the texts go as plain assistant messages (no id to keep)."""
        self.close()
        if not self.linked:
            return
        item: dict[str, Any] = {
            "type": "message",
            "id": data["id"],
            "role": "assistant",
            "status": data.get("status") or "completed",
            "content": [],
        }
        if data.get("phase") is not None:
            item["phase"] = data["phase"]
        self._message = item
        self.items.append(item)


def _mark_interrupted(items: list[dict[str, Any]]) -> None:
    """Mark the last assistant text as cut short, so the model knows."""
    last = items[-1] if items else None
    if last is None:
        return
    note = "\n[response interrupted]"
    if last.get("role") == "assistant" and isinstance(last.get("content"), str):
        last["content"] = f"{last['content']}{note}"
    elif last.get("type") == "message" and last.get("content"):
        last["content"][-1]["text"] += note


def _assistant(message: AssistantMessage, provider: str) -> list[dict[str, Any]]:
    """The input items of an assistant turn.

    Item ids are replayed as :mod:`._responses_items` stored them, and only after a reasoning
    item of this provider in the same turn: the API links a reasoning item to the items that
    follow it by id, while an ``fc_…`` / ``msg_…`` id whose reasoning item is not sent is itself
    refused ("provided without its required 'reasoning' item").
    """
    out = _Items(provider)
    for part in message.parts:
        if isinstance(part, TextPart):
            out.text(part.text)
            continue
        if (
            isinstance(part, ProviderDetailsPart)
            and part.provider == provider
            and is_message_header(part.data)
        ):
            out.header(as_mapping(part.data))
            continue
        out.close()
        if isinstance(part, ThinkingPart):
            if part.provider == provider and part.id is not None:
                out.items.append(_reasoning(part))
                out.linked = True
        elif isinstance(part, ToolCallPart):
            if not part.hosted:
                out.items.append(_function_call(part, with_id=out.linked, provider=provider))
        elif isinstance(part, HostedToolResultPart):
            if part.provider == provider and isinstance(part.content, dict):
                out.items.append(dict(part.content))
        elif part.provider == provider and isinstance(part.data, dict):
            out.items.append(dict(part.data))
    items = [item for item in out.items if item.get("type") != "message" or item["content"]]
    if message.interrupted:
        _mark_interrupted(items)
    return items


def _tool_results(message: ToolResultMessage, provider: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    media: list[dict[str, Any]] = []
    for result in message.results:
        items.append(
            {
                "type": "function_call_output",
                "call_id": result.call_id,
                "output": tool_result_text(result),
            }
        )
        media.extend(_media(p, provider) for p in result.content if isinstance(p, MediaPart))
    if media:
        items.append({"role": "user", "content": media})
    return items


def _input(messages: tuple[Message, ...], provider: str) -> tuple[str | None, list[Any]]:
    instructions: str | None = None
    items: list[Any] = []
    for message in messages:
        if isinstance(message, SystemMessage):
            instructions = message.content
        elif isinstance(message, UserMessage):
            items.append(_user(message, provider))
        elif isinstance(message, AssistantMessage):
            items.extend(_assistant(message, provider))
        else:
            items.extend(_tool_results(message, provider))
    return instructions, items


def build_responses_call(
    request: ModelRequest,
    *,
    provider: str,
    info: ModelInfo | None,
    stream: bool,
    store: bool | None,
    reasoning_summary: str | None,
    strict_tools: bool = True,
) -> ResponsesCall:
    """Build the ``POST /responses`` body for ``request``.

    Args:
        store: ``False`` asks OpenAI not to keep the response; then reasoning items come back
            encrypted (``include=["reasoning.encrypted_content"]``) so they can be sent back.
        reasoning_summary: ``auto`` / ``concise`` / ``detailed`` reasoning summaries, or None.
        strict_tools: Whether the endpoint guarantees strict tool schemas (OpenAI's own); when
            False every function tool is projected non-strict and sent with ``strict: false``.

    Raises:
        UnsupportedSettingError: ``stop`` / ``seed`` (the Responses API has neither) or a
            setting the model rejects.
        UnsupportedCapabilityError: a hosted tool OpenAI does not run (web fetch) or the model
            lacks.
        ConfigurationError: a tool schema projection was rejected.
    """
    check_settings(request, info, provider)
    settings = request.settings
    for name in ("stop", "seed"):
        if getattr(settings, name) is not None:
            raise UnsupportedSettingError(
                f"{provider}: the Responses API has no {name!r} parameter",
                setting=name,
                model=request.model,
            )
    instructions, items = _input(request.messages, provider)
    body: dict[str, Any] = {"model": request.model, "input": items}
    if instructions is not None:
        body["instructions"] = instructions
    tools = _tools(request, info, provider, strict_tools)
    if tools:
        body["tools"] = tools
    choice = settings.tool_choice
    if choice is not None and tools:
        body["tool_choice"] = (
            {"type": "function", "name": choice.name}
            if isinstance(choice, ToolChoiceName)
            else choice
        )
    if settings.parallel_tool_calls is not None and request.tools:
        body["parallel_tool_calls"] = settings.parallel_tool_calls
    _output(body, request)
    effort = resolve_effort(request.model, settings.reasoning_effort)
    reasoning: dict[str, Any] = {}
    if effort is not None and effort.native_control_sent:
        reasoning["effort"] = effort.native_value
    if reasoning_summary is not None:
        reasoning["summary"] = reasoning_summary
    if reasoning:
        body["reasoning"] = reasoning
    if store is not None:
        body["store"] = store
        if not store:
            body["include"] = ["reasoning.encrypted_content"]
    if settings.max_tokens is not None:
        body["max_output_tokens"] = settings.max_tokens
    if settings.temperature is not None:
        body["temperature"] = settings.temperature
    if settings.top_p is not None:
        body["top_p"] = settings.top_p
    if settings.service_tier is not None:
        body["service_tier"] = settings.service_tier
    if stream:
        body["stream"] = True
    body.update(own_extra_body(settings, provider))
    return ResponsesCall(
        body=body,
        extra_headers=dict(settings.extra_headers or {}),
        timeout=settings.timeout,
        effort=effort,
    )


def _tools(
    request: ModelRequest, info: ModelInfo | None, provider: str, strict_ok: bool
) -> list[dict[str, Any]]:
    wire: list[dict[str, Any]] = []
    for tool in project_tools(request.tools, strict_ok=strict_ok):
        function: dict[str, Any] = {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": dict(tool.parameters),
            "strict": bool(tool.strict) and strict_ok,
        }
        wire.append(function)
    offered = info.capabilities.hosted_tools if info is not None else None
    for hosted in sorted(request.hosted_tools):
        native = _HOSTED.get(hosted)
        if native is None:
            raise UnsupportedCapabilityError(f"{provider}: OpenAI runs no hosted {hosted} tool")
        if offered is not None and hosted not in offered:
            raise UnsupportedCapabilityError(
                f"{provider}: model {request.model!r} does not offer hosted {hosted} "
                f"(source: {info.source if info else ''})"
            )
        wire.append(dict(native))
    return wire


def _output(body: dict[str, Any], request: ModelRequest) -> None:
    output = request.output
    if output is None or output.transport == StructuredOutputTransport.PROMPTED:
        return
    if output.transport == StructuredOutputTransport.NATIVE:
        fmt: dict[str, Any] = {
            "type": "json_schema",
            "name": output.name,
            "schema": dict(output.schema),
        }
        if output.description is not None:
            fmt["description"] = output.description
        if output.strict is not None:
            fmt["strict"] = output.strict
        body["text"] = {"format": fmt}
    else:
        body["text"] = {"format": {"type": "json_object"}}
