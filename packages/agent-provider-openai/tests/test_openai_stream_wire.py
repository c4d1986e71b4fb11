"""Streamed calls read each Server-Sent Event's JSON as sent: what the assembler and the payload
capture see, how odd ``data`` lines and failures in the middle of a stream come out."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from robota.core.errors import (
    MalformedResponseError,
    ProviderConnectionError,
    RateLimitError,
)
from robota.core.messages import (
    AssistantMessage,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    ToolResultPart,
    UserMessage,
)
from robota.core.provider import (
    ModelRequest,
    PayloadEvent,
    ResponseCompleted,
    StreamEvent,
    TextDelta,
)
from robota.providers.openai import OpenAIChatProvider, OpenAIResponsesProvider

HEADERS = {"content-type": "text/event-stream", "x-request-id": "req_7"}


def chat(body: str | httpx.AsyncByteStream) -> OpenAIChatProvider:
    def answer(request: httpx.Request) -> httpx.Response:
        if isinstance(body, str):
            return httpx.Response(200, headers=HEADERS, text=body)
        return httpx.Response(200, headers=HEADERS, stream=body)

    client = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    return OpenAIChatProvider("sk-test", http_client=client)


def responses(body: str) -> OpenAIResponsesProvider:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers=HEADERS, text=body)

    client = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    return OpenAIResponsesProvider("sk-test", http_client=client)


def chunk(content: str | None, finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "c1",
        "object": "chat.completion.chunk",
        "model": "gpt-4o",
        "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": finish}],
    }


def data(document: dict[str, Any]) -> str:
    return f"data: {json.dumps(document)}\n\n"


REQUEST = ModelRequest(model="gpt-4o", messages=(UserMessage.of("x"),))


async def texts_until_error(
    stream: AsyncIterator[StreamEvent], seen: list[str]
) -> list[StreamEvent]:
    events: list[StreamEvent] = []
    async for event in stream:
        if isinstance(event, TextDelta):
            seen.append(event.text)
        events.append(event)
    return events


@pytest.mark.anyio
async def test_payload_capture_gets_the_chunk_exactly_as_sent() -> None:
    sent = {
        **chunk("hi"),
        "system_fingerprint": None,
        "vendor_extra": {"kept": [1, 2]},
        "usage": None,
    }
    seen: list[PayloadEvent] = []
    request = ModelRequest(model="gpt-4o", messages=(UserMessage.of("x"),), on_payload=seen.append)
    body = data(sent) + data(chunk(None, "stop")) + "data: [DONE]\n\n"
    events = [e async for e in chat(body).stream(request)]
    assert [e.payload for e in seen if e.direction == "stream"] == [sent, chunk(None, "stop")]
    done = events[-1]
    assert isinstance(done, ResponseCompleted)
    assert done.response.message.text == "hi"
    assert done.response.request_id == "req_7"


@pytest.mark.anyio
async def test_data_split_over_lines_is_joined_and_nothing_after_done_is_read() -> None:
    first = json.dumps(chunk("Hel"), indent=1).splitlines()
    body = (
        ": keep-alive comment\n"
        + "".join(f"data: {line}\n" for line in first)
        + "\n"
        + data(chunk("lo", "stop"))
        + "data: [DONE]\n\n"
        + data(chunk(" never"))
    )
    events = [e async for e in chat(body).stream(REQUEST)]
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Hel", "lo"]
    done = events[-1]
    assert isinstance(done, ResponseCompleted)
    assert done.response.message.text == "Hello"


@pytest.mark.anyio
@pytest.mark.parametrize("line", ["data: {not json\n\n", "data: [1, 2]\n\n", 'data: "x"\n\n'])
async def test_data_that_is_not_a_json_object_is_a_malformed_response(line: str) -> None:
    seen: list[str] = []
    body = data(chunk("par")) + line + "data: [DONE]\n\n"
    with pytest.raises(MalformedResponseError) as info:
        await texts_until_error(chat(body).stream(REQUEST), seen)
    assert seen == ["par"]
    assert info.value.request_id == "req_7"


class _BreaksAfterFirstChunk(httpx.AsyncByteStream):
    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield data(chunk("par")).encode()
        raise httpx.ReadError("connection reset by peer")


@pytest.mark.anyio
async def test_connection_lost_mid_stream_is_a_connection_error_after_the_text() -> None:
    seen: list[str] = []
    with pytest.raises(ProviderConnectionError) as info:
        await texts_until_error(chat(_BreaksAfterFirstChunk()).stream(REQUEST), seen)
    assert seen == ["par"]
    assert info.value.recoverable is True


def event(document: dict[str, Any]) -> str:
    return f"event: {document['type']}\ndata: {json.dumps(document)}\n\n"


@pytest.mark.anyio
async def test_responses_error_event_mid_stream_is_classified_after_the_text() -> None:
    body = event(
        {"type": "response.output_text.delta", "item_id": "m1", "delta": "par", "output_index": 0}
    ) + event(
        {
            "type": "error",
            "code": "rate_limit_exceeded",
            "message": "slow down",
            "param": None,
            "sequence_number": 2,
        }
    )
    seen: list[str] = []
    with pytest.raises(RateLimitError) as info:
        await texts_until_error(responses(body).stream(REQUEST), seen)
    assert seen == ["par"]
    assert info.value.vendor_type == "rate_limit_exceeded"


HISTORY = (
    UserMessage.of("weather in Oslo?"),
    AssistantMessage(
        parts=(
            TextPart(text="checking"),
            ToolCallPart(
                id="call_1",
                name="get_weather",
                arguments={"city": "Oslo"},
                raw_arguments='{"city": "Oslo"}',
            ),
        )
    ),
    ToolResultMessage(
        results=(
            ToolResultPart(call_id="call_1", name="get_weather", content=(TextPart(text="4C"),)),
        )
    ),
)


@pytest.mark.anyio
@pytest.mark.parametrize("api", ["chat", "responses"])
@pytest.mark.parametrize("streamed", [True, False])
async def test_the_wire_body_is_the_captured_request_payload(api: str, streamed: bool) -> None:
    wire: list[bytes] = []

    def answer(request: httpx.Request) -> httpx.Response:
        wire.append(request.content)
        if api == "chat":
            if streamed:
                return httpx.Response(
                    200, headers=HEADERS, text=data(chunk("ok", "stop")) + "data: [DONE]\n\n"
                )
            return httpx.Response(200, json=CHAT_COMPLETION)
        if streamed:
            return httpx.Response(200, headers=HEADERS, text=event(RESPONSE_DONE))
        return httpx.Response(200, json=RESPONSE_DONE["response"])

    client = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    p = (
        OpenAIChatProvider("sk-test", http_client=client)
        if api == "chat"
        else OpenAIResponsesProvider("sk-test", http_client=client, store=False)
    )
    seen: list[PayloadEvent] = []
    request = ModelRequest(model="gpt-4o", messages=HISTORY, on_payload=seen.append)
    if streamed:
        [e async for e in p.stream(request)]
    else:
        await p.complete(request)
    sent = json.loads(wire[0])
    captured = seen[0].payload
    assert isinstance(captured, dict)
    assert sent == captured
    # Chat: user, assistant (text + tool call), tool. Responses: user, assistant text,
    # function_call, function_call_output.
    history = sent["messages"] if api == "chat" else sent["input"]
    assert len(history) == (3 if api == "chat" else 4)
    assert sent.get("stream", False) is streamed


CHAT_COMPLETION: dict[str, Any] = {
    "id": "c1",
    "object": "chat.completion",
    "model": "gpt-4o",
    "choices": [
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}
    ],
}

RESPONSE_DONE: dict[str, Any] = {
    "type": "response.completed",
    "response": {
        "id": "r1",
        "object": "response",
        "status": "completed",
        "model": "gpt-4o",
        "output": [],
    },
}
