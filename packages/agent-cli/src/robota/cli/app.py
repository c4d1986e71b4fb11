"""Assembling a session from command-line options: settings layers, workspace trust, provider,
store, approver."""

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
from robota.core.permissions import PermissionMode
from robota.core.provider import Provider
from robota.framework.interactive import InteractiveSession, SessionConfig
from robota.framework.settings import (
    ProviderProfile,
    ResolvedProvider,
    Settings,
    load_settings,
    merge_layers,
    resolve_provider,
)
from robota.framework.trust import TrustStore
from robota.session import EventLog, SQLiteSessionStore

__all__ = ["CliContext", "build_context", "open_session"]

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
    try:
        ensure_private_dir(paths.home)
    except InsecurePermissionsError as exc:
        raise ConfigurationError(
            f"{paths.home} is readable by other users; run `chmod 700 {paths.home}` "
            f"(or set ROBOTA_HOME to a private folder): {exc}"
        ) from exc
    workspace = Path(args.cwd or os.getcwd()).resolve()
    if not workspace.is_dir():
        raise ConfigurationError(f"--cwd {workspace} is not an existing directory")
    if args.api_key_env and not source.get(args.api_key_env):
        raise ConfigurationError(f"--api-key-env names {args.api_key_env}, which is not set")
    interactive = sys.stdin.isatty() and sys.stderr.isatty() and not args.json
    trust_store = TrustStore(path=paths.trust_file)
    if args.trust:
        trusted = True
    elif interactive:
        trusted = _ask_trust(workspace, trust_store)
    else:
        trusted = trust_store.get(workspace) == "trusted"
    settings = load_settings(
        user=paths.user_settings, project=CliPaths.project_settings(workspace), trusted=trusted
    )
    profile = args.provider
    if args.base_url:
        cli_profile = ProviderProfile(
            type="openai-compatible",
            base_url=args.base_url,
            model=args.model or "local",
            compat_profile=args.compat_profile or "llamacpp",
            api_key_env=args.api_key_env,
        )
        settings = merge_layers([settings, Settings(providers={"cli": cli_profile})])
        profile = "cli"
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
        trusted=trusted,
        instruction_roots=(workspace,),
        user_instruction_roots=(paths.home,),
        settings=settings,
        permission_mode=mode,
        approver=approver,
        store=store,
        event_log=EventLog(paths.logs),
        background_dir=paths.background,
        max_rounds=args.max_rounds,
        title=not args.no_title,
        title_provider=title_provider,
        agent_roots=(paths.home / "agents",),
        project_agent_roots=(workspace / ".robota" / "agents",),
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
    """Start, resume or fork a session as the options say."""
    if args.resume:
        return await InteractiveSession.resume(ctx.config, args.resume)
    if args.fork:
        return await InteractiveSession.fork_of(ctx.config, args.fork)
    return await InteractiveSession.start(ctx.config)
