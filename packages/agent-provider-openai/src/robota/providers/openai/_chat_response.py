"""Chat Completions response / stream chunks → neutral response (one direction, one module).

Source: https://platform.openai.com/docs/api-reference/chat/object and
https://platform.openai.com/docs/api-reference/chat-streaming. The words of a message or delta
(``content`` as a string or a list of parts, ``refusal``, reasoning text from compatible
servers) are read by :mod:`._chat_content`, the same way on both paths.

What counts as an answer (issue #14; anything else is a
:class:`~robota.core.errors.MalformedResponseError` naming what was missing):

- buffered: a ``choices`` list whose first choice has a ``message`` object and a
  ``finish_reason``;
- streamed: a chunk gave the first choice a ``finish_reason`` **and** the stream ended with
  ``data: [DONE]`` (OpenAI and every named compatible server send it; a
  :class:`~robota.providers.openai.CompatProfile` may state ``stream_ends_with_done=False`` for a
  server that does not);
- ``finish_reason`` ``tool_calls`` (or ``function_call``) with no tool call is not an answer
  (``missing="tool call announced by finish_reason"``): the calls were lost on the way (a
  gateway, a compatible server's tool parser), and the text before them is only a preamble.

Finish reasons map to the neutral set (``stop``, ``length``, ``tool_calls`` — ``function_call``
too —, ``content_filter``; anything else ``other``); the raw reason is kept. A **refusal**
(``message.refusal`` buffered, ``delta.refusal`` streamed) is kept as the answer text on both
paths, and the response finishes ``content_filter`` with the raw reason ``refusal`` (whatever
``finish_reason`` the server sent), so an agent run fails with
:class:`~robota.core.errors.ContentFilterError` instead of answering with the refusal.

Tool calls: a call that arrived without an ``id`` gets a minted one
(:func:`._common.mint_call_id`), so its result pairs with it on the next request. Streamed
deltas are assigned to calls by ``tool_calls[].index``; a delta without an ``index`` belongs to
the call with its ``id`` (a new ``id`` starts a new call), and a delta with neither continues the
call before it. A delta whose ``id`` differs from the one already seen at its ``index`` starts a
new call too. Calls keep their order of arrival. ``arguments`` sent as a JSON object instead of
its text are read as that object on both paths (:func:`._common.arguments_text`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

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
from robota.core.wire import malformed
from robota.providers.openai._chat_content import Words, read_words
from robota.providers.openai._common import (
    arguments_text,
    as_list,
    as_mapping,
    mint_call_id,
    parse_arguments,
)
from robota.providers.openai._usage import chat_usage

__all__ = ["API", "ChatStreamAssembler", "decode_chat_completion", "normalize_finish_reason"]

API = "chat.completions"
"""The API surface name used in records and errors."""

_FINISH: Mapping[str, FinishReason] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "content_filter": "content_filter",
}


def normalize_finish_reason(raw: str | None) -> FinishReason:
    """Map OpenAI's ``finish_reason`` onto the neutral set (unknown or missing → ``other``).

    Example:
        >>> [normalize_finish_reason(r) for r in ("stop", "function_call", "eos", None)]
        ['stop', 'tool_calls', 'other', 'other']
    """
    return _FINISH.get(raw or "", "other")


def decode_chat_completion(
    data: Mapping[str, Any],
    *,
    provider: str,
    request_id: str | None = None,
    effort: EffortResolution | None = None,
) -> ModelResponse:
    """Decode a buffered ``chat.completion`` object.

    Raises:
        MalformedResponseError: when the body has no ``choices``, or its first choice has no
            ``message`` object or no ``finish_reason``.
    """
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise malformed(provider, API, "choices", request_id=request_id)
    choice: Mapping[str, Any] = choices[0]
    raw_message = choice.get("message")
    if not isinstance(raw_message, Mapping):
        raise malformed(provider, API, "a message in choices[0]", request_id=request_id)
    message: Mapping[str, Any] = raw_message
    raw_finish = choice.get("finish_reason")
    if not isinstance(raw_finish, str) or not raw_finish:
        raise malformed(provider, API, "a finish_reason in choices[0]", request_id=request_id)
    words = read_words(message, provider=provider, api=API, request_id=request_id)
    parts: list[TextPart | ThinkingPart | ToolCallPart] = []
    if words.thinking:
        parts.append(ThinkingPart(text=words.thinking, provider=provider))
    if words.text:
        parts.append(TextPart(text=words.text))
    if words.refusal:
        parts.append(TextPart(text=words.refusal))
    for position, raw_call in enumerate(as_list(message.get("tool_calls"))):
        call = as_mapping(raw_call)
        function = as_mapping(call.get("function"))
        arguments, raw = parse_arguments(function.get("arguments"))
        call_id = call.get("id")
        parts.append(
            ToolCallPart(
                id=str(call_id) if call_id else mint_call_id(position),
                name=str(function.get("name") or ""),
                arguments=arguments,
                raw_arguments=raw,
            )
        )
    return _response(
        parts,
        data,
        raw_finish,
        chat_usage(data.get("usage")),
        provider=provider,
        request_id=request_id,
        effort=effort,
        refused=bool(words.refusal),
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
    refused: bool,
) -> ModelResponse:
    finish = normalize_finish_reason(raw_finish)
    if refused:
        finish, raw_finish = "content_filter", "refusal"
    elif finish == "tool_calls" and not any(isinstance(p, ToolCallPart) for p in parts):
        raise malformed(
            provider,
            API,
            "tool call announced by finish_reason",
            detail=f"finish_reason {raw_finish!r} but no tool call arrived",
            request_id=request_id,
        )
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


def _index_of(raw_call: Mapping[str, Any]) -> int | None:
    index = raw_call.get("index")
    return index if isinstance(index, int) and not isinstance(index, bool) else None


@dataclass(kw_only=True, slots=True)
class ChatStreamAssembler:
    """Folds ``chat.completion.chunk`` objects into deltas and a final response.

    Tool-call deltas are assigned to calls as the module docstring says (``index``, else
    ``id``, else the call before); ``ToolCallDelta.index`` is the call's position in arrival
    order. Text and reasoning keep their arrival order relative to each other.

    Attributes:
        provider: Provider name.
        requires_done: Whether the stream must end with ``data: [DONE]`` to be an answer.
    """

    provider: str
    requires_done: bool = True
    _parts: list[TextPart | ThinkingPart | ToolCallPart] = field(default_factory=lambda: [])
    _text: list[str] = field(default_factory=lambda: [])
    _thinking: list[str] = field(default_factory=lambda: [])
    _calls: list[_Call] = field(default_factory=lambda: [])
    _by_index: dict[int, int] = field(default_factory=lambda: {})
    _by_id: dict[str, int] = field(default_factory=lambda: {})
    _last_call: int | None = None
    _refused: bool = False
    _finish: str | None = None
    _usage: object = None
    _head: dict[str, Any] = field(default_factory=lambda: {})
    _last: str = ""
    _chunks: int = 0

    @property
    def ended(self) -> bool:
        """Chat streams end at ``data: [DONE]`` (read by the caller), never at a chunk."""
        return False

    def feed(self, chunk: Mapping[str, Any]) -> list[StreamEvent]:
        """Consume one chunk; return the deltas it carries.

        Raises:
            MalformedResponseError: content that cannot be read as text (:mod:`._chat_content`).
        """
        self._chunks += 1
        head = self._head
        if len(head) < 2:  # both kept once seen: nothing more to look at
            for key in ("id", "model"):
                if chunk.get(key) and key not in head:
                    head[key] = chunk[key]
        if chunk.get("usage") is not None:
            self._usage = chunk["usage"]
        events: list[StreamEvent] = []
        for choice in as_list(chunk.get("choices")):
            picked = choice if type(choice) is dict else as_mapping(choice)
            if not picked or picked.get("index", 0) != 0:
                continue
            raw_delta = picked.get("delta")
            delta = raw_delta if type(raw_delta) is dict else as_mapping(raw_delta)
            content = delta.get("content")
            if type(content) is str and not (
                delta.get("refusal") or delta.get("reasoning_content") or delta.get("reasoning")
            ):
                # the usual delta, only text: what read_words makes of it, read directly
                if content:
                    self._switch("text")
                    self._text.append(content)
                    events.append(TextDelta(text=content))
            else:
                events += self._words(
                    read_words(delta, provider=self.provider, api=API, request_id=None)
                )
            for raw_call in as_list(delta.get("tool_calls")):
                events.append(self._tool_delta(as_mapping(raw_call)))
            if picked.get("finish_reason"):
                self._finish = str(picked["finish_reason"])
        return events

    def _words(self, words: Words) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        if words.thinking:
            self._switch("thinking")
            self._thinking.append(words.thinking)
            events.append(ThinkingDelta(text=words.thinking))
        for text in (words.text, words.refusal):
            if text:
                self._switch("text")
                self._text.append(text)
                events.append(TextDelta(text=text))
        self._refused = self._refused or bool(words.refusal)
        return events

    def _slot(self, index: int | None, call_id: str) -> int:
        """The position of the call a delta belongs to (a new call when none)."""
        slot: int | None
        if index is not None:
            slot = self._by_index.get(index)
            if slot is None and call_id:
                slot = self._by_id.get(call_id)
            elif slot is not None and call_id and self._calls[slot].id not in ("", call_id):
                slot = None  # a different id at a used index: another call
        elif call_id:
            slot = self._by_id.get(call_id)
        else:
            slot = self._last_call
        if slot is None:
            slot = len(self._calls)
            self._calls.append(_Call())
        if index is not None:
            self._by_index[index] = slot
        if call_id:
            self._by_id.setdefault(call_id, slot)
        self._last_call = slot
        return slot

    def _tool_delta(self, raw_call: Mapping[str, Any]) -> ToolCallDelta:
        self._switch("tool")
        raw_id = raw_call.get("id")
        call_id = str(raw_id) if raw_id else ""
        slot = self._slot(_index_of(raw_call), call_id)
        call = self._calls[slot]
        function = as_mapping(raw_call.get("function"))
        if call_id:
            call.id = call_id
        name = function.get("name")
        if name and not call.name:
            call.name = str(name)
        fragment = arguments_text(function.get("arguments"))
        if fragment is not None:
            call.arguments += fragment
            call.saw_null = False
        return ToolCallDelta(
            index=slot,
            id=call_id or None,
            name=str(name) if name else None,
            arguments_delta=fragment or "",
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
        self,
        *,
        request_id: str | None = None,
        effort: EffortResolution | None = None,
        done: bool = True,
    ) -> ModelResponse:
        """The assembled response after the last chunk (``done``: ``data: [DONE]`` arrived).

        Raises:
            MalformedResponseError: no chunk gave the first choice a ``finish_reason``, or the
                stream ended without ``data: [DONE]`` (when required); ``missing`` names which.
        """
        missing: list[str] = []
        if self._finish is None:
            missing.append("a finish_reason")
        if self.requires_done and not done:
            missing.append("data: [DONE]")
        if missing:
            raise malformed(
                self.provider,
                API,
                " and ".join(missing),
                detail=f"stream ended after {self._chunks} chunk(s)",
                request_id=request_id,
            )
        self._flush()
        parts = list(self._parts)
        for position, call in enumerate(self._calls):
            arguments, raw = parse_arguments(None if call.saw_null else call.arguments)
            parts.append(
                ToolCallPart(
                    id=call.id or mint_call_id(position),
                    name=call.name,
                    arguments=arguments,
                    raw_arguments=raw,
                )
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
            refused=self._refused,
        )
