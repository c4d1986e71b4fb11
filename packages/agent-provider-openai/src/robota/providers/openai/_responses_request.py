"""Neutral request → Responses API request body (one direction, one module).

Source: https://platform.openai.com/docs/api-reference/responses/create. Reasoning items
round-trip with their ``encrypted_content`` (``include=["reasoning.encrypted_content"]`` with
``store=false``, https://platform.openai.com/docs/guides/reasoning#encrypted-reasoning-items);
hosted tool items and items with no neutral form are sent back verbatim from the provider's own
:class:`~robota.core.messages.HostedToolResultPart` / ``ProviderDetailsPart``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from robota.core.capabilities import HostedTool, ModelInfo, StructuredOutputTransport
from robota.core.errors import UnsupportedCapabilityError, UnsupportedSettingError
from robota.core.messages import (
    AssistantMessage,
    HostedToolResultPart,
    MediaPart,
    Message,
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
    check_settings,
    data_url,
    document_text,
    is_text_document,
    own_extra_body,
    project_tools,
    tool_result_text,
)
from robota.providers.openai._models import resolve_effort

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


def _assistant(message: AssistantMessage, provider: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for part in message.parts:
        if isinstance(part, TextPart):
            if part.text:
                items.append({"role": "assistant", "content": part.text})
        elif isinstance(part, ThinkingPart):
            if part.provider == provider and part.id is not None:
                item: dict[str, Any] = {
                    "type": "reasoning",
                    "id": part.id,
                    "summary": [{"type": "summary_text", "text": part.text}] if part.text else [],
                }
                if part.signature is not None:
                    item["encrypted_content"] = part.signature
                items.append(item)
        elif isinstance(part, ToolCallPart):
            if not part.hosted:
                arguments = (
                    part.raw_arguments
                    if part.arguments is None or part.raw_arguments
                    else json.dumps(part.arguments)
                )
                items.append(
                    {
                        "type": "function_call",
                        "call_id": part.id,
                        "name": part.name,
                        "arguments": arguments,
                    }
                )
        elif isinstance(part, HostedToolResultPart):
            if part.provider == provider and isinstance(part.content, dict):
                items.append(dict(part.content))
        elif part.provider == provider and isinstance(part.data, dict):
            items.append(dict(part.data))
    if message.interrupted and items and items[-1].get("role") == "assistant":
        items[-1] = {**items[-1], "content": f"{items[-1]['content']}\n[response interrupted]"}
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
) -> ResponsesCall:
    """Build the ``POST /responses`` body for ``request``.

    Args:
        store: ``False`` asks OpenAI not to keep the response; then reasoning items come back
            encrypted (``include=["reasoning.encrypted_content"]``) so they can be sent back.
        reasoning_summary: ``auto`` / ``concise`` / ``detailed`` reasoning summaries, or None.

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
    tools = _tools(request, info, provider)
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


def _tools(request: ModelRequest, info: ModelInfo | None, provider: str) -> list[dict[str, Any]]:
    wire: list[dict[str, Any]] = []
    for tool in project_tools(request.tools, strict_ok=True):
        function: dict[str, Any] = {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": dict(tool.parameters),
            "strict": bool(tool.strict),
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
