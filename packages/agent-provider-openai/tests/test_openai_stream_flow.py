"""A streamed round gives its deltas to an ``agent.stream()`` consumer without a task switch per
delta (issue #20), yet a run cancelled mid-stream still stops at the next socket read: against a
loopback server that sends the body piece by piece, only when the test lets it, the consumer that
leaves after the first piece ends the run and closes the connection while the rest is unsent."""

from __future__ import annotations

import asyncio

import anyio
import httpx
import pytest
from _openai_wire import chunk, sse
from robota.core.agent import Agent, ModelTextDelta
from robota.providers.openai import OpenAIChatProvider

pytestmark = pytest.mark.anyio

PIECES = [
    sse(chunk("one ", role="assistant"), chunk("two ")),
    sse(chunk("three ")),
    sse(chunk("four", finish="stop"), done=True),
]


class SlowServer:
    """An HTTP/1.1 server on 127.0.0.1 that answers one streamed call with ``PIECES``, each piece
    only after :meth:`release`; it records how many it sent and whether the client hung up."""

    def __init__(self) -> None:
        self.sent = 0
        self.hung_up = asyncio.Event()
        self._go = asyncio.Queue[None]()
        self._server: asyncio.Server | None = None

    def release(self) -> None:
        self._go.put_nowait(None)

    async def __aenter__(self) -> str:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/v1"

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.decode("latin-1").split("\r\n"):
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            await reader.readexactly(length)
            writer.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"transfer-encoding: chunked\r\n\r\n"
            )
            eof = asyncio.ensure_future(reader.read())  # done once the client hung up
            for piece in PIECES:
                go = asyncio.ensure_future(self._go.get())
                await asyncio.wait([go, eof], return_when=asyncio.FIRST_COMPLETED)
                if eof.done():
                    go.cancel()
                    break
                writer.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                await writer.drain()
                self.sent += 1
            else:
                writer.write(b"0\r\n\r\n")
                await writer.drain()
            await eof
            self.hung_up.set()
        except (ConnectionError, asyncio.IncompleteReadError):
            self.hung_up.set()
        finally:
            writer.close()


async def test_a_consumer_leaving_mid_stream_stops_the_run_at_the_next_read() -> None:
    server = SlowServer()
    async with server as base_url, httpx.AsyncClient() as client:
        provider = OpenAIChatProvider("sk-test", base_url=base_url, http_client=client)
        agent = Agent(provider, model="gpt-4o")
        seen: list[str] = []
        with anyio.fail_after(30):  # a hang guard, not a timing assertion
            server.release()  # the first piece only
            async with agent.stream("count") as stream:
                async for event in stream:
                    if isinstance(event, ModelTextDelta):
                        seen.append(event.text)
                        if len(seen) == 2:
                            break  # every delta of the first piece, then leave
            await server.hung_up.wait()
        assert seen == ["one ", "two "]
        assert server.sent == 1  # the rest was never sent: the run stopped reading
        assert stream.done
        last = agent.history[-1]
        assert last.kind == "assistant"
        assert last.text == "one two "


async def test_every_piece_read_as_it_arrives_gives_every_delta_in_order() -> None:
    server = SlowServer()
    async with server as base_url, httpx.AsyncClient() as client:
        provider = OpenAIChatProvider("sk-test", base_url=base_url, http_client=client)
        agent = Agent(provider, model="gpt-4o")
        seen: list[str] = []
        with anyio.fail_after(30):
            server.release()
            async with agent.stream("count") as stream:
                async for event in stream:
                    if isinstance(event, ModelTextDelta):
                        seen.append(event.text)
                        if len(seen) in (2, 3):  # a piece fully delivered: send the next
                            server.release()
        assert seen == ["one ", "two ", "three ", "four"]
        assert stream.result.output == "one two three four"
