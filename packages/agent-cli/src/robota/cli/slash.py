"""The slash-command table of ``robota chat``: one row per command (name, arguments, one-line
help, handler) drives the dispatch, ``/help`` and the "did you mean" suggestion for a mistyped
command. The rows themselves are in :mod:`robota.cli.chat_commands`; :class:`Chat` is what a
handler works on (the current session can change: ``/resume``).
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field

from robota.cli.app import CliContext
from robota.cli.line_input import LineSource
from robota.cli.render import EventPrinter
from robota.cli.terminal_wrap import wrapped
from robota.cli.waiting import WaitingLine
from robota.framework.interactive import InteractiveSession

__all__ = [
    "Chat",
    "CommandFactory",
    "CommandTable",
    "Handler",
    "SlashCommand",
    "show",
    "split_command",
]


def show(lines: Iterable[str]) -> None:
    """Write command output (several lines) to standard error; standard output keeps only
    the model's answers."""
    sys.stderr.write("".join(f"{line}\n" for line in lines))
    sys.stderr.flush()


@dataclass(kw_only=True, slots=True)
class Chat:
    """The chat a slash command works on.

    Attributes:
        ctx: The command invocation's context (settings, provider, store).
        session: The current session; ``/resume`` replaces it (see :meth:`switch_to`).
        printer: Prints the answers (subscribed to every session the chat uses).
        waiting: The "waiting for the model…" line (subscribed likewise).
        lines: Standard input as lines (the prompt, permission questions, pickers).
        opened: Sessions this chat opened itself (``/resume``); :meth:`close` shuts them down.
    """

    ctx: CliContext
    session: InteractiveSession
    printer: EventPrinter
    waiting: WaitingLine
    lines: LineSource
    opened: list[InteractiveSession] = field(default_factory=list[InteractiveSession])

    async def switch_to(self, session: InteractiveSession) -> None:
        """Make ``session`` the current one: the following turns go to it. It gets the
        printer and the waiting line and the current permission mode; the previous session is
        shut down (its lease released; the session the command opened is still discarded at
        the end when the model never answered in it)."""
        session.subscribe(self.waiting)
        session.subscribe(self.printer)
        self.printer.follow(session)
        session.set_permission_mode(self.session.permission_gate.context.mode)
        previous, self.session = self.session, session
        self.opened.append(session)
        await previous.shutdown()

    async def close(self) -> None:
        """Shut down the sessions this chat opened (idempotent)."""
        for session in self.opened:
            await session.shutdown()


Handler = Callable[[Chat, Sequence[str]], Awaitable[None]]
"""``handler(chat, arguments)``: runs one slash command; says its outcome on standard error."""


@dataclass(frozen=True, kw_only=True, slots=True)
class SlashCommand:
    """One row of the table.

    Attributes:
        name: ``/name`` as typed.
        help: One line for ``/help``.
        run: The handler (None: the chat loop handles it, e.g. ``/exit``).
        args: The arguments as shown in ``/help`` (``"[NAME]"``); "" for none.
        max_args: How many arguments it takes at most (None: any; more is a usage error).
        aliases: Other names typed for the same command (``/quit``).
    """

    name: str
    help: str
    run: Handler | None = None
    args: str = ""
    max_args: int | None = 0
    aliases: tuple[str, ...] = ()

    @property
    def usage(self) -> str:
        """``/name ARGS`` as shown in ``/help``."""
        return f"{self.name} {self.args}".rstrip()


def split_command(line: str) -> tuple[str, list[str]]:
    """``"/model gpt-4o"`` → ``("/model", ["gpt-4o"])`` (the name as typed: the table's
    lookup ignores case, but an MCP prompt's name keeps it, ``/mcp__ctx__Twin``).

    Example:
        >>> split_command("/Permissions  plan ")
        ('/Permissions', ['plan'])
    """
    name, *rest = line.split()
    return name, rest


CommandFactory = Callable[[str], SlashCommand]
"""``factory(name)``: the row of a command whose name is only known at run time (an MCP
prompt's ``/mcp__<server>__<prompt>``); ``name`` as typed (case kept)."""


class CommandTable:
    """The rows, looked up by name or alias, and the families of commands named at run time.

    Args:
        commands: The rows in ``/help`` order; names and aliases must be unique.
        dynamic: ``(prefix, factory)`` pairs: a name that is no row's and starts with
            ``prefix`` (and is longer) is ``factory(name)`` (MCP prompts: ``/mcp__``).

    Raises:
        ValueError: two rows share a name or alias.
    """

    def __init__(
        self,
        commands: Sequence[SlashCommand],
        *,
        dynamic: Sequence[tuple[str, CommandFactory]] = (),
    ) -> None:
        self.commands = tuple(commands)
        self.dynamic = tuple(dynamic)
        self._by_name: dict[str, SlashCommand] = {}
        for command in self.commands:
            for name in (command.name, *command.aliases):
                if name in self._by_name:
                    raise ValueError(f"two slash commands are named {name}")
                self._by_name[name] = command

    def find(self, name: str) -> SlashCommand | None:
        """The row for ``name`` (``/model``) or one of its aliases, else the row a dynamic
        family makes for it (``/mcp__docs__review``), or None."""
        typed = name.lower()
        row = self._by_name.get(typed)
        if row is not None:
            return row
        for prefix, factory in self.dynamic:
            if typed.startswith(prefix) and len(typed) > len(prefix):
                return factory(prefix + name[len(prefix) :])  # the prompt's name keeps its case
        return None

    def suggest(self, name: str) -> str | None:
        """The command a mistyped ``name`` most likely meant: the only command it is a prefix
        of, else the closest name (``difflib``, ratio >= 0.6), else None."""
        typed = name.lower()
        starts = sorted({c.name for n, c in self._by_name.items() if n.startswith(typed)})
        if len(starts) == 1:
            return starts[0]
        close = difflib.get_close_matches(typed, list(self._by_name), n=1, cutoff=0.6)
        return self._by_name[close[0]].name if close else None

    def unknown(self, name: str) -> str:
        """The one-line answer to an unknown command."""
        guess = self.suggest(name)
        hint = f"did you mean {guess}? " if guess else ""
        return (
            f"unknown command {name!r}; {hint}/help lists the commands "
            "(start a message with // to send a literal /)"
        )

    def summary(self) -> str:
        """Every command with its arguments on one line (``/help /model [NAME] ...``)."""
        return " ".join(c.usage for c in self.commands)

    def help_lines(self, columns: int | None = None) -> list[str]:
        """``/help``: one aligned line per command.

        Args:
            columns: The terminal's width; a line longer than it is wrapped by words, its
                continuation rows starting under the help text. None: one row per command.
        """
        width = max(len(self._usage_with_aliases(c)) for c in self.commands)
        return [
            row
            for c in self.commands
            for row in wrapped(
                f"  {self._usage_with_aliases(c):<{width}}  {c.help}", columns, indent=width + 4
            )
        ]

    @staticmethod
    def _usage_with_aliases(command: SlashCommand) -> str:
        return ", ".join([command.usage, *command.aliases])
