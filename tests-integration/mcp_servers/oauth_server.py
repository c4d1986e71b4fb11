"""A real MCP server over streamable HTTP that requires an OAuth bearer token, with its own
authorization server on the same origin (the official ``mcp`` SDK's ``mcp.server.auth``:
protected resource metadata (RFC 9728), authorization server metadata (RFC 8414), dynamic
client registration (RFC 7591), ``/authorize`` and ``/token`` with the PKCE check (RFC 7636)).

``/authorize`` approves at once: it redirects to the client's redirect URI with a code and the
``state``, as a user clicking "Allow" would. Access tokens live ``EXPIRES`` seconds (argv) and a
refresh revokes the old access token, so only a refreshed token works afterwards. Each grant
(``authorization_code`` / ``refresh_token``) is appended as a line to ``GRANTS`` (argv), and
each tool call's bearer token to ``GRANTS``.calls, for the tests to read.

Tool: ``whoami()`` (says which client is calling).

Usage: ``python oauth_server.py PORT EXPIRES GRANTS``.
"""

from __future__ import annotations

import secrets
import sys
import time
from pathlib import Path

import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    OAuthAuthorizationServerProvider,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


class Provider(OAuthAuthorizationServerProvider[AuthorizationCode, RefreshToken, AccessToken]):
    """An in-memory authorization server that approves every authorization request."""

    def __init__(self, expires: int, grants: Path) -> None:
        self.expires = expires
        self.grants = grants
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    def _note(self, line: str) -> None:
        with self.grants.open("a") as file:
            file.write(line + "\n")

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info
        self._note("register")

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        code = secrets.token_urlsafe(32)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 300,
            client_id=client.client_id or "",
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    def _issue(self, client_id: str, scopes: list[str]) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        self.access[access] = AccessToken(
            token=access,
            client_id=client_id,
            scopes=scopes,
            expires_at=int(time.time()) + self.expires,
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes)
        return OAuthToken(
            access_token=access,
            expires_in=self.expires,
            refresh_token=refresh,
            scope=" ".join(scopes) or None,
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        del self.codes[authorization_code.code]
        self._note("authorization_code")
        return self._issue(authorization_code.client_id, authorization_code.scopes)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        del self.refresh[refresh_token.token]
        for token in [t for t, a in self.access.items() if a.client_id == refresh_token.client_id]:
            del self.access[token]  # the old access token stops working
        self._note("refresh_token")
        return self._issue(refresh_token.client_id, scopes or refresh_token.scopes)

    async def load_access_token(self, token: str) -> AccessToken | None:
        return self.access.get(token)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)


def build(port: int, expires: int, grants: Path) -> MCPServer:
    base = f"http://127.0.0.1:{port}"
    server = MCPServer(
        "oauth-demo",
        auth_server_provider=Provider(expires, grants),
        auth=AuthSettings(
            issuer_url=base,  # type: ignore[arg-type]
            resource_server_url=f"{base}/mcp",  # type: ignore[arg-type]
            client_registration_options=ClientRegistrationOptions(enabled=True),
            validate_token_resource=False,
        ),
    )

    @server.tool()
    def whoami() -> str:
        """Say which OAuth client is calling."""
        token = get_access_token()
        with grants.with_suffix(".calls").open("a") as file:
            file.write(f"{token.token if token else '-'}\n")
        return f"client {token.client_id if token else '?'}"

    return server


if __name__ == "__main__":
    port, expires, grants = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    uvicorn.run(
        build(port, expires, grants).streamable_http_app(),
        host="127.0.0.1",
        port=port,
        log_level="error",
        lifespan="on",
    )
