"""The slash commands of ``robota chat`` and their table (:data:`COMMAND_TABLE`), which drives
the dispatch, ``/help`` and the suggestion for a mistyped command (:mod:`robota.cli.slash`).

Each command reaches what the session already has: the context breakdown, its tools and
hosted tools, usage, the model, the permission mode, compaction, fork, rewind and resume.
Output goes to standard error; standard output keeps only the model's answers.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from robota.cli.context_view import hosted_line, print_context, print_tools
from robota.cli.hosted import WEB_SEARCH, offered_hosted_tools, require_hosted_tools
from robota.cli.mcp_prompts import PROMPT_PREFIX, mcp_panel, prompt_command
from robota.cli.resume_picker import resume_command
from robota.cli.slash import Chat, CommandTable, SlashCommand, show
from robota.cli.terminal_wrap import terminal_columns
from robota.cli.turn import say
from robota.core.capabilities import HostedTool
from robota.core.errors import ConfigurationError, RobotaError

__all__ = ["COMMAND_TABLE", "PERMISSION_MODES"]

PERMISSION_MODES = ("default", "accept_edits", "plan", "bypass")


def _rich(chat: Chat) -> bool:
    return chat.ctx.interactive and sys.stderr.isatty()


async def _help(chat: Chat, args: Sequence[str]) -> None:
    show(["slash commands:", *COMMAND_TABLE.help_lines(terminal_columns(sys.stderr))])


async def _context(chat: Chat, args: Sequence[str]) -> None:
    session = chat.session
    print_context(session.context_breakdown(), model=session.config.model, rich=_rich(chat))


async def _tools(chat: Chat, args: Sequence[str]) -> None:
    session = chat.session
    offered = offered_hosted_tools(
        chat.ctx.resolved.type, session.config.provider, session.config.model
    )
    line = hosted_line(session.hosted_tools, offered)
    print_tools(session.tools, hosted=line, rich=_rich(chat))


async def _cost(chat: Chat, args: Sequence[str]) -> None:
    from robota.cli.providers import estimate_cost
    from robota.cli.render import format_usage

    cost = estimate_cost(chat.ctx.resolved.type, chat.printer.usage_by_model)
    say(f"{format_usage(chat.printer.usage, cost)} session={chat.session.id}")


async def _compact(chat: Chat, args: Sequence[str]) -> None:
    try:
        record = await chat.session.compact()
        say(f"compacted {len(record.removed)} messages")
    except RobotaError as exc:
        say(str(exc))


async def _fork(chat: Chat, args: Sequence[str]) -> None:
    child = await chat.session.fork()
    say(f"forked into {child.id} (/resume {child.id}, or robota chat --resume {child.id})")
    await child.shutdown()


async def _rewind(chat: Chat, args: Sequence[str]) -> None:
    try:
        report = chat.session.rewind()
        say(
            f"restored {len(report.restored)} file(s), deleted "
            f"{len(report.deleted)} created file(s)"
        )
    except (RuntimeError, RobotaError) as exc:
        say(str(exc))


async def _model(chat: Chat, args: Sequence[str]) -> None:
    """``/model``: show the model; ``/model NAME``: use NAME from the next turn on."""
    session, profile = chat.session, chat.ctx.resolved.profile
    if args:
        try:
            session.set_model(args[0])
        except (ConfigurationError, RuntimeError) as exc:
            say(str(exc))
            return
        say(f"model: {session.config.model} ({profile}), from the next turn on")
        try:  # web search on: say now when the new model does not run it
            require_hosted_tools(
                chat.ctx.resolved.type,
                session.config.provider,
                session.config.model,
                session.hosted_tools,
                asked_by="web search is on",
            )
        except ConfigurationError as exc:
            say(f"{exc} (/web-search off, or another model)")
        return
    say(f"model: {session.config.model} ({profile})")


async def _permissions(chat: Chat, args: Sequence[str]) -> None:
    session = chat.session
    if args and args[0] in PERMISSION_MODES:
        from robota.core.permissions import PermissionMode

        session.set_permission_mode(PermissionMode(args[0]))
    elif args:
        say(f"unknown mode {args[0]!r}; one of: {', '.join(PERMISSION_MODES)}")
    say(f"permission mode: {session.permission_gate.context.mode.value}")


async def _web_search(chat: Chat, args: Sequence[str]) -> None:
    """``/web-search [on|off]``: show, or switch the provider's hosted web search."""
    session = chat.session
    if args and args[0].lower() not in ("on", "off"):
        say("usage: /web-search [on|off]")
        return
    if args:
        on = args[0].lower() == "on"
        others = session.hosted_tools - WEB_SEARCH
        wanted: frozenset[HostedTool] = (others | WEB_SEARCH) if on else others
        try:
            require_hosted_tools(
                chat.ctx.resolved.type,
                session.config.provider,
                session.config.model,
                wanted - session.hosted_tools,  # only what is added needs the model's offer
                asked_by="/web-search",
            )
            session.set_hosted_tools(wanted)
        except (ConfigurationError, RuntimeError) as exc:
            say(str(exc))
            return
    state = "on" if HostedTool.WEB_SEARCH in session.hosted_tools else "off"
    say(f"web search: {state} (the provider's hosted web search, from the next turn on)")


COMMAND_TABLE = CommandTable(
    [
        SlashCommand(name="/help", help="list the slash commands", run=_help),
        SlashCommand(
            name="/context",
            help="how the context window is used: system prompt, tools, conversation, free",
            run=_context,
        ),
        SlashCommand(
            name="/tools",
            help="the session's tools (built-in, MCP) and the hosted tools on or off",
            run=_tools,
        ),
        SlashCommand(name="/cost", help="tokens used so far and the estimated cost", run=_cost),
        SlashCommand(
            name="/model",
            args="[NAME]",
            max_args=1,
            help="show the model; with NAME, use that model from the next turn on",
            run=_model,
        ),
        SlashCommand(
            name="/permissions",
            args="[MODE]",
            max_args=1,
            help="show the permission mode, or switch to " + ", ".join(PERMISSION_MODES),
            run=_permissions,
        ),
        SlashCommand(
            name="/web-search",
            args="[on|off]",
            max_args=1,
            help="show, or switch the provider's hosted web search for the next turns",
            run=_web_search,
        ),
        SlashCommand(
            name="/mcp",
            args="[resources|prompts]",
            max_args=1,
            help="the MCP servers (as robota mcp list, with resource and prompt counts); "
            "their resources (attach with @SERVER:URI) or prompts (/mcp__SERVER__PROMPT)",
            run=mcp_panel,
        ),
        SlashCommand(name="/compact", help="summarize older turns now", run=_compact),
        SlashCommand(
            name="/fork", help="copy this session into a new one and print its id", run=_fork
        ),
        SlashCommand(
            name="/rewind", help="restore the files tools changed in the last turn", run=_rewind
        ),
        SlashCommand(
            name="/resume",
            args="[ID]",
            max_args=1,
            help="pick a recent session (or give its id or a prefix) and continue it here",
            run=resume_command,
        ),
        SlashCommand(name="/exit", aliases=("/quit",), help="leave the chat"),
    ],
    dynamic=[(PROMPT_PREFIX, prompt_command)],
)
"""Every slash command, in ``/help`` order; ``/mcp__<server>__<prompt>`` runs an MCP prompt
(:mod:`robota.cli.mcp_prompts`)."""
