"""A loopback HTTP server that replays recorded provider traffic (vcrpy cassettes) to a real
client process, e.g. the ``robota`` command pointed at it through a settings profile's
``base_url``.

Matching follows :mod:`robota.core.testing.cassette`: method and URL path (query ignored), in
recorded order; each interaction is served once. Bodies are served verbatim with the recorded
status and headers (Server-Sent Events keep their ``text/event-stream`` content type and bytes).
A request with no matching interaction left gets HTTP 599 with a JSON body naming the miss, and
is recorded with that status, so a test fails loudly instead of hanging.

Every response carries ``Connection: close`` (one request per connection keeps the server
simple; the vendor SDKs reconnect).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from robota.core.testing.cassette import Interaction

__all__ = ["MISS_STATUS", "ReceivedRequest", "ReplayServer"]

MISS_STATUS = 599
"""Status served when no recorded interaction matches (not a real HTTP status, on purpose)."""

_HOP_BY_HOP = frozenset({"connection", "keep-alive", "content-length", "transfer-encoding"})


@dataclass(frozen=True, kw_only=True, slots=True)
class ReceivedRequest:
    """One request the server received.

    Attributes:
        method: HTTP method, upper case.
        path: URL path without the query.
        query: The raw query string ('' when none).
        headers: Request headers, lower-case names (last value wins).
        body: Request body bytes.
        status: The status served (``MISS_STATUS`` for a miss).
        interaction: Index of the served interaction, or None for a miss.
    """

    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes
    status: int
    interaction: int | None

    def json(self) -> Any:
        """The body parsed as JSON.

        Raises:
            ValueError: when the body is not JSON.
        """
        return json.loads(self.body)


@dataclass(kw_only=True)
class ReplayServer:
    """Serves ``interactions`` on ``127.0.0.1`` (a free port) from a background thread.

    Use as a context manager::

        with ReplayServer(interactions=cassette.interactions) as server:
            run_client(base_url=server.url)
        assert server.misses == []

    Attributes:
        interactions: Recorded interactions in serving order.
        received: Every request received, in arrival order.
    """

    interactions: Sequence[Interaction]
    received: list[ReceivedRequest] = field(default_factory=list[ReceivedRequest])
    _used: set[int] = field(default_factory=set[int])
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (no trailing slash).

        Raises:
            RuntimeError: before :meth:`start`.
        """
        if self._server is None:
            raise RuntimeError("replay server is not running")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def served(self) -> int:
        """How many interactions were served."""
        return len(self._used)

    @property
    def misses(self) -> list[ReceivedRequest]:
        """Requests that matched no interaction."""
        return [r for r in self.received if r.interaction is None]

    def _match(self, method: str, path: str) -> int | None:
        with self._lock:
            for index, interaction in enumerate(self.interactions):
                if index in self._used or interaction.method != method:
                    continue
                if interaction.path != path:
                    continue
                self._used.add(index)
                return index
        return None

    def _record(self, request: ReceivedRequest) -> None:
        with self._lock:
            self.received.append(request)

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(handler.path)
        length = int(handler.headers.get("content-length") or 0)
        body = handler.rfile.read(length) if length else b""
        index = self._match(handler.command, parts.path)
        if index is None:
            status = MISS_STATUS
            payload = json.dumps(
                {
                    "error": {
                        "type": "cassette_miss",
                        "message": f"no recorded interaction left for {handler.command} "
                        f"{parts.path}",
                    }
                }
            ).encode()
            headers = {"content-type": "application/json"}
        else:
            interaction = self.interactions[index]
            status = interaction.status
            payload = interaction.body
            headers = {
                name: value
                for name, value in interaction.headers.items()
                if name.lower() not in _HOP_BY_HOP
            }
        self._record(
            ReceivedRequest(
                method=handler.command,
                path=parts.path,
                query=parts.query,
                headers={k.lower(): v for k, v in handler.headers.items()},
                body=body,
                status=status,
                interaction=index,
            )
        )
        handler.send_response(status)
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.send_header("content-length", str(len(payload)))
        handler.send_header("connection", "close")
        handler.end_headers()
        handler.wfile.write(payload)
        handler.wfile.flush()
        handler.close_connection = True

    def start(self) -> ReplayServer:
        """Bind a free loopback port and serve from a daemon thread."""
        replay = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                replay._handle(self)

            def do_POST(self) -> None:
                replay._handle(self)

            def do_DELETE(self) -> None:
                replay._handle(self)

            def log_message(self, format: str, *args: Any) -> None:
                return None

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="replay", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket; idempotent."""
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self) -> ReplayServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
