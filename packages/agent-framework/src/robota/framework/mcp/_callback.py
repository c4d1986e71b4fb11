"""The loopback redirect target of an OAuth login (RFC 8252 §7.3, "Loopback Interface
Redirection"; RFC 6749 §4.1.2, the authorization response).

:class:`LoopbackCallback` listens on ``127.0.0.1`` (never all interfaces) on a port of its own
and answers the browser's one redirect to ``/callback``. A request whose ``state`` is not the one
of the authorization URL in flight (RFC 6749 §10.12, cross-site request forgery) is refused with
400 and does not end the wait; so is any other path or method. The first request carrying the
expected ``state`` ends it: with the ``code`` (and ``iss``, RFC 9207), or with the server's
``error``. The ``mcp`` SDK checks the ``state`` again before it exchanges the code.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

import anyio
import anyio.abc
from robota.core.errors import ErrorCategory, RobotaError

__all__ = ["CALLBACK_PATH", "CallbackResult", "LoopbackCallback", "McpLoginError"]

CALLBACK_PATH = "/callback"
"""The redirect URI's path."""

_MAX_HEAD = 16 * 1024
"""Bytes of request line and headers read from one connection (bytes)."""

_READ_TIMEOUT = 10.0
"""Seconds one connection may take to send its request line and headers."""


class McpLoginError(RobotaError):
    """An OAuth login to an MCP server did not complete: no callback within the timeout, the
    authorization server refused (``error`` in the redirect, RFC 6749 §4.1.2.1), the token
    exchange failed, or the server asked for no login at all.

    Attributes:
        server: The configured server name ('' when unknown).
    """

    code = "mcp_login"
    default_category = ErrorCategory.USER
    default_recoverable = True

    def __init__(self, message: str, *, server: str = "") -> None:
        super().__init__(message)
        self.server = server


@dataclass(frozen=True, kw_only=True, slots=True)
class CallbackResult:
    """The authorization response the browser brought back.

    Attributes:
        code: The authorization code.
        state: The ``state`` (equal to the expected one).
        iss: The ``iss`` parameter (RFC 9207), or None.
    """

    code: str
    state: str
    iss: str | None = None


class LoopbackCallback:
    """A one-shot HTTP listener on ``127.0.0.1`` for the authorization redirect.

    Use as ``async with LoopbackCallback.serving(port=...) as callback:`` (it answers requests
    while the block runs), tell it the ``state`` in flight with :meth:`expect`, then
    :meth:`wait`.
    """

    def __init__(self, listener: anyio.abc.Listener[anyio.abc.SocketStream], port: int) -> None:
        self._listener = listener
        self.port = port
        """The TCP port listened on."""
        self._state: str | None = None
        self._result: CallbackResult | McpLoginError | None = None
        self._done = anyio.Event()

    @classmethod
    @contextlib.asynccontextmanager
    async def serving(cls, *, port: int = 0) -> AsyncGenerator[LoopbackCallback]:
        """Listen on ``127.0.0.1:port`` (on a port in use, or ``port`` 0, on a free one the
        system picks) and answer requests until the block ends; enter and leave it in one task.

        Raises:
            OSError: no port could be bound.
        """
        listener: anyio.abc.Listener[anyio.abc.SocketStream] | None = None
        if port:
            with contextlib.suppress(OSError):
                listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=port)
        if listener is None:
            listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
        callback = cls(listener, listener.extra(anyio.abc.SocketAttribute.local_port))
        async with listener, anyio.create_task_group() as group:
            group.start_soon(listener.serve, callback._serve_one)
            try:
                yield callback
            finally:
                group.cancel_scope.cancel()

    @property
    def redirect_uri(self) -> str:
        """``http://127.0.0.1:<port>/callback``."""
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    def expect(self, authorization_url: str) -> None:
        """Accept only a redirect carrying the ``state`` of ``authorization_url``.

        Raises:
            McpLoginError: the URL has no ``state`` (the flow would not be protected), or a
                redirect was already taken: the server asked for a second authorization
                within one login (one listener serves one authorization).
        """
        if self._result is not None:
            raise McpLoginError(
                "the server asked for a second authorization within the same login "
                "(the first one's tokens were not accepted or expired at once)"
            )
        states = parse_qs(urlsplit(authorization_url).query).get("state", [])
        if len(states) != 1 or not states[0]:
            raise McpLoginError("the authorization URL carries no state parameter")
        self._state = states[0]

    async def wait(self, within: float) -> CallbackResult:
        """Serve until the expected redirect arrives, at most ``within`` seconds.

        Raises:
            McpLoginError: ``within`` seconds passed, or the redirect carried an ``error``.
        """
        with anyio.move_on_after(within):
            await self._done.wait()
        result = self._result
        if result is None:
            raise McpLoginError(
                f"no authorization arrived at {self.redirect_uri} within {within:g} s"
            )
        if isinstance(result, McpLoginError):
            raise result
        return result

    async def _serve_one(self, stream: anyio.abc.SocketStream) -> None:
        async with stream:
            with anyio.move_on_after(_READ_TIMEOUT):
                head = await _read_head(stream)
                status, text = self._answer(head)
                await stream.send(_response(status, text))
                if self._result is not None:
                    self._done.set()

    def _answer(self, head: bytes) -> tuple[int, str]:
        """The status and page for one request, recording the result when it is the one."""
        line = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = line.split(" ")
        if len(parts) != 3 or parts[0] != "GET":
            return 405, "Only the authorization redirect (GET) is served here."
        target = urlsplit(parts[1])
        if target.path != CALLBACK_PATH:
            return 404, "Not found."
        query = parse_qs(target.query)
        state = _one(query, "state")
        expected = self._state
        if self._result is not None:
            return 400, "This login already finished."
        if expected is None or state is None or not secrets.compare_digest(state, expected):
            return 400, "Refused: this redirect does not belong to the login in progress."
        error = _one(query, "error")
        if error is not None:
            description = _one(query, "error_description")
            why = f"{error} ({description})" if description else error
            self._result = McpLoginError(f"the authorization server refused the login: {why}")
            return 200, "The login was refused. You can close this window."
        code = _one(query, "code")
        if not code:
            return 400, "Refused: the redirect carries no authorization code."
        self._result = CallbackResult(code=code, state=state, iss=_one(query, "iss"))
        return 200, "Robota is logged in. You can close this window."


def _one(query: dict[str, list[str]], key: str) -> str | None:
    values = query.get(key, [])
    return values[0] if len(values) == 1 else None


async def _read_head(stream: anyio.abc.SocketStream) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data and len(data) < _MAX_HEAD:
        try:
            chunk = await stream.receive(4096)
        except (anyio.EndOfStream, anyio.BrokenResourceError):
            break
        data += chunk
    return data


_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed"}


def _response(status: int, text: str) -> bytes:
    body = (
        "<!doctype html><html><head><meta charset='utf-8'><title>Robota</title></head>"
        f"<body><p>{text}</p></body></html>"
    ).encode()
    head = (
        f"HTTP/1.1 {status} {_REASONS[status]}\r\n"
        "Content-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Cache-Control: no-store\r\n"
        "Referrer-Policy: no-referrer\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode("latin-1") + body
