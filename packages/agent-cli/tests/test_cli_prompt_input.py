"""The ``robota chat`` line editor (:mod:`robota.cli.prompt_input`), driven in-process through
prompt_toolkit's pipe input: history kept owner-only and recalled with Up, never the answers to
questions; multi-line input; completion of slash commands and ``@path`` references inside the
workspace; Ctrl-C turned into SIGINT; Ctrl-D as the end of input; the status line."""

from __future__ import annotations

import io
import os
import signal
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import anyio
import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.data_structures import Size
from prompt_toolkit.document import Document
from prompt_toolkit.input import PipeInput, create_input, create_pipe_input
from prompt_toolkit.output import DummyOutput, Output
from prompt_toolkit.output.vt100 import Vt100_Output
from robota.cli.approve import TerminalApprover
from robota.cli.chat_commands import COMMAND_TABLE
from robota.cli.line_input import InputInterrupted
from robota.cli.prompt_complete import ChatCompleter
from robota.cli.prompt_input import PromptLineReader
from robota.core.permissions import Behavior, DecisionStep, PermissionDecision, PermissionRequest

UP = "\x1b[A"
CURSOR_AT_TOP = "\x1b[1;1R"  # a terminal's answer to the editor's cursor position request
INTERRUPTED = "<interrupted>"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def keys() -> Iterator[PipeInput]:
    with create_pipe_input() as pipe:
        yield pipe


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "robota-home"
    folder.mkdir(mode=0o700)
    return folder


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "workspace"
    for folder in ("packages/agent-cli", ".git/objects", ".venv/lib", "docs"):
        (root / folder).mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\n")
    (root / "my notes.txt").write_text("notes\n")
    (root / ".gitignore").write_text("*.pyc\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("not yours\n")
    (root / "elsewhere").symlink_to(outside)
    return root


def _reader(
    keys: PipeInput,
    *,
    history: Path | None = None,
    root: Path | None = None,
    output: Output | None = None,
    err: io.StringIO | None = None,
    status: str = "",
) -> PromptLineReader:
    return PromptLineReader(
        history=history,
        root=root,
        status=(lambda: status) if status else None,
        input=keys,
        output=output or DummyOutput(),
        err=err,
    )


async def _type(
    reader: PromptLineReader,
    keys: PipeInput,
    *typed: str,
    history: bool = True,
    screen: _Terminal | None = None,
) -> str | None:
    """Show a prompt, then type each piece once the editor has handled the previous one; with
    ``screen``, a piece ``"?TEXT"`` waits until ``TEXT`` was drawn instead."""
    result: list[str | None] = []
    async with anyio.create_task_group() as group:

        async def read() -> None:
            try:
                result.append(await reader.read_line("> ", history=history))
            except InputInterrupted:
                result.append(INTERRUPTED)

        group.start_soon(read)
        for piece in typed:
            await anyio.wait_all_tasks_blocked()
            if screen is not None and piece.startswith("?"):
                await _until_drawn(screen, piece[1:])
            else:
                keys.send_text(piece)
    return result[0]


async def _until_drawn(screen: _Terminal, text: str) -> None:
    with anyio.fail_after(10):
        while text not in screen.getvalue():
            screen.drawn = anyio.Event()
            await screen.drawn.wait()


class _Terminal(io.StringIO):
    """What the editor drew; a terminal (the editor asks it where the cursor is)."""

    def __init__(self) -> None:
        super().__init__()
        self.drawn = anyio.Event()

    def write(self, s: str, /) -> int:
        written = super().write(s)
        self.drawn.set()
        return written

    def isatty(self) -> bool:
        return True


def _terminal() -> tuple[_Terminal, Vt100_Output]:
    screen = _Terminal()
    return screen, Vt100_Output(screen, lambda: Size(rows=24, columns=80), term="xterm")


# -- history ----------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_chat_lines_are_kept_owner_only_and_recalled_with_up(
    keys: PipeInput, home: Path
) -> None:
    history = home / "history"
    first = _reader(keys, history=history)
    assert await _type(first, keys, "list the packages\r") == "list the packages"
    assert await _type(first, keys, "now the tests\r") == "now the tests"
    assert stat.S_IMODE(history.stat().st_mode) == 0o600
    # a later chat (a new reader on the same file) recalls them, newest first
    later = _reader(keys, history=history)
    assert await _type(later, keys, UP + "\r") == "now the tests"
    assert await _type(later, keys, UP + UP + UP + "\r") == "list the packages"


@pytest.mark.anyio
async def test_answers_to_questions_are_not_kept(keys: PipeInput, home: Path) -> None:
    history = home / "history"
    reader = _reader(keys, history=history)
    assert await _type(reader, keys, "delete the build folder\r") == "delete the build folder"
    approver = TerminalApprover(lines=reader, err=io.StringIO())
    decision = PermissionDecision(
        behavior=Behavior.ASK, step=DecisionStep.ASK_RULE, reason="asks", tool_name="shell"
    )
    request = PermissionRequest(
        tool_name="shell",
        argument="rm -rf build",
        arguments_text='{"command": "rm -rf build"}',
        reason="an ask rule matched",
        decision=decision,
    )
    keys.send_text("y\r")
    assert (await approver(request)).kind == "allow_once"
    assert "+y\n" not in history.read_text()
    # Up at the next chat prompt skips the answer and recalls the chat line
    assert await _type(reader, keys, UP + "\r") == "delete the build folder"


@pytest.mark.anyio
async def test_a_symlinked_history_file_is_refused_with_one_line(
    keys: PipeInput, home: Path, tmp_path: Path
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    (home / "history").symlink_to(victim)
    err = io.StringIO()
    reader = _reader(keys, history=home / "history", err=err)
    assert await _type(reader, keys, "hello\r") == "hello"
    assert await _type(reader, keys, "again\r") == "again"
    assert victim.read_text() == "keep me\n"  # nothing written through the link
    [line] = err.getvalue().splitlines()
    assert line.startswith("robota: the input history is kept for this chat only:")
    assert "symbolic link" in line
    assert await _type(reader, keys, UP + "\r") == "again"  # kept in memory meanwhile


@pytest.mark.anyio
async def test_a_history_file_others_can_read_is_refused(keys: PipeInput, home: Path) -> None:
    history = home / "history"
    history.write_text("\n# earlier\n+private words\n")
    history.chmod(0o644)
    err = io.StringIO()
    reader = _reader(keys, history=history, err=err)
    assert await _type(reader, keys, UP + "typed\r") == "typed"  # nothing recalled from it
    assert f"chmod 600 {history}" in err.getvalue()
    assert history.read_text() == "\n# earlier\n+private words\n"


# -- multi-line input, end of input -----------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("typed", "line"),
    [
        ("first line\x1b\rsecond line\r", "first line\nsecond line"),  # Esc-Enter / Alt-Enter
        ("first line\nsecond line\r", "first line\nsecond line"),  # Ctrl-J
        ("first line\\\rsecond line\r", "first line\nsecond line"),  # a trailing backslash
        ("\x1b[200~pasted\nlines\x1b[201~\r", "pasted\nlines"),  # a bracketed paste
        ("ends with a \\ inside\r", "ends with a \\ inside"),
    ],
)
async def test_multi_line_input(keys: PipeInput, typed: str, line: str) -> None:
    assert await _type(_reader(keys), keys, typed) == line


@pytest.mark.anyio
async def test_ctrl_d_on_an_empty_line_is_the_end_of_input(keys: PipeInput) -> None:
    reader = _reader(keys)
    assert await _type(reader, keys, "\x04") is None
    assert await _type(reader, keys, "x\x04\r") == "x"  # on a typed line it deletes forward


# -- Ctrl-C -----------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_the_ctrl_c_key_raises_sigint_and_interrupt_drops_the_line(
    keys: PipeInput,
) -> None:
    reader = _reader(keys)
    delivered: list[bool] = []
    outcome: list[str | None] = []
    with anyio.open_signal_receiver(signal.SIGINT) as signals:
        async with anyio.create_task_group() as group:

            async def receive() -> None:  # the chat's watcher
                async for _ in signals:
                    delivered.append(reader.interrupt(sticky=True))

            group.start_soon(receive)
            outcome.append(await _type(reader, keys, "half a thought", "\x03"))
            assert not reader.waiting
            outcome.append(await _type(reader, keys, "the next line\r"))
            group.cancel_scope.cancel()
    assert delivered == [True]
    assert outcome == [INTERRUPTED, "the next line"]  # the half line was dropped


@pytest.mark.anyio
async def test_a_ctrl_c_just_before_the_prompt_interrupts_it(keys: PipeInput) -> None:
    reader = _reader(keys)
    assert reader.interrupt() is False  # nothing pending, not sticky: no effect
    assert reader.interrupt(sticky=True) is False
    keys.send_text("typed ahead\r")
    with pytest.raises(InputInterrupted):
        await reader.read_line("> ", history=True)
    assert await reader.read_line("> ", history=True) == "typed ahead"


# -- completion -------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_tab_completes_a_slash_command_and_a_path(keys: PipeInput, workspace: Path) -> None:
    screen, output = _terminal()
    reader = _reader(keys, root=workspace, output=output)
    # the menu shows while typing (the command's help beside it); Tab takes the first entry
    typed = ("/mo", "?show the model", "\t\r")
    assert await _type(reader, keys, CURSOR_AT_TOP, *typed, screen=screen) == "/model"
    typed = ("read @pack", "?packages/", "\t\r")
    assert await _type(reader, keys, *typed, screen=screen) == "read @packages/"


def _completions(root: Path, text: str) -> list[tuple[str, str]]:
    completer = ChatCompleter(root)
    found = completer.get_completions(Document(text), CompleteEvent(completion_requested=True))
    return [(c.text, c.display_meta_text) for c in found]


def test_slash_commands_complete_with_their_help(tmp_path: Path) -> None:
    model, leave = COMMAND_TABLE.find("/model"), COMMAND_TABLE.find("/exit")
    assert model is not None
    assert leave is not None
    assert _completions(tmp_path, "/mo") == [("/model", model.help)]
    assert [text for text, _ in _completions(tmp_path, "/")][:3] == ["/help", "/context", "/tools"]
    assert _completions(tmp_path, "/q") == [("/quit", leave.help)]  # an alias
    assert _completions(tmp_path, "/model gp") == []  # arguments are not command names
    assert _completions(tmp_path, "// not a command") == []


def test_path_references_stay_in_the_workspace(workspace: Path) -> None:
    assert [t for t, _ in _completions(workspace, "see @")] == [
        "@docs/",
        "@packages/",
        '@"my notes.txt"',
        "@pyproject.toml",
    ]  # folders first; no .git, .venv, hidden entries or the link leading out
    assert _completions(workspace, "@../") == []
    assert _completions(workspace, "@packages/../../") == []
    assert _completions(workspace, "@/etc/") == []
    assert _completions(workspace, "@elsewhere/") == []  # a link leading out of the root
    assert [t for t, _ in _completions(workspace, "@.")] == ["@.gitignore"]
    assert [t for t, _ in _completions(workspace, '@"my')] == ['@"my notes.txt"']
    assert _completions(workspace, "mail@pack") == []  # not at a word start


# -- the status line and notices while a prompt is shown --------------------------------------


@pytest.mark.anyio
async def test_the_status_line_shows_under_the_chat_prompt_only(keys: PipeInput) -> None:
    screen, output = _terminal()
    reader = _reader(keys, output=output, status="gpt-4o-mini · 1.2k tokens · $0.01")
    typed = (CURSOR_AT_TOP, "?gpt-4o-mini · 1.2k tokens · $0.01", "hi\r")
    assert await _type(reader, keys, *typed, screen=screen) == "hi"
    screen.seek(0)
    screen.truncate()
    assert await _type(reader, keys, "y\r", history=False) == "y"
    assert "> y" in screen.getvalue()
    assert "tokens" not in screen.getvalue()


@pytest.mark.anyio
async def test_text_printed_while_a_prompt_is_shown_goes_above_it(keys: PipeInput) -> None:
    screen, output = _terminal()
    reader = _reader(keys, output=output)
    result: list[str | None] = []
    async with anyio.create_task_group() as group:

        async def read() -> None:
            result.append(await reader.read_line("> ", history=True))

        group.start_soon(read)
        await anyio.wait_all_tasks_blocked()
        keys.send_text("half")
        await _until_drawn(screen, "half")
        print("robota: MCP server 'docs' disconnected")  # e.g. a notice from another task
        await _until_drawn(screen, "disconnected")
        keys.send_text(" typed\r")
    assert result == ["half typed"]
    drawn = screen.getvalue()
    assert drawn.rindex("half") > drawn.index("disconnected")  # the prompt drawn again below


def test_the_history_path_is_in_the_robota_home() -> None:
    from robota.cli.paths import CliPaths

    assert CliPaths(home=Path("/h")).history == Path("/h/history")


def test_no_history_file_is_touched_before_the_first_chat_line(keys: PipeInput, home: Path) -> None:
    _reader(keys, history=home / "history")
    assert not (home / "history").exists()
    assert os.listdir(home) == []


@pytest.mark.anyio
async def test_a_cancelled_read_leaves_the_editor_usable(keys: PipeInput) -> None:
    # `robota run`: Ctrl-C cancels the turn, and with it a permission question waiting
    reader = _reader(keys)
    with anyio.move_on_after(0) as scope:
        await _type(reader, keys, "y")
    assert scope.cancelled_caught
    assert not reader.waiting
    assert await _type(reader, keys, "next\r") == "next"


def _text_file(fd: int) -> TextIO:
    return open(fd, closefd=False)  # closed by the caller's `with`


@pytest.mark.anyio
async def test_lines_typed_during_a_turn_are_sent_one_by_one() -> None:
    # while a turn runs the terminal is in canonical mode: its driver turns Enter into "\n",
    # which the editor would read as Ctrl-J (a newline in the line)
    master, slave = os.openpty()
    try:
        with _text_file(slave) as terminal, anyio.fail_after(20):
            reader = PromptLineReader(input=create_input(terminal), output=DummyOutput())
            os.write(master, b"first message\rsecond message\rhalf")
            assert await reader.read_line("> ", history=True) == "first message"
            assert await reader.read_line("> ", history=True) == "second message"
            os.write(master, b" typed at the prompt\r")
            assert await reader.read_line("> ", history=True) == "half typed at the prompt"
    finally:
        os.close(master)
        os.close(slave)
