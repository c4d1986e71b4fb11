"""web_fetch over httpx.MockTransport with an injected resolver (no network)."""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Sequence
from typing import Any

import httpx
import pytest
from _tools_helpers import call, text_of  # pyright: ignore[reportImplicitRelativeImport]
from robota.core.host.egress import EgressPolicy, IPAddress
from robota.core.tools.base import ArgumentKind, RiskClass, ToolContext
from robota.tools import WebFetchTool

pytestmark = pytest.mark.anyio

PUBLIC = ipaddress.ip_address("93.184.216.34")


async def resolver(host: str, port: int, /) -> Sequence[IPAddress]:
    table = {
        "docs.example.com": [PUBLIC],
        "sneaky.example.com": [ipaddress.ip_address("127.0.0.1")],
    }
    if host not in table:
        raise OSError(f"{host} does not resolve")
    return table[host]


class Site:
    """A fake web site; records the requests that reached it."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.path
        if path == "/page":
            html = (
                "<html><head><title>Guide</title><style>p{}</style></head><body>"
                "<h1>Install</h1><p>Run <code>uv sync</code> <b>now</b>.</p>"
                "<script>alert(1)</script></body></html>"
            )
            return httpx.Response(
                200, text=html, headers={"content-type": "text/html; charset=utf-8"}
            )
        if path == "/data.json":
            return httpx.Response(200, json={"ok": True, "n": [1, 2]})
        if path == "/notes.txt":
            return httpx.Response(200, text="plain notes\n", headers={"content-type": "text/plain"})
        if path == "/hop":
            return httpx.Response(302, headers={"location": "http://127.0.0.1:8080/admin"})
        if path == "/big":
            return httpx.Response(200, text="x" * 5000, headers={"content-type": "text/plain"})
        if path == "/blob":
            return httpx.Response(
                200, content=b"\x00\x01", headers={"content-type": "application/zip"}
            )
        return httpx.Response(404, text="no such page", headers={"content-type": "text/plain"})


@pytest.fixture
def site() -> Site:
    return Site()


@pytest.fixture
def tool(site: Site) -> WebFetchTool:
    client = httpx.AsyncClient(transport=httpx.MockTransport(site.handle))
    return WebFetchTool(
        http_client=client, egress_policy=EgressPolicy(resolver=resolver), max_bytes=1000
    )


def test_web_fetch_declares_execute_and_url_argument(tool: WebFetchTool) -> None:
    assert tool.risk is RiskClass.EXECUTE
    assert tool.permission_argument is not None
    assert (tool.permission_argument.key, tool.permission_argument.kind) == (
        "url",
        ArgumentKind.URL,
    )


async def test_html_becomes_markdown(tool: WebFetchTool, site: Site, ctx: ToolContext[Any]) -> None:
    result = await call(tool, ctx, url="http://docs.example.com/page")
    assert not result.is_error
    assert text_of(result) == (
        "URL: http://docs.example.com/page\nStatus: 200\nContent-Type: text/html\n\n"
        "Title: Guide\n\n# Install\n\nRun `uv sync` **now**."
    )
    [request] = site.requests
    assert request.url.host == "93.184.216.34"
    assert request.headers["host"] == "docs.example.com"


async def test_json_and_text_returned_as_is(tool: WebFetchTool, ctx: ToolContext[Any]) -> None:
    data = text_of(await call(tool, ctx, url="http://docs.example.com/data.json"))
    assert json.loads(data.split("\n\n", 1)[1]) == {"ok": True, "n": [1, 2]}
    assert "Content-Type: application/json" in data
    text = text_of(await call(tool, ctx, url="http://docs.example.com/notes.txt"))
    assert text.endswith("\n\nplain notes\n")


async def test_loopback_refused_by_default_nothing_sent(site: Site, ctx: ToolContext[Any]) -> None:
    client = httpx.AsyncClient(transport=httpx.MockTransport(site.handle))
    tool = WebFetchTool(http_client=client)
    result = await call(tool, ctx, url="http://127.0.0.1:8080/admin")
    assert result.is_error
    assert text_of(result).startswith(
        "Error: refused by the egress policy (blocked_address): http://127.0.0.1:8080/admin"
    )
    assert site.requests == []


async def test_name_resolving_to_loopback_refused(
    tool: WebFetchTool, site: Site, ctx: ToolContext[Any]
) -> None:
    result = await call(tool, ctx, url="http://sneaky.example.com/")
    assert result.is_error
    assert "(resolves_to_blocked_address)" in text_of(result)
    assert site.requests == []


async def test_redirect_hop_to_loopback_refused(
    tool: WebFetchTool, site: Site, ctx: ToolContext[Any]
) -> None:
    result = await call(tool, ctx, url="http://docs.example.com/hop")
    assert result.is_error
    assert "(blocked_address): http://127.0.0.1:8080/admin" in text_of(result)
    assert [r.url.path for r in site.requests] == ["/hop"]


async def test_size_bound_http_error_and_binary(tool: WebFetchTool, ctx: ToolContext[Any]) -> None:
    big = await call(tool, ctx, url="http://docs.example.com/big")
    assert big.is_error
    assert text_of(big).startswith("Error: response too large:")
    missing = await call(tool, ctx, url="http://docs.example.com/missing")
    assert missing.is_error
    assert text_of(missing).endswith("Status: 404\nContent-Type: text/plain\n\nno such page")
    blob = await call(tool, ctx, url="http://docs.example.com/blob")
    assert blob.is_error
    assert "application/zip (2 bytes), which is not text" in text_of(blob)


async def test_unresolvable_and_bad_scheme(tool: WebFetchTool, ctx: ToolContext[Any]) -> None:
    unknown = await call(tool, ctx, url="http://nowhere.example.org/")
    assert "(unresolvable)" in text_of(unknown)
    scheme = await call(tool, ctx, url="file:///etc/passwd")
    assert "(scheme_not_allowed)" in text_of(scheme)
