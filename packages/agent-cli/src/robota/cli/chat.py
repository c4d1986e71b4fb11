"""``robota chat``: the conversation loop, its slash commands and Ctrl-C.

Ctrl-C while a turn runs cancels the turn (a permission question waiting for an answer is
denied) and the prompt comes back; Ctrl-C at the prompt drops what was typed of the line and
says how to leave; a second Ctrl-C in a row exits with 130, end of input (Ctrl-D) or ``/exit``
with the status of the last turn that ran to its end (0 when it answered). Lines are read in the
event loop (:mod:`robota.cli.line_input`), so no line typed after a Ctrl-C is lost. While a turn
or a command runs at the line editor, the terminal does not echo keys
(:func:`~robota.cli.terminal_mode.quiet_typing`): lines typed ahead are not printed into the
answer; the next prompt shows and sends them.
"""

from __future__ import annotations

import signal
import sys
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

import anyio
from anyio.abc import TaskStatus
from robota.cli.app import CliContext
from robota.cli.attachments import prompt_for
from robota.cli.chat_commands import COMMAND_TABLE, PERMISSION_MODES
from robota.cli.exit_codes import ExitCode
from robota.cli.line_input import InputInterrupted, LineReader, LineSource
from robota.cli.prompt_input import PromptLineReader
from robota.cli.render import EventPrinter
from robota.cli.slash import Chat, split_command
from robota.cli.terminal_mode import quiet_typing
from robota.cli.turn import run_turn, say
from robota.cli.waiting import WaitingLine
from robota.framework.interactive import InteractiveSession

__all__ = ["COMMANDS", "EXIT_HINT", "PERMISSION_MODES", "chat_loop"]

COMMANDS = COMMAND_TABLE.summary()
"""The slash commands, as listed in the chat's first line (``/help`` explains each)."""
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
    slash command (:data:`~robota.cli.chat_commands.COMMAND_TABLE`). Returns the exit status
    (see the module docstring). Sessions ``/resume`` opened are shut down before it returns;
    ``session`` is left to the caller."""
    lines = ctx.lines or LineReader()
    chat = Chat(ctx=ctx, session=session, printer=printer, waiting=waiting, lines=lines)
    try:
        return await _chat(chat, lines)
    finally:
        with anyio.CancelScope(shield=True):
            await chat.close()


async def _chat(chat: Chat, lines: LineSource) -> ExitCode:
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
                            chat.session.cancel()
                            lines.interrupt()  # a permission question waiting: denied
                        elif state.in_turn or state.armed:
                            leave.cancel()
                        else:
                            state.armed = True
                            lines.interrupt(sticky=True)

            await group.start(watch)
            outcome = await _loop(chat, lines, state)
            group.cancel_scope.cancel()
    if leave.cancelled_caught:
        sys.stderr.write("\n")
        sys.stderr.flush()
        return ExitCode.INTERRUPTED
    return outcome


def _quiet(lines: LineSource) -> AbstractContextManager[bool]:
    """No echo of typed keys while a turn runs, when the line editor reads (it replays
    what was typed ahead); the plain reader keeps the terminal as it is."""
    if isinstance(lines, PromptLineReader):
        try:
            return quiet_typing(sys.stdin.fileno())
        except (OSError, ValueError):  # standard input closed or replaced
            pass
    return nullcontext(False)


async def _loop(chat: Chat, lines: LineSource, state: _State) -> ExitCode:
    ctx = chat.ctx
    last = ExitCode.OK
    while True:
        try:
            line = await lines.read_line("> " if ctx.interactive else "", history=True)
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
        if line.startswith("/") and not line.startswith("//"):
            if split_command(line)[0].lower() in ("/exit", "/quit"):
                return last
            state.in_turn = True
            try:
                with _quiet(lines):
                    await _command(line, chat)
            finally:
                state.in_turn = state.cancelling = False
            continue
        prompt = await prompt_for(chat.session, line.removeprefix("/"))  # @path references
        if prompt is None:  # one cannot be attached (said): nothing is sent
            continue
        state.in_turn, state.cancelling = True, False
        try:
            with _quiet(lines):
                code = await run_turn(
                    chat.session,
                    prompt,
                    chat.printer,
                    chat.waiting,
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


async def _command(line: str, chat: Chat) -> None:
    """One slash command, looked up in the table (``/exit`` is handled by the loop). A new
    command is a row of :data:`~robota.cli.chat_commands.COMMAND_TABLE`, so ``/help`` and the
    suggestions know it."""
    name, args = split_command(line)
    command = COMMAND_TABLE.find(name)
    if command is None or command.run is None:
        say(COMMAND_TABLE.unknown(name))
        return
    if command.max_args is not None and len(args) > command.max_args:
        say(f"usage: {command.usage}")
        return
    await command.run(chat, args)
