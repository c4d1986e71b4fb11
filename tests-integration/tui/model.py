"""A scripted OpenAI Chat Completions server on 127.0.0.1 for the terminal tests: each request to
``POST /v1/chat/completions`` is answered by the next :class:`Reply`, streamed as Server-Sent
Events one chunk at a time (chunked transfer encoding, a pause between chunks), so the chat
really receives a stream. A :func:`hang` reply never finishes (for Ctrl-C mid-turn); a request
with no reply left gets HTTP 599 and a JSON error naming the miss, so a test fails loudly.

Every request body is kept (:attr:`ScriptedModel.received`, parsed JSON) for assertions about
what the chat sent.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

__all__ = ["MODEL", "Reply", "ScriptedModel", "hang", "text", "tool_calls"]

MODEL = "gpt-4o-mini"
"""The model name the replies carry (the settings profile uses it too)."""

Chunk = dict[str, Any]


@dataclass(frozen=True, kw_only=True, slots=True)
class Reply:
    """One streamed answer.

    Attributes:
        chunks: ``chat.completion.chunk`` payloads (without ``id``/``object``/``model``),
            sent in order.
        pause: Seconds between chunks.
        hang: Send nothing and hold the connection until the client goes away or the server
            stops.
        held_after: With ``gate``: how many chunks go out before the stream waits for
            ``gate`` to be set (so a test can look at a half-streamed answer).
        gate: Set it to let a held stream go on.
    """

    chunks: tuple[Chunk, ...] = ()
    pause: float = 0.0
    hang: bool = False
    held_after: int = 0
    gate: threading.Event | None = None

    def release(self) -> None:
        """Let a held stream go on (no-op without a gate)."""
        if self.gate is not None:
            self.gate.set()


def _usage(prompt_tokens: int, completion_tokens: int) -> Chunk:
    return {
        "choices": [],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def text(
    *pieces: str,
    pause: float = 0.01,
    usage: tuple[int, int] = (120, 40),
    held_after: int | None = None,
) -> Reply:
    """An answer streaming ``pieces`` in order (one delta each), then ``stop`` and usage
    (``usage``: input and output tokens). With ``held_after``, the stream stops after that
    many pieces until :meth:`Reply.release`."""
    chunks: list[Chunk] = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": piece}}]}
        for piece in pieces
    ]
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    chunks.append(_usage(*usage))
    if held_after is None:
        return Reply(chunks=tuple(chunks), pause=pause)
    return Reply(chunks=tuple(chunks), pause=pause, held_after=held_after, gate=threading.Event())


def tool_calls(*calls: tuple[str, dict[str, Any]], usage: tuple[int, int] = (150, 30)) -> Reply:
    """An answer calling tools: each ``(name, arguments)`` one call (ids ``call_1``, ...)."""
    deltas = [
        {
            "index": index,
            "id": f"call_{index + 1}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
        for index, (name, arguments) in enumerate(calls)
    ]
    chunks: list[Chunk] = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": deltas}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
        _usage(*usage),
    ]
    return Reply(chunks=tuple(chunks))


def hang() -> Reply:
    """An answer that never comes."""
    return Reply(hang=True)


def _event(chunk: Chunk) -> bytes:
    body = {"id": "chatcmpl-tui", "object": "chat.completion.chunk", "model": MODEL, **chunk}
    return f"data: {json.dumps(body)}\n\n".encode()


@dataclass(kw_only=True)
class ScriptedModel:
    """Serves ``replies`` in order from a background thread; use as a context manager.

    Attributes:
        replies: The answers, one per request.
        received: Each request's JSON body, in arrival order (misses included).
    """

    replies: Sequence[Reply]
    received: list[Any] = field(default_factory=list[Any])
    _next: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stopping: threading.Event = field(default_factory=threading.Event)
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT/v1``, the profile's ``base_url``.

        Raises:
            RuntimeError: before :meth:`start`.
        """
        if self._server is None:
            raise RuntimeError("the scripted model server is not running")
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    @property
    def requests(self) -> int:
        """How many requests arrived."""
        with self._lock:
            return len(self.received)

    def _take(self, body: Any, *, chat: bool) -> Reply | None:
        with self._lock:
            self.received.append(body)
            if not chat or self._next >= len(self.replies):
                return None
            reply = self.replies[self._next]
            self._next += 1
            return reply

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("content-length") or 0)
        raw = handler.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw
        reply = self._take(body, chat=handler.path.endswith("/chat/completions"))
        if reply is None:
            payload = json.dumps(
                {"error": {"type": "script_miss", "message": f"no reply left for {handler.path}"}}
            ).encode()
            handler.send_response(599)
            handler.send_header("content-type", "application/json")
            handler.send_header("content-length", str(len(payload)))
            handler.send_header("connection", "close")
            handler.end_headers()
            handler.wfile.write(payload)
            return
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("transfer-encoding", "chunked")
        handler.send_header("connection", "close")
        handler.end_headers()
        if reply.hang:
            self._stopping.wait(120)
            return
        try:
            for index, chunk in enumerate(reply.chunks):
                if reply.gate is not None and index == reply.held_after:
                    while not reply.gate.wait(0.05):
                        if self._stopping.is_set():
                            return
                self._write(handler, _event(chunk))
                if reply.pause and self._stopping.wait(reply.pause):
                    return
            self._write(handler, b"data: [DONE]\n\n")
            self._write(handler, b"")
        except (BrokenPipeError, ConnectionResetError):
            return

    @staticmethod
    def _write(handler: BaseHTTPRequestHandler, data: bytes) -> None:
        handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        handler.wfile.flush()

    def start(self) -> ScriptedModel:
        """Bind a free loopback port and serve."""
        scripted = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                scripted._handle(self)

            def do_GET(self) -> None:
                scripted._handle(self)

            def log_message(self, format: str, *args: Any) -> None:
                return None

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="model", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Release hanging replies, stop serving, close the socket; idempotent."""
        self._stopping.set()
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self) -> ScriptedModel:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
