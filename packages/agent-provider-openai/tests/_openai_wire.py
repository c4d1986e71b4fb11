"""Test helpers: serve fixed bytes to the real adapters through an injected ``httpx`` client and
report what a caller gets — an answer or a Robota error, and nothing else."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx
from robota.core.errors import RobotaError
from robota.core.messages import UserMessage
from robota.core.provider import ModelRequest, ModelResponse, ResponseCompleted, StreamEvent
from robota.providers.openai import OpenAIChatProvider, OpenAIResponsesProvider

Api = Literal["chat", "responses"]
SSE = {"content-type": "text/event-stream"}
JSON = {"content-type": "application/json"}
REQUEST = ModelRequest(model="gpt-4o", messages=(UserMessage.of("x"),))


class Chunks(httpx.AsyncByteStream):
    """A body delivered in the given pieces (as a network would split it), then optionally a
    transport failure."""

    def __init__(self, pieces: Sequence[bytes], error: Exception | None = None) -> None:
        self.pieces = list(pieces)
        self.error = error

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self.pieces:
            yield piece
        if self.error is not None:
            raise self.error


@dataclass
class Server:
    """A loopback server whose next answer the test sets."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: dict(SSE))
    body: bytes = b""
    pieces: Sequence[bytes] | None = None
    breaks: Exception | None = None
    requests: list[httpx.Request] = field(default_factory=lambda: [])

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.pieces is not None:
            stream = Chunks(self.pieces, self.breaks)
            return httpx.Response(self.status, headers=self.headers, stream=stream)
        return httpx.Response(self.status, headers=self.headers, content=self.body)

    def provider(self, api: Api, **kwargs: Any) -> OpenAIChatProvider | OpenAIResponsesProvider:
        client = httpx.AsyncClient(transport=httpx.MockTransport(self))
        if api == "chat":
            return OpenAIChatProvider("sk-test", http_client=client, **kwargs)
        return OpenAIResponsesProvider("sk-test", http_client=client, **kwargs)


@dataclass
class Outcome:
    """What one call gave: ``response`` or ``error`` (exactly one), and the streamed deltas."""

    response: ModelResponse | None = None
    error: RobotaError | None = None
    events: list[StreamEvent] = field(default_factory=lambda: [])


async def run(
    provider: OpenAIChatProvider | OpenAIResponsesProvider,
    *,
    stream: bool,
    request: ModelRequest = REQUEST,
) -> Outcome:
    """Call the provider; any exception but a Robota error propagates (and fails the test)."""
    outcome = Outcome()
    try:
        if stream:
            async for event in provider.stream(request):
                outcome.events.append(event)
                if isinstance(event, ResponseCompleted):
                    outcome.response = event.response
            if outcome.response is None:
                raise AssertionError("the stream ended without ResponseCompleted or an error")
        else:
            outcome.response = await provider.complete(request)
    except RobotaError as error:
        outcome.error = error
    return outcome


def sse(*documents: Any, done: bool = False) -> bytes:
    """Events with the given JSON ``data`` (a str is sent verbatim), optionally ``[DONE]``."""
    lines = [f"data: {d if isinstance(d, str) else json.dumps(d)}\n\n" for d in documents]
    if done:
        lines.append("data: [DONE]\n\n")
    return "".join(lines).encode()


def chunk(content: str | None = None, finish: str | None = None, **delta: Any) -> dict[str, Any]:
    """A ``chat.completion.chunk`` for choice 0."""
    body: dict[str, Any] = dict(delta)
    if content is not None:
        body["content"] = content
    return {
        "id": "c1",
        "object": "chat.completion.chunk",
        "model": "gpt-4o",
        "choices": [{"index": 0, "delta": body, "finish_reason": finish}],
    }


def completion(content: str = "ok", finish: str | None = "stop") -> dict[str, Any]:
    """A buffered ``chat.completion``."""
    return {
        "id": "c1",
        "object": "chat.completion",
        "model": "gpt-4o",
        "choices": [
            {
                "index": 0,
                "finish_reason": finish,
                "message": {"role": "assistant", "content": content},
            }
        ],
    }


def response_object(status: str = "completed", **extra: Any) -> dict[str, Any]:
    """A Responses ``response`` object with one text message."""
    return {
        "id": "r1",
        "object": "response",
        "status": status,
        "model": "gpt-4o",
        "output": [
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "ok", "annotations": []}],
            }
        ],
        **extra,
    }


def event(kind: str, **fields: Any) -> dict[str, Any]:
    """A Responses stream event."""
    return {"type": kind, **fields}
