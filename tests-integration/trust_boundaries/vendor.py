"""A loopback "vendor" for the trust-boundary red team: answers like the vendor APIs the
``robota`` command talks to and records every request byte it receives.

* ``POST .../chat/completions`` (OpenAI Chat Completions, the ``openai-chat`` and
  ``openai-compatible`` types): streamed (Server-Sent Events) or buffered, as the request asks.
  The k-th request of a conversation (k = tool results already in ``messages``) answers with
  ``script[k]`` as a tool call, and with the text ``done`` once the script is used up.
* ``POST .../messages`` (Anthropic Messages): the same script, Anthropic's event stream.
* Anything else (the Responses API, Gemini): HTTP 400 with a JSON error, so a run fails fast
  after its request was recorded (the headers are what the credential rows judge).
* ``CONNECT`` and absolute-URL requests (the server doubles as the run's HTTP(S) proxy, so a
  request meant for a real vendor host is caught here instead of leaving the machine): HTTP 403.

Every response closes its connection (one request per connection).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, cast

__all__ = ["ScriptedCall", "Seen", "VendorServer"]

FINAL_TEXT = "done"
"""The text every conversation ends with."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ScriptedCall:
    """One tool call the vendor answers with.

    Attributes:
        name: Tool name.
        arguments: Tool arguments (JSON object).
    """

    name: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True, kw_only=True, slots=True)
class Seen:
    """One request as received.

    Attributes:
        method: HTTP method.
        target: The request target as sent (path and query, or an absolute URL, or
            ``host:port`` for ``CONNECT``).
        headers: Every header line, in order, names as sent.
        body: The body bytes.
    """

    method: str
    target: str
    headers: tuple[tuple[str, str], ...]
    body: bytes

    def raw(self) -> bytes:
        """Everything the client sent: request line, headers and body."""
        head = f"{self.method} {self.target}\n" + "".join(f"{k}: {v}\n" for k, v in self.headers)
        return head.encode("utf-8", "replace") + self.body

    def header(self, name: str) -> str | None:
        """The last value of header ``name`` (case-insensitive), or None."""
        found = [v for k, v in self.headers if k.lower() == name.lower()]
        return found[-1] if found else None


def _sse(events: Sequence[tuple[str | None, Mapping[str, Any] | str]]) -> bytes:
    out: list[str] = []
    for event, data in events:
        if event is not None:
            out.append(f"event: {event}\n")
        payload = data if isinstance(data, str) else json.dumps(data)
        out.append(f"data: {payload}\n\n")
    return "".join(out).encode()


def _chat_reply(call: ScriptedCall | None, *, stream: bool, model: str, index: int) -> bytes:
    ident = f"chatcmpl-{index}"
    usage = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    if call is None:
        message: dict[str, Any] = {"role": "assistant", "content": FINAL_TEXT}
        reason = "stop"
    else:
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "index": 0,
                    "id": f"call_{index}",
                    "type": "function",
                    "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
                }
            ],
        }
        reason = "tool_calls"
    if not stream:
        body = {
            "id": ident,
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": reason}],
            "usage": usage,
        }
        return json.dumps(body).encode()
    base = {"id": ident, "object": "chat.completion.chunk", "created": 0, "model": model}
    return _sse(
        [
            (None, {**base, "choices": [{"index": 0, "delta": message, "finish_reason": None}]}),
            (None, {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}),
            (None, {**base, "choices": [], "usage": usage}),
            (None, "[DONE]"),
        ]
    )


def _anthropic_reply(call: ScriptedCall | None, *, model: str, index: int) -> bytes:
    start = {
        "type": "message_start",
        "message": {
            "id": f"msg_{index}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 1},
        },
    }
    if call is None:
        block: dict[str, Any] = {"type": "text", "text": ""}
        delta: dict[str, Any] = {"type": "text_delta", "text": FINAL_TEXT}
        reason = "end_turn"
    else:
        block = {"type": "tool_use", "id": f"toolu_{index}", "name": call.name, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(call.arguments)}
        reason = "tool_use"
    return _sse(
        [
            ("message_start", start),
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": block},
            ),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": reason, "stop_sequence": None},
                    "usage": {"output_tokens": 2},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
    )


def _results_in(body: Mapping[str, Any]) -> int:
    """Tool results already in the conversation (Chat Completions or Anthropic shape)."""
    count = 0
    for message in cast(list[dict[str, Any]], body.get("messages") or []):
        if message.get("role") == "tool":
            count += 1
        content = message.get("content")
        if isinstance(content, list):
            for part in cast(list[Any], content):
                if isinstance(part, dict) and cast(dict[str, Any], part).get("type") == (
                    "tool_result"
                ):
                    count += 1
    return count


@dataclass(kw_only=True)
class VendorServer:
    """The loopback vendor; use as a context manager.

    Attributes:
        script: Tool calls, one per model request, before the final text.
        seen: Every request received, in arrival order.
    """

    script: Sequence[ScriptedCall] = ()
    seen: list[Seen] = field(default_factory=list[Seen])
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        if self._server is None:
            raise RuntimeError("vendor server is not running")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def model_requests(self) -> list[Seen]:
        """Requests to a model endpoint (not proxy traffic)."""
        return [s for s in self.seen if s.method == "POST" and s.target.startswith("/")]

    def contains(self, needle: str) -> bool:
        """True when any request carried ``needle`` anywhere (request line, headers, body)."""
        token = needle.encode()
        with self._lock:
            return any(token in s.raw() for s in self.seen)

    def _answer(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("content-length") or 0)
        body = handler.rfile.read(length) if length else b""
        seen = Seen(
            method=handler.command,
            target=handler.path,
            headers=tuple((k, v) for k, v in handler.headers.items()),
            body=body,
        )
        with self._lock:
            self.seen.append(seen)
            index = len(self.seen)
        status, content_type, payload = self._reply(seen, index)
        handler.send_response(status)
        handler.send_header("content-type", content_type)
        handler.send_header("content-length", str(len(payload)))
        handler.send_header("connection", "close")
        handler.end_headers()
        handler.wfile.write(payload)
        handler.wfile.flush()
        handler.close_connection = True

    def _reply(self, seen: Seen, index: int) -> tuple[int, str, bytes]:
        error = json.dumps({"error": {"type": "invalid_request_error", "message": "nope"}})
        if seen.method == "CONNECT" or not seen.target.startswith("/"):
            return 403, "application/json", error.encode()
        path = seen.target.split("?", 1)[0]
        try:
            request = cast(dict[str, Any], json.loads(seen.body or b"{}"))
        except ValueError:
            request = {}
        done = _results_in(request)
        call = self.script[done] if done < len(self.script) else None
        model = str(request.get("model") or "m")
        if path.endswith("/chat/completions"):
            stream = request.get("stream") is True
            kind = "text/event-stream" if stream else "application/json"
            return 200, kind, _chat_reply(call, stream=stream, model=model, index=index)
        if path.endswith("/messages"):
            return 200, "text/event-stream", _anthropic_reply(call, model=model, index=index)
        return 400, "application/json", error.encode()

    def start(self) -> VendorServer:
        """Bind a free loopback port and serve from a daemon thread."""
        vendor = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                vendor._answer(self)

            def do_POST(self) -> None:
                vendor._answer(self)

            def do_CONNECT(self) -> None:
                vendor._answer(self)

            def log_message(self, format: str, *args: Any) -> None:
                return None

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="vendor", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; idempotent."""
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self) -> VendorServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
