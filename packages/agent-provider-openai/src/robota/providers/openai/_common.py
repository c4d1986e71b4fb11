"""Shared request checks and small encoders used by both OpenAI API surfaces."""

from __future__ import annotations

import base64
import json
import secrets
from collections.abc import Generator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, cast

from robota.core.capabilities import ModelInfo
from robota.core.errors import (
    ConfigurationError,
    MalformedResponseError,
    UnsupportedSettingError,
)
from robota.core.messages import MediaPart, ToolResultPart
from robota.core.provider import ModelRequest, ToolDefinition
from robota.core.schema import Rejected, VendorPolicy, project_tool
from robota.core.settings import ModelSettings

__all__ = [
    "arguments_text",
    "as_list",
    "as_mapping",
    "check_settings",
    "data_url",
    "decoding",
    "is_text_document",
    "mint_call_id",
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


def arguments_text(raw: object) -> str | None:
    """A tool call's ``arguments`` as wire text: a string as sent, any other JSON value (an
    object some compatible servers send instead of its text) as its JSON text, None for null.
    The buffered and the streamed decoders both read arguments through this.

    Example:
        >>> arguments_text('{"a": 1}'), arguments_text({"a": 1}), arguments_text(None)
        ('{"a": 1}', '{"a": 1}', None)
    """
    if raw is None:
        return None
    if isinstance(raw, str):
        return raw
    try:
        return json.dumps(raw, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(raw)


def parse_arguments(raw: object) -> tuple[dict[str, Any] | None, str]:
    """(parsed arguments, raw string) of a tool call.

    Null or empty arguments mean "no arguments" (``{}``, raw ``""``) — Ollama, vLLM and
    llama.cpp send them for argument-less tools. A JSON object sent as an object rather than as
    its text is read as that object (raw: its JSON text, see :func:`arguments_text`). A string
    that is not a JSON object yields ``None`` with the raw text kept, so the agent can ask the
    model to repair it.

    Example:
        >>> parse_arguments(None), parse_arguments('{"a": 1}'), parse_arguments("{bad")
        (({}, ''), ({'a': 1}, '{"a": 1}'), (None, '{bad'))
        >>> parse_arguments({"a": 1})
        ({'a': 1}, '{"a": 1}')
    """
    text = arguments_text(raw)
    if text is None:
        return {}, ""
    if isinstance(raw, Mapping):
        return dict(cast(Mapping[str, Any], raw)), text
    if not text.strip():
        return {}, text
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None, text
    if isinstance(value, dict):
        parsed: dict[str, Any] = value
        return parsed, text
    return None, text


def mint_call_id(position: int) -> str:
    """A stable, unique id for a tool call that arrived without one (some compatible servers
    send none): ``call_robota_<position>_<12 random hex digits>``. It is sent back as the call's
    id and its result's ``tool_call_id`` (``call_id`` on Responses), so results pair with calls
    (the Gemini adapter synthesizes its ids the same way).

    Example:
        >>> mint_call_id(1).startswith("call_robota_1_"), len(mint_call_id(0))
        (True, 26)
    """
    return f"call_robota_{position}_{secrets.token_hex(6)}"


def as_mapping(value: object) -> Mapping[str, Any]:
    """``value`` when it is a JSON object, else an empty one (a decoder reads whatever shape a
    server sent without raising ``AttributeError``; required fields are checked explicitly).

    Example:
        >>> as_mapping({"a": 1}), as_mapping([1]), as_mapping(None)
        ({'a': 1}, {}, {})
    """
    if type(value) is dict or isinstance(value, Mapping):  # a dict first: the usual, and cheap
        return cast(Mapping[str, Any], value)
    return {}


def as_list(value: object) -> list[Any]:
    """``value`` when it is a JSON array, else an empty one.

    Example:
        >>> as_list([1]), as_list("ab"), as_list(None)
        ([1], [], [])
    """
    if isinstance(value, list):
        return cast(list[Any], value)
    return []


@contextmanager
def decoding(provider: str, api: str, request_id: str | None) -> Generator[None]:
    """Turn a decoder's surprise at a body's shape (``KeyError``, ``TypeError``,
    ``AttributeError``, ``ValueError``, ``IndexError``) into a
    :class:`~robota.core.errors.MalformedResponseError`, so no Python error escapes a provider
    for a body a server sent (the decoders check required fields themselves; this is the net).

    Example:
        >>> with decoding("p", "a", None):
        ...     {}["choices"]
        Traceback (most recent call last):
        ...
        robota.core.errors.MalformedResponseError: p a: unexpected response shape (KeyError: 'choices')
    """
    try:
        yield
    except (AttributeError, IndexError, KeyError, TypeError, ValueError) as error:
        raise MalformedResponseError(
            f"{provider} {api}: unexpected response shape ({type(error).__name__}: {error})",
            provider=provider,
            api=api,
            request_id=request_id,
        ) from error
