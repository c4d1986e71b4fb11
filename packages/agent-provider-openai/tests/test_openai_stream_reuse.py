"""A completed stream leaves its connection reusable: after ``[DONE]`` (or the Responses final
event) the rest of the body is read, bounded, so the HTTP client keeps the connection in its
keep-alive pool instead of opening a new one for every call (issue #20); a body that goes on, or
breaks, after the answer still gives the answer."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace

import anyio
import httpx
import pytest
from _openai_wire import (
    REQUEST,
    SSE,
    Api,
    Server,
    chunk,
    event,
    response_object,
    run,
    sse,
)
from robota.core.provider import PayloadEvent
from robota.providers.openai import OpenAIChatProvider, OpenAIResponsesProvider

pytestmark = pytest.mark.anyio

CHAT_BODY = sse(chunk("Hel"), chunk("lo", finish="stop"), done=True)
RESPONSES_BODY = sse(
    event("response.output_text.delta", delta="ok", output_index=0, item_id="msg_1"),
    event("response.completed", response=response_object()),
)


def chunked(body: bytes) -> bytes:
    """``body`` as ``Transfer-Encoding: chunked`` framing: the body, then the last chunk (as a
    vendor sends it, the end of the framing comes after ``[DONE]``)."""
    return f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"


class LoopbackServer:
    """An HTTP/1.1 server on 127.0.0.1 answering every request with one event-stream body
    (persistent connections), counting the connections it accepted."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.connections = 0
        self.requests = 0
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> str:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/v1"

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                length = 0
                for line in head.decode("latin-1").split("\r\n"):
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                await reader.readexactly(length)
                self.requests += 1
                writer.write(
                    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                    b"transfer-encoding: chunked\r\n\r\n" + chunked(self.body)
                )
                await writer.drain()
        finally:
            writer.close()


def provider(
    api: Api, base_url: str, client: httpx.AsyncClient
) -> OpenAIChatProvider | OpenAIResponsesProvider:
    if api == "chat":
        return OpenAIChatProvider("sk-test", base_url=base_url, http_client=client)
    return OpenAIResponsesProvider("sk-test", base_url=base_url, http_client=client, store=False)


@pytest.mark.parametrize("api", ["chat", "responses"])
async def test_sequential_streamed_calls_share_one_connection(api: Api) -> None:
    body = CHAT_BODY if api == "chat" else RESPONSES_BODY
    server = LoopbackServer(body)
    async with server as base_url, httpx.AsyncClient() as client:
        adapter = provider(api, base_url, client)
        outcomes = [await run(adapter, stream=True) for _ in range(3)]
    texts = [o.response.message.text for o in outcomes if o.response is not None]
    assert texts == (["Hello"] * 3 if api == "chat" else ["ok"] * 3)
    assert (server.requests, server.connections) == (3, 1)


class AfterTheAnswer(httpx.AsyncByteStream):
    """A body that, after the complete answer, never ends (``hang``) or breaks."""

    def __init__(self, answer: bytes, *, hang: bool) -> None:
        self.answer = answer
        self.hang = hang
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.answer
        yield b": still here\n\n"
        if self.hang:
            await anyio.sleep_forever()
        raise httpx.ReadError("connection reset after the answer")

    async def aclose(self) -> None:
        self.closed = True


@pytest.mark.parametrize("hang", [True, False], ids=["never-ends", "breaks"])
@pytest.mark.parametrize("api", ["chat", "responses"])
async def test_a_body_going_on_after_the_answer_still_gives_the_answer(
    api: Api, hang: bool
) -> None:
    body = AfterTheAnswer(CHAT_BODY if api == "chat" else RESPONSES_BODY, hang=hang)

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers=SSE, stream=body)

    client = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    adapter = provider(api, "https://api.openai.com/v1", client)
    with anyio.fail_after(10):  # a drain without its bound would hang here
        outcome = await run(adapter, stream=True)
    assert outcome.error is None
    assert outcome.response is not None
    assert outcome.response.message.text == ("Hello" if api == "chat" else "ok")
    assert body.closed


async def test_a_drained_call_records_nothing_after_done() -> None:
    seen: list[str] = []
    server = Server(pieces=[CHAT_BODY, sse(chunk("late"))])
    adapter = server.provider("chat")

    def capture(payload: PayloadEvent) -> None:
        seen.append(payload.direction)

    request = replace(REQUEST, on_payload=capture)
    outcome = await run(adapter, stream=True, request=request)
    assert outcome.response is not None
    assert outcome.response.message.text == "Hello"
    assert seen == ["request", "stream", "stream"]
