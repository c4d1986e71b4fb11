"""OAuth for HTTP MCP servers (issue #18), against a real streamable-HTTP MCP server that wants a
bearer token and runs its own authorization server on loopback (``mcp_servers/oauth_server.py``,
the ``mcp`` SDK's ``mcp.server.auth``: metadata discovery, dynamic registration, ``/authorize``
redirecting back with code and state, ``/token`` with the PKCE check, rotating refresh).

Instead of a browser, each test follows the printed authorization URL with ``httpx`` (the
server approves at once and redirects to the loopback callback). The server writes each grant
and each tool call's bearer token to files, so the tests check what the server saw."""

from __future__ import annotations

import json
import re
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from robota.core.gate import Allow, Deny
from robota.core.host import FileCredentialStore
from robota.core.host.sandbox import NoSandbox
from robota.core.messages import ToolResultMessage
from robota.core.testing.scripted import ScriptedProvider, text, tool_call
from robota.framework.interactive import InteractiveSession, SessionConfig
from robota.framework.mcp.oauth import (
    OAUTH_SERVICE,
    McpLoginError,
    McpTokenStore,
    login,
    logout,
)
from robota.framework.settings import Settings, merge_layers
from robota.tools.mcp import HttpServerConfig

sys.path.insert(0, str(Path(__file__).resolve().parent))
from replay_server import ReplayServer  # pyright: ignore[reportImplicitRelativeImport]
from test_cli_e2e import (  # pyright: ignore[reportImplicitRelativeImport]
    ROBOTA,
    Host,
    host_fixture,  # noqa: F401  # pyright: ignore[reportUnusedImport]
)
from test_cli_mcp import (  # pyright: ignore[reportImplicitRelativeImport]
    _provider,  # pyright: ignore[reportPrivateUsage]
    _tool_call,  # pyright: ignore[reportPrivateUsage]
)
from test_cli_newuser18 import _answer  # pyright: ignore[reportImplicitRelativeImport, reportPrivateUsage]

pytestmark = pytest.mark.integration

SERVER = Path(__file__).resolve().parent / "mcp_servers" / "oauth_server.py"


@dataclass(frozen=True, kw_only=True, slots=True)
class OAuthServer:
    """A running ``oauth_server.py``."""

    url: str
    grants: Path

    def granted(self) -> list[str]:
        return self.grants.read_text().splitlines() if self.grants.exists() else []

    def calls(self) -> list[str]:
        calls = self.grants.with_suffix(".calls")
        return calls.read_text().splitlines() if calls.exists() else []


@contextmanager
def _running(tmp_path: Path, *, expires: int = 3600, port: int = 0) -> Generator[OAuthServer]:
    if not port:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
    grants = tmp_path / f"grants-{port}.txt"
    process = subprocess.Popen(
        [sys.executable, str(SERVER), str(port), str(expires), str(grants)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the OAuth MCP server did not start") from None
                time.sleep(0.1)
        yield OAuthServer(url=f"http://127.0.0.1:{port}/mcp", grants=grants)
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def oauth(tmp_path: Path) -> Iterator[OAuthServer]:
    with _running(tmp_path) as server:
        yield server


def _follow(url: str) -> bool:
    """What a browser does: open the authorization URL and follow its redirect home."""
    answer = httpx.get(url, follow_redirects=True, timeout=30)
    assert answer.status_code == 200, answer.text
    assert "Robota is logged in" in answer.text
    return True


def _record(credentials: Path, url: str) -> dict[str, Any]:
    data = json.loads(credentials.read_text())
    return json.loads(data["credentials"][OAUTH_SERVICE][url])


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _session(tmp_path: Path, url: str, provider: ScriptedProvider, **kwargs: Any) -> SessionConfig:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    layer = {"mcp_servers": {"demo": {"url": url}}, "permissions": {"allow": ["mcp__demo__*"]}}
    settings: Settings = merge_layers([Settings.model_validate(layer)])
    return SessionConfig(
        provider=provider,
        model="m",
        workspace=workspace,
        settings=settings,
        title=False,
        sandbox=NoSandbox("test"),
        **kwargs,
    )


def _results(session: InteractiveSession) -> list[str]:
    return [r.text for m in session.messages if isinstance(m, ToolResultMessage) for r in m.results]


def _whoami() -> ScriptedProvider:
    return ScriptedProvider([[tool_call("c1", "mcp__demo__whoami", {})], [text("done")]])


async def _login(oauth: OAuthServer, store: FileCredentialStore, **kwargs: Any) -> Any:
    config = HttpServerConfig(name="demo", url=oauth.url)
    shown: list[str] = []
    opener: Callable[[str], bool] = kwargs.pop("open_browser", _follow)
    result = await login(config, store, show=shown.append, open_browser=opener, wait=30, **kwargs)
    return result, shown


# -- the command ---------------------------------------------------------------------------


def _robota(host: Host, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ROBOTA), *args],
        env=host.env,
        cwd=host.workspace,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _cli_login(host: Host, name: str) -> tuple[int, str, str]:
    """``robota mcp login NAME --no-browser``, following the printed URL like a browser."""
    process = subprocess.Popen(
        [str(ROBOTA), "mcp", "login", name, "--no-browser", "--timeout", "60"],
        env=host.env,
        cwd=host.workspace,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    assert process.stdout is not None
    seen: list[str] = []
    try:
        for line in process.stderr:
            seen.append(line)
            if line.strip().startswith("http://"):
                _follow(line.strip())
                break
        out, rest = process.stdout.read(), process.stderr.read()  # small: no pipe fills
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    return process.returncode, out, "".join(seen) + rest


def test_cli_login_run_and_logout(host: Host, tmp_path: Path, oauth: OAuthServer) -> None:
    added = _robota(host, "mcp", "add", "demo", "--url", oauth.url)
    assert added.returncode == 0, added.stderr
    before = _robota(host, "mcp", "list")
    assert re.search(r"demo\s+user\s+http\s+needs-login", before.stdout), before.stdout
    assert "run `robota mcp login demo`" in before.stdout

    code, out, err = _cli_login(host, "demo")
    assert code == 0, err
    assert "logged in to MCP server 'demo' (1 tool)" in out
    assert "(open the address above in a browser on this machine)" in err
    credentials = host.home / "credentials.json"
    assert _mode(credentials) == 0o600
    assert _mode(host.home) == 0o700
    record = _record(credentials, oauth.url)
    token = record["tokens"]["access_token"]
    assert record["client_info"]["client_id"]
    assert oauth.granted() == ["register", "authorization_code"]

    listed = _robota(host, "mcp", "list")
    assert re.search(r"demo\s+user\s+http\s+connected\s+1", listed.stdout), listed.stdout

    interactions = [_tool_call("mcp__demo__whoami", {}), _answer("Done.")]
    with ReplayServer(interactions=interactions) as model:
        _provider(host, model.url + "/v1", permissions={"allow": ["mcp__demo__whoami"]})
        run = _robota(host, "run", "--no-title", "who am I?")
    assert run.returncode == 0, run.stderr
    result = model.received[1].json()["messages"][-1]
    assert result["content"].startswith(f"client {record['client_info']['client_id']}")
    assert oauth.calls()[-1] == token  # the session sent the stored token

    # the token is in the credentials file only: not in settings, logs, sessions, output
    for path in host.home.rglob("*"):
        if path.is_file() and path != credentials:
            assert token.encode() not in path.read_bytes(), path
    assert token not in run.stdout + run.stderr + out + err

    gone = _robota(host, "mcp", "logout", "demo")
    assert gone.returncode == 0, gone.stderr
    assert "logged out of MCP server 'demo'" in gone.stdout
    assert OAUTH_SERVICE not in json.loads(credentials.read_text())["credentials"]
    after = _robota(host, "mcp", "list")
    assert re.search(r"demo\s+user\s+http\s+needs-login", after.stdout), after.stdout
    again = _robota(host, "mcp", "logout", "demo")
    assert (again.returncode, again.stdout.strip()) == (
        0,
        "no tokens were stored for MCP server 'demo'",
    )


def test_cli_login_refuses_a_stdio_server_and_an_unknown_one(host: Host) -> None:
    added = _robota(host, "mcp", "add", "local", "--", sys.executable, "-c", "pass")
    assert added.returncode == 0, added.stderr
    stdio = _robota(host, "mcp", "login", "local", "--no-browser")
    assert stdio.returncode == 2
    assert "only HTTP servers log in" in stdio.stderr
    unknown = _robota(host, "mcp", "login", "nope", "--no-browser")
    assert unknown.returncode == 3
    assert "no MCP server 'nope'" in unknown.stderr


# -- the library ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_session_connects_with_the_stored_tokens(
    tmp_path: Path, oauth: OAuthServer
) -> None:
    path = tmp_path / "home" / "credentials.json"
    store = FileCredentialStore(path)
    result, shown = await _login(oauth, store)
    assert (result.tools, result.browser) == (("whoami",), True)
    assert shown[0] == "Log in to MCP server 'demo' in your browser:"
    record = _record(path, oauth.url)
    assert _mode(path) == 0o600

    config = _session(tmp_path, oauth.url, _whoami(), mcp_credentials=store)
    async with await InteractiveSession.start(config) as session:
        await session.submit("who am I?")
        [status] = session.mcp_servers
    assert status.state == "connected"
    assert _results(session)[0].startswith(f"client {record['client_info']['client_id']}")
    assert oauth.calls() == [record["tokens"]["access_token"]]
    assert oauth.granted() == ["register", "authorization_code"]  # no second login, no refresh


@pytest.mark.anyio
async def test_an_expired_access_token_is_refreshed_and_stored(
    tmp_path: Path, oauth: OAuthServer
) -> None:
    path = tmp_path / "home" / "credentials.json"
    store = FileCredentialStore(path)
    await _login(oauth, store)
    record = _record(path, oauth.url)
    old = record["tokens"]["access_token"]
    record["expires_at"] = time.time() - 60  # as if an hour had passed
    store.set(OAUTH_SERVICE, oauth.url, json.dumps(record))

    config = _session(tmp_path, oauth.url, _whoami(), mcp_credentials=store)
    async with await InteractiveSession.start(config) as session:
        await session.submit("who am I?")
        [status] = session.mcp_servers
    assert status.state == "connected"
    assert _results(session)[0].startswith("client ")
    assert oauth.granted() == ["register", "authorization_code", "refresh_token"]
    fresh = _record(path, oauth.url)
    new = fresh["tokens"]["access_token"]
    assert new != old
    assert fresh["tokens"]["refresh_token"] != record["tokens"]["refresh_token"]  # rotated
    assert fresh["expires_at"] > time.time()
    assert oauth.calls() == [new]  # the old token was revoked by the refresh


@pytest.mark.anyio
async def test_without_tokens_a_session_shows_needs_login_and_starts_no_flow(
    tmp_path: Path, oauth: OAuthServer
) -> None:
    store = FileCredentialStore(tmp_path / "home" / "credentials.json")
    await _login(oauth, store)
    assert await logout(store, oauth.url) is True
    assert await logout(store, oauth.url) is False

    provider = ScriptedProvider([[text("no tools")]])
    config = _session(tmp_path, oauth.url, provider, mcp_credentials=store)
    async with await InteractiveSession.start(config) as session:
        await session.submit("hi")
        [status] = session.mcp_servers
    assert status.state == "needs-login"
    assert oauth.granted() == ["register", "authorization_code"]  # nothing registered again
    assert not [t for t in provider.requests[0].tools if t.name.startswith("mcp__")]


@pytest.mark.anyio
async def test_a_server_that_forgot_the_tokens_is_needs_login_not_a_browser(
    tmp_path: Path,
) -> None:
    store = FileCredentialStore(tmp_path / "home" / "credentials.json")
    with _running(tmp_path) as first:
        await _login(first, store)
        port = urlsplit(first.url).port
    assert port is not None
    again = tmp_path / "again"
    again.mkdir()
    with _running(again, port=port) as second:  # same URL; it knows no token and no client
        config = _session(tmp_path, second.url, _whoami(), mcp_credentials=store)
        async with await InteractiveSession.start(config) as session:
            await session.submit("who am I?")
            [status] = session.mcp_servers
        assert status.state == "needs-login"
        assert second.calls() == []
        assert "authorization_code" not in second.granted()


@pytest.mark.anyio
async def test_a_callback_with_a_wrong_state_is_refused(tmp_path: Path, oauth: OAuthServer) -> None:
    refused: list[int] = []

    def forged_first(url: str) -> bool:
        query = parse_qs(urlsplit(url).query)
        callback = query["redirect_uri"][0]
        forged = httpx.get(callback, params={"code": "stolen", "state": "not-the-state"})
        refused.append(forged.status_code)
        return _follow(url)

    store = FileCredentialStore(tmp_path / "home" / "credentials.json")
    result, _ = await _login(oauth, store, open_browser=forged_first)
    assert refused == [400]
    assert result.tools == ("whoami",)
    assert oauth.granted() == ["register", "authorization_code"]  # the forged code never sent


@pytest.mark.anyio
async def test_a_login_that_never_comes_back_fails_and_keeps_the_stored_tokens(
    tmp_path: Path, oauth: OAuthServer
) -> None:
    store = FileCredentialStore(tmp_path / "home" / "credentials.json")
    await _login(oauth, store)
    before = store.get(OAUTH_SERVICE, oauth.url)
    config = HttpServerConfig(name="demo", url=oauth.url)
    with pytest.raises(McpLoginError, match="no authorization arrived"):
        await login(config, store, show=lambda _: None, open_browser=None, wait=1)
    assert store.get(OAUTH_SERVICE, oauth.url) == before
    assert await McpTokenStore(store, oauth.url).has_tokens()


@pytest.mark.anyio
async def test_the_mcp_tool_gate_denies_allows_and_fails_closed(
    tmp_path: Path, oauth: OAuthServer
) -> None:
    store = FileCredentialStore(tmp_path / "home" / "credentials.json")
    await _login(oauth, store)
    asked: list[tuple[str, str, dict[str, Any]]] = []
    verdicts: list[Any] = [Deny(message="whoami is off today"), Allow(), RuntimeError("bug")]

    async def gate(server: str, tool: str, arguments: Any) -> Allow | Deny:
        asked.append((server, tool, dict(arguments)))
        verdict = verdicts.pop(0)
        if isinstance(verdict, Exception):
            raise verdict
        return verdict

    calls = [[tool_call(f"c{i}", "mcp__demo__whoami", {})] for i in range(3)]
    provider = ScriptedProvider([*calls, [text("done")]])
    config = _session(tmp_path, oauth.url, provider, mcp_credentials=store, mcp_tool_gate=gate)
    async with await InteractiveSession.start(config) as session:
        await session.submit("three times")
    denied, allowed, failed = _results(session)
    assert asked == [("demo", "whoami", {})] * 3
    assert denied == "whoami is off today"
    assert allowed.startswith("client ")
    assert "the MCP tool gate failed (RuntimeError)" in failed
    assert len(oauth.calls()) == 1  # only the allowed call reached the server
