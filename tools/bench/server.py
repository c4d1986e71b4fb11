"""A loopback OpenAI-compatible HTTP/1.1 server with zero think time (stdlib asyncio streams).

Routes (RFC 9112 message framing, persistent connections unless ``Connection: close``):

- ``POST /v1/chat/completions`` and ``POST /v1/responses``: the canned scenario of
  :mod:`tools.bench.scenario`, streamed (``"stream": true``, Server-Sent Events with a
  ``Content-Length`` since the whole body is known at once) or buffered JSON.
- ``GET /bench/requests``: the ``[path, body bytes]`` of every model request since the last
  ``POST /bench/reset`` (for the request-size figure).
- ``GET /bench/stats``: ``{"cpu_s": float, "model_requests": int}``, the server process's own CPU
  time so far (user + system seconds, ``getrusage``) and the model requests served, so that the
  concurrency figure can show the server is not its bottleneck.

Run it alone with ``python -m tools.bench.server``: it binds 127.0.0.1 on a free port and prints
the port on the first line of stdout, then serves until stdin closes or it is terminated.
Answers are rendered once per distinct step and then served from memory (pre-rendered bytes), so
the server spends as little of the shared CPUs as possible; one process suffices (measured: under
1,000 concurrent streamed runs it uses about 5% of the elapsed time of one core, the clients the
rest).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import resource
import sys
from typing import Any

from tools.bench.scenario import (
    chat_completion,
    chat_stream,
    responses_completion,
    responses_stream,
    step_of,
)

__all__ = ["BenchServer", "main"]

_MAX_HEAD = 64 * 1024


class BenchServer:
    """The loopback server; ``await start()`` then read :attr:`port`; ``await aclose()``."""

    def __init__(self) -> None:
        self.port = 0
        self.requests: list[tuple[str, int]] = []
        self.model_requests = 0
        self._server: asyncio.Server | None = None
        self._cache: dict[tuple[object, ...], tuple[str, str, bytes]] = {}

    async def start(self) -> None:
        """Bind 127.0.0.1 on a free port (never any other address)."""
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, backlog=4096)
        self.port = self._server.sockets[0].getsockname()[1]

    async def aclose(self) -> None:
        """Stop listening and close the server."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                    return
                if len(head) > _MAX_HEAD:
                    return
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {
                    k.strip().lower(): v.strip()
                    for k, _, v in (line.partition(":") for line in lines[1:] if line)
                }
                length = int(headers.get("content-length", "0"))
                body = await reader.readexactly(length) if length else b""
                status, ctype, payload = self._answer(method, path, body)
                keep = headers.get("connection", "").lower() != "close"
                writer.write(
                    (
                        f"HTTP/1.1 {status}\r\ncontent-type: {ctype}\r\n"
                        f"content-length: {len(payload)}\r\nx-request-id: req_bench\r\n"
                        f"connection: {'keep-alive' if keep else 'close'}\r\n\r\n"
                    ).encode("latin-1")
                    + payload
                )
                await writer.drain()
                if not keep:
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            writer.close()
            # Cancelled too when the server shuts down with connections still open.
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await writer.wait_closed()

    def _answer(self, method: str, path: str, body: bytes) -> tuple[str, str, bytes]:
        path = path.split("?", 1)[0]
        if method == "GET" and path == "/bench/requests":
            return "200 OK", "application/json", json.dumps(self.requests).encode()
        if method == "GET" and path == "/bench/stats":
            usage = resource.getrusage(resource.RUSAGE_SELF)
            stats = {
                "cpu_s": usage.ru_utime + usage.ru_stime,
                "model_requests": self.model_requests,
            }
            return "200 OK", "application/json", json.dumps(stats).encode()
        if method == "POST" and path == "/bench/reset":
            self.requests.clear()
            return "200 OK", "application/json", b"{}"
        if method != "POST" or not path.endswith(("/chat/completions", "/responses")):
            return "404 Not Found", "application/json", b'{"error":{"message":"not found"}}'
        self.requests.append((path, len(body)))
        self.model_requests += 1
        request: dict[str, Any] = json.loads(body)
        stream = bool(request.get("stream"))
        options = request.get("stream_options")
        usage = isinstance(options, dict) and bool(options.get("include_usage"))
        key = (path, stream, usage, str(request.get("model")), step_of(request))
        cached = self._cache.get(key)
        if cached is None:
            cached = self._cache[key] = self._render(path, stream, request)
        return cached

    def _render(self, path: str, stream: bool, request: dict[str, Any]) -> tuple[str, str, bytes]:
        if path.endswith("/chat/completions"):
            if stream:
                return "200 OK", "text/event-stream", chat_stream(request)
            return "200 OK", "application/json", json.dumps(chat_completion(request)).encode()
        if stream:
            return "200 OK", "text/event-stream", responses_stream(request)
        return "200 OK", "application/json", json.dumps(responses_completion(request)).encode()


async def _main() -> None:
    server = BenchServer()
    await server.start()
    sys.stdout.write(f"{server.port}\n")
    sys.stdout.flush()
    loop = asyncio.get_running_loop()
    # Serve until the parent closes our stdin (or terminates us).
    await loop.run_in_executor(None, sys.stdin.read)
    await server.aclose()


def main() -> None:
    """Entry point of ``python -m tools.bench.server``."""
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_main())


if __name__ == "__main__":
    main()
