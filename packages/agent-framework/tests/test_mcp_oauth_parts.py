"""Parts of MCP OAuth that need no server (issue #18): the token store over the credential store,
the loopback callback listener, and the ``mcp:tool:gate`` seam inside an MCP tool."""

from __future__ import annotations

import json
import stat
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

pytest.importorskip("mcp")

import anyio.lowlevel
from mcp.client.auth.oauth2 import OAuthContext
from mcp.shared.auth import OAuthClientMetadata, OAuthToken
from mcp.types import CallToolResult, TextContent
from mcp.types import Tool as McpToolInfo
from pydantic import AnyUrl
from robota.core.gate import Allow, Deny
from robota.core.host import FileCredentialStore
from robota.core.tools.base import ToolContext, ToolReturn
from robota.framework.mcp._callback import LoopbackCallback, McpLoginError
from robota.framework.mcp.oauth import OAUTH_SERVICE, McpTokenStore
from robota.tools.mcp import McpTool

pytestmark = pytest.mark.anyio

URL = "http://127.0.0.1:9/mcp"


def _context(store: McpTokenStore) -> OAuthContext:
    metadata = OAuthClientMetadata(redirect_uris=[AnyUrl("http://127.0.0.1:1/callback")])
    return OAuthContext(
        server_url=URL,
        client_metadata=metadata,
        storage=store,
        redirect_handler=None,
        callback_handler=None,
    )


# -- the token store -------------------------------------------------------------------------


async def test_tokens_are_stored_owner_only_with_their_expiry_and_restored(
    tmp_path: Path,
) -> None:
    path = tmp_path / "home" / "credentials.json"
    credentials = FileCredentialStore(path)
    store = McpTokenStore(credentials, URL)
    await store.set_tokens(OAuthToken(access_token="a1", expires_in=600, refresh_token="r1"))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    record = json.loads(json.loads(path.read_text())["credentials"][OAUTH_SERVICE][URL])
    assert record["tokens"]["access_token"] == "a1"
    assert 590 < record["expires_at"] - time.time() <= 600

    again = McpTokenStore(credentials, URL)
    context = _context(again)
    again.bind(context)
    tokens = await again.get_tokens()
    assert tokens is not None
    assert tokens.refresh_token == "r1"
    # refreshed 30 s before the stated expiry; the SDK alone would never know it expired
    assert context.token_expiry_time == pytest.approx(record["expires_at"] - 30)


async def test_a_login_in_progress_writes_nothing_until_committed(tmp_path: Path) -> None:
    credentials = FileCredentialStore(tmp_path / "credentials.json")
    store = McpTokenStore(credentials, URL, persist=False)
    await store.set_tokens(OAuthToken(access_token="a1"))
    assert credentials.get(OAUTH_SERVICE, URL) is None
    await store.commit()
    assert await McpTokenStore(credentials, URL).has_tokens()


async def test_an_unreadable_record_reads_as_no_tokens(tmp_path: Path) -> None:
    credentials = FileCredentialStore(tmp_path / "credentials.json")
    credentials.set(OAUTH_SERVICE, URL, "{not json")
    assert not await McpTokenStore(credentials, URL).has_tokens()


# -- the loopback callback -------------------------------------------------------------------


async def _get(url: str, **params: str) -> httpx.Response:
    async with httpx.AsyncClient() as client:
        return await client.get(url, params=params)


async def test_the_callback_refuses_a_wrong_state_and_takes_the_right_one() -> None:
    async with LoopbackCallback.serving() as callback:
        assert callback.redirect_uri.startswith("http://127.0.0.1:")
        callback.expect("http://as.example/authorize?state=s3cret&client_id=c")
        wrong = await _get(callback.redirect_uri, code="stolen", state="other")
        missing = await _get(callback.redirect_uri, code="stolen")
        elsewhere = await _get(callback.redirect_uri.replace("/callback", "/x"), state="s3cret")
        right = await _get(callback.redirect_uri, code="c0de", state="s3cret", iss="http://as")
        result = await callback.wait(5)
        late = await _get(callback.redirect_uri, code="again", state="s3cret")
    assert (wrong.status_code, missing.status_code, elsewhere.status_code) == (400, 400, 404)
    assert right.status_code == 200
    assert "Robota is logged in" in right.text
    assert (result.code, result.state, result.iss) == ("c0de", "s3cret", "http://as")
    assert late.status_code == 400


async def test_a_refusal_from_the_authorization_server_ends_the_login() -> None:
    async with LoopbackCallback.serving() as callback:
        callback.expect("http://as.example/authorize?state=s")
        await _get(callback.redirect_uri, error="access_denied", state="s")
        with pytest.raises(McpLoginError, match="refused the login: access_denied"):
            await callback.wait(5)


async def test_no_redirect_within_the_timeout_fails_the_login() -> None:
    async with LoopbackCallback.serving() as callback:
        callback.expect("http://as.example/authorize?state=s")
        with pytest.raises(McpLoginError, match="no authorization arrived"):
            await callback.wait(0.05)


async def test_the_callback_keeps_a_port_that_is_free_and_moves_when_taken() -> None:
    async with (
        LoopbackCallback.serving() as first,
        LoopbackCallback.serving(port=first.port) as second,
    ):
        assert second.port != first.port  # taken: another port
    async with LoopbackCallback.serving(port=first.port) as third:
        assert third.port == first.port  # free again: the registered one


# -- mcp:tool:gate ---------------------------------------------------------------------------


class _Server:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str, dict[str, Any]]] = []

    async def __call__(self, server: str, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        self.calls.append((server, tool, arguments))
        return CallToolResult(content=[TextContent(type="text", text=f"ran {arguments}")])


def _tool(server: _Server, gate: Any) -> McpTool:
    info = McpToolInfo(name="drop", input_schema={"type": "object"})
    return McpTool(server="db", info=info, call_server=server, risk=None, timeout=5, gate=gate)


async def _call(tool: McpTool, arguments: dict[str, Any]) -> ToolReturn:
    context = ToolContext(run_id="r", call_id="c", tool_call_id="t", tool_name=tool.name, deps=None)
    output = await tool.call(arguments, context)
    assert isinstance(output, ToolReturn)
    return output


async def test_a_denying_gate_keeps_the_call_from_the_server() -> None:
    server = _Server()
    asked: list[tuple[str, str, dict[str, Any]]] = []

    def gate(name: str, tool: str, arguments: Any) -> Allow | Deny:
        asked.append((name, tool, dict(arguments)))
        return Deny(message="dropping tables is not allowed")

    result = await _call(_tool(server, gate), {"table": "users"})
    assert result.is_error
    assert result.metadata == {"mcp_error": "denied"}
    assert ToolReturn.text("dropping tables is not allowed").content == result.content
    assert asked == [("db", "drop", {"table": "users"})]
    assert server.calls == []


async def test_an_allowing_gate_may_replace_the_arguments() -> None:
    server = _Server()

    async def gate(name: str, tool: str, arguments: Any) -> Allow | Deny:
        await anyio.lowlevel.checkpoint()
        return Allow(arguments={"table": "scratch"})

    result = await _call(_tool(server, gate), {"table": "users"})
    assert not result.is_error
    assert server.calls == [("db", "drop", {"table": "scratch"})]


@pytest.mark.parametrize("outcome", ["raise", "nonsense"])
async def test_a_gate_that_fails_or_gives_no_verdict_denies(outcome: str) -> None:
    server = _Server()

    def gate(name: str, tool: str, arguments: Any) -> Any:
        if outcome == "raise":
            raise KeyError("oops")
        return True

    result = await _call(_tool(server, gate), {})
    assert result.is_error
    assert result.metadata == {"mcp_error": "denied"}
    assert server.calls == []
