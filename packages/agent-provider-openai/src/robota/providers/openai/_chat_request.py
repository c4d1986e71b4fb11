"""Neutral request → Chat Completions request body (one direction, one module).

Thinking parts are not sent back: Chat Completions has no reasoning round-trip field.

Source: https://platform.openai.com/docs/api-reference/chat/create. Compatible servers are
shaped by their :class:`~robota.providers.openai.CompatProfile`.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

from robota.core.capabilities import HostedTool, ModelInfo, StructuredOutputTransport
from robota.core.errors import UnsupportedCapabilityError, UnsupportedSettingError
from robota.core.messages import (
    AssistantMessage,
    MediaPart,
    Message,
    SystemMessage,
    TextPart,
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
from robota.providers.openai._compat import CompatProfile
from robota.providers.openai._models import resolve_effort

__all__ = ["ChatCall", "build_chat_call"]

_AUDIO_FORMATS = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3"}


@dataclass(frozen=True, kw_only=True, slots=True)
class ChatCall:
    """A ready Chat Completions call.

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


def _user_content(message: UserMessage, provider: str) -> str | list[dict[str, Any]]:
    if all(isinstance(p, TextPart) for p in message.parts) and len(message.parts) == 1:
        first = message.parts[0]
        assert isinstance(first, TextPart)
        return first.text
    content: list[dict[str, Any]] = []
    for part in message.parts:
        if isinstance(part, TextPart):
            content.append({"type": "text", "text": part.text})
        else:
            content.append(_media(part, provider))
    return content


def _media(part: MediaPart, provider: str) -> dict[str, Any]:
    if part.media_kind == "image":
        return {"type": "image_url", "image_url": {"url": data_url(part)}}
    if part.media_kind == "audio" and part.data is not None:
        audio_format = _AUDIO_FORMATS.get(part.media_type)
        if audio_format is None:
            raise UnsupportedCapabilityError(
                f"{provider}: Chat Completions takes wav or mp3 audio, not {part.media_type}"
            )
        encoded = base64.b64encode(part.data).decode("ascii")
        return {"type": "input_audio", "input_audio": {"data": encoded, "format": audio_format}}
    if is_text_document(part):
        return {"type": "text", "text": document_text(part)}
    if part.media_kind == "document" and part.data is not None:
        return {
            "type": "file",
            "file": {"filename": part.name or "document.pdf", "file_data": data_url(part)},
        }
    raise UnsupportedCapabilityError(
        f"{provider}: Chat Completions cannot take {part.media_kind} {part.media_type!r} "
        f"{'by URL' if part.url else 'inline'}"
    )


def _assistant(message: AssistantMessage) -> dict[str, Any] | None:
    text = "".join(p.text for p in message.parts if isinstance(p, TextPart))
    if message.interrupted and text:
        text += "\n[response interrupted]"
    calls = [p for p in message.parts if isinstance(p, ToolCallPart) and not p.hosted]
    if not text and not calls:
        return None
    body: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        body["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": call.raw_arguments
                    if call.arguments is None or call.raw_arguments
                    else json.dumps(call.arguments),
                },
            }
            for call in calls
        ]
    return body


def _messages(
    messages: tuple[Message, ...], *, system_role: str, provider: str
) -> list[dict[str, Any]]:
    wire: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, SystemMessage):
            wire.append({"role": system_role, "content": message.content})
        elif isinstance(message, UserMessage):
            wire.append({"role": "user", "content": _user_content(message, provider)})
        elif isinstance(message, AssistantMessage):
            body = _assistant(message)
            if body is not None:
                wire.append(body)
        else:
            wire.extend(_tool_results(message, provider))
    return wire


def _tool_results(message: ToolResultMessage, provider: str) -> list[dict[str, Any]]:
    wire: list[dict[str, Any]] = []
    media: list[dict[str, Any]] = []
    for result in message.results:
        wire.append(
            {"role": "tool", "tool_call_id": result.call_id, "content": tool_result_text(result)}
        )
        media.extend(_media(p, provider) for p in result.content if isinstance(p, MediaPart))
    if media:
        # Tool messages take text only; media from tool results follows as a user turn.
        wire.append({"role": "user", "content": media})
    return wire


def build_chat_call(
    request: ModelRequest,
    *,
    provider: str,
    profile: CompatProfile,
    info: ModelInfo | None,
    stream: bool,
) -> ChatCall:
    """Build the Chat Completions body for ``request``.

    Raises:
        UnsupportedSettingError: a setting the model or server does not accept.
        UnsupportedCapabilityError: a hosted tool, media kind or output transport the server
            cannot carry.
        ConfigurationError: a tool schema projection was rejected.
    """
    check_settings(request, info, provider)
    settings = request.settings
    thinking = bool(info and info.capabilities.thinking)
    system_role = "developer" if thinking and profile.supports_developer_role else "system"
    body: dict[str, Any] = {
        "model": request.model,
        "messages": _messages(request.messages, system_role=system_role, provider=provider),
    }
    if request.hosted_tools:
        if (
            request.hosted_tools != frozenset({HostedTool.WEB_SEARCH})
            or "search" not in request.model
        ):
            names = ", ".join(sorted(request.hosted_tools))
            raise UnsupportedCapabilityError(
                f"{provider}: Chat Completions offers no hosted {names} for model "
                f"{request.model!r} (use OpenAIResponsesProvider, or a *-search-* model)"
            )
        body["web_search_options"] = {}
    strict_ok = profile.supports_strict_tools
    if request.tools:
        tools = project_tools(request.tools, strict_ok=strict_ok)
        wire_tools: list[dict[str, Any]] = []
        for tool in tools:
            function: dict[str, Any] = {
                "name": tool.name,
                "description": tool.description,
                "parameters": dict(tool.parameters),
            }
            if tool.strict is not None and strict_ok:
                function["strict"] = tool.strict
            wire_tools.append({"type": "function", "function": function})
        body["tools"] = wire_tools
    _tool_choice(body, request, profile, provider)
    _output(body, request, profile, provider)
    effort = (
        resolve_effort(request.model, settings.reasoning_effort)
        if profile.supports_reasoning_effort
        else None
    )
    if settings.reasoning_effort is not None and not profile.supports_reasoning_effort:
        effort = EffortResolution(
            requested=settings.reasoning_effort, disposition="not_applied", source=profile.source
        )
    if effort is not None and effort.native_control_sent:
        body["reasoning_effort"] = effort.native_value
    if settings.max_tokens is not None:
        body[profile.max_tokens_field] = settings.max_tokens
    if settings.temperature is not None:
        body["temperature"] = settings.temperature
    if settings.top_p is not None:
        body["top_p"] = settings.top_p
    if settings.stop is not None:
        body["stop"] = list(settings.stop)
    if settings.seed is not None:
        if not profile.supports_seed:
            raise UnsupportedSettingError(
                f"{profile.name} does not accept 'seed'", setting="seed", model=request.model
            )
        body["seed"] = settings.seed
    if settings.service_tier is not None:
        body["service_tier"] = settings.service_tier
    if stream:
        body["stream"] = True
        if profile.supports_stream_usage:
            body["stream_options"] = {"include_usage": True}
    body.update(own_extra_body(settings, provider))
    return ChatCall(
        body=body,
        extra_headers=dict(settings.extra_headers or {}),
        timeout=settings.timeout,
        effort=effort,
    )


def _tool_choice(
    body: dict[str, Any], request: ModelRequest, profile: CompatProfile, provider: str
) -> None:
    settings = request.settings
    choice = settings.tool_choice
    # OpenAI rejects tool_choice without tools; with no tools offered "none" is implied.
    if choice is not None and request.tools:
        if isinstance(choice, ToolChoiceName):
            body["tool_choice"] = {"type": "function", "function": {"name": choice.name}}
        else:
            body["tool_choice"] = choice
    if settings.parallel_tool_calls is not None and request.tools:
        if not profile.supports_parallel_tool_calls:
            raise UnsupportedSettingError(
                f"{provider}: server profile {profile.name!r} does not accept "
                "'parallel_tool_calls'",
                setting="parallel_tool_calls",
                model=request.model,
            )
        body["parallel_tool_calls"] = settings.parallel_tool_calls


def _output(
    body: dict[str, Any], request: ModelRequest, profile: CompatProfile, provider: str
) -> None:
    output = request.output
    if output is None or output.transport == StructuredOutputTransport.PROMPTED:
        return
    if output.transport == StructuredOutputTransport.NATIVE:
        if not profile.supports_response_format_json_schema:
            raise UnsupportedCapabilityError(
                f"{provider}: server profile {profile.name!r} has no json_schema response_format"
            )
        schema: dict[str, Any] = {"name": output.name, "schema": dict(output.schema)}
        if output.description is not None:
            schema["description"] = output.description
        if output.strict is not None and profile.supports_strict_tools:
            schema["strict"] = output.strict
        body["response_format"] = {"type": "json_schema", "json_schema": schema}
        return
    if not profile.supports_json_object:
        raise UnsupportedCapabilityError(
            f"{provider}: server profile {profile.name!r} has no json_object response_format"
        )
    body["response_format"] = {"type": "json_object"}
