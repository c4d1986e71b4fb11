"""A real TCP server on 127.0.0.1 that answers every request with a 200 event-stream header and
then either goes silent or sends only SSE keep-alive comments, forever (until closed). Used to
see whether a per-call ``timeout`` ends the call on a real socket."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Literal

import anyio
from anyio.abc import SocketStream

__all__ = ["stalling_server"]

Mode = Literal["silent", "keepalive"]
HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
    b"connection: close\r\n\r\n"
)


async def _read_request(stream: SocketStream) -> None:
    data = b""
    while b"\r\n\r\n" not in data:
        data += await stream.receive()
    head, _, rest = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(rest) < length:
        rest += await stream.receive()


@asynccontextmanager
async def stalling_server(mode: Mode) -> AsyncGenerator[str]:
    """Yield ``http://127.0.0.1:<port>`` of a server stalling in ``mode``."""

    async def handle(stream: SocketStream) -> None:
        async with stream:
            try:
                await _read_request(stream)
                await stream.send(HEAD)
                while True:
                    if mode == "keepalive":
                        await stream.send(b": keep-alive\n\n")
                    await anyio.sleep(0.1)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream):
                return

    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(listener.serve, handle)
            try:
                yield f"http://127.0.0.1:{port}"
            finally:
                group.cancel_scope.cancel()
    finally:
        await listener.aclose()
