"""A loopback Gemini server for the attack and outcome tests: the real provider over an injected
``httpx.AsyncClient`` whose ``MockTransport`` answers with the exact bytes a test chooses."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
from robota.core.errors import RobotaError
from robota.core.messages import UserMessage
from robota.core.provider import ModelRequest, ModelResponse, StreamEvent
from robota.providers.google import GoogleProvider

SSE = {"content-type": "text/event-stream"}
JSON = {"content-type": "application/json"}


def sse(*chunks: Any, raw: Sequence[str] = ()) -> bytes:
    """Server-Sent Events the way Gemini frames them (``data: {json}\\r\\n\\r\\n``), then any
    ``raw`` text appended as is."""
    framed = "".join(f"data: {json.dumps(c)}\r\n\r\n" for c in chunks)
    return (framed + "".join(raw)).encode()


def candidate(
    *parts: dict[str, Any], finish: str | None = "STOP", usage: dict[str, int] | None = None
) -> dict[str, Any]:
    """One response object with a single candidate."""
    body: dict[str, Any] = {"candidates": [{"content": {"role": "model", "parts": list(parts)}}]}
    if finish is not None:
        body["candidates"][0]["finishReason"] = finish
    if usage is not None:
        body["usageMetadata"] = usage
    return body


def text(value: str) -> dict[str, Any]:
    return {"text": value}


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"functionCall": {"name": name, "args": args}}


@dataclass
class Server:
    """Answers each request with the next queued ``(status, body, headers)``; the last one
    repeats. ``requests`` keeps what was sent."""

    responses: list[tuple[int, bytes, dict[str, str]]]
    requests: list[httpx.Request] = field(default_factory=list[httpx.Request])

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        index = min(len(self.requests), len(self.responses)) - 1
        status, body, headers = self.responses[index]
        return httpx.Response(status, content=body, headers=headers)

    def provider(self, *args: Any, **kwargs: Any) -> GoogleProvider:
        client = httpx.AsyncClient(transport=httpx.MockTransport(self.handler))
        if not args and "api_key" not in kwargs:
            args = ("k",)
        return GoogleProvider(*args, http_client=client, **kwargs)

    def serve(self, status: int, body: bytes | dict[str, Any], headers: dict[str, str]) -> None:
        """Replace the queue with one response."""
        data = json.dumps(body).encode() if isinstance(body, dict) else body
        self.responses = [(status, data, headers)]


def serving(*responses: tuple[int, bytes | dict[str, Any]]) -> Server:
    """A server for ``(status, body)`` pairs; a dict body is JSON, bytes starting with
    ``data:`` are an event stream."""
    queued: list[tuple[int, bytes, dict[str, str]]] = []
    for status, body in responses:
        if isinstance(body, dict):
            queued.append((status, json.dumps(body).encode(), JSON))
        else:
            queued.append((status, body, SSE if body.startswith(b"data:") else JSON))
    return Server(responses=queued)


def request(model: str = "gemini-2.5-flash", **kwargs: Any) -> ModelRequest:
    return ModelRequest(model=model, messages=(UserMessage.of("hi"),), **kwargs)


@dataclass
class Outcome:
    """What one call gave a user: the events before the end, then a response or an error."""

    events: list[StreamEvent]
    response: ModelResponse | None = None
    error: RobotaError | None = None


async def run(provider: GoogleProvider, req: ModelRequest | None = None) -> Outcome:
    """Stream one call; a :class:`RobotaError` is captured, anything else propagates."""
    events: list[StreamEvent] = []
    try:
        async for event in provider.stream(req or request()):
            if event.kind == "response_completed":
                return Outcome(events=events, response=event.response)
            events.append(event)
    except RobotaError as error:
        return Outcome(events=events, error=error)
    raise AssertionError("the stream ended without a response or an error")
