"""The CLI's own rows at a terminal's width (issue #18): the chat's greeting and ``/help`` are
wrapped by words, never cut inside a word or an argument (``bypa`` / ``ss``, ``[on`` /
``|off]``); away from a terminal they stay one line each. ``robota sessions list|show`` show
stored titles and message text through :func:`~robota.cli.terminal_text.shown`."""

from __future__ import annotations

import doctest
import fcntl
import io
import os
import struct
import sys
import termios
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from robota.cli import terminal_wrap
from robota.cli.chat import COMMANDS
from robota.cli.chat_commands import COMMAND_TABLE
from robota.cli.main import main
from robota.cli.terminal_wrap import terminal_columns, write_wrapped
from robota.core.messages import AssistantMessage, TextPart, ToolCallPart, UserMessage
from robota.session import SessionRecord, SQLiteSessionStore


@pytest.fixture
def tty() -> Iterator[tuple[io.TextIOWrapper, int]]:
    """A real terminal 60 columns wide: the writer's end and the reader's descriptor."""
    reader, writer = os.openpty()
    fcntl.ioctl(writer, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 60, 0, 0))
    stream = open(writer, "w", encoding="utf-8", closefd=True)  # noqa: SIM115
    try:
        yield stream, reader
    finally:
        stream.close()
        os.close(reader)


def read_rows(reader: int) -> list[str]:
    data = os.read(reader, 65536).decode("utf-8")
    return data.replace("\r\n", "\n").rstrip("\n").split("\n")


def test_the_greeting_is_wrapped_by_words_at_the_terminals_width(
    tty: tuple[io.TextIOWrapper, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    stream, reader = tty
    assert terminal_columns(stream) == 60
    greeting = f"robota: session ses_0123456789abcdef0123 — {COMMANDS}"
    write_wrapped(stream, greeting, indent=8)
    rows = read_rows(reader)
    assert len(rows) > 1
    assert all(len(row) <= 60 for row in rows), rows
    assert rows[0].startswith("robota: session ses_0123456789abcdef0123 — /help")
    assert all(row.startswith(" " * 8) and row[8] != " " for row in rows[1:]), rows
    assert " ".join(row.strip() for row in rows) == greeting  # no word cut, none lost
    assert any("/web-search [on|off]" in row for row in rows), rows


def test_away_from_a_terminal_the_greeting_stays_one_line() -> None:
    out = io.StringIO()
    write_wrapped(out, f"robota: session ses_1 — {COMMANDS}", indent=8)
    assert out.getvalue() == f"robota: session ses_1 — {COMMANDS}\n"


def test_help_rows_wrap_under_the_help_column() -> None:
    one_per_command = COMMAND_TABLE.help_lines()
    rows = COMMAND_TABLE.help_lines(72)
    assert all(len(row) <= 72 for row in rows), rows
    assert len(rows) > len(one_per_command)  # some help texts are longer than 72 columns
    column = one_per_command[0].index("list the slash commands")
    continued = [row for row in rows if not row.lstrip().startswith("/")]
    assert continued
    assert all(row[:column].isspace() and row[column] != " " for row in continued), continued
    assert " ".join(" ".join(rows).split()) == " ".join(" ".join(one_per_command).split())
    permissions = next(row for row in rows if row.lstrip().startswith("/permissions"))
    assert "bypass" in permissions or any(row.strip().endswith("bypass") for row in rows)
    assert not any(row.rstrip().endswith(("bypa", "[on")) for row in rows), rows


def test_docstring_examples_run() -> None:
    result = doctest.testmod(terminal_wrap)
    assert result.failed == 0
    assert result.attempted > 0


HOSTILE_TITLE = "fix\x1b[2J\x1b]0;owned\x07 bug\nrobota: forged row"
HOSTILE_TEXT = "here\x1b[31m red\u202e and\nnext line"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("ROBOTA_HOME", str(home))

    async def store() -> None:
        async with SQLiteSessionStore(home / "sessions.db") as sessions:
            record = SessionRecord(
                id="ses_0123456789abcdef0123",
                title=HOSTILE_TITLE,
                model="m",
                messages=(
                    UserMessage(parts=(TextPart(text=HOSTILE_TEXT),)),
                    AssistantMessage(
                        parts=(
                            TextPart(text=HOSTILE_TEXT),
                            ToolCallPart(id="c1", name="read\x1b[2Kfile", arguments={"p": "x"}),
                        )
                    ),
                ),
            )
            await sessions.create(record)

    anyio.run(store)
    return home


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_sessions_list_escapes_the_title_even_in_a_pipe(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sessions", "list"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    [row] = out.splitlines()  # the title's newline cannot forge a second row
    assert row.endswith("fix\\x1b[2J\\x1b]0;owned\\x07 bug\\nrobota: forged row")


def test_sessions_show_escapes_message_text_at_a_terminal(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = Tty()
    monkeypatch.setattr(sys, "stdout", out)
    assert main(["sessions", "show", "ses_0123456789abcdef0123"]) == 0
    shown = out.getvalue()
    assert "\x1b" not in shown
    assert "\u202e" not in shown
    assert "title=fix\\x1b[2J\\x1b]0;owned\\x07 bug\\nrobota: forged row" in shown
    assert "user: here\\x1b[31m red\\u202e and\nnext line\n" in shown
    assert "assistant: here\\x1b[31m red\\u202e and\nnext line\n" in shown
    assert "tool call: read\\x1b[2Kfile" in shown


def test_sessions_show_in_a_pipe_keeps_the_stored_message_text(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sessions", "show", "ses_0123456789abcdef0123"]) == 0
    out = capsys.readouterr().out
    assert f"user: {HOSTILE_TEXT}\n" in out
    assert "title=fix\\x1b[2J" in out  # the title is escaped everywhere
