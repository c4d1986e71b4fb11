"""Neutral request → Gemini ``generateContent`` request (one direction of translation).

Rules (Gemini API reference, https://ai.google.dev/api/generate-content, read 2026-11-30):

- The system prompt becomes ``systemInstruction``; user turns and tool results are ``role: user``
  contents, assistant turns ``role: model``.
- Tool calls become ``functionCall`` parts; results become ``functionResponse`` parts whose
  ``response`` is ``{"output": text}`` (or ``{"error": text}`` when the result is an error), as the
  reference recommends. Media in a tool result follows as inline/file parts in the same content.
- Call ids: a vendor-given ``functionCall.id`` is sent back verbatim. When Gemini gave none, the
  response side synthesized an opaque id starting with :data:`SYNTHETIC_ID_PREFIX`; such ids are
  never put on the wire — Gemini matches results to calls by name and order.
- Thought signatures (bytes, base64 on the wire) are sent back on the part they came with:
  a Google :class:`ThinkingPart` with text → ``{text, thought: true, thoughtSignature}``; a Google
  thinking part with empty text carries the signature of the *next* text or function-call part
  (this is how a signature that Gemini put on a plain text part is kept in neutral form).
  Thinking from another provider is sent as ``thought: true`` text without a signature.
- Hosted code execution round-trips as ``executableCode`` / ``codeExecutionResult`` parts; web
  search and URL context results are grounding metadata, not parts, and are not sent back.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from typing import Any

from robota.core.capabilities import HostedTool, StructuredOutputTransport
from robota.core.errors import ConfigurationError
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
from robota.core.provider import ModelRequest, ToolDefinition
from robota.core.schema import Rejected, VendorPolicy, project_tool
from robota.core.settings import ToolChoiceName

from google.genai import types

__all__ = [
    "PROVIDER_NAME",
    "SYNTHETIC_ID_PREFIX",
    "build_config",
    "build_contents",
    "build_tools",
    "decode_signature",
    "encode_signature",
]

PROVIDER_NAME = "google"
SYNTHETIC_ID_PREFIX = "gemini-call-"
"""Prefix of call ids this provider made up because Gemini sent none (never sent back)."""


def encode_signature(raw: bytes) -> str:
    """Bytes of a thought signature → the standard-base64 text Gemini sends on the wire."""
    return base64.b64encode(raw).decode("ascii")


def decode_signature(text: str) -> bytes:
    """Base64 text (standard or URL-safe alphabet) → signature bytes.

    Raises:
        ConfigurationError: when ``text`` is not base64 (a signature from elsewhere).
    """
    padded = text + "=" * (-len(text) % 4)
    try:
        if "-" in text or "_" in text:
            return base64.urlsafe_b64decode(padded)
        return base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ConfigurationError(f"thought signature is not base64: {exc}") from exc


def _media(part: MediaPart) -> types.Part:
    if part.data is not None:
        return types.Part(inline_data=types.Blob(data=part.data, mime_type=part.media_type))
    return types.Part(
        file_data=types.FileData(file_uri=part.url, mime_type=part.media_type or None)
    )


def _user(parts: Sequence[TextPart | MediaPart]) -> list[types.Part]:
    return [types.Part(text=p.text) if isinstance(p, TextPart) else _media(p) for p in parts]


def _call_id(call_id: str) -> str | None:
    return None if call_id.startswith(SYNTHETIC_ID_PREFIX) else call_id


def _hosted_call(part: ToolCallPart) -> types.Part | None:
    if part.provider != PROVIDER_NAME or part.name != HostedTool.CODE_EXECUTION:
        return None
    args: Mapping[str, Any] = part.arguments or {}
    return types.Part(
        executable_code=types.ExecutableCode(
            code=str(args.get("code", "")), language=types.Language(args.get("language", "PYTHON"))
        )
    )


def _hosted_result(part: HostedToolResultPart) -> types.Part | None:
    content = part.content
    if (
        part.provider != PROVIDER_NAME
        or part.name != HostedTool.CODE_EXECUTION
        or not isinstance(content, dict)
    ):
        return None
    return types.Part(
        code_execution_result=types.CodeExecutionResult(
            outcome=types.Outcome(str(content.get("outcome", "OUTCOME_OK"))),
            output=str(content.get("output") or "") or None,
        )
    )


def _assistant(message: AssistantMessage) -> list[types.Part]:
    out: list[types.Part] = []
    pending: bytes | None = None
    for part in message.parts:
        if isinstance(part, ThinkingPart):
            own = part.provider == PROVIDER_NAME and part.signature is not None
            if own and not part.text:
                pending = decode_signature(part.signature or "")
            elif part.text:
                sig = decode_signature(part.signature or "") if own else None
                out.append(types.Part(text=part.text, thought=True, thought_signature=sig))
        elif isinstance(part, TextPart):
            out.append(types.Part(text=part.text, thought_signature=pending))
            pending = None
        elif isinstance(part, ToolCallPart):
            if part.hosted:
                hosted = _hosted_call(part)
                if hosted is not None:
                    out.append(hosted)
                continue
            sig = pending
            if part.provider == PROVIDER_NAME and part.signature is not None:
                sig = decode_signature(part.signature)
            pending = None
            out.append(
                types.Part(
                    function_call=types.FunctionCall(
                        id=_call_id(part.id), name=part.name, args=dict(part.arguments or {})
                    ),
                    thought_signature=sig,
                )
            )
        elif isinstance(part, HostedToolResultPart):
            result = _hosted_result(part)
            if result is not None:
                out.append(result)
        elif part.provider == PROVIDER_NAME and isinstance(part.data, dict):
            raw = part.data.get("part")
            if isinstance(raw, dict):
                out.append(types.Part.model_validate(raw))
    if pending is not None:
        out.append(types.Part(text="", thought_signature=pending))
    return out


def _tool_results(message: ToolResultMessage) -> list[types.Part]:
    out: list[types.Part] = []
    media: list[types.Part] = []
    for result in message.results:
        key = "error" if result.is_error else "output"
        out.append(
            types.Part(
                function_response=types.FunctionResponse(
                    id=_call_id(result.call_id), name=result.name, response={key: result.text}
                )
            )
        )
        media.extend(_media(p) for p in result.content if isinstance(p, MediaPart))
    return out + media


def build_contents(
    messages: Sequence[Message],
) -> tuple[list[types.Content], types.Content | None]:
    """Translate the conversation.

    Returns:
        ``(contents, system_instruction)``; empty turns are dropped.
    """
    contents: list[types.Content] = []
    system: types.Content | None = None
    for message in messages:
        if isinstance(message, SystemMessage):
            system = types.Content(role="user", parts=[types.Part(text=message.content)])
            continue
        if isinstance(message, UserMessage):
            role, parts = "user", _user(message.parts)
        elif isinstance(message, AssistantMessage):
            role, parts = "model", _assistant(message)
        else:
            role, parts = "user", _tool_results(message)
        if parts:
            contents.append(types.Content(role=role, parts=parts))
    return contents, system


def project(tool: ToolDefinition) -> ToolDefinition:
    """Project a tool for Gemini's ``parametersJsonSchema``.

    ``parametersJsonSchema`` takes JSON Schema (``$ref``/``$defs``, ``additionalProperties``,
    ``const``, null unions — Gemini API reference, ``FunctionDeclaration``, read 2026-11-30), so
    the projection uses :attr:`VendorPolicy.OPENAI` (plain JSON Schema), as
    ``robota.core.schema.projection`` advises for this field, not the OpenAPI-subset
    :attr:`VendorPolicy.GEMINI` that the legacy ``parameters`` field needs.

    Raises:
        ConfigurationError: when the projection rejects the schema (before any I/O).
    """
    projected = project_tool(tool, VendorPolicy.OPENAI)
    if isinstance(projected, Rejected):
        raise ConfigurationError(
            f"tool {tool.name!r} cannot be offered to Gemini: {projected.reason}"
        )
    return projected


def build_tools(request: ModelRequest) -> list[types.Tool]:
    tools: list[types.Tool] = []
    if request.tools:
        tools.append(
            types.Tool(
                function_declarations=[
                    types.FunctionDeclaration(
                        name=t.name,
                        description=t.description,
                        parameters_json_schema=dict(t.parameters),
                    )
                    for t in map(project, request.tools)
                ]
            )
        )
    if HostedTool.WEB_SEARCH in request.hosted_tools:
        tools.append(types.Tool(google_search=types.GoogleSearch()))
    if HostedTool.WEB_FETCH in request.hosted_tools:
        tools.append(types.Tool(url_context=types.UrlContext()))
    if HostedTool.CODE_EXECUTION in request.hosted_tools:
        tools.append(types.Tool(code_execution=types.ToolCodeExecution()))
    return tools


def _tool_config(request: ModelRequest) -> types.ToolConfig | None:
    choice = request.settings.tool_choice
    if choice is None or not request.tools:
        return None
    if isinstance(choice, ToolChoiceName):
        calling = types.FunctionCallingConfig(
            mode=types.FunctionCallingConfigMode.ANY, allowed_function_names=[choice.name]
        )
    else:
        mode = {
            "auto": types.FunctionCallingConfigMode.AUTO,
            "none": types.FunctionCallingConfigMode.NONE,
            "required": types.FunctionCallingConfigMode.ANY,
        }[choice]
        calling = types.FunctionCallingConfig(mode=mode)
    return types.ToolConfig(function_calling_config=calling)


def build_config(
    request: ModelRequest,
    *,
    system: types.Content | None,
    thinking: types.ThinkingConfig | None,
) -> types.GenerateContentConfig:
    """Build the ``GenerateContentConfig`` (generation config, tools, output, HTTP options).

    ``settings.extra_body["google"]`` is merged into the request body by the SDK
    (``HttpOptions.extra_body``); ``timeout`` seconds become the SDK's milliseconds.
    """
    settings = request.settings
    output = request.output
    mime: str | None = None
    json_schema: Any = None
    if output is not None and output.transport is StructuredOutputTransport.NATIVE:
        mime, json_schema = "application/json", dict(output.schema)
    elif output is not None and output.transport is StructuredOutputTransport.JSON_MODE:
        mime = "application/json"
    extra = (settings.extra_body or {}).get(PROVIDER_NAME)
    http = types.HttpOptions(
        headers=dict(settings.extra_headers) if settings.extra_headers else None,
        timeout=round(settings.timeout * 1000) if settings.timeout is not None else None,
        extra_body=dict(extra) if extra else None,
        retry_options=types.HttpRetryOptions(attempts=1),
    )
    tools = build_tools(request)
    return types.GenerateContentConfig(
        http_options=http,
        system_instruction=system,
        temperature=settings.temperature,
        top_p=settings.top_p,
        max_output_tokens=settings.max_tokens,
        stop_sequences=list(settings.stop) if settings.stop else None,
        seed=settings.seed,
        response_mime_type=mime,
        response_json_schema=json_schema,
        tools=list[types.ToolUnion](tools) or None,
        tool_config=_tool_config(request),
        thinking_config=thinking,
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
        automatic_continuation=False,
    )
