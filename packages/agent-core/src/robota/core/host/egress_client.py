"""Guarded HTTP fetch: every hop checked by the egress policy, connection pinned to the checked
address (seed 000, "Egress Policy").

:meth:`EgressGuardedClient.fetch` follows redirects itself (never the client's
``follow_redirects``), so each hop's URL is checked by :meth:`EgressPolicy.check` before any
byte is sent to it. Caller headers except ``User-Agent`` are dropped from the first
cross-origin hop on. The whole fetch is bounded in time (``timeout`` seconds, every hop
included) and the decoded body in size (``max_bytes``).

DNS rebinding: the connection goes to an address the policy validated, not to a second lookup.
The request URL's host is replaced by that address; the original name travels in the ``Host``
header and, for https, as the TLS server name through httpcore's ``sni_hostname`` request
extension, which is also the name the certificate is verified against. So a name that answers
public to the check and loopback to the connect cannot redirect the request. If connecting to
one validated address fails, the next validated address is tried.

Known limit: httpx pools connections per (scheme, address, port). Two names served from the
same address can share a pooled TLS connection established for the first name. Give the guarded
client its own ``httpx.AsyncClient`` (not one shared with unguarded traffic) and keep that in
mind for hosts that multiplex unrelated names on one address.

Example:
    >>> import anyio, httpx
    >>> async def main() -> str:
    ...     async with httpx.AsyncClient() as client:
    ...         result = await EgressGuardedClient(client).fetch("http://127.0.0.1:8080/")
    ...         return result.kind
    >>> anyio.run(main)
    'refused'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

import anyio
import httpx
from robota.core.host.egress import EgressDecision, EgressPolicy, EgressReason, IPAddress
from robota.core.host.errors import EgressBodyTooLargeError, EgressTimeoutError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_REDIRECTS",
    "DEFAULT_TIMEOUT",
    "EgressGuardedClient",
    "FetchRefused",
    "FetchResult",
    "FetchedResponse",
]

DEFAULT_MAX_REDIRECTS = 5
DEFAULT_MAX_BYTES = 10 * 1024 * 1024
DEFAULT_TIMEOUT = 30.0

_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_BODY_HEADERS = ("content-type", "content-length", "content-encoding", "transfer-encoding")


@dataclass(frozen=True, kw_only=True, slots=True)
class FetchedResponse:
    """A response obtained within policy.

    Attributes:
        kind: ``"response"``.
        url: The final URL (after redirects), with its original host name.
        status_code: HTTP status of the final hop (a 3xx without ``Location`` is final).
        headers: Response headers of the final hop, in order.
        content: The decoded body, at most ``max_bytes`` bytes.
        address: The validated address the final hop connected to.
        redirects: URLs of the hops followed before the final one.
    """

    kind: Literal["response"] = "response"
    url: str
    status_code: int
    headers: tuple[tuple[str, str], ...] = ()
    content: bytes = b""
    address: IPAddress
    redirects: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True, slots=True)
class FetchRefused:
    """The policy refused a hop; nothing was sent to it.

    Attributes:
        kind: ``"refused"``.
        decision: The refusing decision (its ``url`` is the refused hop).
        redirects: URLs of the hops followed before the refused one.
    """

    kind: Literal["refused"] = "refused"
    decision: EgressDecision
    redirects: tuple[str, ...] = ()


FetchResult: TypeAlias = FetchedResponse | FetchRefused


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    default = {"http": 80, "https": 443}.get(url.scheme)
    return (url.scheme, url.host, url.port or default)


@dataclass(kw_only=True, slots=True)
class _Hop:
    url: httpx.URL
    method: str
    headers: dict[str, str]
    content: bytes | None
    history: list[str] = field(default_factory=list[str])


class EgressGuardedClient:
    """Fetches caller- or model-supplied URLs through an :class:`EgressPolicy`.

    Args:
        client: The ``httpx.AsyncClient`` to send with (dedicated to guarded traffic; see the
            module docstring). Its own redirect following is never used.
        policy: The policy; a default :class:`EgressPolicy` (system resolver) when None.
        max_redirects: Redirect hops followed before refusing with ``TOO_MANY_REDIRECTS``.
        max_bytes: Default bound on the decoded body, in bytes.
        timeout: Default bound on the whole fetch (every hop), in seconds.
    """

    def __init__(
        self,
        client: httpx.AsyncClient,
        policy: EgressPolicy | None = None,
        *,
        max_redirects: int = DEFAULT_MAX_REDIRECTS,
        max_bytes: int = DEFAULT_MAX_BYTES,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self._client = client
        self._policy = policy if policy is not None else EgressPolicy()
        self._max_redirects = max_redirects
        self._max_bytes = max_bytes
        self._timeout = timeout

    async def fetch(
        self,
        url: str,
        *,
        method: str = "GET",
        headers: Mapping[str, str] | None = None,
        content: bytes | None = None,
        max_bytes: int | None = None,
        time_limit: float | None = None,
    ) -> FetchResult:
        """Fetch ``url``, checking every hop and connecting only to validated addresses.

        Args:
            url: Absolute http(s) URL.
            method: HTTP method of the first hop (303, and 301/302 after POST, become GET).
            headers: Caller headers; all but ``User-Agent`` are dropped from the first
                cross-origin redirect on.
            content: Request body, if any.
            max_bytes: Bound on the decoded body in bytes (default from the constructor).
            time_limit: Bound on the whole fetch in seconds (default from the constructor).

        Returns:
            :class:`FetchedResponse`, or :class:`FetchRefused` when the policy refused a hop.

        Raises:
            EgressBodyTooLargeError: The body exceeded ``max_bytes``.
            EgressTimeoutError: The fetch exceeded ``time_limit``.
            httpx.HTTPError: Transport failures, as httpx raises them (an unparsable redirect
                ``Location`` is httpx's ``RemoteProtocolError``).
        """
        limit = self._max_bytes if max_bytes is None else max_bytes
        bound = self._timeout if time_limit is None else time_limit
        try:
            parsed = httpx.URL(url)
        except httpx.InvalidURL:
            return FetchRefused(decision=await self._policy.check(url))
        hop = _Hop(url=parsed, method=method, headers=dict(headers or {}), content=content)
        try:
            with anyio.fail_after(bound):
                return await self._follow(hop, limit, url)
        except TimeoutError as error:
            raise EgressTimeoutError(
                f"fetch of {url!r} exceeded {bound} s", timeout=bound
            ) from error

    async def _follow(self, hop: _Hop, limit: int, original: str) -> FetchResult:
        while True:
            decision = await self._policy.check(hop.url)
            if not decision.allowed:
                return FetchRefused(decision=decision, redirects=tuple(hop.history))
            response, address = await self._send(hop, decision)
            try:
                location = response.headers.get("location")
                if response.status_code in _REDIRECT_STATUSES and location is not None:
                    if len(hop.history) >= self._max_redirects:
                        return FetchRefused(
                            decision=EgressDecision(
                                allowed=False,
                                reason=EgressReason.TOO_MANY_REDIRECTS,
                                url=str(hop.url),
                                detail=f"more than {self._max_redirects} redirects from {original}",
                            ),
                            redirects=tuple(hop.history),
                        )
                    self._advance(hop, response.status_code, hop.url.join(location))
                    continue
                body = await self._read(response, limit, str(hop.url))
            finally:
                await response.aclose()
            return FetchedResponse(
                url=str(hop.url),
                status_code=response.status_code,
                headers=tuple(response.headers.items()),
                content=body,
                address=address,
                redirects=tuple(hop.history),
            )

    async def _send(self, hop: _Hop, decision: EgressDecision) -> tuple[httpx.Response, IPAddress]:
        host_header = hop.url.netloc.decode("ascii").rpartition("@")[2]
        last_error: httpx.ConnectError | None = None
        for address in decision.addresses:
            pinned = hop.url.copy_with(host=str(address))
            headers = {k: v for k, v in hop.headers.items() if k.lower() != "host"}
            headers["Host"] = host_header
            extensions = {"sni_hostname": decision.host} if hop.url.scheme == "https" else {}
            request = self._client.build_request(
                hop.method, pinned, headers=headers, content=hop.content, extensions=extensions
            )
            try:
                response = await self._client.send(request, stream=True, follow_redirects=False)
            except httpx.ConnectError as error:
                last_error = error
                continue
            return response, address
        assert last_error is not None  # an allowed decision always carries an address
        raise last_error

    @staticmethod
    def _advance(hop: _Hop, status: int, target: httpx.URL) -> None:
        if _origin(target) != _origin(hop.url):
            hop.headers = {k: v for k, v in hop.headers.items() if k.lower() == "user-agent"}
        if (status == 303 and hop.method != "HEAD") or (
            status in (301, 302) and hop.method == "POST"
        ):
            hop.method = "GET"
            hop.content = None
            hop.headers = {k: v for k, v in hop.headers.items() if k.lower() not in _BODY_HEADERS}
        hop.history.append(str(hop.url))
        hop.url = target

    @staticmethod
    async def _read(response: httpx.Response, limit: int, url: str) -> bytes:
        declared = response.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise EgressBodyTooLargeError(
                f"{url!r} declares {declared} bytes, over {limit}", limit=limit
            )
        chunks: list[bytes] = []
        total = 0
        async for chunk in response.aiter_bytes():
            total += len(chunk)
            if total > limit:
                raise EgressBodyTooLargeError(f"{url!r} body is over {limit} bytes", limit=limit)
            chunks.append(chunk)
        return b"".join(chunks)
