"""HTTP hooks: a real loopback server started by the test, and httpx.MockTransport cases for the
verdict decoding (seed 000, "Outcome contract": only exactly true/false counts)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import anyio
import httpx
import pytest
from robota.core.hooks import (
    HookAllow,
    HookConfig,
    HookDeny,
    HookError,
    HookEventName,
    HookResult,
    HttpHookExecutor,
    PreToolUseInput,
)
from robota.core.tools.base import ToolReturn


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# --- a real loopback server -----------------------------------------------------------------

RESPONSES: dict[str, tuple[int, bytes]] = {
    "/allow": (200, b'{"allow": true}'),
    "/deny": (200, b'{"allow": false, "reason": "outside office hours"}'),
    "/fail": (500, b'{"allow": true}'),
    "/html": (200, b"<html>ok</html>"),
}


class _Handler(BaseHTTPRequestHandler):
    received: ClassVar[list[tuple[str, dict[str, str], Any]]] = []
    release = threading.Event()

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length))
        type(self).received.append((self.path, dict(self.headers.items()), body))
        if self.path == "/slow":
            type(self).release.wait(30)
            status, payload = 200, b'{"allow": true}'
        else:
            status, payload = RESPONSES[self.path]
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    _Handler.received = []
    _Handler.release = threading.Event()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        _Handler.release.set()
        httpd.shutdown()
        httpd.server_close()


def payload() -> PreToolUseInput:
    return PreToolUseInput(
        session_id="s1", cwd="/w", tool_name="WebFetch", tool_input={"url": "https://x.test"}
    )


async def post(url: str, *, limit: float = 30, client: httpx.AsyncClient | None = None) -> Any:
    hook = HookConfig(
        event=HookEventName.PRE_TOOL_USE,
        type="http",
        url=url,
        timeout=limit,
        headers={"X-Hook-Token": "t0k"},
    )
    executor = HttpHookExecutor(client)
    try:
        return await executor.run(hook, payload())
    finally:
        await executor.aclose()


@pytest.mark.anyio
async def test_loopback_allow_receives_the_input_json_and_headers(server: str) -> None:
    assert await post(server + "/allow") == HookAllow(output='{"allow": true}')
    [(path, headers, body)] = _Handler.received
    assert path == "/allow"
    assert headers["X-Hook-Token"] == "t0k"
    assert headers["Content-Type"] == "application/json"
    assert body == {
        "hook_event_name": "PreToolUse",
        "session_id": "s1",
        "cwd": "/w",
        "tool_name": "WebFetch",
        "tool_input": {"url": "https://x.test"},
        "tool_use_id": "",
        "call_id": "",
        "run_id": "",
    }


@pytest.mark.anyio
async def test_loopback_deny_and_failures(server: str) -> None:
    assert await post(server + "/deny") == HookDeny(reason="outside office hours")
    assert await post(server + "/fail") == HookError(reason="HTTP 500")
    html = await post(server + "/html")
    assert isinstance(html, HookError)
    assert html.reason.startswith("invalid output: not JSON")


@pytest.mark.anyio
async def test_loopback_slow_server_times_out(server: str) -> None:
    result = await post(server + "/slow", limit=0.3)
    assert result == HookError(reason="timed out after 0.3s")


@pytest.mark.anyio
async def test_connection_refused_is_an_error() -> None:
    # Bind then close a port so nothing listens on it.
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    await listener.aclose()
    result = await post(f"http://127.0.0.1:{port}/x")
    assert isinstance(result, HookError)
    assert result.reason.startswith("request failed: ConnectError")


# --- MockTransport: the verdict decoding ----------------------------------------------------


def mock(status: int, body: bytes | str) -> httpx.AsyncClient:
    content = body.encode() if isinstance(body, str) else body

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, content=content)

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def via_mock(status: int, body: bytes | str) -> HookResult:
    async with mock(status, body) as client:
        return await post("http://hooks.test/h", client=client)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('{"allow": true}', HookAllow(output='{"allow": true}')),
        ('{"allow": false}', HookDeny(reason="blocked by hook")),
        ('{"allow": false, "reason": "no"}', HookDeny(reason="no")),
        (
            '{"allow": "true"}',
            HookError(reason="invalid output: 'allow' must be exactly true or false"),
        ),
        ('{"allow": 1}', HookError(reason="invalid output: 'allow' must be exactly true or false")),
        ("{}", HookError(reason="invalid output: no 'allow' verdict (must be exactly true/false)")),
        ("true", HookError(reason="invalid output: JSON answer is not an object")),
        ('{"decision": "block", "reason": "frozen"}', HookDeny(reason="frozen")),
        # An explicit block directive wins beside an undecodable verdict field.
        ('{"decision": "block", "reason": "frozen", "allow": "yes"}', HookDeny(reason="frozen")),
        (
            '{"allow": true, "hookSpecificOutput": {"substituteResult": "from cache"}}',
            HookAllow(
                output='{"allow": true, "hookSpecificOutput": {"substituteResult": "from cache"}}',
                substitute=ToolReturn.text("from cache"),
            ),
        ),
    ],
)
async def test_mock_transport_verdicts(body: str, expected: HookResult) -> None:
    assert await via_mock(200, body) == expected


@pytest.mark.anyio
async def test_mock_transport_non_2xx_is_an_error_even_with_an_allow_body() -> None:
    assert await via_mock(403, '{"allow": true}') == HookError(reason="HTTP 403")
    assert await via_mock(302, '{"allow": true}') == HookError(reason="HTTP 302")


@pytest.mark.anyio
async def test_mock_transport_timeout_is_named() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("read timed out", request=request)

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        result = await post("http://hooks.test/h", limit=5, client=client)
    assert result == HookError(reason="timed out after 5s")


@pytest.mark.anyio
async def test_injected_client_is_not_closed_by_the_executor() -> None:
    async with mock(200, '{"allow": true}') as client:
        await post("http://hooks.test/h", client=client)
        assert not client.is_closed


def test_check_refuses_missing_or_non_http_urls() -> None:
    executor = HttpHookExecutor()
    ev = HookEventName.PRE_TOOL_USE
    assert executor.check(HookConfig(event=ev, type="http")) == "an http hook needs 'url'"
    assert (
        executor.check(HookConfig(event=ev, type="http", url="file:///etc/passwd"))
        == "'url' must be http or https, got 'file'"
    )
    assert executor.check(HookConfig(event=ev, type="http", url="https://h.test/x")) is None
