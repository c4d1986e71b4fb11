"""``robota mcp login NAME`` and ``robota mcp logout NAME``: OAuth for an HTTP MCP server
(issue #18; :mod:`robota.framework.mcp.oauth`).

``login`` runs the authorization in the user's browser: the authorization URL is always
printed (on stderr) and opened in a graphical browser when there is one (not with
``--no-browser``); the browser comes back to a listener on ``127.0.0.1``. The tokens and the
client registration go to the owner-only ``$ROBOTA_HOME/credentials.json``, never to a settings
file; sessions (``robota chat``, ``robota run``) then connect with them and refresh them. A
session never starts a login: a server that wants one shows ``needs-login``.

``logout`` deletes what is stored for the server's URL.

A project's server must be approved (``robota mcp approve NAME``) before logging in to it: the
login sends the browser to the authorization server the URL names.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from robota.cli.exit_codes import ExitCode
from robota.cli.mcp_view import quiet_library_logs
from robota.cli.paths import CliPaths
from robota.cli.terminal_text import shown
from robota.core.errors import ConfigurationError
from robota.core.host import CredentialStoreError, FileCredentialStore
from robota.framework.mcp import McpApprovalStore, expand_server, server_digest
from robota.framework.policy import load_policy, policy_path
from robota.framework.settings import HttpMcpServer, load_settings
from robota.framework.trust import TrustStore, workspace_identity

__all__ = ["add_login_parsers", "run_login", "run_logout"]


def add_login_parsers(actions: Any, epilog: str) -> None:
    """Register ``login`` and ``logout`` on the ``robota mcp`` subparsers ``actions``."""
    login = actions.add_parser(
        "login", help="log in to an HTTP server with OAuth (in your browser)", epilog=epilog
    )
    login.add_argument("name")
    login.add_argument(
        "--no-browser",
        action="store_true",
        help="do not open a browser; only print the address to open",
    )
    login.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="how long to wait for the browser to come back (default: 300)",
    )
    login.add_argument("--cwd", help="workspace (default: the current directory)")
    logout = actions.add_parser(
        "logout", help="delete the OAuth tokens stored for a server", epilog=epilog
    )
    logout.add_argument("name")
    logout.add_argument("--cwd", help="workspace (default: the current directory)")


def _say(text: str) -> None:
    sys.stderr.write(f"{text}\n")
    sys.stderr.flush()


def _server(name: str, paths: CliPaths, root: Path) -> HttpMcpServer:
    """The HTTP server ``name`` as the merged settings define it.

    Raises:
        ConfigurationError: no such server, a project server not approved, or an unset
            ``${VAR}``.
        ValueError: a stdio server (nothing to log in to).
    """
    trusted = TrustStore(path=paths.trust_file).get(root) == "trusted"
    settings = load_settings(
        user=paths.user_settings,
        project=CliPaths.project_settings(root),
        local=CliPaths.project_local_settings(root),
        trusted=trusted,
        policy=load_policy(policy_path(os.environ)),
    )
    server = settings.mcp_servers.get(name)
    if server is None:
        raise ConfigurationError(f"no MCP server {name!r} in the settings (see robota mcp list)")
    if not isinstance(server, HttpMcpServer):
        raise ValueError(f"MCP server {name!r} is a stdio server: only HTTP servers log in")
    if settings.mcp_scope(name) == "project":
        store = McpApprovalStore(path=paths.mcp_approvals)
        if store.get(workspace_identity(root), name, server_digest(server)) != "approved":
            raise ConfigurationError(
                f"MCP server {name!r} is a project's server you have not approved: "
                f"run `robota mcp approve {name}` first"
            )
    expanded = expand_server(server, os.environ)
    assert isinstance(expanded, HttpMcpServer)
    return expanded


async def run_login(args: argparse.Namespace, paths: CliPaths, root: Path) -> ExitCode:
    """``robota mcp login NAME``: 0 logged in, 2 a stdio server, 3 no such server, not
    approved, or the login failed (the reason on stderr).

    Raises:
        ConfigurationError: an unusable settings file (the caller prints it, exit 3).
    """
    from robota.framework.mcp.oauth import (
        McpLoginError,
        http_server_config,
        login,
        open_in_browser,
    )

    try:
        server = _server(args.name, paths, root)
    except ValueError as exc:
        _say(f"robota: {exc}")
        return ExitCode.USAGE
    config = http_server_config(args.name, server)
    quiet_library_logs()
    credentials = FileCredentialStore(paths.credentials)
    try:
        result = await login(
            config,
            credentials,
            show=lambda line: _say(shown(line)),
            open_browser=None if args.no_browser else open_in_browser,
            wait=args.timeout,
        )
    except (McpLoginError, CredentialStoreError) as exc:
        _say(f"robota: {shown(str(exc))}")
        return ExitCode.CONFIGURATION
    count = len(result.tools)
    print(
        f"logged in to MCP server {shown(args.name)!r} ({count} tool{'s' * (count != 1)}); "
        f"tokens stored in {paths.credentials}"
    )
    return ExitCode.OK


async def run_logout(args: argparse.Namespace, paths: CliPaths, root: Path) -> ExitCode:
    """``robota mcp logout NAME``: 0 (whether or not tokens were stored), 2 a stdio server,
    3 no such server or an unreadable credentials file."""
    from robota.framework.mcp.oauth import logout

    try:
        server = _server(args.name, paths, root)
    except ValueError as exc:
        _say(f"robota: {exc}")
        return ExitCode.USAGE
    try:
        removed = await logout(FileCredentialStore(paths.credentials), server.url)
    except CredentialStoreError as exc:
        _say(f"robota: {shown(str(exc))}")
        return ExitCode.CONFIGURATION
    if removed:
        print(f"logged out of MCP server {shown(args.name)!r} (its tokens were deleted)")
    else:
        print(f"no tokens were stored for MCP server {shown(args.name)!r}")
    return ExitCode.OK
