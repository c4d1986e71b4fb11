"""Guarded fetch (seed 000, "Egress Policy"): per-hop checks, pinning, header hygiene, bounds."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence

import anyio
import httpx
import pytest
from robota.core.host.egress import EgressPolicy, EgressReason, IPAddress
from robota.core.host.egress_client import EgressGuardedClient, FetchedResponse, FetchRefused
from robota.core.host.errors import EgressBodyTooLargeError, EgressTimeoutError

PUBLIC = "93.184.216.34"
OTHER_PUBLIC = "198.35.26.96"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class _Resolver:
    def __init__(self, answers: dict[str, list[list[str]]]) -> None:
        self.answers = answers
        self.calls: list[str] = []

    async def __call__(self, host: str, port: int, /) -> Sequence[IPAddress]:
        self.calls.append(host)
        queue = self.answers.get(host)
        if not queue:
            raise socket.gaierror(socket.EAI_NONAME, "unknown")
        answer = queue.pop(0) if len(queue) > 1 else queue[0]
        return [ipaddress.ip_address(a) for a in answer]


def _guarded(
    handler: Callable[[httpx.Request], httpx.Response],
    answers: dict[str, list[list[str]]],
    **options: int | float,
) -> tuple[EgressGuardedClient, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return handler(request)

    client = httpx.AsyncClient(transport=httpx.MockTransport(record))
    policy = EgressPolicy(resolver=_Resolver(answers))
    return EgressGuardedClient(client, policy, **options), seen  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_connects_to_validated_address_with_original_host_and_sni() -> None:
    guarded, seen = _guarded(
        lambda request: httpx.Response(200, text="hello"), {"example.com": [[PUBLIC]]}
    )
    result = await guarded.fetch("https://example.com/page?q=1")
    assert isinstance(result, FetchedResponse)
    assert result.status_code == 200
    assert result.content == b"hello"
    assert result.url == "https://example.com/page?q=1"
    assert result.address == ipaddress.ip_address(PUBLIC)
    (request,) = seen
    assert str(request.url) == f"https://{PUBLIC}/page?q=1"
    assert request.headers["host"] == "example.com"
    assert request.extensions["sni_hostname"] == "example.com"


@pytest.mark.anyio
async def test_dns_rebinding_second_answer_is_never_used() -> None:
    # First lookup says public, any later lookup says loopback: only one lookup happens.
    guarded, seen = _guarded(
        lambda request: httpx.Response(200), {"rebind.example": [[PUBLIC], ["127.0.0.1"]]}
    )
    result = await guarded.fetch("http://rebind.example:8080/")
    assert result.kind == "response"
    assert [str(r.url) for r in seen] == [f"http://{PUBLIC}:8080/"]
    assert seen[0].headers["host"] == "rebind.example:8080"


@pytest.mark.anyio
async def test_redirect_to_private_address_is_refused_before_sending() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(302, headers={"location": "http://169.254.169.254/latest/meta-data/"})

    guarded, seen = _guarded(handler, {"example.com": [[PUBLIC]]})
    result = await guarded.fetch("https://example.com/")
    assert isinstance(result, FetchRefused)
    assert result.decision.reason is EgressReason.BLOCKED_ADDRESS
    assert result.decision.url == "http://169.254.169.254/latest/meta-data/"
    assert result.redirects == ("https://example.com/",)
    assert len(seen) == 1


@pytest.mark.anyio
async def test_redirect_to_name_resolving_private_is_refused() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(301, headers={"location": "https://internal.example/admin"})

    guarded, seen = _guarded(
        handler, {"example.com": [[PUBLIC]], "internal.example": [["10.1.2.3"]]}
    )
    result = await guarded.fetch("https://example.com/")
    assert isinstance(result, FetchRefused)
    assert result.decision.reason is EgressReason.RESOLVES_TO_BLOCKED
    assert len(seen) == 1


@pytest.mark.anyio
async def test_cross_origin_redirect_keeps_only_user_agent() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.headers["host"] == "example.com":
            return httpx.Response(307, headers={"location": "https://other.example/next"})
        return httpx.Response(200, text="done")

    guarded, seen = _guarded(
        handler, {"example.com": [[PUBLIC]], "other.example": [[OTHER_PUBLIC]]}
    )
    headers = {"Authorization": "Bearer secret", "Cookie": "a=b", "User-Agent": "robota-test/1"}
    result = await guarded.fetch("https://example.com/start", headers=headers)
    assert isinstance(result, FetchedResponse)
    assert result.url == "https://other.example/next"
    assert result.redirects == ("https://example.com/start",)
    first, second = seen
    assert first.headers["authorization"] == "Bearer secret"
    assert "authorization" not in second.headers
    assert "cookie" not in second.headers
    assert second.headers["user-agent"] == "robota-test/1"
    assert str(second.url) == f"https://{OTHER_PUBLIC}/next"


@pytest.mark.anyio
async def test_same_origin_redirect_keeps_headers_and_303_becomes_get() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/form":
            return httpx.Response(303, headers={"location": "/result"})
        return httpx.Response(200, text=request.method)

    guarded, seen = _guarded(handler, {"example.com": [[PUBLIC]]})
    result = await guarded.fetch(
        "https://example.com/form",
        method="POST",
        content=b"x=1",
        headers={"Authorization": "Bearer s", "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert isinstance(result, FetchedResponse)
    assert result.content == b"GET"
    assert seen[1].headers["authorization"] == "Bearer s"
    assert "content-type" not in seen[1].headers
    assert seen[1].content == b""


@pytest.mark.anyio
async def test_too_many_redirects_is_a_refusal() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(302, headers={"location": "/again"})

    guarded, seen = _guarded(handler, {"example.com": [[PUBLIC]]}, max_redirects=3)
    result = await guarded.fetch("http://example.com/")
    assert isinstance(result, FetchRefused)
    assert result.decision.reason is EgressReason.TOO_MANY_REDIRECTS
    assert len(seen) == 4


@pytest.mark.anyio
async def test_body_over_bound_raises() -> None:
    guarded, _ = _guarded(
        lambda request: httpx.Response(200, content=b"x" * 2000), {"example.com": [[PUBLIC]]}
    )
    with pytest.raises(EgressBodyTooLargeError) as caught:
        await guarded.fetch("http://example.com/", max_bytes=1000)
    assert caught.value.limit == 1000
    ok = await guarded.fetch("http://example.com/", max_bytes=2000)
    assert isinstance(ok, FetchedResponse)
    assert len(ok.content) == 2000


@pytest.mark.anyio
async def test_streamed_body_without_length_over_bound_raises() -> None:
    async def chunks():
        for _ in range(10):
            yield b"y" * 500

    guarded, _ = _guarded(
        lambda request: httpx.Response(200, content=chunks()), {"example.com": [[PUBLIC]]}
    )
    with pytest.raises(EgressBodyTooLargeError):
        await guarded.fetch("http://example.com/", max_bytes=1200)


@pytest.mark.anyio
async def test_whole_fetch_time_bound_raises() -> None:
    async def stall(request: httpx.Request) -> httpx.Response:
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    client = httpx.AsyncClient(transport=httpx.MockTransport(stall))
    policy = EgressPolicy(resolver=_Resolver({"example.com": [[PUBLIC]]}))
    guarded = EgressGuardedClient(client, policy)
    with pytest.raises(EgressTimeoutError) as caught:
        await guarded.fetch("http://example.com/", time_limit=0.05)
    assert caught.value.timeout == 0.05


@pytest.mark.anyio
async def test_connect_failure_falls_back_to_next_validated_address() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == PUBLIC:
            raise httpx.ConnectError("refused", request=request)
        return httpx.Response(200, text="second")

    guarded, seen = _guarded(handler, {"example.com": [[PUBLIC, "2606:4700::1111"]]})
    result = await guarded.fetch("https://example.com/")
    assert isinstance(result, FetchedResponse)
    assert result.address == ipaddress.ip_address("2606:4700::1111")
    assert str(seen[1].url) == "https://[2606:4700::1111]/"


@pytest.mark.anyio
async def test_transport_error_raises_when_every_address_fails() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    guarded, _ = _guarded(handler, {"example.com": [[PUBLIC]]})
    with pytest.raises(httpx.ConnectError):
        await guarded.fetch("https://example.com/")


@pytest.mark.anyio
async def test_invalid_url_is_a_refusal_and_invalid_location_a_transport_error() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(302, headers={"location": "http://[::1"})

    guarded, seen = _guarded(handler, {"example.com": [[PUBLIC]]})
    first = await guarded.fetch("http://[fd00::1")
    assert isinstance(first, FetchRefused)
    assert first.decision.reason is EgressReason.INVALID_URL
    assert seen == []
    with pytest.raises(httpx.RemoteProtocolError):
        await guarded.fetch("http://example.com/")
    assert len(seen) == 1
