"""OAuth for HTTP MCP servers (issue #18: "OAuth for HTTP servers through the ``mcp`` SDK's client
auth, tokens kept in the credential store, a 'needs login' state instead of a failure"; seed 004,
``mcp:auth:needed`` and ``loginMcpServer``; MCP spec 2025-06-18, "Authorization").

- :class:`McpTokenStore` is the SDK's ``TokenStorage`` over a host's
  :class:`~robota.core.host.CredentialStore` (a keychain, or the owner-only credentials file):
  one record per server URL (service :data:`OAUTH_SERVICE`, account the URL as configured),
  holding the tokens, their expiry time, the dynamic client registration (RFC 7591) and the
  discovered authorization server metadata. Never a settings file, never a log line.
- :func:`login` runs the authorization code flow with PKCE (RFC 7636) once, interactively: a
  :class:`~robota.framework.mcp._callback.LoopbackCallback` on ``127.0.0.1`` receives the
  redirect, the authorization URL is always shown and opened in a browser when there is one.
  Only a completed login replaces what was stored.
- :func:`stored_auth` gives a session's connection an ``OAuthClientProvider`` when tokens are
  stored: it sends the access token and refreshes it when it expires. A session never starts a
  login: a 401 (or 403) is handed back to the connection as it is - no discovery, no client
  registration, no browser - and the server shows as ``needs-login``. The only thing a session
  writes to the store is the tokens of a successful refresh. Before refreshing, it takes an
  exclusive lock (``flock`` on ``<credentials file>.lock``, when the store is a file) and reads
  the record again - another session may have refreshed already, and with a rotating refresh
  token a second refresh with the old one would fail; after a failed refresh it reads the
  record again too.
- :func:`logout` deletes the record.

Needs the ``mcp`` extra (this module imports the SDK; :mod:`robota.framework.mcp` does not
import this module).
"""

from __future__ import annotations

import time
import webbrowser
from collections.abc import AsyncGenerator, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import anyio
import anyio.to_thread
from pydantic import AnyUrl, BaseModel, ConfigDict, ValidationError
from robota.core.extras import raise_missing_extra
from robota.core.host import CredentialStore
from robota.framework.failure_reason import failure_reason, os_failure
from robota.framework.mcp._callback import LoopbackCallback, McpLoginError
from robota.framework.mcp._filelock import locked_async
from robota.framework.settings import HttpMcpServer

try:  # the MCP SDK: the `mcp` extra
    from mcp.client.auth import OAuthClientProvider
    from mcp.client.auth.oauth2 import OAuthContext
    from mcp.shared.auth import (
        AuthorizationCodeResult,
        OAuthClientInformationFull,
        OAuthClientMetadata,
        OAuthMetadata,
        OAuthToken,
        ProtectedResourceMetadata,
    )
    from robota.tools.mcp import HttpServerConfig, McpToolset
except ImportError as error:
    raise_missing_extra(error, module="mcp", distribution="robota-agent-framework", extra="mcp")

__all__ = [
    "OAUTH_SERVICE",
    "McpLoginError",
    "McpLoginResult",
    "McpTokenStore",
    "http_server_config",
    "login",
    "logout",
    "open_in_browser",
    "stored_auth",
]

OAUTH_SERVICE = "robota.mcp.oauth"
"""The credential store service the records are kept under (account: the server URL)."""

LOGIN_TIMEOUT = 300.0
"""Seconds :func:`login` waits for the browser's redirect by default."""

_EARLY = 30.0
"""Seconds before the stated expiry at which a stored access token counts as expired."""

_UNUSED_REDIRECT = "http://127.0.0.1/callback"
"""The redirect URI a session's provider declares when none was registered (never used)."""

_REFRESH_LOCK_WAIT = 30.0
"""Seconds a session waits for another process's refresh (the lock) before refreshing anyway."""

MAX_CAUSE_CHARS = 500
"""Characters of a failure's text kept in a :class:`McpLoginError` (a token endpoint's error
body can be megabytes); what is cut is counted."""


class _Record(BaseModel):
    """What is stored for one server URL (JSON, in the credential store)."""

    model_config = ConfigDict(extra="ignore")

    tokens: OAuthToken | None = None
    expires_at: float | None = None
    client_info: OAuthClientInformationFull | None = None
    oauth_metadata: OAuthMetadata | None = None
    resource_metadata: ProtectedResourceMetadata | None = None


class McpTokenStore:
    """The ``mcp`` SDK's ``TokenStorage`` for one server URL, over a credential store.

    Args:
        credentials: Where the record is kept (:data:`OAUTH_SERVICE`, account ``url``).
        url: The server's MCP endpoint, as configured (``${VAR}`` expanded).
        persist: False keeps every change in memory until :meth:`commit` (a login in
            progress); True writes each change through.
        session: A session's store: every :meth:`get_tokens` reads the record again,
            :meth:`set_tokens` (a refresh) writes only the tokens and their expiry into the
            record as stored now, and :meth:`set_client_info` (a client registration) is
            refused with :class:`McpLoginError` - a session never registers.

    The SDK reads the tokens once per connection (its ``_initialize``); :meth:`get_tokens`
    then also gives the bound provider context (:meth:`bind`) the stored expiry time and
    authorization server metadata, so an expired access token is refreshed before it is sent
    (the SDK itself keeps both only in memory).

    Every method raises :class:`~robota.core.host.CredentialStoreError` when the store fails;
    a record that is not valid JSON of the expected shape reads as empty.
    """

    def __init__(
        self,
        credentials: CredentialStore,
        url: str,
        *,
        persist: bool = True,
        session: bool = False,
    ) -> None:
        self._credentials = credentials
        self.url = url
        """The server URL (the record's account)."""
        self._persist = persist
        self._session = session
        self._record: _Record | None = None
        self._context: OAuthContext | None = None

    def bind(self, context: OAuthContext) -> None:
        """Restore stored expiry and metadata into ``context`` (a provider's) when the SDK
        reads the tokens, and save the metadata it discovers with the next tokens."""
        self._context = context

    async def load(self) -> _Record:
        """The record (read once, then cached; :meth:`reload` reads it again)."""
        if self._record is None:
            await self.reload()
        assert self._record is not None
        return self._record

    async def reload(self) -> _Record:
        """The record as stored now (replacing the cached one)."""
        raw = await anyio.to_thread.run_sync(self._credentials.get, OAUTH_SERVICE, self.url)
        try:
            self._record = _Record() if raw is None else _Record.model_validate_json(raw)
        except ValidationError:
            self._record = _Record()
        return self._record

    async def _save(self) -> None:
        if self._persist:
            await self.commit()

    async def commit(self) -> None:
        """Write the record to the credential store."""
        record = await self.load()
        data = record.model_dump_json(exclude_none=True)
        await anyio.to_thread.run_sync(self._credentials.set, OAUTH_SERVICE, self.url, data)

    async def has_tokens(self) -> bool:
        """True when an access token is stored."""
        return (await self.load()).tokens is not None

    # -- TokenStorage ---------------------------------------------------------------------

    async def get_tokens(self) -> OAuthToken | None:
        """The stored tokens (see the class docstring for what else this restores)."""
        record = await (self.reload() if self._session else self.load())
        context = self._context
        if context is not None and record.tokens is not None:
            expires_at = record.expires_at
            context.token_expiry_time = None if expires_at is None else expires_at - _EARLY
            if context.oauth_metadata is None and record.oauth_metadata is not None:
                context.oauth_metadata = record.oauth_metadata
            if context.protected_resource_metadata is None and record.resource_metadata:
                context.protected_resource_metadata = record.resource_metadata
                servers = record.resource_metadata.authorization_servers
                context.auth_server_url = str(servers[0])
        return record.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        """Store new tokens (after a login or a refresh) with their absolute expiry time
        (``expires_in`` 0: already expired; absent: no stated expiry)."""
        if self._session:  # a refresh: the tokens only, into the record as stored now
            record = await self.reload()
            record.tokens, record.expires_at = tokens, _expires_at(tokens)
            await self._save()
            return
        record = await self.load()
        record.tokens = tokens
        record.expires_at = _expires_at(tokens)
        if self._context is not None:
            record.oauth_metadata = self._context.oauth_metadata or record.oauth_metadata
            record.resource_metadata = (
                self._context.protected_resource_metadata or record.resource_metadata
            )
        await self._save()

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        """The stored client registration."""
        return (await self.load()).client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        """Store the client registration.

        Raises:
            McpLoginError: a session's store (a session never registers a client).
        """
        if self._session:
            raise McpLoginError(f"{self.url} needs a new login (a session does not register)")
        (await self.load()).client_info = client_info
        await self._save()


def _expires_at(tokens: OAuthToken) -> float | None:
    return None if tokens.expires_in is None else time.time() + tokens.expires_in


class _SessionProvider(OAuthClientProvider):
    """A session's ``OAuthClientProvider``: sends the stored access token and refreshes it,
    and nothing else (see the module docstring).

    A 401 or 403 answer to the request being authenticated ends the flow: the answer goes back
    to the connection as it is (the SDK would otherwise discover metadata the server names,
    register a client there and start an authorization). A refresh runs under the credential
    store's lock, after the record was read again.
    """

    def __init__(self, *, store: McpTokenStore, lock_file: Path | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._store = store
        self._lock_file = lock_file
        self._flows = anyio.Lock()

    def _wants_refresh(self) -> bool:
        return not self.context.is_token_valid() and self.context.can_refresh_token()

    async def _auth_flow(self, request: Any) -> AsyncGenerator[Any, Any]:
        # (request and answers are the SDK's httpx2 objects; httpx2 is not a dependency here)
        async with self._flows, AsyncExitStack() as lock:
            if not self._initialized:
                await self._initialize()
            if self._wants_refresh():
                await lock.enter_async_context(
                    locked_async(self._lock_file, wait=_REFRESH_LOCK_WAIT)
                )
                await self._initialize()  # another session may have refreshed meanwhile
                if not self._wants_refresh():
                    await lock.aclose()
            flow = super()._auth_flow(request)
            try:
                outgoing = await flow.__anext__()
                while True:
                    if outgoing is request:
                        await lock.aclose()  # the refresh (if any) is stored
                    response = yield outgoing
                    if outgoing is request and response.status_code in (401, 403):
                        return  # a new authorization is needed: never from a session
                    outgoing = await flow.asend(response)
            except StopAsyncIteration:
                return
            finally:
                await flow.aclose()

    async def _handle_refresh_response(self, response: Any) -> bool:
        used = self.context.current_tokens
        if await super()._handle_refresh_response(response):
            return True
        await self._initialize()  # refreshed elsewhere (a rotated refresh token fails here)?
        if self.context.is_token_valid() and self.context.current_tokens != used:
            return True
        self.context.clear_tokens()
        return False


def _metadata(redirect_uri: str) -> OAuthClientMetadata:
    """What Robota registers as: a native public client (RFC 8252; no secret, PKCE)."""
    return OAuthClientMetadata(
        client_name="Robota",
        redirect_uris=[AnyUrl(redirect_uri)],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )


def _provider(
    store: McpTokenStore,
    redirect_uri: str,
    redirect: Callable[[str], Any],
    callback: Callable[[], Any],
) -> OAuthClientProvider:
    provider = OAuthClientProvider(
        server_url=store.url,
        client_metadata=_metadata(redirect_uri),
        storage=store,
        redirect_handler=redirect,
        callback_handler=callback,
    )
    store.bind(provider.context)
    return provider


async def stored_auth(credentials: CredentialStore, url: str) -> OAuthClientProvider | None:
    """An ``httpx2.Auth`` for a session's connection to ``url`` when tokens are stored, else
    None (a 401 then leaves the server ``needs-login``).

    The provider sends the access token, refreshes it when expired (storing the new tokens)
    and never starts a browser flow: when a new authorization is needed, the connection
    fails with the server's 401.

    Raises:
        CredentialStoreError: the credential store failed.
    """
    store = McpTokenStore(credentials, url, session=True)
    record = await store.load()
    if record.tokens is None:
        return None
    registered = record.client_info.redirect_uris if record.client_info else None
    redirect_uri = str(registered[0]) if registered else _UNUSED_REDIRECT

    async def refuse(*_: object) -> Any:
        raise McpLoginError(f"{url} needs a new login", server="")

    provider = _SessionProvider(
        store=store,
        lock_file=_credentials_file(credentials),
        server_url=url,
        client_metadata=_metadata(redirect_uri),
        storage=store,
        redirect_handler=refuse,
        callback_handler=refuse,
    )
    store.bind(provider.context)
    return provider


def _credentials_file(credentials: CredentialStore) -> Path | None:
    """The file of a file-backed store (its ``path``), which the refresh lock sits next to;
    None for a keychain (refreshes are then not locked across processes)."""
    path = getattr(credentials, "path", None)
    return path if isinstance(path, Path) else None


async def logout(credentials: CredentialStore, url: str) -> bool:
    """Delete what is stored for ``url`` (tokens and client registration); True when there
    was something.

    Raises:
        CredentialStoreError: the credential store failed.
    """
    return await anyio.to_thread.run_sync(credentials.delete, OAUTH_SERVICE, url)


def open_in_browser(url: str) -> bool:
    """Open ``url`` in the user's graphical browser; False when there is none (no display,
    or only a console browser, which would take over the terminal)."""
    try:
        browser = webbrowser.get()
    except webbrowser.Error:
        return False
    if type(browser) is webbrowser.GenericBrowser:  # lynx, w3m, links...
        return False
    try:
        return bool(browser.open(url))
    except Exception:  # a browser that failed to start: the URL is shown anyway
        return False


@dataclass(frozen=True, kw_only=True, slots=True)
class McpLoginResult:
    """A completed login.

    Attributes:
        server: The configured server name.
        url: The server URL the tokens are stored for.
        tools: The server's tool names (its own), listed with the new token.
        browser: True when the authorization URL was opened in a browser.
    """

    server: str
    url: str
    tools: tuple[str, ...]
    browser: bool


def http_server_config(name: str, server: HttpMcpServer) -> HttpServerConfig:
    """The connection settings for the HTTP MCP server ``name`` as declared in settings (with
    its ``${VAR}`` references already expanded: :func:`~robota.framework.mcp.expand_server`),
    for :func:`login`."""
    return HttpServerConfig(
        name=name,
        url=server.url,
        headers=dict(server.headers),
        connect_timeout=server.connect_timeout,
        call_timeout=server.call_timeout,
    )


async def login(
    config: HttpServerConfig,
    credentials: CredentialStore,
    *,
    show: Callable[[str], None],
    open_browser: Callable[[str], bool] | None = open_in_browser,
    wait: float = LOGIN_TIMEOUT,
) -> McpLoginResult:
    """Log in to the HTTP MCP server ``config`` with OAuth and store the tokens.

    Connects with an ``OAuthClientProvider`` that has no token: the server's 401 starts the
    SDK's flow (protected resource and authorization server metadata discovery, dynamic client
    registration unless a registration for this redirect URI is stored, authorization code
    with PKCE). The authorization URL is passed to ``show`` (always) and to ``open_browser``
    (unless None; run in a worker thread); the redirect comes back to a loopback listener on
    ``127.0.0.1``. Only when the connection is then initialized and its tools listed are the
    tokens and registration written, replacing what was stored.

    Args:
        config: The server (``url``, ``headers``; its ``auth`` is replaced).
        credentials: Where the record is kept.
        show: Receives the lines to show the user (the authorization URL among them).
        open_browser: Opens the URL; returns False when it could not. None: never.
        wait: Seconds to wait for the redirect.

    Raises:
        McpLoginError: the login did not complete (no redirect in time, refused, the token
            exchange or the connection failed, or the server did not ask for a login).
        CredentialStoreError: the credential store failed.
    """
    store = McpTokenStore(credentials, config.url, persist=False)
    record = await store.load()
    record.tokens, record.expires_at = None, None
    opened = False
    async with LoopbackCallback.serving(port=_registered_port(record.client_info)) as callback:
        if record.client_info is not None and callback.redirect_uri not in _uris(
            record.client_info
        ):
            record.client_info = None  # registered for another port: register again

        refused: list[McpLoginError] = []  # raised in the SDK's transport task: kept here,
        # as the connection itself reports only "Connection closed"

        async def redirect(url: str) -> None:
            nonlocal opened
            try:
                callback.expect(url)
            except McpLoginError as failure:
                refused.append(failure)
                raise
            show(f"Log in to MCP server {config.name!r} in your browser:")
            show(f"  {url}")
            if open_browser is not None:
                opened = await anyio.to_thread.run_sync(open_browser, url)
            if not opened:
                show("(open the address above in a browser on this machine)")
            show(f"Waiting for the authorization (up to {wait:g} s)...")

        async def receive() -> AuthorizationCodeResult:
            try:
                result = await callback.wait(wait)
            except McpLoginError as failure:
                refused.append(failure)
                raise
            return AuthorizationCodeResult(code=result.code, state=result.state, iss=result.iss)

        provider = _provider(store, callback.redirect_uri, redirect, receive)
        connect = config.model_copy(
            update={"auth": provider, "connect_timeout": wait + config.connect_timeout}
        )
        async with McpToolset([connect]) as toolset:
            await toolset.warmup()
            error = toolset.error(config.name)
            tools = tuple(toolset.catalog(config.name))
    if error is not None:
        why = _cut(str(refused[0])) if refused else _cause(error, config.url)
        raise McpLoginError(
            f"login to MCP server {config.name!r} failed: {why}", server=config.name
        ) from error
    if record.tokens is None:
        raise McpLoginError(
            f"MCP server {config.name!r} did not ask for a login (it answered without a 401)",
            server=config.name,
        )
    await store.commit()
    return McpLoginResult(server=config.name, url=config.url, tools=tools, browser=opened)


def _uris(info: OAuthClientInformationFull) -> list[str]:
    return [str(uri) for uri in info.redirect_uris or []]


def _registered_port(info: OAuthClientInformationFull | None) -> int:
    """The loopback port of a stored registration's redirect URI (0: none)."""
    for uri in _uris(info) if info is not None else []:
        parsed = AnyUrl(uri)
        if parsed.host == "127.0.0.1" and parsed.port:
            return parsed.port
    return 0


def _cause(error: BaseException, url: str) -> str:
    """The most telling failure inside ``error`` (causes, contexts and exception groups
    walked), cut to :data:`MAX_CAUSE_CHARS` characters: a login error first, then a failure of
    the operating system (``cannot connect to URL: connection refused``, naming the address of
    the request that failed, else ``url``, without its query), then an SDK OAuth error, else
    the innermost."""
    seen: set[int] = set()
    stack: list[BaseException] = [error]
    innermost = error
    oauth: BaseException | None = None
    where = ""
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, McpLoginError):
            return _cut(str(current))
        if oauth is None and type(current).__module__.startswith("mcp.client.auth"):
            oauth = current
        where = where or _request_url(current)
        innermost = current
        if isinstance(current, BaseExceptionGroup):
            stack.extend(current.exceptions)
        for linked in (current.__cause__, current.__context__):
            if linked is not None:
                stack.append(linked)
    if os_failure(error) is not None:
        return _cut(f"cannot connect to {_address(where or url)}: {failure_reason(error)}")
    found = oauth if oauth is not None else innermost
    return _cut(f"{type(found).__name__}: {found}")


def _request_url(error: BaseException) -> str:
    """The URL of the request an HTTP client's error is about ('' when none)."""
    try:
        request = getattr(error, "request", None)  # httpx raises RuntimeError when unset
    except RuntimeError:
        return ""
    return str(getattr(request, "url", "") or "")


def _address(url: str) -> str:
    """``url`` without its user information, query and fragment (which may carry secrets)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port is not None else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _cut(text: str) -> str:
    if len(text) <= MAX_CAUSE_CHARS:
        return text
    return f"{text[:MAX_CAUSE_CHARS]}... ({len(text) - MAX_CAUSE_CHARS} more characters)"
