"""``robota mcp list|add|remove|approve|deny|login|logout``: MCP servers in the settings files
(issue #18; ``login``/``logout``: :mod:`robota.cli.mcp_login`).

``add`` and ``remove`` edit one settings file as JSON, keeping every other key, and write it
atomically (a temporary file renamed over it): the user's ``$ROBOTA_HOME/settings.json``
owner-only (0600), a project's ``.robota/settings.json`` (or ``settings.local.json``) with its
current mode (0644 when new). The result is validated as a whole before anything is written, so
a command never leaves a file the next run would refuse. A server added to a project's file by
the user is approved for this workspace at once (the user typed it). A project file is meant to
be shared, so ``add --scope project`` refuses a ``--header``/``--env`` value that looks like a
credential (an ``Authorization``/``*key*``/``*token*``/``*secret*``/``*password*`` name with a
literal value, no ``${VAR}``) unless ``--allow-literal-secret`` is given.

``approve`` shows what it approves (the command line or URL, working directory, environment
names and every ``${VAR}`` passed, as ``robota chat`` asks) and asks for confirmation on a
terminal; without one it needs ``--yes``.

``list`` shows every configured server with its layer, transport, state and tool count; it
starts the servers that may start to check them (``--no-connect``: it starts nothing), never a
project server the user has not approved.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from robota.cli.exit_codes import ExitCode
from robota.cli.mcp_login import add_login_parsers, run_login, run_logout
from robota.cli.mcp_view import describe_request, quiet_library_logs, status_lines
from robota.cli.paths import CliPaths
from robota.core.errors import ConfigurationError
from robota.core.host.credentials import FileCredentialStore
from robota.core.host.owner_only import ensure_private_dir, write_private_file
from robota.framework.mcp import (
    McpApprovalRequest,
    McpApprovalStore,
    McpHub,
    approval_request,
    server_digest,
)
from robota.framework.policy import load_policy, policy_path
from robota.framework.settings import (
    Settings,
    SettingsFileError,
    check_project_layer,
    check_server_name,
    load_settings,
)
from robota.framework.storage_root import check_storage_root
from robota.framework.trust import TrustStore, workspace_identity, workspace_root

__all__ = ["MCP_EPILOG", "add_mcp_parser", "run_mcp"]

MCP_EPILOG = (
    "exit codes: 0 ok, 1 unexpected error, 2 usage (a bad server name or option, a server "
    "defined in several files without --scope, a credential-looking literal --header/--env "
    "value for --scope project without --allow-literal-secret, approve without a terminal "
    "and without --yes, login/logout of a stdio server), 3 configuration (an invalid or unsafe "
    "settings file, an insecure $ROBOTA_HOME, a server that already exists (add) or does not "
    "(remove, approve, deny, login, logout), login to a project server not approved, a login "
    "that did not complete). `list` exits 0 whatever the servers' states."
)

Scope = str  # "user" | "project" | "local"
_SCOPES = ("user", "project", "local")


def add_mcp_parser(sub: Any) -> None:
    """Register ``robota mcp ...`` on the top-level subparsers ``sub``."""
    mcp = sub.add_parser(
        "mcp", help="list, add, remove or log in to MCP servers", epilog=MCP_EPILOG
    )
    actions = mcp.add_subparsers(dest="action", required=True)

    listing = actions.add_parser("list", help="servers, their layer and status", epilog=MCP_EPILOG)
    listing.add_argument(
        "--no-connect", action="store_true", help="start nothing; show the configuration only"
    )
    _where(listing, trust=True)

    add = actions.add_parser(
        "add",
        help="add a server: NAME -- COMMAND ARGS... (stdio) or NAME --url URL (HTTP)",
        epilog=MCP_EPILOG,
        usage="robota mcp add NAME [--scope user|project|local] [--env K=V]... "
        "[--allow-literal-secret] (--url URL [--header K=V]... | -- COMMAND [ARGS...])",
    )
    _add_options(add)
    add.add_argument("name")
    add.add_argument(
        "rest",
        nargs=argparse.REMAINDER,
        metavar="-- COMMAND ARGS...",
        help="the stdio server's command line (options may also come before the --)",
    )
    _where(add, cwd=False)  # --cwd is among the add options

    remove = actions.add_parser("remove", help="remove a server", epilog=MCP_EPILOG)
    remove.add_argument("name")
    remove.add_argument(
        "--scope", choices=_SCOPES, help="which file (default: the one defining it)"
    )
    _where(remove)

    for verb, text in (("approve", "allow"), ("deny", "refuse")):
        decide = actions.add_parser(
            verb, help=f"{text} a project's server in this workspace", epilog=MCP_EPILOG
        )
        decide.add_argument("name")
        if verb == "approve":
            decide.add_argument(
                "--yes",
                action="store_true",
                help="approve without asking (required when stdin is not a terminal); what is "
                "approved is shown first either way",
            )
        _where(decide)

    add_login_parsers(actions, MCP_EPILOG)


def _add_options(parser: argparse.ArgumentParser, *, defaults: bool = True) -> None:
    parser.add_argument("--url", help="the server's MCP endpoint (streamable HTTP)")
    parser.add_argument(
        "--header",
        action="append",
        default=[] if defaults else None,
        metavar="K=V",
        help="an HTTP header (repeatable); write secrets as ${VAR}",
    )
    parser.add_argument(
        "--env",
        action="append",
        default=[] if defaults else None,
        metavar="K=V",
        help="a variable of the server's environment (repeatable); write secrets as ${VAR}",
    )
    parser.add_argument(
        "--scope",
        choices=_SCOPES,
        default="user" if defaults else None,
        help="which file (default: user)",
    )
    parser.add_argument(
        "--allow-literal-secret",
        action="store_true",
        default=False if defaults else None,
        help="with --scope project: store a credential-looking --header/--env value that has "
        "no ${VAR} reference as written (refused otherwise: the file is meant to be shared)",
    )
    parser.add_argument("--cwd", help="workspace (default: the current directory)")


def _split_add(args: argparse.Namespace) -> list[str]:
    """Read the options given after NAME (argparse leaves them in ``rest``, with the command
    after ``--``) into ``args``; return the command line."""
    rest = list(args.rest)
    if "--" in rest:
        head, command = rest[: rest.index("--")], rest[rest.index("--") + 1 :]
    elif rest and not rest[0].startswith("-"):
        head, command = [], rest  # argparse dropped the -- (options came before NAME)
    else:
        head, command = rest, []
    if head:
        late = argparse.ArgumentParser(prog="robota mcp add", add_help=False, exit_on_error=False)
        _add_options(late, defaults=False)
        try:
            parsed, unknown = late.parse_known_args(head)
        except argparse.ArgumentError as exc:
            raise _Usage(str(exc)) from None
        if unknown:
            raise _Usage(
                f"unexpected {' '.join(unknown)!r}; put the server's command after --: "
                "robota mcp add NAME -- COMMAND ARGS..."
            )
        for key in ("url", "scope", "cwd", "allow_literal_secret"):
            if getattr(parsed, key) is not None:
                setattr(args, key, getattr(parsed, key))
        args.header = [*args.header, *(parsed.header or [])]
        args.env = [*args.env, *(parsed.env or [])]
    return command


def _where(parser: argparse.ArgumentParser, *, cwd: bool = True, trust: bool = False) -> None:
    if cwd:
        parser.add_argument("--cwd", help="workspace (default: the current directory)")
    if trust:
        parser.add_argument(
            "--trust",
            action="store_true",
            help="read the project's servers even if the workspace is not trusted yet",
        )


class _Usage(Exception):
    """Bad usage (exit 2)."""


async def run_mcp(args: argparse.Namespace) -> ExitCode:
    """Run ``robota mcp ACTION``; returns the exit status (see :data:`MCP_EPILOG`).

    Raises:
        ConfigurationError: for what the user must fix (the caller prints it, exit 3).
    """
    paths = CliPaths.from_env()
    try:
        command = _split_add(args) if args.action == "add" else []
    except _Usage as exc:
        _say(str(exc))
        return ExitCode.USAGE
    workspace, root = _place(args, paths)
    try:
        if args.action == "list":
            return await _list(args, paths, workspace, root)
        if args.action == "add":
            return _add(args, paths, root, command)
        if args.action == "remove":
            return _remove(args, paths, root)
        if args.action == "login":
            return await run_login(args, paths, root)
        if args.action == "logout":
            return await run_logout(args, paths, root)
        return _decide(args, paths, root)
    except _Usage as exc:
        _say(str(exc))
        return ExitCode.USAGE


def _place(args: argparse.Namespace, paths: CliPaths) -> tuple[Path, Path]:
    """The workspace (``--cwd``) and its root, after checking the state folder.

    Raises:
        ConfigurationError: ``--cwd`` is not a directory, ``$ROBOTA_HOME`` is inside the
            workspace's repository or reachable by others.
    """
    from robota.cli.app import private_home

    workspace = Path(args.cwd or os.getcwd()).resolve()
    if not workspace.is_dir():
        raise ConfigurationError(f"--cwd {workspace} is not an existing directory")
    check_storage_root(paths.home, workspace=workspace)
    private_home(paths)
    return workspace, workspace_root(workspace)


def _say(text: str) -> None:
    sys.stderr.write(f"robota: {text}\n")
    sys.stderr.flush()


# -- list ------------------------------------------------------------------------------------


async def _list(args: argparse.Namespace, paths: CliPaths, workspace: Path, root: Path) -> ExitCode:
    trusted = args.trust or TrustStore(path=paths.trust_file).get(root) == "trusted"
    settings = load_settings(
        user=paths.user_settings,
        project=CliPaths.project_settings(root),
        local=CliPaths.project_local_settings(root),
        trusted=trusted,
        policy=load_policy(policy_path(os.environ)),
    )
    quiet_library_logs()
    hub = McpHub(
        settings,
        trusted=trusted,
        workspace=workspace,
        workspace_id=workspace_identity(root),
        approvals=McpApprovalStore(path=paths.mcp_approvals),
        credentials=FileCredentialStore(paths.credentials),
    )
    if not args.no_connect:
        try:
            await hub.open()
            await hub.connect()
        finally:
            await hub.aclose()
    for line in status_lines(hub.servers):
        print(line)
    project_files = (CliPaths.project_settings(root), CliPaths.project_local_settings(root))
    if not trusted and any(p.exists() for p in project_files):
        print(f"(the workspace {root} is not trusted: its project servers are not read)")
    return ExitCode.OK


# -- files -----------------------------------------------------------------------------------


def _file(scope: Scope, paths: CliPaths, root: Path) -> Path:
    if scope == "user":
        return paths.user_settings
    if scope == "project":
        return CliPaths.project_settings(root)
    return CliPaths.project_local_settings(root)


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsFileError(path, f"cannot read: {exc}") from exc
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingsFileError(path, f"invalid JSON: {exc}") from exc
    if not isinstance(raw, dict):
        raise SettingsFileError(path, "invalid settings: not a JSON object")
    return raw  # pyright: ignore[reportUnknownVariableType]


def _servers(raw: dict[str, Any], path: Path) -> dict[str, Any]:
    servers = raw.get("mcp_servers", {})
    if not isinstance(servers, dict):
        raise SettingsFileError(path, "invalid settings: mcp_servers is not an object")
    return servers  # pyright: ignore[reportUnknownVariableType]


def _validated(raw: dict[str, Any], path: Path, scope: Scope) -> Settings:
    from pydantic import ValidationError

    try:
        layer = Settings.model_validate(raw)
    except ValidationError as exc:
        issues = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}"
            for err in exc.errors()
        )
        raise SettingsFileError(path, f"invalid settings: {issues}") from exc
    if scope != "user":
        check_project_layer(layer, path=path)
    return layer


def _write(path: Path, raw: dict[str, Any], scope: Scope) -> None:
    data = (json.dumps(raw, indent=2) + "\n").encode()
    if scope == "user":
        ensure_private_dir(path.parent)
        write_private_file(path, data)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = 0o644
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def _pairs(items: list[str], option: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise _Usage(f"{option} takes KEY=VALUE, got {item!r}")
        pairs[key] = value
    return pairs


# -- add / remove / approve ------------------------------------------------------------------


def _entry(args: argparse.Namespace, command: list[str]) -> dict[str, Any]:
    if args.url and command:
        raise _Usage("give either --url URL or -- COMMAND ARGS..., not both")
    if not args.url and not command:
        raise _Usage("give the server: --url URL, or -- COMMAND ARGS...")
    env = _pairs(args.env, "--env")
    headers = _pairs(args.header, "--header")
    if args.url:
        if env:
            raise _Usage("--env is for a stdio server (-- COMMAND ARGS...)")
        entry: dict[str, Any] = {"type": "http", "url": args.url}
        if headers:
            entry["headers"] = headers
        return entry
    if headers:
        raise _Usage("--header is for an HTTP server (--url URL)")
    entry = {"type": "stdio", "command": command[0]}
    if command[1:]:
        entry["args"] = command[1:]
    if env:
        entry["env"] = env
    return entry


_CREDENTIAL_NAME = re.compile(r"auth|key|token|secret|passw|cookie|credential", re.IGNORECASE)


def _literal_secrets(entry: dict[str, Any]) -> list[str]:
    """The ``--header``/``--env`` options of ``entry`` whose name looks like a credential's
    and whose value is written out (no ``${VAR}`` reference)."""
    found: list[str] = []
    for key, option in (("headers", "--header"), ("env", "--env")):
        values: dict[str, str] = entry.get(key, {})
        for name, value in values.items():
            if _CREDENTIAL_NAME.search(name) and value and "${" not in value:
                found.append(f"{option} {name}")
    return found


def _check_secrets(args: argparse.Namespace, entry: dict[str, Any]) -> None:
    """Refuse (or, with ``--allow-literal-secret``, warn about) a literal credential headed
    for the shared project file.

    Raises:
        _Usage: a literal credential without ``--allow-literal-secret``.
    """
    literal = _literal_secrets(entry) if args.scope == "project" else []
    if not literal:
        return
    advice = (
        f"{', '.join(literal)} holds a literal value that looks like a credential, and the "
        "project's settings file is meant to be shared: write it as a reference, e.g. "
        "--header 'Authorization=Bearer ${MY_TOKEN}', and set MY_TOKEN in your environment"
    )
    if not args.allow_literal_secret:
        raise _Usage(f"{advice} (or pass --allow-literal-secret to store it as written)")
    _say(f"warning: {advice}; storing it as written (--allow-literal-secret)")


def _add(args: argparse.Namespace, paths: CliPaths, root: Path, command: list[str]) -> ExitCode:
    try:
        check_server_name(args.name)
    except ValueError as exc:
        raise _Usage(str(exc)) from None
    entry = _entry(args, command)
    _check_secrets(args, entry)
    path = _file(args.scope, paths, root)
    raw = _read(path)
    servers = _servers(raw, path)
    if args.name in servers:
        raise ConfigurationError(
            f"{path} already defines MCP server {args.name!r}; remove it first "
            f"(robota mcp remove {args.name} --scope {args.scope})"
        )
    raw = {**raw, "mcp_servers": {**servers, args.name: entry}}
    layer = _validated(raw, path, args.scope)
    _write(path, raw, args.scope)
    note = ""
    if args.scope != "user":
        store = McpApprovalStore(path=paths.mcp_approvals)
        digest = server_digest(layer.mcp_servers[args.name])
        store.set(workspace_identity(root), args.name, digest, "approved")
        note = " and approved it for this workspace"
    print(f"added {entry['type']} MCP server {args.name!r} to {path}{note}")
    return ExitCode.OK


def _remove(args: argparse.Namespace, paths: CliPaths, root: Path) -> ExitCode:
    scopes = [args.scope] if args.scope else list(_SCOPES)
    found = [
        s
        for s in scopes
        if args.name in _servers(_read(_file(s, paths, root)), _file(s, paths, root))
    ]
    if not found:
        where = _file(args.scope, paths, root) if args.scope else "any settings file"
        raise ConfigurationError(f"no MCP server {args.name!r} in {where}")
    if len(found) > 1:
        raise _Usage(
            f"MCP server {args.name!r} is defined in {' and '.join(found)} settings; "
            "pass --scope to say which"
        )
    scope = found[0]
    path = _file(scope, paths, root)
    raw = _read(path)
    servers = {k: v for k, v in _servers(raw, path).items() if k != args.name}
    raw = (
        {**raw, "mcp_servers": servers}
        if servers
        else {k: v for k, v in raw.items() if k != "mcp_servers"}
    )
    _validated(raw, path, scope)
    _write(path, raw, scope)
    print(f"removed MCP server {args.name!r} from {path}")
    return ExitCode.OK


def _decide(args: argparse.Namespace, paths: CliPaths, root: Path) -> ExitCode:
    for scope in ("local", "project"):  # the local file wins, as in the merge
        path = _file(scope, paths, root)
        raw = _read(path)
        if args.name in _servers(raw, path):
            server = _validated(raw, path, scope).mcp_servers[args.name]
            store = McpApprovalStore(path=paths.mcp_approvals)
            identity, digest = workspace_identity(root), server_digest(server)
            store.get(identity, args.name, digest)  # an unusable file fails before asking
            if args.action == "approve":
                stop = _confirm(args, path, approval_request(args.name, server))
                if stop is not None:
                    return stop
            decision = "approved" if args.action == "approve" else "denied"
            store.set(identity, args.name, digest, decision)
            print(f"{decision} MCP server {args.name!r} of {path} for {root}")
            return ExitCode.OK
    raise ConfigurationError(
        f"no project MCP server {args.name!r} in {root}/.robota/settings(.local).json "
        "(user servers need no approval)"
    )


def _confirm(args: argparse.Namespace, path: Path, request: McpApprovalRequest) -> ExitCode | None:
    """Show what ``approve`` would allow (on stderr); None to go on (``--yes``, or ``y`` at the
    terminal), else the exit status: 2 without a terminal and ``--yes``, 0 for a "no"."""
    sys.stderr.write("".join(f"{line}\n" for line in describe_request(request)))
    sys.stderr.write(f"  (defined in {path})\n")
    if args.yes:
        return None
    if not sys.stdin.isatty():
        _say("stdin is not a terminal: pass --yes to approve what is shown above")
        return ExitCode.USAGE
    sys.stderr.write(
        "  Allow it for this workspace? (asked again if its definition changes) [y/N] "
    )
    sys.stderr.flush()
    if sys.stdin.readline().strip().lower() in ("y", "yes"):
        return None
    _say(f"not approved: {args.name}")
    return ExitCode.OK
