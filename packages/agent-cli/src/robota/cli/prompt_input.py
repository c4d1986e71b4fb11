"""Line editing for ``robota chat`` on a terminal, with prompt_toolkit: history, multi-line
input, completion and a status line under the prompt.

:class:`PromptLineReader` is the :class:`~robota.cli.line_input.LineSource` the command uses
when standard input and standard error are terminals (and not ``--json``); everywhere else the
plain :class:`~robota.cli.line_input.LineReader` reads. Keys at its prompt:

* Enter submits; Esc-Enter (Alt-Enter) and Ctrl-J insert a newline, and so does Enter after a
  line ending in a backslash (the backslash is dropped); a paste keeps its newlines. The line
  returned may therefore hold newlines.
* Up/Down recall earlier chat lines (:class:`OwnerOnlyHistory`, kept in ``$ROBOTA_HOME``);
  the answers to permission questions and pickers are never recorded.
* Tab completes slash commands and ``@path`` references (:mod:`robota.cli.prompt_complete`),
  from the text as it is when Tab is pressed (:func:`complete_now`).
* Ctrl-C: the terminal is in raw mode while the prompt is shown, so the key sends no signal;
  it is turned into ``SIGINT`` for the process, and the chat's ``SIGINT`` receiver decides
  exactly as for a Ctrl-C during a turn (it calls :meth:`PromptLineReader.interrupt`, which
  drops what was typed). Ctrl-D on an empty line is the end of input.

The prompt is drawn on standard error; standard output keeps only the model's answers. Text
other tasks write while a prompt is shown (an MCP server's notice) is printed above it.
"""

from __future__ import annotations

import datetime
import os
import select
import signal
import sys
import termios
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.application import create_app_session
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, get_common_complete_suffix
from prompt_toolkit.filters import Condition, has_selection
from prompt_toolkit.history import History, InMemoryHistory
from prompt_toolkit.input import Input, create_input
from prompt_toolkit.input.typeahead import get_typeahead, store_typeahead
from prompt_toolkit.input.vt100_parser import Vt100Parser
from prompt_toolkit.key_binding import KeyBindings, KeyPress, KeyPressEvent
from prompt_toolkit.output import ColorDepth, Output, create_output
from prompt_toolkit.patch_stdout import patch_stdout
from prompt_toolkit.styles import Style
from robota.cli.line_input import InputInterrupted
from robota.cli.prompt_complete import ChatCompleter, CommandRows, table_commands
from robota.core.host.errors import OwnerOnlyError
from robota.core.host.owner_only import open_private_file, read_private_file

__all__ = [
    "OwnerOnlyHistory",
    "PromptLineReader",
    "complete_now",
    "keep_type_ahead",
    "open_history",
]


class OwnerOnlyHistory(History):
    """The chat's input history in one owner-only (0600) file, in prompt_toolkit's
    ``FileHistory`` format (a ``# time`` line, then each line of an entry after ``+``; lines end
    with ``\n`` only, so an entry holding ``\r``, a form feed or U+2028 comes back whole).

    The file is opened as every Robota store file is
    (:func:`robota.core.host.owner_only.open_private_file`): never through a symbolic link,
    never when group/other can read it. Use :func:`open_history` to check it up front.

    Args:
        path: The history file (``$ROBOTA_HOME/history``).
        err: Where one line is written if the file turns unsafe while the chat runs (the
            entries are then kept for this run only).
    """

    def __init__(self, path: Path, *, err: TextIO | None = None) -> None:
        super().__init__()
        self.path = path
        self._err = err
        self._broken = False

    def load_history_strings(self) -> Iterable[str]:
        """The stored entries, newest first (none when the file is missing or unsafe)."""
        try:
            data = read_private_file(self.path)
        except FileNotFoundError:
            return []
        except (OSError, OwnerOnlyError) as exc:
            self._give_up(exc)
            return []
        entries: list[str] = []
        lines: list[str] = []
        for line in data.decode("utf-8", errors="replace").split("\n"):  # as FileHistory
            if line.startswith("+"):
                lines.append(line[1:])
            elif lines:
                entries.append("\n".join(lines))
                lines = []
        if lines:
            entries.append("\n".join(lines))
        return reversed(entries)

    def store_string(self, string: str) -> None:
        """Append one entry (a failure is said once; the entry stays in memory)."""
        if self._broken:
            return
        text = f"\n# {datetime.datetime.now()}\n" + "".join(f"+{x}\n" for x in string.split("\n"))
        try:
            descriptor = open_private_file(self.path, append=True, create=True)
            with os.fdopen(descriptor, "ab") as handle:
                handle.write(text.encode("utf-8", errors="replace"))
        except (OSError, OwnerOnlyError) as exc:
            self._give_up(exc)

    def _give_up(self, exc: Exception) -> None:
        self._broken = True
        _say_not_kept(exc, self._err)


def _say_not_kept(exc: Exception, err: TextIO | None) -> None:
    out = err or sys.stderr
    out.write(f"robota: the input history is kept for this chat only: {exc}\n")
    out.flush()


def open_history(path: Path, *, err: TextIO | None = None) -> History:
    """The history kept in ``path``, created owner-only (0600) when missing; an in-memory
    history instead, after one line on ``err`` (standard error), when ``path`` is a symbolic
    link, not a regular file, someone else's, or readable by group/other (the line names the
    fix, e.g. ``chmod 600 PATH``)."""
    try:
        os.close(open_private_file(path, append=True, create=True))
    except (OSError, OwnerOnlyError) as exc:
        _say_not_kept(exc, err)
        return InMemoryHistory()
    return OwnerOnlyHistory(path, err=err)


def keep_type_ahead(source: Input) -> None:
    """Hand the lines typed while no prompt was shown (during a turn, the terminal in
    canonical mode) to the next prompt, each line end as Enter.

    The terminal driver turned each Enter into ``\n`` (``ICRNL``), which the prompt would
    read as Ctrl-J, a newline; these lines are read here first and stored as type-ahead with
    Enter keys, so each is sent as it would have been without the line editor. A Ctrl-D at
    the start of a line (the driver's end of file) is kept as Ctrl-D. A line still being
    typed stays in the driver and reaches the prompt as typed. Nothing happens unless
    ``source`` is a terminal in canonical mode.
    """
    try:
        fd = source.fileno()
        if not os.isatty(fd) or not termios.tcgetattr(fd)[3] & termios.ICANON:
            return
    except (OSError, NotImplementedError, termios.error):
        return
    typed: list[str] = []
    while select.select([fd], [], [], 0)[0]:
        chunk = os.read(fd, 4096)
        if not chunk:  # Ctrl-D at the start of a line
            typed.append("\x04")
            break
        typed.append(chunk.decode("utf-8", errors="replace").replace("\n", "\r"))
    if typed:
        keys: list[KeyPress] = []
        parser = Vt100Parser(keys.append)
        parser.feed("".join(typed))
        parser.flush()
        store_typeahead(source, keys)


def complete_now(buffer: Buffer) -> None:
    """Tab: complete from the text as it is now, in the key handler itself.

    prompt_toolkit's own Tab starts the completer as a background task, and drops that start
    when the completion begun by typing still runs; a Tab typed right after ``/mo`` then only
    opened the menu. Here the completions are listed at once: a single one is inserted, else
    their common part; with nothing to insert (or an entry of an open menu picked), the menu
    opens or moves to its next entry as before.
    """
    state = buffer.complete_state
    if state is None or state.complete_index is None:  # no menu entry is being picked
        document = buffer.document
        found = list(
            buffer.completer.get_completions(document, CompleteEvent(completion_requested=True))
        )
        if len(found) == 1:
            buffer.apply_completion(found[0])
            return
        common = get_common_complete_suffix(document, found)
        if common:
            buffer.cancel_completion()
            buffer.insert_text(common)
            return
    if buffer.complete_state is not None:
        buffer.complete_next()
    else:
        buffer.start_completion(insert_common_part=True)


_STYLE = Style.from_dict({"prompt": "ansicyan bold"})
"""The chat prompt's marker in colour (its trailing space is then drawn as a space)."""
_PLAIN = Style.from_dict({"prompt": ""})
"""The prompt's marker without colours or bold (``--no-color``, ``NO_COLOR``)."""


def _key_bindings() -> KeyBindings:
    bindings = KeyBindings()

    @bindings.add("c-c")
    def _ctrl_c(event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        # as a terminal in canonical mode would: the SIGINT receiver decides what it means
        signal.raise_signal(signal.SIGINT)

    @bindings.add("tab", filter=~has_selection)
    def _tab(event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        complete_now(event.current_buffer)

    @bindings.add("escape", "enter")
    @bindings.add("c-j")
    def _newline(event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        event.current_buffer.insert_text("\n")

    @bindings.add("enter")
    def _enter(event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        buffer = event.current_buffer
        if buffer.document.current_line_before_cursor.endswith("\\"):
            buffer.delete_before_cursor(1)
            buffer.insert_text("\n")
        else:
            buffer.validate_and_handle()

    return bindings


class PromptLineReader:
    """A :class:`~robota.cli.line_input.LineSource` reading with prompt_toolkit (see the module
    docstring for the keys).

    Args:
        history: The history file (``CliPaths.history``), created owner-only; an unsafe one is
            refused with one line on ``err`` (:func:`open_history`). None: history in memory.
        root: The workspace folder ``@path`` completion lists (default: the working folder).
        private: Folders completion never offers nor lists (``CliPaths.home``).
        commands: The slash commands to complete, ``(name, help)`` rows (default: the chat's).
        status: Returns the line shown under the chat prompt (model, tokens, cost, context);
            None or an empty string shows none. Settable later through :attr:`status`.
        input: Where keys come from (default: the terminal on standard input).
        output: Where the prompt is drawn (default: the terminal on standard error).
        err: Where a refused history file is reported (default: standard error).
        color: False (``--no-color``, ``NO_COLOR``): the prompt mark is plain and the line
            editor draws without colours (its menus in one bit of colour depth).
    """

    def __init__(
        self,
        *,
        history: Path | None = None,
        root: Path | None = None,
        private: Sequence[Path] = (),
        commands: CommandRows = table_commands,
        status: Callable[[], str] | None = None,
        input: Input | None = None,
        output: Output | None = None,
        err: TextIO | None = None,
        color: bool = True,
    ) -> None:
        self.status = status
        self._color = color
        self._history_path = history
        self._root = root or Path.cwd()
        self._private = tuple(private)
        self._commands = commands
        self._err = err
        self._input = input or create_input(sys.stdin)
        self._output = output or create_output(stdout=sys.stderr)
        self._bindings = _key_bindings()
        self._waiting = False
        self._interrupt_next = False
        self._held: list[KeyPress] = []  # lines typed ahead of a question: the next chat prompt's
        self._chat: PromptSession[str] | None = None  # made at the first chat line
        # questions and pickers: the same keys, no history, no completion
        self._answers: PromptSession[str] = PromptSession(
            history=InMemoryHistory(),
            color_depth=None if color else ColorDepth.DEPTH_1_BIT,
            key_bindings=self._bindings,
            input=self._input,
            output=self._output,
        )
        self._active: PromptSession[str] | None = None

    def _chat_session(self) -> PromptSession[str]:
        """The chat prompt's session; its history file is opened (and judged) the first
        time, so ``robota run`` never touches it."""
        if self._chat is None:
            path = self._history_path
            self._chat = PromptSession(
                style=_STYLE if self._color else _PLAIN,
                color_depth=None if self._color else ColorDepth.DEPTH_1_BIT,
                history=open_history(path, err=self._err) if path else InMemoryHistory(),
                completer=ChatCompleter(self._root, self._commands, private=self._private),
                complete_while_typing=Condition(self._completing),
                key_bindings=self._bindings,
                input=self._input,
                output=self._output,
            )
        return self._chat

    @property
    def waiting(self) -> bool:
        """True while a :meth:`read_line` waits for input."""
        return self._waiting

    def interrupt(self, *, sticky: bool = False) -> bool:
        """Make the pending :meth:`read_line` raise :class:`InputInterrupted`, dropping what
        was typed.

        Args:
            sticky: With no read pending, make the next one raise instead (a Ctrl-C that
                arrives just before the prompt is shown).

        Returns:
            True when a pending read was interrupted.
        """
        if self._waiting and self._active is not None:
            app = self._active.app
            if app.future is None:  # the prompt is starting: its pre_run hook raises
                self._interrupt_next = True
                return True
            if not app.future.done():
                app.exit(exception=InputInterrupted())
                return True
        if sticky:
            self._interrupt_next = True
        return False

    async def read_line(self, prompt: str = "", *, history: bool = False) -> str | None:
        """The next line (it may hold newlines; see the module docstring), or None at the end
        of input (Ctrl-D on an empty line).

        Args:
            prompt: Shown before the line (on standard error).
            history: The line is a chat message: recorded in the history, completed, and shown
                with the status line. False for answers to questions, which are not recorded.

        Raises:
            InputInterrupted: :meth:`interrupt` was called while this waited (or just before,
                with ``sticky``).
        """
        if self._interrupt_next:
            self._interrupt_next = False
            raise InputInterrupted
        session = self._chat_session() if history else self._answers
        if history:  # a status line, when there is one to show
            session.bottom_toolbar = self._toolbar if self._toolbar() else None
        self._active, self._waiting = session, True
        keep_type_ahead(self._input)
        if history:  # lines typed ahead of a question come back at the chat prompt
            store_typeahead(self._input, [*self._held, *get_typeahead(self._input)])
            self._held = []
        else:  # a question is answered only by what is typed once it is shown
            self._held.extend(get_typeahead(self._input))
        try:
            with create_app_session(input=self._input, output=self._output), patch_stdout(raw=True):
                return await session.prompt_async(
                    [("class:prompt", prompt)] if history else prompt,
                    handle_sigint=False,  # the chat's own SIGINT receiver stays in place
                    set_exception_handler=False,
                    pre_run=self._pre_run,
                )
        except EOFError:
            return None
        except KeyboardInterrupt:  # prompt_toolkit's own abort, should a binding raise it
            raise InputInterrupted from None
        finally:
            self._active, self._waiting = None, False

    def _pre_run(self) -> None:
        if self._interrupt_next and self._active is not None:
            self._interrupt_next = False
            self._active.app.exit(exception=InputInterrupted())

    def _completing(self) -> bool:
        """Complete while typing only a slash command or an ``@`` reference."""
        if self._chat is None:
            return False
        text = self._chat.default_buffer.document.text_before_cursor
        word = text.rsplit(maxsplit=1)[-1] if text.strip() else ""
        return text.startswith("/") or word.startswith(("@", '@"'))

    def _toolbar(self) -> str:
        return self.status() if self.status is not None else ""
