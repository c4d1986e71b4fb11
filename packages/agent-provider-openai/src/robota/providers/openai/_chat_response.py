"""Chat Completions response / stream chunks → neutral response (one direction, one module).

Source: https://platform.openai.com/docs/api-reference/chat/object and
https://platform.openai.com/docs/api-reference/chat-streaming. Reasoning text from compatible
servers is read from ``reasoning_content`` (DeepSeek, vLLM, llama.cpp) or ``reasoning``
(OpenRouter, Ollama, Groq, Cerebras).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from robota.core.errors import MalformedResponseError
from robota.core.messages import (
    AssistantMessage,
    FinishReason,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from robota.core.provider import (
    EffortResolution,
    ModelResponse,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from robota.core.usage import Usage
from robota.providers.openai._common import parse_arguments
from robota.providers.openai._usage import chat_usage

__all__ = ["ChatStreamAssembler", "decode_chat_completion", "normalize_finish_reason"]

_FINISH: Mapping[str, FinishReason] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "content_filter": "content_filter",
}


def normalize_finish_reason(raw: str | None) -> FinishReason:
    """Map OpenAI's ``finish_reason`` onto the neutral set (unknown or missing → ``other``)."""
    return _FINISH.get(raw or "", "other")


def _reasoning_text(fields: Mapping[str, Any]) -> str:
    for key in ("reasoning_content", "reasoning"):
        value = fields.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def decode_chat_completion(
    data: Mapping[str, Any],
    *,
    provider: str,
    request_id: str | None = None,
    effort: EffortResolution | None = None,
) -> ModelResponse:
    """Decode a buffered ``chat.completion`` object.

    Raises:
        MalformedResponseError: when the body has no ``choices``.
    """
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise MalformedResponseError(
            "chat completion has no choices", provider=provider, request_id=request_id
        )
    choice: Mapping[str, Any] = choices[0]
    message: Mapping[str, Any] = choice.get("message") or {}
    parts: list[TextPart | ThinkingPart | ToolCallPart] = []
    reasoning = _reasoning_text(message)
    if reasoning:
        parts.append(ThinkingPart(text=reasoning, provider=provider))
    content = message.get("content")
    if isinstance(content, str) and content:
        parts.append(TextPart(text=content))
    refusal = message.get("refusal")
    if isinstance(refusal, str) and refusal and not content:
        parts.append(TextPart(text=refusal))
    for call in message.get("tool_calls") or []:
        function: Mapping[str, Any] = call.get("function") or {}
        arguments, raw = parse_arguments(function.get("arguments"))
        parts.append(
            ToolCallPart(
                id=str(call.get("id") or ""),
                name=str(function.get("name") or ""),
                arguments=arguments,
                raw_arguments=raw,
            )
        )
    raw_finish = choice.get("finish_reason")
    return _response(
        parts,
        data,
        raw_finish if isinstance(raw_finish, str) else None,
        chat_usage(data.get("usage")),
        provider=provider,
        request_id=request_id,
        effort=effort,
    )


def _response(
    parts: list[TextPart | ThinkingPart | ToolCallPart],
    data: Mapping[str, Any],
    raw_finish: str | None,
    usage: Usage,
    *,
    provider: str,
    request_id: str | None,
    effort: EffortResolution | None,
) -> ModelResponse:
    finish = normalize_finish_reason(raw_finish)
    model = str(data.get("model") or "")
    response_id = data.get("id")
    message = AssistantMessage(
        parts=tuple(parts),
        model=model,
        provider=provider,
        usage=usage,
        finish_reason=finish,
        raw_finish_reason=raw_finish,
        response_id=str(response_id) if response_id is not None else None,
    )
    return ModelResponse(
        message=message,
        usage=usage,
        finish_reason=finish,
        raw_finish_reason=raw_finish,
        model=model,
        request_id=request_id,
        effort=effort,
    )


@dataclass(kw_only=True, slots=True)
class _Call:
    id: str = ""
    name: str = ""
    arguments: str = ""
    saw_null: bool = True


@dataclass(kw_only=True, slots=True)
class ChatStreamAssembler:
    """Folds ``chat.completion.chunk`` objects into deltas and a final response.

    Parallel tool calls are kept apart by the chunk's ``tool_calls[].index``; text and reasoning
    keep their arrival order relative to each other.
    """

    provider: str
    _parts: list[TextPart | ThinkingPart | ToolCallPart] = field(default_factory=lambda: [])
    _text: list[str] = field(default_factory=lambda: [])
    _thinking: list[str] = field(default_factory=lambda: [])
    _calls: dict[int, _Call] = field(default_factory=lambda: {})
    _finish: str | None = None
    _usage: object = None
    _head: dict[str, Any] = field(default_factory=lambda: {})
    _last: str = ""

    def feed(self, chunk: Mapping[str, Any]) -> list[StreamEvent]:
        """Consume one chunk; return the deltas it carries."""
        for key in ("id", "model"):
            if chunk.get(key) and key not in self._head:
                self._head[key] = chunk[key]
        if chunk.get("usage") is not None:
            self._usage = chunk["usage"]
        events: list[StreamEvent] = []
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, Mapping) or choice.get("index", 0) != 0:
                continue
            picked: Mapping[str, Any] = choice
            delta: Mapping[str, Any] = picked.get("delta") or {}
            reasoning = _reasoning_text(delta)
            if reasoning:
                self._switch("thinking")
                self._thinking.append(reasoning)
                events.append(ThinkingDelta(text=reasoning))
            content = delta.get("content")
            if isinstance(content, str) and content:
                self._switch("text")
                self._text.append(content)
                events.append(TextDelta(text=content))
            for raw_call in delta.get("tool_calls") or []:
                events.append(self._tool_delta(raw_call))
            if picked.get("finish_reason"):
                self._finish = str(picked["finish_reason"])
        return events

    def _tool_delta(self, raw_call: Mapping[str, Any]) -> ToolCallDelta:
        self._switch("tool")
        index = int(raw_call.get("index") or 0)
        call = self._calls.setdefault(index, _Call())
        function: Mapping[str, Any] = raw_call.get("function") or {}
        if raw_call.get("id"):
            call.id = str(raw_call["id"])
        if function.get("name"):
            call.name += str(function["name"]) if not call.name else ""
        fragment = function.get("arguments")
        if isinstance(fragment, str):
            call.arguments += fragment
            call.saw_null = False
        return ToolCallDelta(
            index=index,
            id=str(raw_call["id"]) if raw_call.get("id") else None,
            name=str(function["name"]) if function.get("name") else None,
            arguments_delta=fragment if isinstance(fragment, str) else "",
        )

    def _switch(self, kind: str) -> None:
        if kind == self._last:
            return
        self._flush()
        self._last = kind

    def _flush(self) -> None:
        if self._thinking:
            self._parts.append(ThinkingPart(text="".join(self._thinking), provider=self.provider))
            self._thinking.clear()
        if self._text:
            self._parts.append(TextPart(text="".join(self._text)))
            self._text.clear()

    def finish(
        self, *, request_id: str | None = None, effort: EffortResolution | None = None
    ) -> ModelResponse:
        """The assembled response after the last chunk."""
        self._flush()
        parts = list(self._parts)
        for index in sorted(self._calls):
            call = self._calls[index]
            arguments, raw = parse_arguments(None if call.saw_null else call.arguments)
            parts.append(
                ToolCallPart(id=call.id, name=call.name, arguments=arguments, raw_arguments=raw)
            )
        usage = chat_usage(self._usage)
        return _response(
            parts,
            self._head,
            self._finish,
            usage,
            provider=self.provider,
            request_id=request_id,
            effort=effort,
        )
