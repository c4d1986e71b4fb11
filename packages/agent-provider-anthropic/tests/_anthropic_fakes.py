"""Broken-server fakes: the real :class:`AnthropicProvider` over an ``httpx.MockTransport`` that
serves whatever bytes a test sets, and builders of Messages API bodies and event streams."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
from robota.core.messages import UserMessage
from robota.core.provider import ModelRequest, ModelResponse, ResponseCompleted, StreamEvent
from robota.providers.anthropic import AnthropicProvider

__all__ = [
    "REQUEST",
    "Outcome",
    "Server",
    "block_events",
    "message",
    "outcome",
    "provider",
    "sse",
    "start",
    "stream_events",
    "valid_stream",
]

REQUEST = ModelRequest(model="claude-sonnet-4-6", messages=(UserMessage.of("hi"),))

Handler = Callable[[httpx.Request], httpx.Response]


def provider(handler: Handler, **kwargs: Any) -> AnthropicProvider:
    """The real provider sending through ``handler``."""
    kwargs.setdefault("api_key", "k")
    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    return AnthropicProvider(http_client=client, **kwargs)


@dataclass
class Server:
    """A fake endpoint answering every request with the current ``status``/``body``/headers."""

    body: bytes = b""
    status: int = 200
    content_type: str = "text/event-stream"
    headers: dict[str, str] = field(default_factory=dict[str, str])
    requests: list[httpx.Request] = field(default_factory=list[httpx.Request])

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        headers = {"content-type": self.content_type, "request-id": "req_1", **self.headers}
        return httpx.Response(self.status, content=self.body, headers=headers)

    def provider(self, **kwargs: Any) -> AnthropicProvider:
        return provider(self, **kwargs)


def sse(events: Sequence[dict[str, Any]]) -> bytes:
    """Events as Anthropic sends them: ``event:`` and ``data:`` lines, a blank line after each."""
    return "".join(f"event: {e.get('type')}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


def start(usage: dict[str, int] | None = None, model: str = "claude-sonnet-4-6") -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "usage": usage if usage is not None else {"input_tokens": 10, "output_tokens": 1},
        },
    }


def block_events(
    index: int, block: dict[str, Any], pieces: Sequence[str] = ()
) -> list[dict[str, Any]]:
    """One content block: start, one delta per piece (of the block's kind), stop."""
    kind = block["type"]
    field_of = {"text": ("text_delta", "text"), "thinking": ("thinking_delta", "thinking")}
    delta_type, key = field_of.get(kind, ("input_json_delta", "partial_json"))
    events: list[dict[str, Any]] = [
        {"type": "content_block_start", "index": index, "content_block": block}
    ]
    events += [
        {"type": "content_block_delta", "index": index, "delta": {"type": delta_type, key: p}}
        for p in pieces
    ]
    if kind == "thinking":
        events.append(
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "signature_delta", "signature": "sig"},
            }
        )
    events.append({"type": "content_block_stop", "index": index})
    return events


def stream_events(
    blocks: Sequence[tuple[dict[str, Any], Sequence[str]]],
    *,
    stop_reason: str = "end_turn",
    usage: dict[str, int] | None = None,
) -> list[dict[str, Any]]:
    """A complete, valid event stream of ``blocks`` (each a start block and delta pieces)."""
    events = [start(), {"type": "ping"}]
    for index, (block, pieces) in enumerate(blocks):
        events += block_events(index, block, pieces)
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": usage if usage is not None else {"output_tokens": 7},
        }
    )
    events.append({"type": "message_stop"})
    return events


def valid_stream() -> list[dict[str, Any]]:
    """Thinking, text and a tool call with streamed JSON arguments, ending in tool_use."""
    return stream_events(
        [
            ({"type": "thinking", "thinking": "", "signature": ""}, ["Let me ", "think."]),
            ({"type": "text", "text": ""}, ["Checking ", "the weather."]),
            (
                {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {}},
                ['{"city": ', '"Paris"}'],
            ),
        ],
        stop_reason="tool_use",
    )


def message(
    content: list[dict[str, Any]],
    *,
    stop_reason: str | None = "end_turn",
    usage: dict[str, int] | None = None,
) -> dict[str, Any]:
    """A buffered Messages API answer."""
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage if usage is not None else {"input_tokens": 10, "output_tokens": 5},
    }


@dataclass
class Outcome:
    """What a call produced: the events streamed, then the final response or the error."""

    events: list[StreamEvent]
    response: ModelResponse | None
    error: BaseException | None


async def outcome(
    target: AnthropicProvider, request: ModelRequest = REQUEST, *, stream: bool = True
) -> Outcome:
    """Run one call and capture everything (never raises what the call raised)."""
    events: list[StreamEvent] = []
    response: ModelResponse | None = None
    try:
        if stream:
            async for event in target.stream(request):
                events.append(event)
        else:
            response = await target.complete(request)
    except Exception as exc:
        return Outcome(events=events, response=None, error=exc)
    if stream:
        finals = [e.response for e in events if isinstance(e, ResponseCompleted)]
        assert len(finals) == 1, f"{len(finals)} ResponseCompleted events"
        assert isinstance(events[-1], ResponseCompleted), "events after ResponseCompleted"
        response = finals[0]
    return Outcome(events=events, response=response, error=None)
