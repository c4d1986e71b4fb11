"""Assembling a session from command-line options: settings layers, workspace trust, provider,
store, approver, and the shell sandbox (probed by the session; ``$ROBOTA_HOME`` is hidden inside
it, and when none works the user is told once on stderr)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from robota.cli.approve import TerminalApprover
from robota.cli.paths import CliPaths
from robota.cli.providers import build_provider
from robota.core.errors import ConfigurationError
from robota.core.host.errors import InsecurePermissionsError
from robota.core.host.owner_only import ensure_private_dir
from robota.core.host.sandbox import SandboxGuarantees
from robota.core.permissions import PermissionMode
from robota.core.provider import Provider
from robota.framework.interactive import InteractiveSession, SessionConfig
from robota.framework.policy import load_policy, policy_path
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

__all__ = ["CliContext", "build_context", "open_session", "sandbox_notice"]

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


def _ask_trust(workspace: Path, store: TrustStore) -> bool:
    """Ask about (and remember) ``workspace``, the worktree root of the working directory."""
    remembered = store.get(workspace)
    if remembered is not None:
        return remembered == "trusted"
    sys.stderr.write(
        f"Do you trust the files in {workspace}? Trusting reads its .robota/settings.json, "
        "hooks and AGENTS.md/CLAUDE.md. [y/N] "
    )
    sys.stderr.flush()
    try:
        answer = input().strip().lower()
    except EOFError:
        answer = ""
    decision = "trusted" if answer in ("y", "yes") else "restricted"
    store.set(workspace, decision)
    return decision == "trusted"


def build_context(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> CliContext:
    """Resolve settings, trust and provider from the options and environment.

    Raises:
        ConfigurationError: (and subclasses) for anything the user has to fix.
    """
    source = dict(os.environ if env is None else env)
    paths = CliPaths.from_env(source)
    workspace = Path(args.cwd or os.getcwd()).resolve()
    if not workspace.is_dir():
        raise ConfigurationError(f"--cwd {workspace} is not an existing directory")
    check_storage_root(paths.home, workspace=workspace)  # before anything is written there
    policy = load_policy(policy_path(source))
    try:
        ensure_private_dir(paths.home)
    except InsecurePermissionsError as exc:
        raise ConfigurationError(
            f"{paths.home} is readable by other users; run `chmod 700 {paths.home}` "
            f"(or set ROBOTA_HOME to a private folder): {exc}"
        ) from exc
    if args.api_key_env and not source.get(args.api_key_env):
        raise ConfigurationError(f"--api-key-env names {args.api_key_env}, which is not set")
    interactive = sys.stdin.isatty() and sys.stderr.isatty() and not args.json
    trust_store = TrustStore(path=paths.trust_file)
    root = workspace_root(workspace)  # nested folders of one worktree share its trust
    if args.trust:
        trusted = True
    elif interactive:
        trusted = _ask_trust(root, trust_store)
    else:
        trusted = trust_store.get(root) == "trusted"
    access = TrustedWorkspace.accept(root=root, cwd=workspace) if trusted else None
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
    settings = load_settings(
        user=paths.user_settings,
        project=CliPaths.project_settings(root),
        local=CliPaths.project_local_settings(root),
        trusted=trusted,
        host=host_layer,
        policy=policy,
    )
    resolved = resolve_provider(settings, source, profile=profile, model=args.model)
    provider = build_provider(resolved)
    title_provider = build_provider(resolved, retries=False)
    store = SQLiteSessionStore(paths.sessions_db)
    mode = PermissionMode(args.permission_mode) if args.permission_mode else None
    approver = TerminalApprover() if interactive else None
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
        title=not args.no_title,
        title_provider=title_provider,
        agent_roots=(paths.home / "agents",),
        project_agent_roots=(root / ".robota" / "agents",),
        sandbox_hidden_paths=(paths.home,),
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
    return session


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
