"""``robota chat``: the conversation loop, its slash commands and Ctrl-C.

Ctrl-C while a turn runs cancels the turn (a permission question waiting for an answer is
denied) and the prompt comes back; Ctrl-C at the prompt drops what was typed of the line and
says how to leave; a second Ctrl-C in a row exits with 130, end of input (Ctrl-D) or ``/exit``
with the status of the last turn that ran to its end (0 when it answered). Lines are read in the
event loop (:mod:`robota.cli.line_input`), so no line typed after a Ctrl-C is lost.
"""

from __future__ import annotations

import signal
import sys
from dataclasses import dataclass

import anyio
from anyio.abc import TaskStatus
from robota.cli.app import CliContext
from robota.cli.exit_codes import ExitCode
from robota.cli.line_input import InputInterrupted, LineReader
from robota.cli.render import EventPrinter
from robota.cli.turn import run_turn, say
from robota.cli.waiting import WaitingLine
from robota.core.errors import ConfigurationError, RobotaError
from robota.framework.interactive import InteractiveSession

__all__ = ["COMMANDS", "EXIT_HINT", "PERMISSION_MODES", "chat_loop"]

PERMISSION_MODES = ("default", "accept_edits", "plan", "bypass")
COMMANDS = "/compact /fork /rewind /cost /model [NAME] /permissions [MODE] /exit"
"""The slash commands, as listed in the chat's first line."""
EXIT_HINT = "press Ctrl-C again or Ctrl-D to exit"


@dataclass(kw_only=True, slots=True)
class _State:
    in_turn: bool = False
    cancelling: bool = False  # a Ctrl-C asked the running turn to stop
    armed: bool = False  # the next Ctrl-C at the prompt exits


def _note(text: str) -> None:
    sys.stderr.write(f"\n({text})\n")
    sys.stderr.flush()


async def chat_loop(
    ctx: CliContext,
    session: InteractiveSession,
    printer: EventPrinter,
    waiting: WaitingLine,
) -> ExitCode:
    """Read lines until ``/exit``, end of input or a second Ctrl-C; each line is a turn or a
    slash command. Returns the exit status (see the module docstring)."""
    lines = ctx.lines or LineReader()
    state = _State()
    outcome = ExitCode.OK
    with anyio.CancelScope() as leave:
        async with anyio.create_task_group() as group:

            async def watch(*, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
                with anyio.open_signal_receiver(signal.SIGINT) as signals:
                    task_status.started()  # Ctrl-C is ours before the first prompt is shown
                    async for _ in signals:
                        if state.in_turn and not state.cancelling:
                            state.cancelling = True
                            session.cancel()
                            lines.interrupt()  # a permission question waiting: denied
                        elif state.in_turn or state.armed:
                            leave.cancel()
                        else:
                            state.armed = True
                            lines.interrupt(sticky=True)

            await group.start(watch)
            outcome = await _loop(ctx, session, printer, waiting, lines, state)
            group.cancel_scope.cancel()
    if leave.cancelled_caught:
        sys.stderr.write("\n")
        sys.stderr.flush()
        return ExitCode.INTERRUPTED
    return outcome


async def _loop(
    ctx: CliContext,
    session: InteractiveSession,
    printer: EventPrinter,
    waiting: WaitingLine,
    lines: LineReader,
    state: _State,
) -> ExitCode:
    last = ExitCode.OK
    while True:
        if ctx.interactive:
            sys.stderr.write("> ")
            sys.stderr.flush()
        try:
            line = await lines.read_line()
        except InputInterrupted:
            _note(EXIT_HINT)
            continue
        if line is None:
            if ctx.interactive:
                sys.stderr.write("\n")
            return last
        state.armed = False
        line = line.strip()
        if not line:
            continue
        if line in ("/exit", "/quit"):
            return last
        if line.startswith("/") and not line.startswith("//"):
            state.in_turn = True
            try:
                await _command(line, ctx, session, printer)
            finally:
                state.in_turn = state.cancelling = False
            continue
        state.in_turn, state.cancelling = True, False
        try:
            code = await run_turn(
                session,
                line.removeprefix("/"),
                printer,
                waiting,
                url=ctx.model_url,
                call_timeout=ctx.timeout,
                own_interrupts=False,
            )
        finally:
            state.in_turn = False
        if state.cancelling and code == ExitCode.INTERRUPTED:
            _note(f"turn cancelled; {EXIT_HINT}")
            state.armed = True
        else:
            last = code
        state.cancelling = False


async def _command(
    line: str, ctx: CliContext, session: InteractiveSession, printer: EventPrinter
) -> None:
    """One slash command (``/exit`` is handled by the loop)."""
    from robota.cli.providers import estimate_cost
    from robota.cli.render import format_usage

    name, *rest = line.split()
    if name == "/cost":
        cost = estimate_cost(ctx.resolved.type, printer.usage_by_model)
        say(f"{format_usage(printer.usage, cost)} session={session.id}")
    elif name == "/compact":
        try:
            record = await session.compact()
            say(f"compacted {len(record.removed)} messages")
        except RobotaError as exc:
            say(str(exc))
    elif name == "/fork":
        child = await session.fork()
        say(f"forked into {child.id} (resume it with --resume {child.id})")
        await child.shutdown()
    elif name == "/rewind":
        try:
            report = session.rewind()
            say(
                f"restored {len(report.restored)} file(s), deleted "
                f"{len(report.deleted)} created file(s)"
            )
        except (RuntimeError, RobotaError) as exc:
            say(str(exc))
    elif name == "/model":
        _model(rest, ctx, session)
    elif name == "/permissions":
        if len(rest) == 1 and rest[0] in PERMISSION_MODES:
            from robota.core.permissions import PermissionMode

            session.set_permission_mode(PermissionMode(rest[0]))
        elif rest:
            say(f"unknown mode {rest[0]!r}; one of: {', '.join(PERMISSION_MODES)}")
        say(f"permission mode: {session.permission_gate.context.mode.value}")
    else:
        say(f"unknown command {name!r}: {COMMANDS} (start a message with // to send a literal /)")


def _model(rest: list[str], ctx: CliContext, session: InteractiveSession) -> None:
    """``/model``: show the model; ``/model NAME``: use NAME from the next turn on."""
    if len(rest) > 1:
        say("usage: /model [NAME]")
        return
    if rest:
        try:
            session.set_model(rest[0])
        except (ConfigurationError, RuntimeError) as exc:
            say(str(exc))
            return
        say(f"model: {session.config.model} ({ctx.resolved.profile}), from the next turn on")
        return
    say(f"model: {session.config.model} ({ctx.resolved.profile})")
