"""Regressions by class (issue #14, the outsider's broken server): how the bytes arrive never
turns a correct answer into a wrong one, a typed error into another class, or a call into a hang.

- Charset: an event stream is UTF-8 whatever ``charset`` it declares (WHATWG HTML §9.2.6);
  invalid bytes become U+FFFD; a BOM is skipped; line ends split across network chunks hold.
- Content-encoding: a body that cannot be decoded is MalformedResponseError (``missing="a
  decodable body"``), not a connection error — when the SDK reads it, when this package reads
  it, streamed and buffered, on messages and count_tokens.
- Hangs: a per-call ``timeout`` bounds the wait for each next meaningful event; keep-alive
  comments and pings do not count. On a real socket: silent, keep-alive only, and no response
  headers at all — each ends with ProviderTimeoutError well within a second; and the bridge
  sends the host's ``httpx`` request with the SDK's timeout.
"""

from __future__ import annotations

import gzip
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, Literal

import anyio
import httpx
import pytest
from _anthropic_fakes import (  # pyright: ignore[reportImplicitRelativeImport]
    REQUEST,
    Server,
    outcome,
    provider,
    sse,
    stream_events,
)
from anyio.abc import SocketStream
from robota.core.errors import MalformedResponseError, ProviderTimeoutError
from robota.core.messages import UserMessage
from robota.core.provider import ModelRequest
from robota.core.settings import ModelSettings
from robota.providers.anthropic import AnthropicProvider
from robota.providers.anthropic._sse import LineDecoder, read_events

pytestmark = pytest.mark.anyio

_TEXT = "Héllo wörld ✓ 日本"


def _clean(text: str = _TEXT) -> bytes:
    return sse(stream_events([({"type": "text", "text": ""}, [text[:3], text[3:]])]))


def _timed(timeout: float) -> ModelRequest:
    return ModelRequest(
        model="claude-sonnet-4-6",
        messages=(UserMessage.of("hi"),),
        settings=ModelSettings(timeout=timeout),
    )


# --- charset ----------------------------------------------------------------------------------


@pytest.mark.parametrize("charset", ["iso-8859-1", "utf-16", "ascii", "windows-1252", "nonsense"])
@pytest.mark.parametrize("stream", [True, False])
async def test_a_declared_charset_never_changes_the_text(charset: str, stream: bool) -> None:
    server = Server(body=_clean(), content_type=f"text/event-stream; charset={charset}")
    got = await outcome(server.provider(), stream=stream)
    assert got.response is not None, got.error
    assert got.response.message.text == _TEXT


async def test_a_json_answer_with_a_declared_charset_is_utf8() -> None:
    body = (
        '{"id": "m", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6", '
        f'"content": [{{"type": "text", "text": "{_TEXT}"}}], "stop_reason": "end_turn", '
        '"usage": {"input_tokens": 1, "output_tokens": 1}}'
    ).encode()
    for stream in (True, False):
        server = Server(body=body, content_type="application/json; charset=iso-8859-1")
        got = await outcome(server.provider(), stream=stream)
        assert got.response is not None, got.error
        assert got.response.message.text == _TEXT


async def test_invalid_utf8_in_a_stream_is_replacement_characters() -> None:
    body = sse(stream_events([({"type": "text", "text": ""}, ["Hello"])]))
    body = body.replace(b"Hello", b"Hel\xfflo")
    got = await outcome(Server(body=body).provider())
    assert got.response is not None, got.error
    assert got.response.message.text == "Hel\ufffdlo"


async def test_a_bom_and_tiny_chunks_give_the_same_answer() -> None:
    body = b"\xef\xbb\xbf" + _clean().replace(b"\n", b"\r\n")
    pieces = [body[i : i + 1] for i in range(len(body))]

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, stream=_Pieces(pieces)
        )

    got = await outcome(provider(handler))
    assert got.response is not None, got.error
    assert got.response.message.text == _TEXT


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
def test_line_decoder_splits_at_every_line_end_across_chunks(eol: bytes) -> None:
    body = eol.join([b"event: a", "data: é".encode(), b"", b"data: 2", b"", b""])
    for size in (1, 2, 3, 7):
        decoder = LineDecoder()
        lines: list[str] = []
        for at in range(0, len(body), size):
            lines += decoder.feed(body[at : at + size])
        lines += decoder.flush()
        assert lines == ["event: a", "data: é", "", "data: 2", ""], (eol, size)


# --- content-encoding -------------------------------------------------------------------------

_GARBAGE = b"\x1f\x8b\x08\x00\x00\x00\x00\x00" + b"this is not deflate data" * 8


@pytest.mark.parametrize("content_type", ["text/event-stream", "application/json"])
@pytest.mark.parametrize("stream", [True, False])
async def test_an_undecodable_body_is_malformed(content_type: str, stream: bool) -> None:
    server = Server(body=_GARBAGE, content_type=content_type, headers={"content-encoding": "gzip"})
    got = await outcome(server.provider(), stream=stream)
    assert isinstance(got.error, MalformedResponseError), got
    assert got.error.missing == "a decodable body"


@pytest.mark.parametrize("stream", [True, False])
async def test_a_body_that_stops_decoding_mid_way_is_malformed(stream: bool) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        broken = _Pieces([_clean()[:200]], error=httpx.DecodingError("invalid deflate block"))
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=broken)

    got = await outcome(provider(handler), stream=stream)
    assert isinstance(got.error, MalformedResponseError), got
    assert got.error.missing == "a decodable body"


async def test_count_tokens_with_an_undecodable_body_is_malformed() -> None:
    server = Server(
        body=_GARBAGE, content_type="application/json", headers={"content-encoding": "gzip"}
    )
    with pytest.raises(MalformedResponseError) as caught:
        await server.provider().count_tokens(REQUEST)
    assert caught.value.missing == "a decodable body"


@pytest.mark.parametrize("stream", [True, False])
async def test_a_valid_gzip_body_is_the_answer(stream: bool) -> None:
    server = Server(body=gzip.compress(_clean()), headers={"content-encoding": "gzip"})
    got = await outcome(server.provider(), stream=stream)
    assert got.response is not None, got.error
    assert got.response.message.text == _TEXT


# --- timeouts: the event reader ---------------------------------------------------------------


class _Pieces(httpx.AsyncByteStream):
    """A body in pieces, ``pause`` seconds apart, then ``error`` or a stall (``stall``)."""

    def __init__(
        self,
        pieces: list[bytes],
        *,
        pause: float = 0.0,
        error: Exception | None = None,
        stall: bool = False,
    ) -> None:
        self.pieces, self.pause, self.error, self.stall = pieces, pause, error, stall

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self.pieces:
            if self.pause:
                await anyio.sleep(self.pause)
            yield piece
        if self.error is not None:
            raise self.error
        if self.stall:
            await anyio.sleep_forever()


async def _read_all(body: _Pieces, event_timeout: float) -> list[tuple[str, Any]]:
    return [e async for e in read_events(body, provider="p", api="a", event_timeout=event_timeout)]


@pytest.mark.parametrize(
    "keepalive", [b": keep-alive\n\n", b"event: ping\ndata: {}\n\n", b'data: {"type": "ping"}\n\n']
)
async def test_keepalives_never_extend_the_wait(keepalive: bytes) -> None:
    body = _Pieces([b'data: {"type": "message_start"}\n\n'] + [keepalive] * 50, pause=0.02)
    body.stall = True
    started = time.monotonic()
    with pytest.raises(ProviderTimeoutError):
        await _read_all(body, 0.2)
    assert time.monotonic() - started < 0.6


async def test_each_meaningful_event_restarts_the_wait() -> None:
    events = [b'data: {"n": %d}\n\n' % n for n in range(8)]
    got = await _read_all(_Pieces(events, pause=0.06), 0.2)  # 0.48 s in all, 0.06 s apart
    assert [data["n"] for _, data in got] == list(range(8))


async def test_events_after_the_last_one_read_are_never_parsed() -> None:
    body = _Pieces([b'data: {"n": 1}\n\ndata: {not json\n\n'])
    reader = read_events(body, provider="p", api="a")
    assert await anext(reader) == ("message", {"n": 1})


@pytest.mark.parametrize("stall", ["silent", "keepalive comments", "pings"])
@pytest.mark.parametrize("stream", [True, False])
async def test_a_stalled_mock_stream_ends_at_the_call_timeout(stall: str, stream: bool) -> None:
    filler = {"silent": [], "keepalive comments": [b": keep-alive\n\n"] * 100}.get(
        stall, [b'event: ping\ndata: {"type": "ping"}\n\n'] * 100
    )
    head = _clean()[: _clean().index(b"event: content_block_delta")]

    def handler(request: httpx.Request) -> httpx.Response:
        body = _Pieces([head, *filler], pause=0.02, stall=True)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=body)

    started = time.monotonic()
    with anyio.fail_after(5):
        got = await outcome(provider(handler), _timed(0.2), stream=stream)
    assert isinstance(got.error, ProviderTimeoutError), got
    assert time.monotonic() - started < 1.5


# --- timeouts: the bridge ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("client_timeout", "call_timeout", "read"),
    [
        (httpx.Timeout(None), 0.3, 0.3),
        (httpx.Timeout(5.0), 0.3, 0.3),
        (httpx.Timeout(42.0), None, 42.0),  # the host's own timeout stays the default
        (httpx.Timeout(None), None, None),
    ],
)
async def test_the_bridge_sends_the_calls_timeout(
    client_timeout: httpx.Timeout, call_timeout: float | None, read: float | None
) -> None:
    seen: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.extensions["timeout"])
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=_clean())

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler), timeout=client_timeout)
    target = AnthropicProvider("k", http_client=client)
    request = _timed(call_timeout) if call_timeout is not None else REQUEST
    got = await outcome(target, request)
    assert got.response is not None, got.error
    assert seen[0]["read"] == read


Mode = Literal["silent", "keepalive", "no headers"]


@asynccontextmanager
async def _stalling(mode: Mode) -> AsyncGenerator[str]:
    """A real server on 127.0.0.1 that stalls: after a 200 event-stream head (``silent``,
    ``keepalive`` comments every 0.05 s), or before any response (``no headers``)."""

    async def handle(stream: SocketStream) -> None:
        async with stream:
            try:
                await stream.receive()
                if mode != "no headers":
                    await stream.send(
                        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                        b"connection: close\r\n\r\n"
                    )
                while True:
                    if mode == "keepalive":
                        await stream.send(b": keep-alive\n\n")
                    await anyio.sleep(0.05)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream):
                return

    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    async with listener, anyio.create_task_group() as group:
        group.start_soon(listener.serve, handle)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            group.cancel_scope.cancel()


_CLIENTS: dict[str, Callable[[], httpx.AsyncClient]] = {
    "no client timeout": lambda: httpx.AsyncClient(timeout=None),
    "httpx default": httpx.AsyncClient,
}


@pytest.mark.parametrize("client", _CLIENTS)
@pytest.mark.parametrize("mode", ["silent", "keepalive", "no headers"])
@pytest.mark.parametrize("stream", [True, False])
async def test_a_stalled_socket_ends_at_the_call_timeout(
    mode: Mode, client: str, stream: bool
) -> None:
    async with _stalling(mode) as url, _CLIENTS[client]() as http:
        target = AnthropicProvider("k", base_url=url, http_client=http)
        started = time.monotonic()
        with anyio.fail_after(4):
            got = await outcome(target, _timed(0.3), stream=stream)
        seconds = time.monotonic() - started
    assert isinstance(got.error, ProviderTimeoutError), got
    assert seconds < 1.5, seconds
