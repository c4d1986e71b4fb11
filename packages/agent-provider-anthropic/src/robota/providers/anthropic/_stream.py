"""Streamed Messages API events → neutral stream events (https://docs.anthropic.com/en/docs/
build-with-claude/streaming).

Event flow: ``message_start`` (id, model, input usage) → per content block
``content_block_start`` / ``content_block_delta`` (``text_delta``, ``thinking_delta``,
``signature_delta``, ``input_json_delta``, ``citations_delta``) / ``content_block_stop`` →
``message_delta`` (stop reason, cumulative usage) → ``message_stop``; ``ping`` anytime; an
``error`` event carries an error body mid-stream. Each block is rebuilt into its JSON form and
decoded by :func:`~._response.block_to_part`, so streamed and buffered answers decode alike.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from robota.core.errors import MalformedResponseError
from robota.core.provider import (
    EffortResolution,
    ResponseCompleted,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from robota.providers.anthropic._errors import classify_error_body
from robota.providers.anthropic._response import AssistantPartT, assemble, block_to_part, usage_of

__all__ = ["StreamAssembler", "iter_sse"]


async def iter_sse(lines: AsyncIterator[str]) -> AsyncIterator[tuple[str, Any]]:
    """Parse Server-Sent Events lines (WHATWG HTML §9.2) into ``(event, data JSON)`` pairs.

    Raises:
        MalformedResponseError: when a ``data`` payload is not JSON.
    """
    event = ""
    data: list[str] = []
    async for line in lines:
        if line == "":
            if data:
                payload = "\n".join(data)
                try:
                    yield event or "message", json.loads(payload)
                except ValueError as exc:
                    raise MalformedResponseError(
                        f"anthropic stream: undecodable event data {payload[:200]!r}",
                        provider="anthropic",
                    ) from exc
            event, data = "", []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            event = value
        elif name == "data":
            data.append(value)
    if data:
        yield event or "message", json.loads("\n".join(data))


@dataclass(kw_only=True, slots=True)
class _Block:
    block: dict[str, Any]
    raw_arguments: str = ""
    tool_index: int | None = None


@dataclass(kw_only=True, slots=True)
class StreamAssembler:
    """Turns decoded SSE events into neutral :data:`StreamEvent` values.

    Attributes:
        provider: Provider name recorded on parts.
        request_id: Vendor request id of the call.
        effort: Effort audit record to attach to the response.
    """

    provider: str
    request_id: str | None = None
    effort: EffortResolution | None = None
    _open: dict[int, _Block] = field(default_factory=dict[int, _Block])
    _parts: list[AssistantPartT] = field(default_factory=list[AssistantPartT])
    _hosted: dict[str, str] = field(default_factory=dict[str, str])
    _tool_calls: int = 0
    _model: str = ""
    _id: str | None = None
    _stop: str | None = None
    _usage: dict[str, Any] = field(default_factory=dict[str, Any])
    _done: bool = False

    def feed(self, event: str, data: Any) -> list[StreamEvent]:
        """Consume one event; return the neutral events it produces.

        Raises:
            ProviderError: (subclass) for an ``error`` event.
            MalformedResponseError: for a delta on a block that was never started.
        """
        if not isinstance(data, Mapping):
            return []
        payload = cast(Mapping[str, Any], data)
        kind = payload.get("type", event)
        if kind == "error":
            raise classify_error_body(
                payload, provider=self.provider, status=None, request_id=self.request_id
            )
        if kind == "message_start":
            message = payload.get("message") or {}
            self._model = str(message.get("model") or "")
            self._id = message.get("id")
            self._usage.update(message.get("usage") or {})
            return []
        if kind == "content_block_start":
            return self._start(int(payload.get("index", 0)), dict(payload["content_block"]))
        if kind == "content_block_delta":
            return self._delta(int(payload.get("index", 0)), payload.get("delta") or {})
        if kind == "content_block_stop":
            self._stop_block(int(payload.get("index", 0)))
            return []
        if kind == "message_delta":
            delta = payload.get("delta") or {}
            if delta.get("stop_reason") is not None:
                self._stop = delta["stop_reason"]
            usage = payload.get("usage") or {}
            self._usage.update({k: v for k, v in usage.items() if v is not None})
            return []
        if kind == "message_stop":
            return self.finish()
        return []

    def _start(self, index: int, block: dict[str, Any]) -> list[StreamEvent]:
        kind = block.get("type")
        state = _Block(block=block)
        self._open[index] = state
        if kind == "text" and block.get("text"):
            return [TextDelta(text=str(block["text"]))]
        if kind == "thinking" and block.get("thinking"):
            return [ThinkingDelta(text=str(block["thinking"]))]
        if kind == "tool_use":
            state.tool_index = self._tool_calls
            self._tool_calls += 1
            return [
                ToolCallDelta(
                    index=state.tool_index, id=str(block.get("id")), name=str(block.get("name"))
                )
            ]
        if kind == "server_tool_use":
            self._hosted[str(block.get("id"))] = str(block.get("name"))
        return []

    def _delta(self, index: int, delta: Mapping[str, Any]) -> list[StreamEvent]:
        state = self._open.get(index)
        if state is None:
            raise MalformedResponseError(
                f"anthropic stream: delta for unknown block {index}", provider=self.provider
            )
        kind = delta.get("type")
        block = state.block
        if kind == "text_delta":
            text = str(delta.get("text") or "")
            block["text"] = str(block.get("text") or "") + text
            return [TextDelta(text=text)] if text else []
        if kind == "thinking_delta":
            text = str(delta.get("thinking") or "")
            block["thinking"] = str(block.get("thinking") or "") + text
            return [ThinkingDelta(text=text)] if text else []
        if kind == "signature_delta":
            block["signature"] = str(block.get("signature") or "") + str(
                delta.get("signature") or ""
            )
            return []
        if kind == "input_json_delta":
            fragment = str(delta.get("partial_json") or "")
            state.raw_arguments += fragment
            if state.tool_index is not None and fragment:
                return [ToolCallDelta(index=state.tool_index, arguments_delta=fragment)]
            return []
        if kind == "citations_delta":
            citations = cast(list[Any], block.setdefault("citations", []) or [])
            citations.append(delta.get("citation"))
            block["citations"] = citations
        return []

    def _stop_block(self, index: int) -> None:
        state = self._open.pop(index, None)
        if state is None:
            return
        kind = state.block.get("type")
        raw: str | None = None
        if kind in ("tool_use", "server_tool_use"):
            raw = state.raw_arguments
            if raw == "" and state.block.get("input"):
                raw = json.dumps(state.block["input"], ensure_ascii=False)
        part = block_to_part(
            state.block, provider=self.provider, raw_arguments=raw, hosted_names=self._hosted
        )
        if part is not None:
            self._parts.append(part)

    def finish(self) -> list[StreamEvent]:
        """Close open blocks and produce the final :class:`ResponseCompleted` (once)."""
        if self._done:
            return []
        self._done = True
        for index in sorted(self._open):
            self._stop_block(index)
        response = assemble(
            self._parts,
            model=self._model,
            response_id=self._id,
            raw_stop=self._stop,
            usage=usage_of(self._usage),
            provider=self.provider,
            request_id=self.request_id,
            effort=self.effort,
        )
        return [ResponseCompleted(response=response)]

    @property
    def done(self) -> bool:
        """True once the final response was produced."""
        return self._done
