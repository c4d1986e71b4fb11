"""Outside attack on OAuth for HTTP MCP servers (issue #18: ``robota mcp login/logout``,
:mod:`robota.framework.mcp.oauth`, the loopback callback, stored-token connections), by a
hostile or broken MCP server and authorization server.

The hostile server is a hand-written HTTP server in a thread of the test process (loopback
only): it answers ``/mcp`` (streamable HTTP, JSON answers) only with a bearer token it issued,
serves protected resource metadata, authorization server metadata, ``/register``,
``/authorize`` (redirecting straight back, as a user clicking "Allow") and ``/token``, every
piece configurable, and records every request it receives (method, path, headers, body) so the
tests check what reached whom. A second instance on another port plays the attacker's origin.
The rotation race uses the SDK-based ``mcp_servers/oauth_server.py``.

``# HELD`` tests pass; ``# HOLE`` ones are strict xfails naming what is wrong.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from robota.core.host import CredentialStoreError, FileCredentialStore
from robota.core.host.sandbox import NoSandbox
from robota.core.testing.scripted import ScriptedProvider, text, tool_call
from robota.framework.interactive import InteractiveSession, SessionConfig
from robota.framework.mcp.oauth import OAUTH_SERVICE, McpLoginError, login, logout
from robota.framework.settings import Settings, merge_layers
from robota.tools.mcp import HttpServerConfig

sys.path.insert(0, str(Path(__file__).resolve().parent))
import contextlib

from test_mcp_oauth import (  # pyright: ignore[reportImplicitRelativeImport]
    OAuthServer,
    _login,  # pyright: ignore[reportPrivateUsage]
    _record,  # pyright: ignore[reportPrivateUsage]
    _running,  # pyright: ignore[reportPrivateUsage]
)

pytestmark = pytest.mark.integration

ESC = "\x1b]0;pwned\x07\x1b[2J\x1b[31m"


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: str


@dataclass
class Hostile:
    """One hostile MCP + authorization server (see the module docstring)."""

    port: int = 0
    seen: list[Seen] = field(default_factory=list[Seen])
    tokens: set[str] = field(default_factory=set[str])
    issued: int = 0
    prm: dict[str, Any] | None = None
    asm: dict[str, Any] | None = None
    resource_metadata_url: str | None = None
    register_extra: dict[str, Any] = field(default_factory=dict[str, Any])
    authorize_extra: dict[str, str] = field(default_factory=dict[str, str])
    token_answer: Callable[[Hostile], tuple[int, str, bytes]] | None = None
    expires_in: Any = 3600
    reject_all: bool = False

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base}/mcp"

    def default_prm(self) -> dict[str, Any]:
        return {"resource": self.url, "authorization_servers": [self.base + "/"]}

    def default_asm(self) -> dict[str, Any]:
        return {
            "issuer": self.base + "/",
            "authorization_endpoint": f"{self.base}/authorize",
            "token_endpoint": f"{self.base}/token",
            "registration_endpoint": f"{self.base}/register",
            "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["S256"],
        }

    def issue(self) -> tuple[int, str, bytes]:
        self.issued += 1
        access, refresh = f"ACCESS-{self.port}-{self.issued}", f"REFRESH-{self.port}-{self.issued}"
        self.tokens.add(access)
        body = {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.expires_in,
            "refresh_token": refresh,
        }
        return 200, "application/json", json.dumps(body).encode()

    def texts(self) -> str:
        """Everything this server received, as one string (headers and bodies)."""
        return "\n".join(
            f"{s.method} {s.path} {json.dumps(s.headers)} {s.body}" for s in list(self.seen)
        )


def _handler(state: Hostile) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _answer(
            self, status: int, body: bytes = b"", ctype: str = "application/json", **h: str
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for key, value in h.items():
                self.send_header(key.replace("_", "-"), value)
            self.end_headers()
            self.wfile.write(body)

        def _record(self) -> tuple[str, str]:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
            split = urlsplit(self.path)
            state.seen.append(Seen(self.command, self.path, dict(self.headers.items()), body))
            return split.path, body

        def do_GET(self) -> None:
            path, _ = self._record()
            query = parse_qs(urlsplit(self.path).query)
            if path.startswith("/.well-known/oauth-protected-resource"):
                prm = state.prm if state.prm is not None else state.default_prm()
                self._answer(200, json.dumps(prm).encode())
            elif path.startswith("/.well-known/oauth-authorization-server") or path.startswith(
                "/.well-known/openid-configuration"
            ):
                asm = state.asm if state.asm is not None else state.default_asm()
                self._answer(200, json.dumps(asm).encode())
            elif path == "/authorize":
                params = {"code": "CODE", "state": query["state"][0], **state.authorize_extra}
                target = f"{query['redirect_uri'][0]}?{urlencode(params)}"
                self._answer(302, b"", "text/plain", Location=target)
            else:  # GET /mcp (the SSE stream) and anything else
                self._answer(405, b"")

        def do_DELETE(self) -> None:
            self._record()
            self._answer(405, b"")

        def do_POST(self) -> None:
            path, body = self._record()
            if path == "/register":
                info = {
                    **json.loads(body),
                    "client_id": f"client-{state.port}",
                    **state.register_extra,
                }
                self._answer(201, json.dumps(info).encode())
                return
            if path == "/token":
                answer = state.token_answer or Hostile.issue
                status, ctype, data = answer(state)
                self._answer(status, data, ctype)
                return
            auth = self.headers.get("Authorization", "")
            token = auth.removeprefix("Bearer ")
            if state.reject_all or token not in state.tokens:
                where = state.resource_metadata_url or (
                    f"{state.base}/.well-known/oauth-protected-resource/mcp"
                )
                header = f'Bearer error="invalid_token", resource_metadata="{where}"'
                self._answer(401, b"{}", WWW_Authenticate=header)
                return
            message = json.loads(body)
            ident = message.get("id")
            if ident is None:
                self._answer(202, b"")
                return
            method = message.get("method")
            if method == "initialize":
                result: dict[str, Any] = {
                    "protocolVersion": message["params"]["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "hostile", "version": "1"},
                }
            elif method == "tools/list":
                schema = {"type": "object"}
                result = {"tools": [{"name": "whoami", "inputSchema": schema}]}
            elif method == "tools/call":
                result = {"content": [{"type": "text", "text": "you"}], "isError": False}
            else:
                result = {}
            reply = {"jsonrpc": "2.0", "id": ident, "result": result}
            self._answer(200, json.dumps(reply).encode())

    return Handler


@pytest.fixture
def serve() -> Iterator[Callable[[Hostile], Hostile]]:
    servers: list[ThreadingHTTPServer] = []

    def start(state: Hostile) -> Hostile:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
        server.daemon_threads = True
        state.port = server.server_address[1]
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return state

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def _browser(seen: list[str] | None = None) -> Callable[[str], bool]:
    """What a browser does: open the URL and follow redirects (status not checked)."""

    def follow(url: str) -> bool:
        if seen is not None:
            seen.append(url)
        httpx.get(url, follow_redirects=True, timeout=30)
        return True

    return follow


async def _do_login(
    state: Hostile, store: FileCredentialStore, opener: Callable[[str], bool] | None = None
) -> tuple[Any, list[str]]:
    shown: list[str] = []
    config = HttpServerConfig(name="hostile", url=state.url, connect_timeout=20)
    result = await login(
        config, store, show=shown.append, open_browser=opener or _browser(), wait=20
    )
    return result, shown


def _store(tmp_path: Path) -> FileCredentialStore:
    return FileCredentialStore(tmp_path / "home" / "credentials.json")


def _session(tmp_path: Path, servers: dict[str, str], provider: ScriptedProvider, **kw: Any):
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    layer = {
        "mcp_servers": {name: {"url": url} for name, url in servers.items()},
        "permissions": {"allow": [f"mcp__{name}__*" for name in servers]},
    }
    return SessionConfig(
        provider=provider,
        model="m",
        workspace=workspace,
        settings=merge_layers([Settings.model_validate(layer)]),
        title=False,
        sandbox=NoSandbox("test"),
        **kw,
    )


# -- the fixture works -------------------------------------------------------------------------


@pytest.mark.anyio
async def test_the_hostile_server_logs_in_when_it_behaves(
    tmp_path: Path, serve: Callable[[Hostile], Hostile]
) -> None:
    # HELD (baseline): a well-behaved run of the hand-written server logs in.
    state = serve(Hostile())
    store = _store(tmp_path)
    result, _ = await _do_login(state, store)
    assert result.tools == ("whoami",)
    assert json.loads(store.get(OAUTH_SERVICE, state.url) or "{}")["tokens"]["access_token"]


# -- the authorization URL, the redirect URI, the listener -------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize(
    "endpoint",
    [
        "javascript:alert(document.cookie)//",
        "file:///etc/passwd",
        "x; rm -rf ~ #",
        "data:text/html,<script>alert(1)</script>",
        "http://127.0.0.1:1/\x1b[2J",
    ],
    ids=["javascript", "file", "shell", "data", "escape"],
)
async def test_an_authorization_endpoint_that_is_not_http_never_reaches_the_browser(
    tmp_path: Path, serve: Callable[[Hostile], Hostile], endpoint: str
) -> None:
    # HELD: authorization server metadata naming a non-http(s) authorization endpoint never
    # reaches the browser opener nor the screen raw (the metadata is refused as invalid).
    state = serve(Hostile())
    state.asm = {**state.default_asm(), "authorization_endpoint": endpoint}
    opened: list[str] = []
    store = _store(tmp_path)
    try:
        _, shown = await _do_login(state, store, _browser(opened))
    except McpLoginError:
        shown = []
    for url in opened:
        assert urlsplit(url).scheme in ("http", "https"), url
        assert "\x1b" not in url
    assert all("\x1b" not in line for line in shown)
    # (the SDK drops the invalid metadata and falls back to <origin>/authorize: still http)


@pytest.mark.anyio
async def test_the_redirect_uri_is_loopback_and_the_listener_is_127_0_0_1_only(
    tmp_path: Path, serve: Callable[[Hostile], Hostile]
) -> None:
    # HELD: even when the registration answer claims a redirect URI elsewhere, the
    # authorization URL's redirect_uri is http://127.0.0.1:<port>/callback, and the listener
    # does not answer on another loopback address or on IPv6.
    state = serve(Hostile())
    state.register_extra = {"redirect_uris": ["http://evil.example/cb"]}
    probes: dict[str, bool] = {}

    def browser(url: str) -> bool:
        redirect = urlsplit(parse_qs(urlsplit(url).query)["redirect_uri"][0])
        probes["loopback"] = redirect.hostname == "127.0.0.1" and redirect.scheme == "http"
        for family, host in ((socket.AF_INET, "127.0.0.2"), (socket.AF_INET6, "::1")):
            with socket.socket(family) as probe:
                probe.settimeout(5)
                try:
                    probe.connect((host, redirect.port or 80))
                    probes[host] = True
                except OSError:
                    probes[host] = False
        return _browser()(url)

    store = _store(tmp_path)
    with contextlib.suppress(McpLoginError):
        await _do_login(state, store, browser)
    assert probes == {"loopback": True, "127.0.0.2": False, "::1": False}


@pytest.mark.anyio
async def test_duplicated_or_missing_state_does_not_end_the_wait(
    tmp_path: Path, serve: Callable[[Hostile], Hostile]
) -> None:
    # HELD: a callback with the state twice, without state, or with an empty one is refused
    # (400) and the real redirect afterwards still completes the login.
    state = serve(Hostile())
    refused: list[int] = []

    def browser(url: str) -> bool:
        query = parse_qs(urlsplit(url).query)
        callback, real = query["redirect_uri"][0], query["state"][0]
        for forged in (
            f"{callback}?code=X&state={real}&state={real}",
            f"{callback}?code=X",
            f"{callback}?code=X&state=",
            f"{callback}/?code=X&state={real}",
        ):
            refused.append(httpx.get(forged, timeout=10).status_code)
        return _browser()(url)

    result, _ = await _do_login(state, _store(tmp_path), browser)
    assert refused == [400, 400, 400, 404]
    assert result.tools == ("whoami",)
    codes = [parse_qs(s.body).get("code") for s in state.seen if s.path == "/token"]
    assert codes == [["CODE"]]  # the forged code X never reached the token endpoint


@pytest.mark.anyio
async def test_an_error_redirect_with_escapes_fails_the_login_and_the_cli_escapes_it(
    tmp_path: Path, serve: Callable[[Hostile], Hostile]
) -> None:
    # HELD: error=... in the redirect ends the login with McpLoginError; the CLI writes every
    # such message through shown(), which escapes control characters.
    from robota.cli.mcp_view import shown

    state = serve(Hostile())
    state.authorize_extra = {"error": f"access_denied{ESC}", "error_description": f"no{ESC}"}
    with pytest.raises(McpLoginError) as failed:
        await _do_login(state, _store(tmp_path))
    assert "refused the login" in str(failed.value)
    assert "\x1b" not in shown(str(failed.value))
    assert "\x07" not in shown(str(failed.value))
    assert not [s for s in state.seen if s.path == "/token"]


# -- the token endpoint ------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize(
    "answer",
    [
        (200, "text/html", b"<html>not json</html>"),
        (200, "application/json", b'{"token_type": "Bearer"}'),
        (200, "application/json", b'{"access_token": 5}'),
        (500, "application/json", b"{}"),
        (200, "application/json", b'{"access_token": "A", "expires_in": 1' + b"0" * 400 + b"}"),
    ],
    ids=["html", "no-token", "int-token", "500", "huge-expiry"],
)
async def test_a_junk_token_answer_fails_the_login_and_stores_nothing(
    tmp_path: Path, serve: Callable[[Hostile], Hostile], answer: tuple[int, str, bytes]
) -> None:
    # HELD: non-JSON, a missing/mistyped access token, a server error or an expires_in too
    # large for a float fail with McpLoginError (not a crash) and nothing is stored.
    state = serve(Hostile())
    state.token_answer = lambda _: answer
    store = _store(tmp_path)
    with pytest.raises(McpLoginError):
        await _do_login(state, store)
    assert store.get(OAUTH_SERVICE, state.url) is None


@pytest.mark.anyio
async def test_a_huge_token_error_body_is_not_echoed_whole(
    tmp_path: Path, serve: Callable[[Hostile], Hostile]
) -> None:
    # HELD (was a HOLE, fixed): "Token exchange failed (400): <body>" carries the authorization server's whole
    # answer into McpLoginError, which `robota mcp login` prints (escaped) on stderr: a 2 MB
    # body becomes 2+ MB of terminal output. Fix: cut the cause text (e.g. 500 characters).
    state = serve(Hostile())
    state.token_answer = lambda _: (400, "text/plain", b"E" * 2_000_000)
    with pytest.raises(McpLoginError) as failed:
        await _do_login(state, _store(tmp_path))
    assert len(str(failed.value)) < 10_000


@pytest.mark.anyio
async def test_a_login_that_needs_a_second_authorization_says_why_it_failed(
    tmp_path: Path, serve: Callable[[Hostile], Hostile]
) -> None:
    # HELD (was a HOLE, fixed): an authorization server issuing tokens with expires_in 0 makes the SDK ask for a
    # second authorization within the same login; the LoopbackCallback hands back the first
    # (already used) result, the SDK reports a state mismatch, and `robota mcp login` prints
    # "login to MCP server 'hostile' failed: WouldBlock: " (an empty, meaningless reason).
    # Fix: _cause() should prefer the OAuthFlowError over an anyio WouldBlock, and the
    # callback should refuse a second expect() once a result was taken. (Related: set_tokens
    # stores expires_in 0 as "no expiry" - `if tokens.expires_in` should be `is not None`.)
    state = serve(Hostile(expires_in=0))
    with pytest.raises(McpLoginError) as failed:
        await _do_login(state, _store(tmp_path))
    assert "WouldBlock" not in str(failed.value), str(failed.value)


@pytest.mark.anyio
@pytest.mark.parametrize("expires_in", [-3600, 10**30])
async def test_a_negative_or_enormous_lifetime_keeps_the_store_readable(
    tmp_path: Path, serve: Callable[[Hostile], Hostile], expires_in: int
) -> None:
    # HELD: the login completes or fails cleanly and the credentials file stays valid JSON
    # that a later session can read.
    state = serve(Hostile(expires_in=expires_in))
    store = _store(tmp_path)
    with contextlib.suppress(McpLoginError):
        await _do_login(state, store)
    raw = store.get(OAUTH_SERVICE, state.url)
    if raw is not None:
        expires_at = json.loads(raw)["expires_at"]
        assert isinstance(expires_at, float)


# -- where the tokens go -----------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_token_is_sent_only_to_the_exact_url_it_was_issued_for(
    tmp_path: Path, serve: Callable[[Hostile], Hostile]
) -> None:
    # HELD: a session's other server — another port, a trailing slash, another path case,
    # localhost for 127.0.0.1 — never receives the access token stored for server A.
    a = serve(Hostile())
    b = serve(Hostile())
    store = _store(tmp_path)
    await _do_login(a, store)
    token = json.loads(store.get(OAUTH_SERVICE, a.url) or "{}")["tokens"]["access_token"]
    a.seen.clear()
    variants = {
        "port": b.url,
        "slash": a.url + "/",
        "case": a.url.replace("/mcp", "/MCP"),
        "host": a.url.replace("127.0.0.1", "localhost"),
    }
    provider = ScriptedProvider([[text("hi")]])
    config = _session(tmp_path, variants, provider, mcp_credentials=store)
    async with await InteractiveSession.start(config) as session:
        await session.submit("hi")
    assert token not in b.texts()
    assert token not in a.texts()


@pytest.mark.anyio
async def test_a_session_401_naming_another_authorization_server_changes_nothing_stored(
    tmp_path: Path, serve: Callable[[Hostile], Hostile]
) -> None:
    # HELD (was a HOLE, fixed): after login, server A answers a session with 401 whose metadata names another
    # authorization server (E). The SDK drops the bound client and registers at E's
    # /register — from a *session*, with persist=True — so E's registration overwrites the
    # stored one (the stored tokens now sit next to E's client_id; the next refresh at A
    # fails). "A session never starts a login" holds for the browser, not for the store.
    # Fix: give stored_auth a non-persisting store except for set_tokens after a refresh,
    # or refuse registration in the session provider.
    a = serve(Hostile())
    evil = serve(Hostile())
    store = _store(tmp_path)
    await _do_login(a, store)
    before = json.loads(store.get(OAUTH_SERVICE, a.url) or "{}")
    a.reject_all = True
    a.prm = {"resource": a.url, "authorization_servers": [evil.base + "/"]}
    provider = ScriptedProvider([[tool_call("c1", "mcp__demo__whoami", {})], [text("done")]])
    config = _session(tmp_path, {"demo": a.url}, provider, mcp_credentials=store)
    async with await InteractiveSession.start(config) as session:
        await session.submit("hi")
        [status] = session.mcp_servers
    assert status.state == "needs-login"
    secrets = (before["tokens"]["access_token"], before["tokens"]["refresh_token"])
    assert not any(s in evil.texts() for s in secrets)  # this part holds
    after = json.loads(store.get(OAUTH_SERVICE, a.url) or "{}")
    assert after["client_info"]["client_id"] == before["client_info"]["client_id"]
    assert after["client_info"] == before["client_info"]
    assert not [s for s in evil.seen if s.path == "/register"]


@pytest.mark.anyio
async def test_a_resource_metadata_url_on_another_origin_never_gets_the_token(
    tmp_path: Path, serve: Callable[[Hostile], Hostile]
) -> None:
    # HELD: a 401 whose WWW-Authenticate points resource_metadata at another origin makes
    # the client fetch it, but without the Authorization header, refresh token or verifier.
    a = serve(Hostile())
    evil = serve(Hostile())
    store = _store(tmp_path)
    await _do_login(a, store)
    record = json.loads(store.get(OAUTH_SERVICE, a.url) or "{}")
    a.reject_all = True
    a.resource_metadata_url = f"{evil.base}/.well-known/oauth-protected-resource/mcp"
    evil.prm = {"resource": a.url, "authorization_servers": [a.base + "/"]}
    provider = ScriptedProvider([[text("hi")]])
    config = _session(tmp_path, {"demo": a.url}, provider, mcp_credentials=store)
    async with await InteractiveSession.start(config) as session:
        await session.submit("hi")
    seen = evil.texts()
    assert record["tokens"]["access_token"] not in seen
    assert record["tokens"]["refresh_token"] not in seen
    assert "Authorization" not in json.dumps([s.headers for s in evil.seen])


@pytest.mark.anyio
async def test_two_sessions_survive_a_rotating_refresh(tmp_path: Path) -> None:
    # HELD (was a HOLE, fixed): each session reads the stored record once (when its hub opens) and keeps it in
    # memory. With a rotating authorization server, session 1 refreshes (R1 -> R2, stored);
    # session 2 then refreshes with the revoked R1, fails and its server goes needs-login
    # although the store holds valid tokens. Fix: re-read the record from the store right
    # before a refresh (and after a failed one), under a cross-process lock.
    with _running(tmp_path) as oauth:
        store = FileCredentialStore(tmp_path / "home" / "credentials.json")
        await _login(oauth, store)
        record = _record(tmp_path / "home" / "credentials.json", oauth.url)
        record["expires_at"] = time.time() - 60
        store.set(OAUTH_SERVICE, oauth.url, json.dumps(record))
        states: list[str] = []
        results: list[str] = []
        one = _oauth_session(tmp_path / "1", oauth, store)
        two = _oauth_session(tmp_path / "2", oauth, store)
        async with (
            await InteractiveSession.start(one) as first,
            await InteractiveSession.start(two) as second,
        ):
            await first.submit("who am I?")
            await second.submit("who am I?")
            states = [s.state for s in (*first.mcp_servers, *second.mcp_servers)]
            results = [
                r.text
                for session in (first, second)
                for m in session.messages
                for r in getattr(m, "results", ())
            ]
        stored = _record(tmp_path / "home" / "credentials.json", oauth.url)
        assert stored["tokens"]["access_token"] in oauth.calls()  # the store was not clobbered
    assert states == ["connected", "connected"], (states, results)


def _oauth_session(folder: Path, oauth: OAuthServer, store: FileCredentialStore) -> SessionConfig:
    folder.mkdir(parents=True, exist_ok=True)
    provider = ScriptedProvider([[tool_call("c1", "mcp__demo__whoami", {})], [text("done")]])
    return _session(folder, {"demo": oauth.url}, provider, mcp_credentials=store)


# -- the credentials file ----------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_symlink_planted_at_the_credentials_path_is_not_written_through(
    tmp_path: Path, serve: Callable[[Hostile], Hostile]
) -> None:
    # HELD: credentials.json replaced by a symlink to a file elsewhere: the login fails and
    # the target never receives the tokens.
    state = serve(Hostile())
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    target = tmp_path / "elsewhere.json"
    target.write_text('{"version": 1, "credentials": {}}')
    target.chmod(0o600)
    (home / "credentials.json").symlink_to(target)
    store = FileCredentialStore(home / "credentials.json")
    with pytest.raises((McpLoginError, CredentialStoreError)):
        await _do_login(state, store)
    assert "ACCESS" not in target.read_text()
    assert (home / "credentials.json").is_symlink()


@pytest.mark.anyio
async def test_logout_of_one_url_keeps_every_other_record(
    tmp_path: Path, serve: Callable[[Hostile], Hostile]
) -> None:
    # HELD: logout deletes exactly the URL's record; a URL differing by a trailing slash,
    # another service's secret and the file's mode are untouched.
    state = serve(Hostile())
    store = _store(tmp_path)
    await _do_login(state, store)
    store.set(OAUTH_SERVICE, state.url + "/", '{"tokens": null}')
    store.set("robota.providers", "openai", "sk-keep")
    assert await logout(store, state.url) is True
    assert store.get(OAUTH_SERVICE, state.url) is None
    assert store.get(OAUTH_SERVICE, state.url + "/") == '{"tokens": null}'
    assert store.get("robota.providers", "openai") == "sk-keep"
    assert os.stat(tmp_path / "home" / "credentials.json").st_mode & 0o077 == 0
