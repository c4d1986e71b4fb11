"""Let the ``anthropic`` SDK (built on ``httpx2``) send through a host's ``httpx.AsyncClient``.

The installed ``anthropic`` SDK accepts only an ``httpx2.AsyncClient``. Hosts and the cassette
replay (``robota.core.testing.cassette``) hand over ``httpx`` objects, so this module bridges:
:class:`HttpxBridgeTransport` is an ``httpx2`` transport that forwards each request through an
``httpx.AsyncClient`` (its transport, proxies, limits and event hooks all apply) and streams the
response body back without buffering it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import httpx2

__all__ = ["HttpxBridgeTransport", "as_httpx2_client"]


class _BridgedStream(httpx2.AsyncByteStream):
    def __init__(self, response: httpx.Response) -> None:
        self._response = response

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._response.aiter_bytes():
            yield chunk

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
        """Forward ``request``; transport failures surface as ``httpx2`` errors so the SDK
        reports them as connection/timeout errors."""
        body = await request.aread()
        outgoing = self._client.build_request(
            request.method,
            str(request.url),
            headers=list(request.headers.multi_items()),
            content=body,
        )
        try:
            response = await self._client.send(outgoing, stream=True)
        except httpx.TimeoutException as exc:
            raise httpx2.ReadTimeout(str(exc), request=request) from exc
        except httpx.TransportError as exc:
            raise httpx2.ConnectError(str(exc), request=request) from exc
        headers = [
            (name, value)
            for name, value in response.headers.multi_items()
            if name.lower() not in ("content-encoding", "content-length", "transfer-encoding")
        ]
        return httpx2.Response(
            response.status_code,
            headers=headers,
            stream=_BridgedStream(response),
            request=request,
        )

    async def aclose(self) -> None:
        """The bridged client belongs to the host; it is not closed here."""


def as_httpx2_client(client: httpx.AsyncClient | httpx2.AsyncClient) -> httpx2.AsyncClient:
    """Return ``client`` itself when it is ``httpx2``, else an ``httpx2`` client bridging it."""
    if isinstance(client, httpx2.AsyncClient):
        return client
    return httpx2.AsyncClient(transport=HttpxBridgeTransport(client), timeout=client.timeout.read)
