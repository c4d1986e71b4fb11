"""The ``httpx.AsyncClient`` the SDK sends through: it forwards every request to the host's
client (its transport, proxies, limits, auth and event hooks all apply) and hands the SDK a
response it can read correctly.

The SDK's own Server-Sent Events reader takes every line that is not ``data: …`` for a line of a
raw JSON body, so a valid event stream with a keep-alive comment (``: keep-alive``), an
``event:``/``id:``/``retry:`` field or a ``ping`` event fails as unreadable. The body of an
event-stream response is therefore re-framed here by the standard (WHATWG HTML §9.2.6; its
lines come from :class:`robota.core.sse.SseLineDecoder`, the rule every adapter shares): decoded
as UTF-8 whatever charset it declares (a leading BOM skipped, invalid bytes → U+FFFD), lines
ending at CRLF, CR or LF, comments and fields other than ``data`` dropped, ``ping`` events
dropped, and each dispatched event handed on as ``data: …`` lines and a blank line — its data
first repaired by :func:`~._chunks.clean_response` (an ``"error": null`` dropped, unreadable
token counts marked unknown). Lines that are no SSE field at all pass through as they came (the
SDK reads them as a raw JSON body, e.g. an error object spread over lines). An event still open
when the body ends is not dispatched (the standard: "the incomplete event is not dispatched").

Only ``\n`` ends a line of what the SDK is handed: the characters ``str.splitlines`` also takes
for line ends (VT, FF, FS, GS, RS, NEL, U+2028, U+2029) are no line end in an event stream, but a
line reader built on ``str.splitlines`` (``httpx`` before 0.28, which older SDKs read through)
would split at them and could turn a corrupted line into a valid ``data:`` line. So NEL, U+2028
and U+2029 are handed on as their JSON escapes (in valid JSON they occur only inside strings,
where the escape means the same; outside a string both forms are invalid), and the C0 controls
as U+001A (raw control characters are invalid anywhere in JSON, so the text stays invalid): the
outcome does not depend on the SDK's or ``httpx``'s line reader.

A JSON response declares no charset that counts (RFC 8259 §8.1: JSON between systems is UTF-8),
so a ``charset`` parameter on a JSON or event-stream ``content-type`` is removed before the SDK
decodes the body.

The timeout the SDK sets on a request (a per-call ``timeout``, or none) is sent on with it,
and its read timeout also bounds the wait for each next event of an event stream — comments
and pings keep a connection open but say nothing, so they never extend it (a stalled stream
ends with ``httpx.ReadTimeout``, a :class:`~robota.core.errors.ProviderTimeoutError` to the
caller, however many keep-alives it sends; for a buffered call answered by an event stream
too).
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import aclosing
from typing import Any, cast

import httpx
from robota.core.sse import SseLineDecoder, with_idle_timeout
from robota.providers.google._chunks import clean_response

__all__ = ["SseRepairTransport", "reframe", "sending_through"]

_NOT_LINE_ENDS = str.maketrans(
    {
        **dict.fromkeys("\x0b\x0c\x1c\x1d\x1e", "\x1a"),
        "\x85": "\\u0085",
        "\u2028": "\\u2028",
        "\u2029": "\\u2029",
    }
)
"""What ``str.splitlines`` takes for a line end besides CR and LF → a form no reader splits at
(see the module doc)."""
_DROPPED_FIELDS = frozenset({"event", "id", "retry"})
_HOP_HEADERS = ("content-encoding", "content-length", "transfer-encoding")


def _repaired(data: list[str]) -> list[str]:
    """An event's data lines, with the JSON object they hold repaired when it needs it."""
    payload = "\n".join(data)
    try:
        value = json.loads(payload)
    except (ValueError, RecursionError):
        return data  # the SDK reports it
    if not isinstance(value, dict):
        return data
    cleaned = clean_response(cast(dict[str, Any], value))
    return data if cleaned is None else [json.dumps(cleaned, ensure_ascii=False)]


class _Reframer:
    """Lines of an event stream → the lines the SDK is handed (see the module doc)."""

    def __init__(self) -> None:
        self._event = ""
        self._data: list[str] = []

    def line(self, line: str) -> list[str]:
        if line == "":
            event, data = self._event, self._data
            self._event, self._data = "", []
            if not data or event == "ping":
                return []
            return [*(f"data: {d}" for d in _repaired(data)), ""]
        if line.startswith(":"):
            return []
        name, colon, value = line.partition(":")
        if colon and name == "data":
            self._data.append(value.removeprefix(" "))
            return []
        if colon and name in _DROPPED_FIELDS:
            if name == "event":
                self._event = value.removeprefix(" ")
            return []
        return [line]


async def reframe(
    chunks: AsyncIterator[bytes],
    *,
    event_timeout: float | None = None,
    request: httpx.Request | None = None,
) -> AsyncIterator[bytes]:
    """An event-stream body re-framed for the SDK (see the module doc).

    Args:
        chunks: The body (content-encoding undone).
        event_timeout: Seconds to wait for each next piece handed on (a data event or a line
            that is no SSE field); comments, pings and dropped fields do not count. None: as
            long as the connection does.
        request: The request, for the timeout error.

    Raises:
        httpx.ReadTimeout: when nothing was handed on within ``event_timeout``.

    Example:
        >>> import asyncio
        >>> async def body():
        ...     yield b': keep-alive\\r\\n\\r\\nevent: ping\\r\\ndata: {}\\r\\n\\r\\nid: 1\\r\\n'
        ...     yield b'data:{"error": null, "x": 1}\\r\\n\\r\\n'
        >>> async def collect():
        ...     return b"".join([c async for c in reframe(body())])
        >>> asyncio.run(collect())
        b'data: {"x": 1}\\n\\n'
    """

    def stalled() -> httpx.ReadTimeout:
        return httpx.ReadTimeout(
            f"no event within {event_timeout:g} s (keep-alive comments and pings do not count)",
            request=request,
        )

    pieces = with_idle_timeout(_reframed(chunks), idle_timeout=event_timeout, on_timeout=stalled)
    async with aclosing(pieces):
        async for piece in pieces:
            yield piece


def _handed_on(lines: list[str]) -> bytes:
    """``lines`` as the SDK is handed them: each ended by ``\n`` and holding no other character
    a line reader may split at (see the module doc)."""
    return "".join(f"{line.translate(_NOT_LINE_ENDS)}\n" for line in lines).encode()


async def _reframed(chunks: AsyncIterator[bytes]) -> AsyncGenerator[bytes]:
    """The re-framed text each chunk completes (when it completes any)."""
    decoder = SseLineDecoder()
    framer = _Reframer()
    async for chunk in chunks:
        out = [o for line in decoder.feed(chunk) for o in framer.line(line)]
        if out:
            yield _handed_on(out)
    out = [o for line in decoder.flush() for o in framer.line(line)]
    if out:
        yield _handed_on(out)


class _Body(httpx.AsyncByteStream):
    def __init__(
        self,
        response: httpx.Response,
        request: httpx.Request,
        *,
        event_stream: bool,
        event_timeout: float | None,
    ) -> None:
        self._response = response
        self._request = request
        self._event_stream = event_stream
        self._event_timeout = event_timeout

    async def __aiter__(self) -> AsyncIterator[bytes]:
        chunks = self._response.aiter_bytes()
        if self._event_stream:
            chunks = reframe(chunks, event_timeout=self._event_timeout, request=self._request)
        async for chunk in chunks:
            yield chunk

    async def aclose(self) -> None:
        await self._response.aclose()


def _media_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def _is_utf8_only(media: str) -> bool:
    return media in ("application/json", "text/event-stream") or media.endswith("+json")


def _without_charset(content_type: str) -> str:
    kept = [p for p in content_type.split(";") if not p.strip().lower().startswith("charset=")]
    return ";".join(kept).strip()


def _timeout_of(request: httpx.Request) -> httpx.Timeout | None:
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


class SseRepairTransport(httpx.AsyncBaseTransport):
    """Sends through the host's ``httpx.AsyncClient`` and repairs what the SDK reads (see the
    module doc); the host's client is never closed here.

    Example:
        >>> import httpx
        >>> t = SseRepairTransport(httpx.AsyncClient())
        >>> isinstance(httpx.AsyncClient(transport=t), httpx.AsyncClient)
        True
    """

    def __init__(self, client: httpx.AsyncClient) -> None:
        self._client = client

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Forward ``request`` (with the timeout the SDK set on it); failures are the host
        client's own ``httpx`` errors."""
        timeout = _timeout_of(request)
        outgoing = self._client.build_request(
            request.method,
            request.url,
            headers=list(request.headers.multi_items()),
            content=await request.aread(),
            timeout=timeout if timeout is not None else httpx.USE_CLIENT_DEFAULT,
        )
        response = await self._client.send(outgoing, stream=True)
        content_type = response.headers.get("content-type", "")
        media = _media_type(content_type)
        headers = [
            (name, value)
            for name, value in response.headers.multi_items()
            if name.lower() not in _HOP_HEADERS
        ]
        if _is_utf8_only(media):
            headers = [
                (n, _without_charset(v) if n.lower() == "content-type" else v) for n, v in headers
            ]
        body = _Body(
            response,
            request,
            event_stream=media == "text/event-stream",
            event_timeout=timeout.read if timeout is not None else None,
        )
        return httpx.Response(response.status_code, headers=headers, stream=body, request=request)

    async def aclose(self) -> None:
        """The host's client belongs to the host; it is not closed here."""


def sending_through(client: httpx.AsyncClient) -> httpx.AsyncClient:
    """The client to give the SDK: one sending through ``client`` by
    :class:`SseRepairTransport`."""
    return httpx.AsyncClient(transport=SseRepairTransport(client), timeout=client.timeout)
