"""Assembling a session from command-line options: settings layers, workspace trust, provider,
store, approver, and the shell sandbox (probed by the session; ``$ROBOTA_HOME`` is hidden inside
it, and when none works the user is told once on stderr)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from robota.cli.approve import TerminalApprover
from robota.cli.hosted import WEB_SEARCH, require_hosted_tools
from robota.cli.line_input import LineReader, LineSource
from robota.cli.local_server import local_model_settings, warn_if_tools_dropped
from robota.cli.mcp_view import TerminalMcpApprover, report_mcp
from robota.cli.paths import CliPaths
from robota.cli.prompt_input import PromptLineReader
from robota.cli.providers import build_provider
from robota.cli.tui.select import wants_color
from robota.cli.turn import say
from robota.core.errors import ConfigurationError
from robota.core.host.credentials import FileCredentialStore
from robota.core.host.errors import InsecurePermissionsError
from robota.core.host.owner_only import ensure_private_dir
from robota.core.host.sandbox import SandboxGuarantees
from robota.core.permissions import PermissionMode
from robota.core.provider import Provider
from robota.framework.interactive import InteractiveSession, SessionConfig
from robota.framework.mcp import McpApprovalStore
from robota.framework.policy import OrganizationPolicy, load_policy, policy_path
from robota.framework.settings import (
    ProviderProfile,
    ResolvedProvider,
    Settings,
    load_settings,
    resolve_provider,
)
from robota.framework.storage_root import check_storage_root
from robota.framework.trust import TrustedWorkspace, TrustStore, workspace_root
from robota.session import EventLog, SQLiteSessionStore

__all__ = [
    "CliContext",
    "build_context",
    "discard_session",
    "open_session",
    "private_home",
    "sandbox_notice",
]

SYSTEM_PROMPT = (
    "You are Robota, a careful software agent working in the user's workspace. Use the tools to "
    "inspect before you change anything, keep changes minimal, and finish with a short summary "
    "of what you did."
)


@dataclass(kw_only=True, slots=True)
class CliContext:
    """Everything one command invocation needs."""

    paths: CliPaths
    workspace: Path
    trusted: bool
    settings: Settings
    resolved: ResolvedProvider
    provider: Provider
    interactive: bool
    config: SessionConfig
    store: SQLiteSessionStore
    lines: LineSource | None = None
    """Standard input as lines, shared by the chat prompt and the permission questions."""
    timeout: float | None = None
    """``--timeout``: seconds a model call may stay silent (first byte, then between events)."""

    @property
    def model_url(self) -> str | None:
        """Where the model is called (the provider's base URL), for messages."""
        return self.provider.endpoint.base_url


def _read_answer(question: str) -> str:
    """Write ``question`` to stderr, then ``input()`` that Ctrl-C interrupts
    (``KeyboardInterrupt``: the command exits 130): inside the event loop SIGINT only cancels
    the main task, which a blocking read never notices. The question is written only once the
    handler is in place, so a Ctrl-C typed as soon as it shows cannot reach the loop's handler
    and leave the read blocked."""
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or previous is None:
        sys.stderr.write(question)
        sys.stderr.flush()
        return input()
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        sys.stderr.write(question)
        sys.stderr.flush()
        return input()
    finally:
        signal.signal(signal.SIGINT, previous)


def _ask_trust(workspace: Path, store: TrustStore) -> bool:
    """Ask about (and remember) ``workspace``, the worktree root of the working directory."""
    remembered = store.get(workspace)
    if remembered is not None:
        return remembered == "trusted"
    question = (
        f"Do you trust the files in {workspace}? Trusting reads its .robota/settings.json, "
        "hooks and AGENTS.md/CLAUDE.md. [y/N] "
    )
    try:
        answer = _read_answer(question).strip().lower()
    except EOFError:
        answer = ""
    decision = "trusted" if answer in ("y", "yes") else "restricted"
    store.set(workspace, decision)
    return decision == "trusted"


def private_home(paths: CliPaths) -> None:
    """Create ``$ROBOTA_HOME`` owner-only, or refuse one others can reach.

    Raises:
        ConfigurationError: the folder is readable by others or owned by another account; the
            message is one line naming the exact command to run (``chmod 700 PATH``).
    """
    try:
        ensure_private_dir(paths.home)
    except InsecurePermissionsError as exc:
        fix = exc.fix or f"chmod 700 {paths.home}"
        found = (
            f"has mode {oct(exc.mode)}" if fix.startswith("chmod") else f"is owned by uid {exc.uid}"
        )
        raise ConfigurationError(
            f"{paths.home} (ROBOTA_HOME) {found}, so other users can reach it; run `{fix}` "
            "(or set ROBOTA_HOME to a private folder)"
        ) from exc


def _layers(
    paths: CliPaths,
    root: Path,
    *,
    trusted: bool,
    host: Settings | None,
    policy: OrganizationPolicy | None,
) -> Settings:
    return load_settings(
        user=paths.user_settings,
        project=CliPaths.project_settings(root),
        local=CliPaths.project_local_settings(root),
        trusted=trusted,
        host=host,
        policy=policy,
    )


def build_context(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> CliContext:
    """Resolve settings, trust and provider from the options and environment.

    On a terminal the workspace trust question comes after the credentials check: when no
    provider resolves from the layers that need no trust (user settings, options, environment)
    and the workspace has no ``.robota/settings*.json`` that could name one, the command stops
    without asking.

    Raises:
        ConfigurationError: (and subclasses) for anything the user has to fix;
            ``UnsupportedCapabilityError`` when ``--web-search`` asks for a hosted web search
            the provider's model does not run (before any request).
    """
    source = dict(os.environ if env is None else env)
    paths = CliPaths.from_env(source)
    workspace = Path(args.cwd or os.getcwd()).resolve()
    if not workspace.is_dir():
        raise ConfigurationError(f"--cwd {workspace} is not an existing directory")
    check_storage_root(paths.home, workspace=workspace)  # before anything is written there
    policy = load_policy(policy_path(source))
    private_home(paths)
    if args.api_key_env and not source.get(args.api_key_env):
        raise ConfigurationError(f"--api-key-env names {args.api_key_env}, which is not set")
    interactive = sys.stdin.isatty() and sys.stderr.isatty() and not args.json
    trust_store = TrustStore(path=paths.trust_file)
    root = workspace_root(workspace)  # nested folders of one worktree share its trust
    profile = args.provider
    host_layer: Settings | None = None
    if args.base_url:
        cli_profile = ProviderProfile(
            type="openai-compatible",
            base_url=args.base_url,
            model=args.model or "local",
            compat_profile=args.compat_profile or "llamacpp",
            api_key_env=args.api_key_env,
        )
        host_layer = Settings(providers={"cli": cli_profile})
        profile = "cli"
    if args.trust:
        trusted = True
    elif interactive:
        project_files = (CliPaths.project_settings(root), CliPaths.project_local_settings(root))
        if trust_store.get(root) is None and not any(p.exists() for p in project_files):
            # no question before the credentials are known to be there
            untrusted = _layers(paths, root, trusted=False, host=host_layer, policy=policy)
            build_provider(resolve_provider(untrusted, source, profile=profile, model=args.model))
        trusted = _ask_trust(root, trust_store)
    else:
        trusted = trust_store.get(root) == "trusted"
    access = TrustedWorkspace.accept(root=root, cwd=workspace) if trusted else None
    settings = _layers(paths, root, trusted=trusted, host=host_layer, policy=policy)
    resolved = resolve_provider(settings, source, profile=profile, model=args.model)
    provider = build_provider(resolved)
    hosted = require_hosted_tools(
        resolved.type,
        provider,
        resolved.model,
        WEB_SEARCH if getattr(args, "web_search", False) else (),
        asked_by="--web-search",
    )
    warn_if_tools_dropped(
        resolved, say
    )  # llama.cpp: one bounded GET /props (after the checks that stop)
    title_provider = build_provider(resolved, retries=False)
    store = SQLiteSessionStore(paths.sessions_db)
    mode = PermissionMode(args.permission_mode) if args.permission_mode else None
    # a terminal gets the line editor (history, multi-line, completion); pipes read plainly
    lines: LineSource = (
        PromptLineReader(
            history=paths.history,
            root=workspace,
            private=(paths.home,),
            color=wants_color(no_color=bool(getattr(args, "no_color", False))),
        )
        if interactive
        else LineReader()
    )
    approver = TerminalApprover(lines=lines, workspace=workspace) if interactive else None
    timeout: float | None = getattr(args, "timeout", None)
    config = SessionConfig(
        provider=provider,
        model=resolved.model,
        workspace=workspace,
        system_prompt=SYSTEM_PROMPT,
        trusted=access or False,
        instruction_roots=(workspace,),
        user_instruction_roots=(paths.home,),
        settings=settings,
        permission_mode=mode,
        approver=approver,
        store=store,
        event_log=EventLog(paths.logs),
        background_dir=paths.background,
        max_rounds=args.max_rounds,
        accept_truncated=args.accept_truncated,
        model_settings=local_model_settings(resolved, timeout=timeout),
        title=not args.no_title,
        title_provider=title_provider,
        agent_roots=(paths.home / "agents",),
        project_agent_roots=(root / ".robota" / "agents",),
        sandbox_hidden_paths=(paths.home,),
        hosted_tools=hosted,
        mcp_approvals=McpApprovalStore(path=paths.mcp_approvals),
        mcp_credentials=FileCredentialStore(paths.credentials),
        mcp_approver=TerminalMcpApprover(lines=lines) if interactive else None,
        mcp_env=source,
    )
    return CliContext(
        paths=paths,
        workspace=workspace,
        trusted=trusted,
        settings=settings,
        resolved=resolved,
        provider=provider,
        interactive=interactive,
        config=config,
        store=store,
        lines=lines,
        timeout=timeout,
    )


async def open_session(ctx: CliContext, args: argparse.Namespace) -> InteractiveSession:
    """Start, resume or fork a session as the options say; say on stderr when shell commands
    have no sandbox."""
    if args.resume:
        session = await InteractiveSession.resume(ctx.config, args.resume)
    elif args.fork:
        session = await InteractiveSession.fork_of(ctx.config, args.fork)
    else:
        session = await InteractiveSession.start(ctx.config)
    _warn_if_unsandboxed(session)
    report_mcp(session)  # servers that will not start, and failures while connecting
    return session


async def discard_session(ctx: CliContext, session_id: str) -> None:
    """Remove a session the model never answered (its stored record and its event log), so
    runs that failed before any answer (a refused connection, a timeout, a wrong key) do not
    pile up as untitled sessions. Call it after the session has shut down (lease released)."""
    await ctx.store.delete(session_id)
    if ctx.config.event_log is not None:
        ctx.config.event_log.path(session_id).unlink(missing_ok=True)


def sandbox_notice(guarantees: SandboxGuarantees) -> str | None:
    """The stderr line for a session whose shell sandbox cannot confine read-only commands
    (then they ask instead of running automatically), or None when it can."""
    if guarantees.confines_inspect:
        return None
    reason = guarantees.detail or "no reason given"
    if guarantees.enforced:
        return (
            f"robota: the {guarantees.backend} sandbox could not be verified to block both "
            f"writes and the network ({reason}); shell commands will ask for permission, "
            "read-only ones included."
        )
    return (
        "robota: shell commands will ask for permission, read-only ones included, because no "
        f"sandbox is available: {reason}"
    )


def _warn_if_unsandboxed(session: InteractiveSession) -> None:
    notice = sandbox_notice(session.sandbox.guarantees)
    if notice is not None:
        sys.stderr.write(notice + "\n")
        sys.stderr.flush()
