"""What a Chat Completions ``message`` / ``delta`` says in words: its ``content``, ``refusal``
and reasoning text, in every shape servers send them (one job, shared by the buffered and the
streamed decoder so both read a body the same way).

- ``content`` as a string (OpenAI) is the answer text.
- ``content`` as a list of parts (some compatible servers, and Mistral's reasoning models):
  ``text`` / ``output_text`` parts are joined as the answer text, ``refusal`` parts as refusal
  text, ``thinking`` / ``reasoning`` parts as reasoning text (their ``thinking`` field, a
  string or a list of text parts, else ``text``). Any other part, a part that is not an object,
  or a ``content`` that is neither a string nor a list is a
  :class:`~robota.core.errors.MalformedResponseError` naming it — text is never dropped
  silently.
- ``refusal`` (a string) is refusal text; ``reasoning_content`` (DeepSeek, vLLM, llama.cpp) or
  ``reasoning`` (OpenRouter, Ollama, Groq, Cerebras) is reasoning text.

Example:
    >>> words = read_words({"content": [{"type": "text", "text": "Hello"},
    ...                                 {"type": "output_text", "text": " world"}]},
    ...                    provider="p", api="chat.completions", request_id=None)
    >>> words.text, words.refusal, words.thinking
    ('Hello world', '', '')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from robota.core.errors import MalformedResponseError
from robota.providers.openai._common import as_list, as_mapping

__all__ = ["Words", "read_words"]

_TEXT = frozenset({"text", "output_text"})
_THINKING = frozenset({"thinking", "reasoning"})


@dataclass(frozen=True, slots=True)
class Words:
    """The text of one message or delta.

    Attributes:
        text: Answer text.
        refusal: Refusal text (the model declined; see ``_chat_response`` for the finish).
        thinking: Reasoning text.
    """

    text: str = ""
    refusal: str = ""
    thinking: str = ""


def _reasoning(fields: Mapping[str, Any]) -> str:
    for key in ("reasoning_content", "reasoning"):
        value = fields.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _thinking_part(part: Mapping[str, Any]) -> str:
    value = part.get("thinking")
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        pieces = [as_mapping(p).get("text") for p in as_list(value)]
        return "".join(p for p in pieces if isinstance(p, str))
    text = part.get("text")
    return text if isinstance(text, str) else ""


def _refuse(
    what: str, *, provider: str, api: str, request_id: str | None
) -> MalformedResponseError:
    return MalformedResponseError(
        f"{provider} {api}: the message content holds {what}, which Robota cannot read as "
        "text (refused rather than dropped)",
        provider=provider,
        api=api,
        missing="readable message content",
        request_id=request_id,
    )


def read_words(
    fields: Mapping[str, Any], *, provider: str, api: str, request_id: str | None
) -> Words:
    """The text, refusal and reasoning of a ``message`` or ``delta`` (module docstring).

    Raises:
        MalformedResponseError: a ``content`` shape or part type that cannot be read as text.
    """
    content = fields.get("content")
    refusal = fields.get("refusal")
    texts: list[str] = []
    refusals: list[str] = [refusal] if isinstance(refusal, str) and refusal else []
    thinking: list[str] = [_reasoning(fields)]
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        for raw in as_list(content):
            if not isinstance(raw, Mapping):
                what = f"a {type(raw).__name__} part"
                raise _refuse(what, provider=provider, api=api, request_id=request_id)
            part = as_mapping(raw)
            kind = part.get("type")
            if kind in _TEXT:
                text = part.get("text")
                texts.append(text if isinstance(text, str) else "")
            elif kind == "refusal":
                value = part.get("refusal", part.get("text"))
                refusals.append(value if isinstance(value, str) else "")
            elif kind in _THINKING:
                thinking.append(_thinking_part(part))
            else:
                what = f"a part of type {kind!r}"
                raise _refuse(what, provider=provider, api=api, request_id=request_id)
    elif content is not None:
        what = f"a JSON {type(content).__name__}"
        raise _refuse(what, provider=provider, api=api, request_id=request_id)
    return Words(text="".join(texts), refusal="".join(refusals), thinking="".join(thinking))
