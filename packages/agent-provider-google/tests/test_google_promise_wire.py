"""Regressions by class (issue #14, the outsider's broken server): how the bytes arrive never
turns a correct answer into a wrong one or a typed error, and never hangs a call.

- Server-Sent Events framing (WHATWG HTML §9.2.6): comments (``: keep-alive``), ``event``,
  ``id`` and ``retry`` fields and ``ping`` events carry no data — a valid stream holding them is
  its answer; CR, LF or CRLF line ends; a BOM; any network chunking.
- Charset: an event stream and a JSON body are UTF-8 whatever ``charset`` they declare.
- Content-encoding: a body that cannot be decoded is MalformedResponseError.
- Hangs: a per-call ``timeout`` bounds the wait for each next chunk; keep-alive comments and
  pings do not count. On a real socket: silent, keep-alive only, and no response headers — each
  ends with ProviderTimeoutError well within a second. The request reaches the host's client
  with the call's timeout.
"""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Literal

import anyio
import httpx
import pytest
from _google_serve import (  # pyright: ignore[reportImplicitRelativeImport]
    JSON,
    SSE,
    Outcome,
    candidate,
    request,
    run,
    text,
)
from anyio.abc import SocketStream
from robota.core.errors import MalformedResponseError, ProviderTimeoutError
from robota.core.settings import ModelSettings
from robota.providers.google import GoogleProvider

pytestmark = pytest.mark.anyio

_USAGE = {"promptTokenCount": 9, "candidatesTokenCount": 3, "totalTokenCount": 12}
_PIECES = ("Héllo ", "wörld ✓ ", "日本")
_TEXT = "".join(_PIECES)


def _event(chunk: dict[str, Any], eol: str = "\r\n") -> bytes:
    return f"data: {json.dumps(chunk, ensure_ascii=False)}{eol}{eol}".encode()


def _stream(eol: str = "\r\n", between: bytes = b"") -> bytes:
    """A clean stream of :data:`_PIECES`, ``between`` before every event."""
    out = b""
    for i, piece in enumerate(_PIECES):
        last = i == len(_PIECES) - 1
        chunk = candidate(text(piece), finish="STOP" if last else None, usage=_USAGE)
        out += between + _event(chunk, eol)
    return out


async def _serve(
    body: bytes | httpx.AsyncByteStream, headers: dict[str, str], **kw: Any
) -> Outcome:
    def handler(request: httpx.Request) -> httpx.Response:
        if isinstance(body, bytes):
            return httpx.Response(200, headers=headers, content=body)
        return httpx.Response(200, headers=headers, stream=body)

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    provider = GoogleProvider("k", http_client=client, streaming=kw.pop("streaming", True))
    return await run(provider, kw.pop("req", None))


class _Pieces(httpx.AsyncByteStream):
    """A body in pieces, ``pause`` seconds apart, then a stall (``stall``)."""

    def __init__(self, pieces: list[bytes], *, pause: float = 0.0, stall: bool = False) -> None:
        self.pieces, self.pause, self.stall = pieces, pause, stall

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self.pieces:
            if self.pause:
                await anyio.sleep(self.pause)
            yield piece
        if self.stall:
            await anyio.sleep_forever()


# --- framing ----------------------------------------------------------------------------------

_NO_DATA = {
    "a keep-alive comment": b": keep-alive\r\n\r\n",
    "an empty comment": b":\r\n\r\n",
    "a ping event": b"event: ping\r\ndata: {}\r\n\r\n",
    "an Anthropic-style ping": b'event: ping\r\ndata: {"type": "ping"}\r\n\r\n',
    "id and retry fields": b"id: 7\r\nretry: 3000\r\n\r\n",
    "a comment inside an event": b": note\r\n",
}


@pytest.mark.parametrize("label", _NO_DATA)
async def test_lines_without_data_never_cost_the_answer(label: str) -> None:
    got = await _serve(_stream(between=_NO_DATA[label]), SSE)
    assert got.response is not None, got.error
    assert got.response.message.text == _TEXT


async def test_a_named_event_with_data_is_still_a_chunk() -> None:
    body = _stream().replace(b"data: ", b"event: message\r\nid: 1\r\ndata: ")
    got = await _serve(body, SSE)
    assert got.response is not None, got.error
    assert got.response.message.text == _TEXT


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("size", [1, 2, 3, 1000])
async def test_any_line_end_and_any_chunking_give_the_answer(eol: str, size: int) -> None:
    body = b"\xef\xbb\xbf" + _stream(eol=eol, between=b": ka" + eol.encode() * 2)
    pieces = [body[i : i + size] for i in range(0, len(body), size)]
    got = await _serve(_Pieces(pieces), SSE)
    assert got.response is not None, got.error
    assert got.response.message.text == _TEXT


# --- charset and content-encoding -------------------------------------------------------------


@pytest.mark.parametrize("charset", ["iso-8859-1", "utf-16", "ascii", "nonsense"])
@pytest.mark.parametrize("streaming", [True, False])
async def test_a_declared_charset_never_changes_the_text(charset: str, streaming: bool) -> None:
    if streaming:
        body, media = _stream(), "text/event-stream"
    else:
        answer = candidate(text(_TEXT), usage=_USAGE)
        body, media = json.dumps(answer, ensure_ascii=False).encode(), "application/json"
    got = await _serve(body, {"content-type": f"{media}; charset={charset}"}, streaming=streaming)
    assert got.response is not None, got.error
    assert got.response.message.text == _TEXT


async def test_invalid_utf8_in_a_stream_is_replacement_characters() -> None:
    body = _stream().replace("Héllo".encode(), b"H\xffllo")
    got = await _serve(body, SSE)
    assert got.response is not None, got.error
    assert got.response.message.text == _TEXT.replace("Héllo", "H\ufffdllo")


_GARBAGE = b"\x1f\x8b\x08\x00\x00\x00\x00\x00" + b"this is not deflate data" * 8


@pytest.mark.parametrize("streaming", [True, False])
async def test_an_undecodable_body_is_malformed(streaming: bool) -> None:
    headers = {**(SSE if streaming else JSON), "content-encoding": "gzip"}
    got = await _serve(_GARBAGE, headers, streaming=streaming)
    assert isinstance(got.error, MalformedResponseError), got


async def test_a_valid_gzip_stream_is_the_answer() -> None:
    got = await _serve(gzip.compress(_stream()), {**SSE, "content-encoding": "gzip"})
    assert got.response is not None, got.error
    assert got.response.message.text == _TEXT


# --- timeouts ---------------------------------------------------------------------------------


def _timed(timeout: float) -> Any:
    return request(settings=ModelSettings(timeout=timeout))


@pytest.mark.parametrize("stall", ["silent", "keep-alive comments", "pings"])
async def test_a_stalled_stream_ends_at_the_call_timeout(stall: str) -> None:
    filler = {
        "silent": [],
        "keep-alive comments": [b": keep-alive\r\n\r\n"] * 100,
        "pings": [b"event: ping\r\ndata: {}\r\n\r\n"] * 100,
    }[stall]
    first = _event(candidate(text("Hel"), finish=None, usage=_USAGE))
    started = time.monotonic()
    with anyio.fail_after(5):
        got = await _serve(_Pieces([first, *filler], pause=0.02, stall=True), SSE, req=_timed(0.2))
    assert isinstance(got.error, ProviderTimeoutError), got
    assert time.monotonic() - started < 1.5


async def test_each_chunk_restarts_the_wait() -> None:
    events = [_event(candidate(text(p), finish=None, usage=_USAGE)) for p in "abcdefg"]
    events.append(_event(candidate(text("h"), usage=_USAGE)))
    got = await _serve(_Pieces(events, pause=0.06), SSE, req=_timed(0.2))  # 0.48 s in all
    assert got.response is not None, got.error
    assert got.response.message.text == "abcdefgh"


@pytest.mark.parametrize(("seconds", "read"), [(0.3, 0.3), (None, None)])
async def test_the_host_client_gets_the_calls_timeout(seconds: float | None, read: Any) -> None:
    seen: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.extensions["timeout"])
        return httpx.Response(200, headers=SSE, content=_stream())

    provider = GoogleProvider(
        "k", http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler))
    )
    got = await run(provider, _timed(seconds) if seconds is not None else request())
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
                        await stream.send(b": keep-alive\r\n\r\n")
                    await anyio.sleep(0.05)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream):
                return

    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    async with listener, anyio.create_task_group() as group:
        group.start_soon(listener.serve, handle)
        try:
            yield f"http://127.0.0.1:{port}/"
        finally:
            group.cancel_scope.cancel()


@pytest.mark.parametrize("mode", ["silent", "keepalive", "no headers"])
@pytest.mark.parametrize("streaming", [True, False])
async def test_a_stalled_socket_ends_at_the_call_timeout(mode: Mode, streaming: bool) -> None:
    async with _stalling(mode) as url, httpx.AsyncClient(timeout=None) as http:
        provider = GoogleProvider("k", http_client=http, base_url=url, streaming=streaming)
        started = time.monotonic()
        with anyio.fail_after(4):
            got = await run(provider, _timed(0.3))
        seconds = time.monotonic() - started
    assert isinstance(got.error, ProviderTimeoutError), got
    assert seconds < 1.5, seconds
