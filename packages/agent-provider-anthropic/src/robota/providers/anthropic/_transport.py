"""Let the ``anthropic`` SDK (built on ``httpx2``) send through a host's ``httpx.AsyncClient``.

The installed ``anthropic`` SDK accepts only an ``httpx2.AsyncClient``. Hosts and the cassette
replay (``robota.core.testing.cassette``) hand over ``httpx`` objects, so this module bridges:
:class:`HttpxBridgeTransport` is an ``httpx2`` transport that forwards each request through an
``httpx.AsyncClient`` (its transport, proxies, limits and event hooks all apply) and streams the
response body back without buffering it.

The SDK's timeout for each request (the client's, or a per-call ``timeout``) travels in the
``httpx2`` request's ``timeout`` extension; the bridge sends the ``httpx`` request with exactly
that timeout, so a per-call timeout bounds the wait on the host's client too. ``httpx`` failures
(while sending or while the body streams) surface as the ``httpx2`` error of the same name —
``ReadTimeout`` stays a timeout, ``DecodingError`` (a body its ``content-encoding`` cannot
undo) stays a decoding error.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any, cast

import httpx
import httpx2

__all__ = ["HttpxBridgeTransport", "as_httpx2_client"]


def _as_httpx2(exc: httpx.RequestError, request: httpx2.Request) -> httpx2.RequestError:
    """The ``httpx2`` error named like ``exc`` (a transport failure of unknown kind → a
    connection error)."""
    kind = getattr(httpx2, type(exc).__name__, None)
    if not (isinstance(kind, type) and issubclass(kind, httpx2.RequestError)):
        kind = (
            httpx2.ReadTimeout if isinstance(exc, httpx.TimeoutException) else httpx2.ConnectError
        )
    return cast(type[httpx2.RequestError], kind)(str(exc), request=request)


def _timeout_of(request: httpx2.Request) -> httpx.Timeout | None:
    """The timeout the SDK set on ``request`` (its ``timeout`` extension), if any."""
    value = request.extensions.get("timeout")
    if not isinstance(value, Mapping):
        return None
    parts = cast(Mapping[str, Any], value)
    return httpx.Timeout(
        connect=parts.get("connect"),
        read=parts.get("read"),
        write=parts.get("write"),
        pool=parts.get("pool"),
    )


class _BridgedStream(httpx2.AsyncByteStream):
    def __init__(self, response: httpx.Response, request: httpx2.Request) -> None:
        self._response = response
        self._request = request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._response.aiter_bytes():
                yield chunk
        except httpx.RequestError as exc:
            raise _as_httpx2(exc, self._request) from exc

    async def aclose(self) -> None:
        await self._response.aclose()


class HttpxBridgeTransport(httpx2.AsyncBaseTransport):
    """An ``httpx2`` transport sending through an ``httpx.AsyncClient``.

    Example:
        >>> import httpx, httpx2
        >>> t = HttpxBridgeTransport(httpx.AsyncClient())
        >>> isinstance(httpx2.AsyncClient(transport=t), httpx2.AsyncClient)
        True
    """

    def __init__(self, client: httpx.AsyncClient) -> None:
        self._client = client

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Forward ``request`` with the timeout the SDK set on it; failures surface as the
        ``httpx2`` errors of the same name, so the SDK reports a timeout as a timeout."""
        body = await request.aread()
        timeout = _timeout_of(request)
        outgoing = self._client.build_request(
            request.method,
            str(request.url),
            headers=list(request.headers.multi_items()),
            content=body,
            timeout=timeout if timeout is not None else httpx.USE_CLIENT_DEFAULT,
        )
        try:
            response = await self._client.send(outgoing, stream=True)
        except httpx.RequestError as exc:
            raise _as_httpx2(exc, request) from exc
        headers = [
            (name, value)
            for name, value in response.headers.multi_items()
            if name.lower() not in ("content-encoding", "content-length", "transfer-encoding")
        ]
        return httpx2.Response(
            response.status_code,
            headers=headers,
            stream=_BridgedStream(response, request),
            request=request,
        )

    async def aclose(self) -> None:
        """The bridged client belongs to the host; it is not closed here."""


def as_httpx2_client(client: httpx.AsyncClient | httpx2.AsyncClient) -> httpx2.AsyncClient:
    """Return ``client`` itself when it is ``httpx2``, else an ``httpx2`` client bridging it
    with the same timeouts (so the SDK sees the host's timeout as the client's own).

    Example:
        >>> import httpx
        >>> as_httpx2_client(httpx.AsyncClient(timeout=httpx.Timeout(7, connect=2))).timeout
        Timeout(connect=2, read=7, write=7, pool=7)
    """
    if isinstance(client, httpx2.AsyncClient):
        return client
    own = client.timeout
    timeout = httpx2.Timeout(connect=own.connect, read=own.read, write=own.write, pool=own.pool)
    return httpx2.AsyncClient(transport=HttpxBridgeTransport(client), timeout=timeout)
