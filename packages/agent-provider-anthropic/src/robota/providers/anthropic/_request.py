"""Neutral request → Anthropic Messages API request body (one direction only).

Rules (https://docs.anthropic.com/en/api/messages):

- The system prompt goes to the top-level ``system`` field (a list of text blocks).
- Roles alternate ``user``/``assistant``; consecutive messages of one role are merged. The results
  of one tool batch are ``tool_result`` blocks (``is_error`` kept) in ONE user message, ahead of
  any user text that follows.
- Thinking round-trip: ``thinking`` (with ``signature``) and ``redacted_thinking`` (``data``)
  blocks are sent back verbatim, but only when :attr:`ThinkingPart.provider` is this provider;
  another provider's reasoning is sent as plain text only.
- Hosted tool calls/results and opaque blocks produced by this provider are sent back verbatim.
- Whitespace-only text is never sent: the API refuses a text block without non-whitespace text
  ("text content blocks must contain non-whitespace text"), and history from other providers or
  older sessions may hold one, so such text parts (user, assistant, tool result, system) are
  left out.
- Media: bytes as ``base64`` sources, URLs as ``url`` sources; ``text/plain`` documents as
  ``text`` sources.
- Prompt-cache breakpoints (``cache_control: {"type": "ephemeral"}``) on the system prompt, the
  last tool and the last block of the last user turn, as configured
  (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from robota.core.capabilities import HostedTool, StructuredOutputTransport
from robota.core.errors import (
    ConfigurationError,
    UnsupportedCapabilityError,
    UnsupportedSettingError,
)
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
from robota.core.provider import EffortResolution, ModelRequest, ToolDefinition
from robota.core.schema import Rejected, VendorPolicy, project_tool
from robota.core.settings import ToolChoiceName
from robota.providers.anthropic._effort import resolve_effort
from robota.providers.anthropic._models import spec_for

__all__ = ["HOSTED_TOOL_SPECS", "BuiltRequest", "CacheBreakpoint", "build_request"]

CacheBreakpoint = Literal["system", "tools", "history"]
"""Where a prompt-cache breakpoint may be placed."""

HOSTED_TOOL_SPECS: Mapping[HostedTool, tuple[dict[str, Any], str | None]] = {
    HostedTool.WEB_SEARCH: ({"type": "web_search_20250305", "name": "web_search"}, None),
    HostedTool.WEB_FETCH: (
        {"type": "web_fetch_20250910", "name": "web_fetch"},
        "web-fetch-2025-09-10",
    ),
    HostedTool.CODE_EXECUTION: (
        {"type": "code_execution_20250825", "name": "code_execution"},
        "code-execution-2025-08-25",
    ),
}
"""Hosted tool → (tool entry, ``anthropic-beta`` header value or None). Sources: the web search,
web fetch and code execution tool pages under https://docs.anthropic.com/en/docs/agents-and-tools/
tool-use/ (read 2026-01)."""

_SERVICE_TIERS: Mapping[str, str] = {"auto": "auto", "default": "standard_only"}
_EPHEMERAL: Mapping[str, str] = {"type": "ephemeral"}


@dataclass(frozen=True, kw_only=True, slots=True)
class BuiltRequest:
    """A request ready for the SDK.

    Attributes:
        body: The JSON request body (``model``, ``messages``, ...), without ``stream``.
        betas: ``anthropic-beta`` header values needed.
        extra_headers: Extra HTTP headers from settings.
        timeout: Request timeout in seconds, if set.
        effort: The effort audit record, if effort was requested.
    """

    body: dict[str, Any]
    betas: tuple[str, ...]
    extra_headers: Mapping[str, str]
    timeout: float | None
    effort: EffortResolution | None


def _has_text(text: str) -> bool:
    """True when ``text`` may be a text block (it has a character other than whitespace)."""
    return bool(text.strip())


def _media_block(part: MediaPart) -> dict[str, Any]:
    if part.media_kind not in ("image", "document"):
        raise UnsupportedCapabilityError(
            f"anthropic accepts image and document input, not {part.media_kind!r}"
        )
    kind = part.media_kind
    if part.url is not None:
        return {"type": kind, "source": {"type": "url", "url": part.url}}
    data = part.data or b""
    if kind == "document" and part.media_type.startswith("text/"):
        source: dict[str, Any] = {
            "type": "text",
            "media_type": "text/plain",
            "data": data.decode("utf-8", errors="replace"),
        }
    else:
        source = {
            "type": "base64",
            "media_type": part.media_type,
            "data": base64.b64encode(data).decode("ascii"),
        }
    block: dict[str, Any] = {"type": kind, "source": source}
    if kind == "document" and part.name:
        block["title"] = part.name
    return block


def _user_blocks(parts: Sequence[TextPart | MediaPart]) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for part in parts:
        if isinstance(part, TextPart):
            if _has_text(part.text):
                blocks.append({"type": "text", "text": part.text})
        else:
            blocks.append(_media_block(part))
    return blocks


def _tool_result_blocks(message: ToolResultMessage) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for result in message.results:
        content = _user_blocks(result.content)
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": result.call_id}
        if content:
            block["content"] = content
        if result.is_error:
            block["is_error"] = True
        blocks.append(block)
    return blocks


def _assistant_blocks(message: AssistantMessage, provider: str) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for part in message.parts:
        if isinstance(part, TextPart):
            text = part.text + ("\n[interrupted]" if message.interrupted else "")
            if _has_text(part.text):
                blocks.append({"type": "text", "text": text})
        elif isinstance(part, ThinkingPart):
            if part.provider == provider and part.signature:
                if part.redacted:
                    blocks.append({"type": "redacted_thinking", "data": part.signature})
                else:
                    blocks.append(
                        {"type": "thinking", "thinking": part.text, "signature": part.signature}
                    )
            elif _has_text(part.text):
                blocks.append({"type": "text", "text": f"<thinking>\n{part.text}\n</thinking>"})
        elif isinstance(part, ToolCallPart):
            if not part.hosted:
                arguments: Any = part.arguments
                if arguments is None:
                    arguments = {}
                blocks.append(
                    {"type": "tool_use", "id": part.id, "name": part.name, "input": arguments}
                )
            elif part.provider == provider:
                blocks.append(
                    {
                        "type": "server_tool_use",
                        "id": part.id,
                        "name": part.name,
                        "input": part.arguments or {},
                    }
                )
        elif isinstance(part, HostedToolResultPart):
            if part.provider == provider and isinstance(part.content, dict):
                blocks.append(dict(part.content))
        elif part.provider == provider and isinstance(part.data, dict):
            blocks.append(dict(part.data))
    return blocks


def _messages(
    messages: Sequence[Message], provider: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    system: list[dict[str, Any]] = []
    out: list[dict[str, Any]] = []

    def push(role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})

    for message in messages:
        if isinstance(message, SystemMessage):
            if _has_text(message.content):
                system.append({"type": "text", "text": message.content})
        elif isinstance(message, UserMessage):
            push("user", _user_blocks(message.parts))
        elif isinstance(message, ToolResultMessage):
            push("user", _tool_result_blocks(message))
        else:
            push("assistant", _assistant_blocks(message, provider))
    return system, out


def _tool_entry(defn: ToolDefinition) -> dict[str, Any]:
    projected = project_tool(defn, VendorPolicy.ANTHROPIC)
    if isinstance(projected, Rejected):
        raise ConfigurationError(
            f"tool {defn.name!r} cannot be offered to anthropic: {projected.reason}"
        )
    entry: dict[str, Any] = {
        "name": projected.name,
        "description": projected.description,
        "input_schema": dict(projected.parameters),
    }
    if projected.strict is not None:
        entry["strict"] = projected.strict
    return entry


def _tool_choice(request: ModelRequest, has_tools: bool) -> dict[str, Any] | None:
    settings = request.settings
    choice = settings.tool_choice
    result: dict[str, Any] | None
    if choice is None or choice == "auto":
        result = {"type": "auto"} if has_tools else None
    elif choice == "none":
        result = {"type": "none"} if has_tools else None
    elif choice == "required":
        result = {"type": "any"}
    elif isinstance(choice, ToolChoiceName):
        result = {"type": "tool", "name": choice.name}
    else:
        result = None
    if settings.parallel_tool_calls is False and result is not None and result["type"] != "none":
        result["disable_parallel_tool_use"] = True
    return result


def _check_settings(request: ModelRequest) -> None:
    settings = request.settings
    if settings.seed is not None:
        raise UnsupportedSettingError(
            "anthropic has no sampling seed", setting="seed", model=request.model
        )
    tier = settings.service_tier
    if tier is not None and tier not in _SERVICE_TIERS:
        raise UnsupportedSettingError(
            f"anthropic service_tier accepts auto or default, not {tier!r}",
            setting="service_tier",
            model=request.model,
        )


def build_request(
    request: ModelRequest,
    *,
    provider: str,
    default_max_tokens: int,
    cache_breakpoints: frozenset[CacheBreakpoint],
    hosted_tools: frozenset[HostedTool] | None = None,
) -> BuiltRequest:
    """Translate ``request`` into an Anthropic request body.

    Args:
        request: The neutral request.
        provider: This provider's name (decides which thinking/hosted parts are sent back
            verbatim and which ``extra_body`` tag is read).
        default_max_tokens: ``max_tokens`` when the settings set none (the API requires it).
        cache_breakpoints: Where to put ``cache_control`` markers.
        hosted_tools: Hosted tools this provider instance allows (None: all known).

    Raises:
        UnsupportedSettingError: for ``seed`` or a service tier Anthropic lacks.
        UnsupportedCapabilityError: for a hosted tool not available, audio/binary media, a
            JSON-mode output request, or native output on a model stated not to support it.
        ConfigurationError: for a tool schema the projection rejects.
    """
    _check_settings(request)
    settings = request.settings
    spec = spec_for(request.model)
    system, messages = _messages(request.messages, provider)
    betas: list[str] = []

    tools = [_tool_entry(t) for t in request.tools] if settings.tool_choice != "none" else []
    allowed = hosted_tools if hosted_tools is not None else frozenset(HOSTED_TOOL_SPECS)
    for hosted in sorted(request.hosted_tools):
        if hosted not in allowed or hosted not in HOSTED_TOOL_SPECS:
            raise UnsupportedCapabilityError(
                f"hosted tool {hosted.value!r} is not available on this anthropic provider"
            )
        entry, beta = HOSTED_TOOL_SPECS[hosted]
        tools.append(dict(entry))
        if beta:
            betas.append(beta)

    plan = resolve_effort(
        settings.reasoning_effort,
        spec,
        max_tokens=settings.max_tokens,
        default_max_tokens=default_max_tokens,
    )
    body: dict[str, Any] = {
        "model": request.model,
        "max_tokens": plan.max_tokens,
        "messages": messages,
    }
    if system:
        body["system"] = system
    if tools:
        body["tools"] = tools
    choice = _tool_choice(request, bool(tools))
    if choice is not None:
        body["tool_choice"] = choice
    if plan.thinking is not None:
        body["thinking"] = dict(plan.thinking)
    output_config: dict[str, Any] = {}
    if plan.output_effort is not None:
        output_config["effort"] = plan.output_effort
    if request.output is not None:
        transport = request.output.transport
        if transport == StructuredOutputTransport.JSON_MODE:
            raise UnsupportedCapabilityError("anthropic has no JSON mode; use native or prompted")
        if transport == StructuredOutputTransport.NATIVE:
            if spec is not None and not spec.native_structured_output:
                raise UnsupportedCapabilityError(
                    f"{request.model} does not support native structured output"
                )
            output_config["format"] = {
                "type": "json_schema",
                "schema": dict(request.output.schema),
            }
    if output_config:
        body["output_config"] = output_config
    if settings.temperature is not None:
        body["temperature"] = settings.temperature
    if settings.top_p is not None:
        body["top_p"] = settings.top_p
    if settings.stop:
        body["stop_sequences"] = list(settings.stop)
    if settings.service_tier is not None:
        body["service_tier"] = _SERVICE_TIERS[settings.service_tier]
    _mark_cache(body, cache_breakpoints)
    if settings.extra_body and provider in settings.extra_body:
        body.update(settings.extra_body[provider])
    return BuiltRequest(
        body=body,
        betas=tuple(betas),
        extra_headers=dict(settings.extra_headers or {}),
        timeout=settings.timeout,
        effort=plan.resolution,
    )


def _mark_cache(body: dict[str, Any], where: frozenset[CacheBreakpoint]) -> None:
    if "system" in where and body.get("system"):
        body["system"][-1]["cache_control"] = dict(_EPHEMERAL)
    if "tools" in where and body.get("tools"):
        body["tools"][-1]["cache_control"] = dict(_EPHEMERAL)
    if "history" in where:
        for message in reversed(body["messages"]):
            if message["role"] == "user":
                last = message["content"][-1]
                if last.get("type") in ("text", "image", "document", "tool_result"):
                    last["cache_control"] = dict(_EPHEMERAL)
                break


def payload_json(body: Mapping[str, Any]) -> Any:
    """A JSON-safe copy of ``body`` for :class:`PayloadEvent` (round-trips through json)."""
    return json.loads(json.dumps(body))
