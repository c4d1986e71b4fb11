"""Messages and parts: the provider-neutral conversation (seed 000, "Conversation History
Principles", "Provider Tool-Call ID Ownership"; seed 002, "Model contract").

A conversation is a sequence of :data:`Message` values:

- :class:`SystemMessage` — the system prompt (one head message, replaceable live).
- :class:`UserMessage` — text and media parts from the user.
- :class:`AssistantMessage` — text, thinking, tool calls and provider details from the model;
  only assistant messages may be ``interrupted``.
- :class:`ToolResultMessage` — the results of one batch of tool calls, in call order.

All values are frozen dataclasses. :func:`dump_messages` / :func:`load_messages` give a
versioned JSON round-trip (binary content base64-encoded) through a pydantic ``TypeAdapter``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from robota.core.usage import Usage
from typing_extensions import TypeAliasType

if TYPE_CHECKING:
    from pydantic import TypeAdapter

__all__ = [
    "MESSAGES_FORMAT_VERSION",
    "AssistantMessage",
    "AssistantPart",
    "FinishReason",
    "HostedToolResultPart",
    "JsonValue",
    "MediaKind",
    "MediaPart",
    "Message",
    "ProviderDetailsPart",
    "SystemMessage",
    "TextPart",
    "ThinkingPart",
    "ToolCallPart",
    "ToolResultMessage",
    "ToolResultPart",
    "UserMessage",
    "UserPart",
    "dump_messages",
    "load_messages",
    "text_of",
]

if TYPE_CHECKING:
    JsonValue: TypeAlias = (
        bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"] | None
    )
else:
    JsonValue = TypeAliasType(
        "JsonValue", "bool | int | float | str | list[JsonValue] | dict[str, JsonValue] | None"
    )
"""Any JSON value."""

MediaKind = Literal["image", "audio", "document", "binary"]
"""The kinds of media a part can carry."""

FinishReason = Literal["stop", "length", "tool_calls", "content_filter", "other"]
"""Why the model stopped, normalized across vendors; the raw vendor reason is kept apart."""


@dataclass(frozen=True, kw_only=True, slots=True)
class TextPart:
    """Plain text.

    Attributes:
        text: The text.
    """

    kind: Literal["text"] = "text"
    text: str


@dataclass(frozen=True, kw_only=True, slots=True)
class MediaPart:
    """An image, audio clip, document or other binary, given inline (``data``) or by ``url``.

    Exactly one of ``data`` and ``url`` is set. Bytes are base64-encoded only at the wire (and in
    the JSON form of a conversation).

    Attributes:
        media_kind: ``image``, ``audio``, ``document`` or ``binary``.
        media_type: IANA media type, e.g. ``image/png``, ``application/pdf``.
        data: The raw bytes, when inline.
        url: Where the provider (not Robota) fetches the content, when by reference.
        name: Optional file name shown to the model.

    Raises:
        ValueError: if neither or both of ``data`` and ``url`` are set.
    """

    kind: Literal["media"] = "media"
    media_kind: MediaKind
    media_type: str
    data: bytes | None = None
    url: str | None = None
    name: str | None = None

    def __post_init__(self) -> None:
        if (self.data is None) == (self.url is None):
            raise ValueError("MediaPart needs exactly one of data= or url=")


@dataclass(frozen=True, kw_only=True, slots=True)
class ThinkingPart:
    """The model's reasoning, kept so it can be sent back (thinking round-trip).

    Attributes:
        text: Reasoning text (may be a summary, or empty when the vendor only returns an
            encrypted form).
        signature: The vendor's signature / encrypted content proving the reasoning, sent back
            verbatim (Anthropic ``signature``, Gemini ``thought_signature``, OpenAI
            ``encrypted_content``).
        redacted: True for redacted thinking (Anthropic ``redacted_thinking``): ``signature``
            then holds the opaque ``data``.
        provider: Name of the provider that produced the signature; another provider cannot
            verify it and receives the text only.
        id: The vendor's id for the reasoning item, if any (OpenAI Responses).
    """

    kind: Literal["thinking"] = "thinking"
    text: str = ""
    signature: str | None = None
    redacted: bool = False
    provider: str | None = None
    id: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCallPart:
    """A tool call requested by the model.

    Attributes:
        id: The provider's call id: an opaque transcript token linking the call to its result.
            Not unique across a conversation; never minted or rewritten by Robota.
        name: Tool name as the model sent it (may name no registered tool).
        arguments: Parsed arguments (a JSON object), or None when ``raw_arguments`` does not
            parse as a JSON object.
        raw_arguments: The argument string exactly as received ("" when the vendor sent none).
        hosted: True for a call to a tool the vendor runs itself (web search, code execution);
            such calls are recorded but never dispatched locally.
        signature: A vendor signature attached to the call (Gemini thought signature on a
            function call), sent back verbatim.
        provider: Name of the provider that produced ``signature``.
    """

    kind: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: dict[str, JsonValue] | None
    raw_arguments: str = ""
    hosted: bool = False
    signature: str | None = None
    provider: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class HostedToolResultPart:
    """The result of a vendor-hosted tool call, as the vendor returned it.

    Attributes:
        call_id: The id of the :class:`ToolCallPart` (``hosted=True``) it answers.
        name: Hosted tool name.
        content: The vendor's result payload (JSON), kept for replay.
        provider: The provider that ran the tool.
    """

    kind: Literal["hosted_tool_result"] = "hosted_tool_result"
    call_id: str
    name: str
    content: JsonValue = None
    provider: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class ProviderDetailsPart:
    """Opaque vendor data kept for exact replay (e.g. a Responses item the neutral parts cannot
    express). Only the named provider reads it back.

    Attributes:
        provider: Provider name that wrote it.
        data: The JSON payload.
    """

    kind: Literal["provider_details"] = "provider_details"
    provider: str
    data: JsonValue = None


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolResultPart:
    """The result of one tool call.

    Attributes:
        call_id: The :attr:`ToolCallPart.id` this answers.
        name: The tool name the call used.
        content: Text and media parts the model will see.
        is_error: True when the call failed (the content explains why).
    """

    kind: Literal["tool_result"] = "tool_result"
    call_id: str
    name: str
    content: tuple[TextPart | MediaPart, ...] = ()
    is_error: bool = False

    @property
    def text(self) -> str:
        """All text content joined by newlines."""
        return "\n".join(p.text for p in self.content if isinstance(p, TextPart))


UserPart = Annotated[TextPart | MediaPart, "discriminated by kind"]
AssistantPart = TextPart | ThinkingPart | ToolCallPart | HostedToolResultPart | ProviderDetailsPart


@dataclass(frozen=True, kw_only=True, slots=True)
class SystemMessage:
    """The system prompt.

    Attributes:
        content: The prompt text.
    """

    kind: Literal["system"] = "system"
    content: str


@dataclass(frozen=True, kw_only=True, slots=True)
class UserMessage:
    """A user turn.

    Attributes:
        parts: Text and media parts.
    """

    kind: Literal["user"] = "user"
    parts: tuple[TextPart | MediaPart, ...]

    @classmethod
    def of(cls, text: str) -> UserMessage:
        """A user message holding one text part."""
        return cls(parts=(TextPart(text=text),))


@dataclass(frozen=True, kw_only=True, slots=True)
class AssistantMessage:
    """A model turn.

    Attributes:
        parts: Text, thinking, tool calls, hosted tool results and provider details in the
            order the model produced them.
        interrupted: True when the response was cut short by cancellation; the text is annotated
            when sent back to a model.
        model: The model that actually answered.
        provider: The provider name that answered.
        usage: Token usage of the request that produced this message.
        finish_reason: Normalized finish reason, if the response finished.
        raw_finish_reason: The vendor's own finish reason string.
        response_id: The vendor's response id, if any.
    """

    kind: Literal["assistant"] = "assistant"
    parts: tuple[
        TextPart | ThinkingPart | ToolCallPart | HostedToolResultPart | ProviderDetailsPart, ...
    ] = ()
    interrupted: bool = False
    model: str | None = None
    provider: str | None = None
    usage: Usage | None = None
    finish_reason: FinishReason | None = None
    raw_finish_reason: str | None = None
    response_id: str | None = None

    @property
    def text(self) -> str:
        """All text parts concatenated."""
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def tool_calls(self) -> tuple[ToolCallPart, ...]:
        """The locally dispatchable tool calls (``hosted=False``), in order."""
        return tuple(p for p in self.parts if isinstance(p, ToolCallPart) and not p.hosted)


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolResultMessage:
    """Results of one batch of tool calls, in the order the calls were made.

    Attributes:
        results: One :class:`ToolResultPart` per call.
    """

    kind: Literal["tool_results"] = "tool_results"
    results: tuple[ToolResultPart, ...] = field(default=())


Message = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage
"""Any conversation message (discriminated by ``kind``)."""

MESSAGES_FORMAT_VERSION = 1
"""Version of the JSON form written by :func:`dump_messages`."""


def text_of(parts: Sequence[object]) -> str:
    """Concatenate the text of every :class:`TextPart` in ``parts``."""
    return "".join(p.text for p in parts if isinstance(p, TextPart))


@cache
def _adapter() -> TypeAdapter[list[Message]]:
    from pydantic import ConfigDict, Field, TypeAdapter

    return TypeAdapter(
        list[Annotated[Message, Field(discriminator="kind")]],
        config=ConfigDict(ser_json_bytes="base64", val_json_bytes="base64"),
    )


def dump_messages(messages: Sequence[Message]) -> bytes:
    """Serialize messages to versioned JSON: ``{"version": 1, "messages": [...]}``.

    Binary media is base64-encoded. Raises ``pydantic.ValidationError`` for values that are not
    messages.
    """
    body = _adapter().dump_json(list(messages))
    return b'{"version":%d,"messages":%s}' % (MESSAGES_FORMAT_VERSION, body)


def load_messages(data: bytes | str) -> list[Message]:
    """Parse JSON written by :func:`dump_messages`.

    Raises:
        ValueError: on an unknown version or a document that is not a message list
            (``pydantic.ValidationError`` is a ``ValueError``).
    """
    document: Any = json.loads(data)
    if not isinstance(document, dict) or document.get("version") != MESSAGES_FORMAT_VERSION:
        raise ValueError(
            f"unsupported messages document (expected version {MESSAGES_FORMAT_VERSION})"
        )
    return _adapter().validate_json(json.dumps(document["messages"]))
