"""The ``robota`` command: ``robota run "task"``, ``robota chat``, ``robota sessions list|show``.

Exit codes are :class:`~robota.cli.exit_codes.ExitCode`. With no credentials set, the command
says which variables or options to set (exit 3) instead of showing a traceback.
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Sequence

import anyio
from robota.cli.app import CliContext, build_context, open_session
from robota.cli.exit_codes import ExitCode
from robota.cli.providers import estimate_cost
from robota.cli.render import EventPrinter, format_usage
from robota.core.agent import RunResult
from robota.core.errors import (
    AuthenticationError,
    ConfigurationError,
    PermissionDeniedError,
    ProviderError,
    RobotaError,
    RunCancelledError,
)
from robota.core.host.errors import OwnerOnlyError, PathContainmentError
from robota.core.messages import AssistantMessage, TextPart, ToolResultMessage, UserMessage
from robota.framework.interactive import InteractiveSession
from robota.session import SessionNotFoundError

__all__ = ["build_parser", "main"]

PERMISSION_MODES = ("default", "accept_edits", "plan", "bypass")


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
        help="use an answer cut at the output token limit instead of failing (exit 4)",
    )
    parser.add_argument("--no-title", action="store_true", help="do not name new sessions")


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


EPILOG = (
    "exit codes: 0 ok, 1 unexpected error, 2 usage, 3 configuration or credentials, "
    "4 provider failure, 5 a tool call was denied, 130 interrupted. A task that starts with "
    "'-' goes after the options and '--': robota run --model m -- '-x is a flag'"
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser."""
    parser = argparse.ArgumentParser(
        prog="robota", description="Robota: a provider-neutral agent.", epilog=EPILOG
    )
    parser.add_argument("--version", action="version", version=f"robota {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run one task and exit", epilog=EPILOG)
    run.add_argument("task", help="what the agent should do")
    _common(run)
    chat = sub.add_parser("chat", help="interactive conversation")
    _common(chat)
    sessions = sub.add_parser("sessions", help="list or show stored sessions")
    sessions_sub = sessions.add_subparsers(dest="action", required=True)
    sessions_sub.add_parser("list", help="list sessions, newest first")
    show = sessions_sub.add_parser("show", help="show one session's messages")
    show.add_argument("id")
    return parser


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("robota-agent-cli")
    except PackageNotFoundError:
        return "unknown"


def _error(message: str) -> None:
    sys.stderr.write(f"robota: {message}\n")
    sys.stderr.flush()


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


def _exit_for(error: BaseException) -> ExitCode:
    if isinstance(
        error,
        (
            AuthenticationError,
            PermissionDeniedError,
            ConfigurationError,
            SessionNotFoundError,
            PathContainmentError,
            OwnerOnlyError,
        ),
    ):
        return ExitCode.CONFIGURATION
    if isinstance(error, RunCancelledError):
        return ExitCode.INTERRUPTED
    if isinstance(error, ProviderError):
        return ExitCode.PROVIDER
    return ExitCode.ERROR


async def _turn(session: InteractiveSession, prompt: str, printer: EventPrinter) -> ExitCode:
    """One turn with Ctrl-C cancelling the turn (not the process)."""
    result: RunResult | RobotaError = RunCancelledError("turn did not run")
    async with anyio.create_task_group() as group:

        async def watch() -> None:
            with anyio.open_signal_receiver(signal.SIGINT) as signals:
                async for _ in signals:
                    session.cancel()

        group.start_soon(watch)
        try:
            result = await session.submit(prompt)
        except RobotaError as exc:
            result = exc
        finally:
            group.cancel_scope.cancel()
    printer.finish()
    if isinstance(result, RobotaError):
        _error(f"{type(result).__name__}: {result}")
        return _exit_for(result)
    if result.interrupted:
        return ExitCode.INTERRUPTED
    if printer.last_finish_reason == "length":
        _error("note: the answer was cut off at the model's output token limit")
    return ExitCode.PERMISSION_DENIED if printer.denied else ExitCode.OK


def _summary(ctx: CliContext, session: InteractiveSession, printer: EventPrinter) -> None:
    if printer.json_mode:
        return
    cost = estimate_cost(ctx.resolved.type, printer.usage_by_model)
    _error(f"{format_usage(printer.usage, cost)} session={session.id}")


async def _run(args: argparse.Namespace) -> ExitCode:
    if not args.task.strip():
        _error("the task is empty; say what the agent should do")
        return ExitCode.USAGE
    ctx = build_context(args)
    printer = EventPrinter(json_mode=args.json)
    async with ctx.store, await open_session(ctx, args) as session:
        session.subscribe(printer)
        code = await _turn(session, args.task, printer)
        _summary(ctx, session, printer)
        return code


async def _chat(args: argparse.Namespace) -> ExitCode:
    ctx = build_context(args)
    printer = EventPrinter(json_mode=args.json)
    async with ctx.store, await open_session(ctx, args) as session:
        session.subscribe(printer)
        _error(f"session {session.id} — /compact /fork /rewind /cost /model /permissions /exit")
        last = ExitCode.OK
        while True:
            if ctx.interactive:
                sys.stderr.write("> ")
                sys.stderr.flush()
            try:
                line = await anyio.to_thread.run_sync(input)
            except (EOFError, KeyboardInterrupt):
                break
            line = line.strip()
            if not line:
                continue
            if line in ("/exit", "/quit"):
                break
            if line == "/cost":
                _summary(ctx, session, printer)
            elif line == "/compact":
                try:
                    record = await session.compact()
                    _error(f"compacted {len(record.removed)} messages")
                except RobotaError as exc:
                    _error(str(exc))
            elif line == "/fork":
                child = await session.fork()
                _error(f"forked into {child.id} (resume it with --resume {child.id})")
                await child.shutdown()
            elif line == "/rewind":
                try:
                    report = session.rewind()
                    _error(
                        f"restored {len(report.restored)} file(s), deleted "
                        f"{len(report.deleted)} created file(s)"
                    )
                except (RuntimeError, RobotaError) as exc:
                    _error(str(exc))
            elif line == "/model":
                _error(f"model: {ctx.config.model} ({ctx.resolved.profile})")
            elif line.startswith("/permissions"):
                parts = line.split()
                if len(parts) == 2 and parts[1] in PERMISSION_MODES:
                    from robota.core.permissions import PermissionMode

                    session.set_permission_mode(PermissionMode(parts[1]))
                elif len(parts) > 1:
                    _error(f"unknown mode {parts[1]!r}; one of: {', '.join(PERMISSION_MODES)}")
                _error(f"permission mode: {session.permission_gate.context.mode.value}")
            elif line.startswith("/") and not line.startswith("//"):
                _error(
                    f"unknown command {line.split()[0]!r}: /compact /fork /rewind /cost /model "
                    "/permissions /exit (start a message with // to send a literal /)"
                )
            else:
                if line.startswith("//"):
                    line = line[1:]
                last = await _turn(session, line, printer)
        return last


async def _sessions(args: argparse.Namespace) -> ExitCode:
    from robota.cli.paths import CliPaths
    from robota.core.host.owner_only import ensure_private_dir
    from robota.session import SQLiteSessionStore

    paths = CliPaths.from_env()
    if paths.home.exists():
        ensure_private_dir(paths.home)  # an insecure home is refused here too
    if not paths.sessions_db.exists():
        _error("no sessions yet")
        return ExitCode.OK
    async with SQLiteSessionStore(paths.sessions_db) as store:
        if args.action == "list":
            for row in await store.list():
                title = row.title or "(untitled)"
                print(
                    f"{row.id}  {row.updated_at:%Y-%m-%d %H:%M}  {row.message_count:>4} msgs  {title}"
                )
            return ExitCode.OK
        try:
            record = await store.get(args.id)
        except SessionNotFoundError as exc:
            _error(str(exc))
            return ExitCode.CONFIGURATION
        print(f"session {record.id}  model={record.model}  title={record.title or '-'}")
        for message in record.messages:
            if isinstance(message, UserMessage):
                print("user: " + "".join(p.text for p in message.parts if isinstance(p, TextPart)))
            elif isinstance(message, AssistantMessage):
                for call in message.tool_calls:
                    print(f"tool call: {call.name} {call.raw_arguments or call.arguments}")
                if message.text:
                    print("assistant: " + message.text)
            elif isinstance(message, ToolResultMessage):
                for result in message.results:
                    status = "error" if result.is_error else "ok"
                    print(f"tool result ({status}): {result.text[:200]}")
        return ExitCode.OK


async def _dispatch(args: argparse.Namespace) -> ExitCode:
    try:
        if args.command == "run":
            return await _run(args)
        if args.command == "chat":
            return await _chat(args)
        return await _sessions(args)
    except ConfigurationError as exc:
        _error(str(exc) + _hint(exc))
        return ExitCode.CONFIGURATION
    except RobotaError as exc:
        _error(f"{type(exc).__name__}: {exc}")
        return _exit_for(exc)


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
    except KeyboardInterrupt:
        return int(ExitCode.INTERRUPTED)


if __name__ == "__main__":
    raise SystemExit(main())
