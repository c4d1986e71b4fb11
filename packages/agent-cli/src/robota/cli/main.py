"""The ``robota`` command: ``robota run "task"``, ``robota chat``, ``robota sessions list|show``,
``robota mcp list|add|remove|approve|deny`` (:mod:`robota.cli.mcp_commands`),
``robota eval run|compare`` (the ``evals`` extra; :mod:`robota.cli.evals`).

Exit codes are :class:`~robota.cli.exit_codes.ExitCode`. With no credentials set, the command
says which variables or options to set (exit 3) instead of showing a traceback.
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Sequence

import anyio
from robota.cli.app import CliContext, build_context, discard_session, open_session
from robota.cli.attachments import prompt_for
from robota.cli.chat import COMMANDS, PERMISSION_MODES, chat_loop
from robota.cli.evals.commands import add_eval_parser, run_eval
from robota.cli.exit_codes import ExitCode
from robota.cli.mcp_commands import add_mcp_parser, run_mcp
from robota.cli.providers import estimate_cost
from robota.cli.render import EventPrinter, format_usage
from robota.cli.terminal_text import shown
from robota.cli.terminal_wrap import write_wrapped
from robota.cli.tui.select import choose_printer, show_status
from robota.cli.turn import exit_for, run_turn, say, was_answered
from robota.cli.waiting import WaitingLine
from robota.core.errors import ConfigurationError, RobotaError
from robota.core.messages import AssistantMessage, TextPart, ToolResultMessage, UserMessage
from robota.framework.interactive import InteractiveSession
from robota.session import SessionNotFoundError

__all__ = ["build_parser", "main"]

DEFAULT_TIMEOUT = 300.0
"""Seconds a model call may stay silent, by default: before its first byte, then between
streamed events (keep-alive comments do not count). As long as Codex CLI's stream idle timeout;
a CPU-only local server reading a long prompt can need minutes before its first token."""


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--provider", help="provider profile: anthropic, openai, google, or one from settings"
    )
    parser.add_argument("--model", help="model id (default: the profile's)")
    parser.add_argument(
        "--base-url", help="an OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1"
    )
    parser.add_argument(
        "--compat-profile", help="server profile for --base-url (llamacpp, ollama, vllm, ...)"
    )
    parser.add_argument("--api-key-env", help="environment variable holding the key for --base-url")
    parser.add_argument(
        "--permission-mode", choices=PERMISSION_MODES, help="default, accept_edits, plan or bypass"
    )
    parser.add_argument("--cwd", help="workspace root (default: the current directory)")
    parser.add_argument("--json", action="store_true", help="one JSON event per line on stdout")
    parser.add_argument(
        "--no-color", action="store_true", help="plain text on a terminal too (as does NO_COLOR)"
    )
    origin = parser.add_mutually_exclusive_group()
    origin.add_argument("--resume", metavar="ID", help="continue a stored session")
    origin.add_argument("--fork", metavar="ID", help="start a new session from a stored one")
    parser.add_argument(
        "--trust", action="store_true", help="trust the workspace (read its settings and AGENTS.md)"
    )
    parser.add_argument(
        "--max-rounds",
        type=_non_negative,
        default=25,
        help="tool rounds per turn (0: no cap; default: %(default)s)",
    )
    parser.add_argument(
        "--accept-truncated",
        action="store_true",
        help="print and keep an answer cut at the output token limit instead of failing the "
        "turn (the exit status is still 7)",
    )
    parser.add_argument("--no-title", action="store_true", help="do not name new sessions")
    parser.add_argument(
        "--web-search",
        action="store_true",
        help="let the model use the provider's hosted web search on every turn (Anthropic, "
        "OpenAI Responses, Gemini models that offer it; exit 3 before any request otherwise)",
    )
    parser.add_argument(
        "--timeout",
        type=_positive_seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help="give up on a model call silent this long, before its first byte or between "
        "streamed events (each of up to 4 attempts; exit 4; default: %(default)g)",
    )


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be > 0 seconds, got {text}")
    return value


EXIT_CODES = (
    "exit codes: 0 ok, 1 unexpected error, 2 usage, 3 configuration or credentials, "
    "4 provider failure (refused connection, --timeout), 5 a tool call was denied, 7 the "
    "answer was cut off at the output token limit, 130 interrupted."
)

EPILOG = (
    f"{EXIT_CODES} A task that starts with '-' goes after the options and '--': "
    "robota run --model m -- '-x is a flag'"
)

CHAT_EPILOG = (
    f"{EXIT_CODES} Ctrl-D or /exit leaves with the last turn's status, a second Ctrl-C at the "
    f"prompt with 130. Slash commands: {COMMANDS}"
)

SESSIONS_EPILOG = (
    "exit codes: 0 ok, 1 unexpected error, 2 usage, 3 unknown session id, or a $ROBOTA_HOME "
    "other users can read."
)


ROOT_EPILOG = (
    "exit codes: 0 ok, 1 unexpected error, 2 usage, 3 configuration or credentials, "
    "4 provider failure, 5 a tool call was denied, 6 an evaluation case failed or regressed "
    "(robota eval), 7 an answer cut off at the output token limit, 130 interrupted. A task "
    "that starts with '-' goes after the options and "
    "'--': robota run --model m -- '-x is a flag'"
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser."""
    parser = argparse.ArgumentParser(
        prog="robota",
        description="Robota: a provider-neutral agent.",
        epilog=ROOT_EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"robota {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run one task and exit", epilog=EPILOG)
    run.add_argument("task", help="what the agent should do")
    _common(run)
    chat = sub.add_parser("chat", help="interactive conversation", epilog=CHAT_EPILOG)
    _common(chat)
    sessions = sub.add_parser(
        "sessions", help="list or show stored sessions", epilog=SESSIONS_EPILOG
    )
    sessions_sub = sessions.add_subparsers(dest="action", required=True)
    sessions_sub.add_parser("list", help="list sessions, newest first", epilog=SESSIONS_EPILOG)
    show = sessions_sub.add_parser(
        "show", help="show one session's messages", epilog=SESSIONS_EPILOG
    )
    show.add_argument("id")
    add_eval_parser(sub)
    add_mcp_parser(sub)
    return parser


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("robota-agent-cli")
    except PackageNotFoundError:
        return "unknown"


def _error(message: str) -> None:
    say(message)


def _hint(error: ConfigurationError) -> str:
    """The CLI's own recovery hint for a framework error (the framework names only what is
    missing; seed 003, "Recovery instructions are host-owned")."""
    from robota.framework.settings import ProviderResolutionError

    if not isinstance(error, ProviderResolutionError):
        return ""
    if "model" in error.missing:
        return " (or pass --model)"
    if error.profile is None:
        return (
            " (or pass --provider NAME, or --base-url http://127.0.0.1:8080/v1 for a local "
            "llama.cpp or Ollama server)"
        )
    return ""


def _summary(ctx: CliContext, session: InteractiveSession, printer: EventPrinter) -> None:
    if printer.json_mode:
        return
    cost = estimate_cost(ctx.resolved.type, printer.usage_by_model)
    _error(f"{format_usage(printer.usage, cost)} session={session.id}")


def _outputs(ctx: CliContext, args: argparse.Namespace) -> tuple[EventPrinter, WaitingLine]:
    printer = choose_printer(  # rich on a terminal; plain for pipes, --json, --no-color
        json_mode=args.json,
        no_color=args.no_color,
        workspace=ctx.workspace,
        provider_type=ctx.resolved.type if args.command == "chat" else None,
        model=ctx.resolved.model,
    )
    waiting = WaitingLine(
        sys.stderr,
        enabled=not args.json and sys.stderr.isatty(),
        busy=lambda: printer.mid_line,
    )
    return printer, waiting


async def _run(args: argparse.Namespace) -> ExitCode:
    if not args.task.strip():
        _error("the task is empty; say what the agent should do")
        return ExitCode.USAGE
    ctx = build_context(args)
    printer, waiting = _outputs(ctx, args)
    new = not (args.resume or args.fork)
    async with ctx.store:
        async with await open_session(ctx, args) as session:
            session.subscribe(waiting)  # first: it erases its line before output is printed
            session.subscribe(printer)
            prompt = await prompt_for(session, args.task)  # @path references (said on failure)
            code = (
                ExitCode.USAGE
                if prompt is None
                else await run_turn(
                    session, prompt, printer, waiting, url=ctx.model_url, call_timeout=ctx.timeout
                )
            )
            keep = not new or was_answered(session)
            if keep:
                _summary(ctx, session, printer)
        if not keep:
            await discard_session(ctx, session.id)
        return code


async def _chat(args: argparse.Namespace) -> ExitCode:
    ctx = build_context(args)
    printer, waiting = _outputs(ctx, args)
    new = not (args.resume or args.fork)
    async with ctx.store:
        async with await open_session(ctx, args) as session:
            session.subscribe(waiting)
            session.subscribe(printer)
            printer.follow(session)  # the status line reports on it
            show_status(printer, ctx.lines)
            await session.warmup()  # MCP servers connect before the first prompt
            write_wrapped(sys.stderr, f"robota: session {session.id} — {COMMANDS}", indent=8)
            code = await chat_loop(ctx, session, printer, waiting)
            keep = not new or was_answered(session)
        if not keep:
            await discard_session(ctx, session.id)
        return code


async def _sessions(args: argparse.Namespace) -> ExitCode:
    from robota.cli.app import private_home
    from robota.cli.paths import CliPaths
    from robota.session import SQLiteSessionStore

    paths = CliPaths.from_env()
    if paths.home.exists():
        private_home(paths)  # an insecure home is refused here too
    if not paths.sessions_db.exists():
        if args.action == "show":
            _error(f"no session {args.id!r} (no sessions yet)")
            return ExitCode.CONFIGURATION
        _error("no sessions yet")
        return ExitCode.OK
    async with SQLiteSessionStore(paths.sessions_db) as store:
        if args.action == "list":
            rows = await store.list()
            if not rows:
                _error("no sessions yet")
            for row in rows:
                title = shown(row.title) if row.title else "(untitled)"
                print(
                    f"{row.id}  {row.updated_at:%Y-%m-%d %H:%M}  {row.message_count:>4} msgs  {title}"
                )
            return ExitCode.OK
        try:
            record = await store.get(args.id)
        except SessionNotFoundError as exc:
            _error(str(exc))
            return ExitCode.CONFIGURATION
        # stored text was chosen by a model, a tool or whoever wrote the file: escaped at a
        # terminal (a pipe gets it as stored); the one-line fields always
        terminal = sys.stdout.isatty()

        def text(value: object) -> str:
            return shown(str(value), keep_lines=True) if terminal else str(value)

        title = shown(record.title) if record.title else "-"
        print(f"session {record.id}  model={shown(str(record.model))}  title={title}")
        for message in record.messages:
            if isinstance(message, UserMessage):
                said = "".join(p.text for p in message.parts if isinstance(p, TextPart))
                print("user: " + text(said))
            elif isinstance(message, AssistantMessage):
                for call in message.tool_calls:
                    arguments = call.raw_arguments or call.arguments
                    print(f"tool call: {shown(call.name)} {text(arguments)}")
                if message.text:
                    print("assistant: " + text(message.text))
            elif isinstance(message, ToolResultMessage):
                for result in message.results:
                    status = "error" if result.is_error else "ok"
                    print(f"tool result ({status}): {text(result.text[:200])}")
        return ExitCode.OK


async def _dispatch(args: argparse.Namespace) -> ExitCode:
    try:
        if args.command == "run":
            return await _run(args)
        if args.command == "chat":
            return await _chat(args)
        if args.command == "eval":
            return await run_eval(args)
        if args.command == "mcp":
            return await run_mcp(args)
        return await _sessions(args)
    except ConfigurationError as exc:
        _error(str(exc) + _hint(exc))
        return ExitCode.CONFIGURATION
    except RobotaError as exc:
        _error(f"{type(exc).__name__}: {exc}")
        return exit_for(exc)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``robota`` command; returns the exit status.

    Args:
        argv: The arguments; None reads ``sys.argv`` as the ``robota`` command does, and only
            then is ``SIGPIPE`` restored to its default (a host calling ``main([...])``
            in-process keeps its own signal handling).
    """
    if argv is None and hasattr(signal, "SIGPIPE"):
        # `robota ... | head`: stop quietly when the reader goes away, like other Unix tools
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        return int(anyio.run(_dispatch, args))
    except KeyboardInterrupt:  # Ctrl-C before a turn runs (e.g. at the trust question)
        if sys.stderr.isatty():
            sys.stderr.write("\n")
        return int(ExitCode.INTERRUPTED)


if __name__ == "__main__":
    raise SystemExit(main())
