"""Responses API response / stream events → neutral response (one direction, one module).

Source: https://platform.openai.com/docs/api-reference/responses/object and
https://platform.openai.com/docs/api-reference/responses-streaming. Output items map as:
``message`` → text parts; ``reasoning`` → a thinking part (summary or reasoning text, the
``encrypted_content`` as signature, the item id); ``function_call`` → a tool call keyed by
``call_id``; vendor-run tool items (``web_search_call``, ``code_interpreter_call``,
``file_search_call``, ``mcp_call``, ``image_generation_call``, ...) → a hosted tool call plus a
hosted result holding the item verbatim; any other item → a provider-details part (replayed
verbatim).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from robota.core.errors import MalformedResponseError, RobotaError
from robota.core.messages import (
    AssistantMessage,
    AssistantPart,
    FinishReason,
    HostedToolResultPart,
    ProviderDetailsPart,
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
from robota.providers.openai._common import parse_arguments
from robota.providers.openai._usage import responses_usage

__all__ = ["ResponsesStreamAssembler", "decode_response", "response_error"]

_HOSTED_NAMES: Mapping[str, str] = {
    "web_search_call": "web_search",
    "code_interpreter_call": "code_execution",
    "file_search_call": "file_search",
    "mcp_call": "mcp",
    "mcp_list_tools": "mcp_list_tools",
    "image_generation_call": "image_generation",
    "computer_call": "computer",
    "local_shell_call": "local_shell",
}
_INCOMPLETE: Mapping[str, FinishReason] = {
    "max_output_tokens": "length",
    "content_filter": "content_filter",
}


def response_error(data: Mapping[str, Any], *, provider: str) -> RobotaError | None:
    """The error of a ``failed`` response (classified by its ``error.code``), else None."""
    if data.get("status") != "failed":
        return None
    from robota.providers.openai._errors import classify_error

    import openai

    error: Mapping[str, Any] = data.get("error") or {}
    sdk_error = openai.APIError(
        str(error.get("message") or "response failed"),
        request=None,  # pyright: ignore[reportArgumentType]
        body={"type": error.get("code"), "code": error.get("code")},
    )
    return classify_error(sdk_error, provider=provider)


def _thinking(item: Mapping[str, Any], provider: str) -> ThinkingPart:
    texts = [
        str(s.get("text") or "")
        for s in item.get("summary") or []
        if isinstance(s, Mapping) and s.get("text")
    ]
    if not texts:
        texts = [
            str(c.get("text") or "")
            for c in item.get("content") or []
            if isinstance(c, Mapping) and c.get("text")
        ]
    signature = item.get("encrypted_content")
    item_id = item.get("id")
    return ThinkingPart(
        text="\n\n".join(texts),
        signature=str(signature) if signature else None,
        provider=provider,
        id=str(item_id) if item_id else None,
    )


def _hosted_arguments(item: Mapping[str, Any]) -> dict[str, Any]:
    for key in ("action", "arguments", "code", "queries"):
        value = item.get(key)
        if isinstance(value, Mapping):
            mapping: Mapping[str, Any] = value
            return dict(mapping)
        if isinstance(value, str) and key == "arguments":
            parsed, _ = parse_arguments(value)
            return parsed or {}
        if value is not None:
            return {key: value}
    return {}


def decode_items(items: list[Any], provider: str) -> list[AssistantPart]:
    """Neutral parts of a list of output items, in order."""
    parts: list[AssistantPart] = []
    for raw in items:
        if not isinstance(raw, Mapping):
            continue
        item: Mapping[str, Any] = raw
        kind = str(item.get("type") or "")
        if kind == "message":
            for content in item.get("content") or []:
                if not isinstance(content, Mapping):
                    continue
                text = content.get("text") if content.get("type") == "output_text" else None
                if content.get("type") == "refusal":
                    text = content.get("refusal")
                if isinstance(text, str) and text:
                    parts.append(TextPart(text=text))
        elif kind == "reasoning":
            parts.append(_thinking(item, provider))
        elif kind == "function_call":
            arguments, raw_arguments = parse_arguments(item.get("arguments"))
            parts.append(
                ToolCallPart(
                    id=str(item.get("call_id") or item.get("id") or ""),
                    name=str(item.get("name") or ""),
                    arguments=arguments,
                    raw_arguments=raw_arguments,
                )
            )
        elif kind in _HOSTED_NAMES:
            call_id = str(item.get("id") or "")
            name = _HOSTED_NAMES[kind]
            arguments = _hosted_arguments(item)
            parts.append(
                ToolCallPart(
                    id=call_id,
                    name=name,
                    arguments=arguments,
                    raw_arguments=json.dumps(arguments),
                    hosted=True,
                    provider=provider,
                )
            )
            parts.append(
                HostedToolResultPart(
                    call_id=call_id, name=name, content=dict(item), provider=provider
                )
            )
        else:
            parts.append(ProviderDetailsPart(provider=provider, data=dict(item)))
    return parts


def decode_response(
    data: Mapping[str, Any],
    *,
    provider: str,
    request_id: str | None = None,
    effort: EffortResolution | None = None,
    items: list[Any] | None = None,
) -> ModelResponse:
    """Decode a Responses API ``response`` object.

    Args:
        items: Output items to use instead of ``data["output"]`` (a stream's collected items
            when the final event carries none).

    Raises:
        ProviderError: (a subclass) when the response ``status`` is ``failed``.
        MalformedResponseError: when the body is not a response object.
    """
    failure = response_error(data, provider=provider)
    if failure is not None:
        raise failure
    output = data.get("output") if items is None else items
    if not isinstance(output, list):
        raise MalformedResponseError(
            "Responses API body has no output list", provider=provider, request_id=request_id
        )
    parts = decode_items(output, provider)
    status = str(data.get("status") or "")
    details: Mapping[str, Any] = data.get("incomplete_details") or {}
    reason = details.get("reason")
    has_calls = any(isinstance(p, ToolCallPart) and not p.hosted for p in parts)
    finish: FinishReason
    if status == "incomplete":
        raw_finish = f"incomplete:{reason}" if reason else "incomplete"
        finish = _INCOMPLETE.get(str(reason), "other")
    elif status == "completed" or status == "complete":
        raw_finish = status
        finish = "tool_calls" if has_calls else "stop"
    else:
        raw_finish = status or None
        finish = "tool_calls" if has_calls else "other"
    usage = responses_usage(data.get("usage"))
    model = str(data.get("model") or "")
    response_id = data.get("id")
    message = AssistantMessage(
        parts=tuple(parts),
        model=model,
        provider=provider,
        usage=usage,
        finish_reason=finish,
        raw_finish_reason=raw_finish,
        response_id=str(response_id) if response_id else None,
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


_FINAL_EVENTS = frozenset({"response.completed", "response.incomplete", "response.failed"})


@dataclass(kw_only=True, slots=True)
class ResponsesStreamAssembler:
    """Folds Responses streaming events into deltas and a final response.

    Function calls are numbered in arrival order (``ToolCallDelta.index``) by their
    ``output_index``; finished items are collected so a final event without ``output`` still
    yields the whole message.
    """

    provider: str
    final: dict[str, Any] | None = None
    _items: dict[int, Any] = field(default_factory=lambda: {})
    _tool_index: dict[int, int] = field(default_factory=lambda: {})
    _last_response: dict[str, Any] = field(default_factory=lambda: {})

    def feed(self, event: Mapping[str, Any]) -> list[StreamEvent]:
        """Consume one event; return the deltas it carries.

        Raises:
            ProviderError: for an ``error`` event.
        """
        kind = str(event.get("type") or "")
        response = event.get("response")
        if isinstance(response, Mapping):
            self._last_response = dict(response)
        if kind in _FINAL_EVENTS and isinstance(response, Mapping):
            self.final = dict(response)
            return []
        if kind == "error":
            self._raise_stream_error(event)
        delta = event.get("delta")
        if kind == "response.output_text.delta" and isinstance(delta, str):
            return [TextDelta(text=delta)]
        if kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            return [ThinkingDelta(text=str(delta or ""))]
        output_index = event.get("output_index")
        if not isinstance(output_index, int):
            return []
        item = event.get("item")
        if kind == "response.output_item.added" and isinstance(item, Mapping):
            added: Mapping[str, Any] = item
            if added.get("type") == "function_call":
                index = self._tool_index.setdefault(output_index, len(self._tool_index))
                arguments = added.get("arguments")
                return [
                    ToolCallDelta(
                        index=index,
                        id=str(added.get("call_id") or ""),
                        name=str(added.get("name") or ""),
                        arguments_delta=arguments if isinstance(arguments, str) else "",
                    )
                ]
        if kind == "response.function_call_arguments.delta" and isinstance(delta, str):
            index = self._tool_index.setdefault(output_index, len(self._tool_index))
            return [ToolCallDelta(index=index, arguments_delta=delta)]
        if kind == "response.output_item.done" and isinstance(item, Mapping):
            self._items[output_index] = dict(item)
        return []

    def _raise_stream_error(self, event: Mapping[str, Any]) -> None:
        from robota.providers.openai._errors import classify_error

        import openai

        nested = isinstance(event.get("error"), Mapping)
        inner: Any = event.get("error") if nested else event
        # A bare ``error`` event's own ``type`` is the event name "error", not a vendor type.
        sdk_error = openai.APIError(
            str(inner.get("message") or "stream error"),
            request=None,  # pyright: ignore[reportArgumentType]
            body={"type": inner.get("type") if nested else None, "code": inner.get("code")},
        )
        raise classify_error(sdk_error, provider=self.provider)

    def finish(
        self, *, request_id: str | None = None, effort: EffortResolution | None = None
    ) -> ModelResponse:
        """The assembled response after the last event.

        Raises:
            MalformedResponseError: when the stream carried no response at all.
        """
        data = self.final if self.final is not None else self._last_response
        if not data:
            raise MalformedResponseError(
                "Responses stream ended without a response", provider=self.provider
            )
        collected = [self._items[i] for i in sorted(self._items)]
        output = data.get("output")
        items = collected if (not output and collected) else None
        return decode_response(
            data, provider=self.provider, request_id=request_id, effort=effort, items=items
        )
