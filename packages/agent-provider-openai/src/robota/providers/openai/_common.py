"""Shared request checks and small encoders used by both OpenAI API surfaces."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from typing import Any

from robota.core.capabilities import ModelInfo
from robota.core.errors import ConfigurationError, UnsupportedSettingError
from robota.core.messages import MediaPart, ToolResultPart
from robota.core.provider import ModelRequest, ToolDefinition
from robota.core.schema import Rejected, VendorPolicy, project_tool
from robota.core.settings import ModelSettings

__all__ = [
    "check_settings",
    "data_url",
    "is_text_document",
    "parse_arguments",
    "project_tools",
    "tool_result_text",
]

_TEXT_TYPES = (
    "text/",
    "application/json",
    "application/xml",
    "application/x-yaml",
    "application/yaml",
)


def data_url(part: MediaPart) -> str:
    """``part`` as a URL: its own ``url`` or a base64 ``data:`` URL (bytes are encoded only
    here, at the wire)."""
    if part.url is not None:
        return part.url
    assert part.data is not None
    return f"data:{part.media_type};base64,{base64.b64encode(part.data).decode('ascii')}"


def is_text_document(part: MediaPart) -> bool:
    """True for inline documents whose bytes are text (sent to the model as text)."""
    return part.data is not None and part.media_type.startswith(_TEXT_TYPES)


def document_text(part: MediaPart) -> str:
    """An inline text document framed with its name and media type."""
    assert part.data is not None
    label = part.name or "document"
    body = part.data.decode("utf-8", errors="replace")
    return f'<document name="{label}" media_type="{part.media_type}">\n{body}\n</document>'


def tool_result_text(result: ToolResultPart) -> str:
    """The text a tool result shows the model (error results are prefixed)."""
    text = result.text
    return f"Error: {text}" if result.is_error and not text.startswith("Error") else text


def check_settings(request: ModelRequest, info: ModelInfo | None, provider: str) -> None:
    """Refuse settings the model states it does not accept (before any I/O).

    Raises:
        UnsupportedSettingError: when a set field is in the model's ``unsupported_settings``.
    """
    if info is None:
        return
    for name in sorted(request.settings.set_fields() & info.capabilities.unsupported_settings):
        raise UnsupportedSettingError(
            f"{provider}: model {request.model!r} does not accept the {name!r} setting "
            f"(source: {info.source})",
            setting=name,
            model=request.model,
        )


def own_extra_body(settings: ModelSettings, provider: str) -> dict[str, Any]:
    """The provider-only request fields under ``settings.extra_body[provider]``."""
    if settings.extra_body is None:
        return {}
    return dict(settings.extra_body.get(provider, {}))


def project_tools(tools: Sequence[ToolDefinition], *, strict_ok: bool) -> list[ToolDefinition]:
    """Project tool schemas for OpenAI's wire (seed 000, "Tool Schema Projection").

    A tool asking for ``strict`` on a server that accepts strict schemas is projected with
    ``VendorPolicy.OPENAI_STRICT``; every other tool with ``VendorPolicy.OPENAI``.

    Raises:
        ConfigurationError: a tool schema OpenAI cannot accept, before any I/O.
    """
    projected: list[ToolDefinition] = []
    for tool in tools:
        policy = VendorPolicy.OPENAI_STRICT if strict_ok and tool.strict else VendorPolicy.OPENAI
        result = project_tool(tool, policy)
        if isinstance(result, Rejected):
            raise ConfigurationError(
                f"tool {tool.name!r} cannot be sent to OpenAI ({policy}): {result.reason}"
            )
        projected.append(result)
    return projected


def parse_arguments(raw: object) -> tuple[dict[str, Any] | None, str]:
    """(parsed arguments, raw string) of a tool call.

    Null or empty arguments mean "no arguments" (``{}``, raw ``""``) — Ollama, vLLM and
    llama.cpp send them for argument-less tools. A string that is not a JSON object yields
    ``None`` with the raw text kept, so the agent can ask the model to repair it.

    Example:
        >>> parse_arguments(None), parse_arguments('{"a": 1}'), parse_arguments("{bad")
        (({}, ''), ({'a': 1}, '{"a": 1}'), (None, '{bad'))
    """
    if raw is None:
        return {}, ""
    if isinstance(raw, Mapping):
        mapping: Mapping[str, Any] = raw
        return dict(mapping), json.dumps(mapping)
    text = str(raw)
    if not text.strip():
        return {}, text
    try:
        value = json.loads(text)
    except ValueError:
        return None, text
    if isinstance(value, dict):
        parsed: dict[str, Any] = value
        return parsed, text
    return None, text
