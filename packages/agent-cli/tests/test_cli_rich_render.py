"""The chat's look on a terminal (issue #18): the answer as streamed Markdown, tool cards, diffs
of file edits, the status line and the full call in a permission question. Real core events go
into :class:`RichEventPrinter` with consoles that believe they are terminals; what a person
would see is the screen those bytes leave (cursor moves and line erasures applied)."""

from __future__ import annotations

import doctest
import importlib
import io
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from rich.console import Console
from robota.cli.approve import TerminalApprover
from robota.cli.render import EventPrinter
from robota.cli.tui import RichEventPrinter, StatusLine, choose_printer, markdown_stream, wants_rich
from robota.cli.tui.answer_markdown import Markdown
from robota.cli.tui.call_view import bounded_arguments
from robota.cli.tui.diffs import read_workspace_file
from robota.cli.tui.select import wants_color
from robota.cli.tui.status_line import compact_count
from robota.core.agent.events import (
    ModelResponded,
    ModelTextDelta,
    ToolCallCompleted,
    ToolCallSkipped,
    ToolCallStarted,
)
from robota.core.messages import AssistantMessage, TextPart, ToolCallPart, ToolResultPart
from robota.core.permissions import (
    Behavior,
    DecisionStep,
    PermissionDecided,
    PermissionDecision,
    PermissionMode,
    PermissionRequest,
    PermissionRequested,
)
from robota.core.testing.scripted import ScriptedProvider, text, tool_call, usage
from robota.core.usage import Usage
from robota.framework.interactive import InteractiveSession, SessionConfig

_CONTROL = re.compile(r"\x1b\[([0-9;?]*)([A-Za-z])|\r|\n|[^\x1b\r\n]+")


def screen(raw: str) -> list[str]:
    """The lines a terminal shows after ``raw``: text, ``\\r``, ``\\n``, cursor up (``ESC[nA``)
    and line erasure (``ESC[2K``) applied, colors dropped."""
    rows: list[list[str]] = [[]]
    row = col = 0
    for match in _CONTROL.finditer(raw):
        token = match.group(0)
        if token == "\r":
            col = 0
        elif token == "\n":
            row, col = row + 1, 0
            while len(rows) <= row:
                rows.append([])
        elif match.group(2):
            argument, command = match.group(1), match.group(2)
            if command == "A":
                row = max(0, row - int(argument or 1))
            elif command == "K":
                del rows[row][0 if argument == "2" else col :]
        else:
            line = rows[row]
            line.extend(" " * (col - len(line)))
            line[col : col + len(token)] = list(token)
            col += len(token)
    return ["".join(r).rstrip() for r in rows]


class Clock:
    """Monotonic seconds that move only when told."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Terminal:
    """Standard output and standard error as two 72-column terminals."""

    def __init__(self) -> None:
        self.out_file, self.err_file = io.StringIO(), io.StringIO()
        self.out = self._console(self.out_file)
        self.err = self._console(self.err_file)

    @staticmethod
    def _console(file: io.StringIO) -> Console:
        return Console(
            file=file, force_terminal=True, width=72, height=24, color_system="truecolor"
        )

    @property
    def answer(self) -> list[str]:
        return screen(self.out_file.getvalue())

    @property
    def cards(self) -> list[str]:
        return screen(self.err_file.getvalue())


@pytest.fixture
def term() -> Terminal:
    return Terminal()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return workspace


def shown_rows(term: Terminal) -> list[str]:
    """The answer's rows on the screen, without the empty rows under the last one."""
    rows = term.answer
    while rows and not rows[-1]:
        rows.pop()
    return rows


def printer_for(
    term: Terminal, clock: Clock, workspace: Path | None = None, **more: Any
) -> RichEventPrinter:
    return RichEventPrinter(
        out=term.out,
        err=term.err,
        workspace=workspace,
        refresh_interval=0,  # every delta redraws: the live frames are exercised
        clock=clock,
        animate=False,
        **more,
    )


def stream(printer: RichEventPrinter, answer: str, size: int = 3) -> None:
    for start in range(0, len(answer), size):
        printer.emit(ModelTextDelta(text=answer[start : start + size]))


def responded() -> ModelResponded:
    return ModelResponded(message=AssistantMessage(), usage=Usage(), model="m")


def started(
    call_id: str, name: str, arguments: dict[str, Any], *, now: Clock | None = None
) -> ToolCallStarted:
    call = ToolCallPart(id=f"p_{call_id}", name=name, arguments=arguments)
    return ToolCallStarted(call=call, call_id=call_id, arguments=arguments)


def completed(call_id: str, name: str, output: str, *, error: bool = False) -> ToolCallCompleted:
    result = ToolResultPart(
        call_id=f"p_{call_id}", name=name, content=(TextPart(text=output),), is_error=error
    )
    return ToolCallCompleted(call_id=call_id, result=result, executed=not error)


ANSWER = (
    "# Release notes\n\n"
    "The parser is *faster* now.\n\n"
    "```python\ndef parse(text):\n    return text.split()\n```\n\n"
    "Then run `make test`.\n"
)


class TestStreamedMarkdown:
    def test_headings_and_code_are_rendered_not_printed_raw(
        self, term: Terminal, clock: Clock
    ) -> None:
        printer = printer_for(term, clock)
        stream(printer, ANSWER)
        assert printer.mid_line  # the answer is being drawn: the waiting line keeps away
        printer.emit(responded())
        assert not printer.mid_line
        shown = "\n".join(term.answer)
        assert "Release notes" in shown
        assert "# Release" not in shown
        assert "```" not in shown
        assert "def parse(text):" in shown
        assert "make test" in shown
        assert "`make test`" not in shown
        # highlighted: the code line carries 24-bit colors
        raw = term.out_file.getvalue()
        assert re.search(r"\x1b\[38;2;[0-9;]+mdef", raw)
        # the live region was redrawn while it streamed, and left no partial frame behind
        assert "\x1b[2K" in raw
        for text_ in ("Release notes", "The parser is faster now.", "Then run make test."):
            assert shown.count(text_) == 1, shown

    def test_segments_around_a_tool_call_are_each_printed_once(
        self, term: Terminal, clock: Clock
    ) -> None:
        printer = printer_for(term, clock)
        stream(printer, "Let me look at the file first.")
        printer.emit(started("c1", "read_file", {"path": "notes.txt"}))
        printer.emit(completed("c1", "read_file", "hello"))
        stream(printer, "The file says hello.")
        printer.finish()
        answer = [line for line in term.answer if line]
        assert answer == ["Let me look at the file first.", "The file says hello."]

    def test_a_long_answer_is_committed_block_by_block(self, clock: Clock) -> None:
        def written(count: int) -> tuple[float, list[str], list[str]]:
            """Characters written per character of an answer of ``count`` paragraphs."""
            term = Terminal()
            paragraphs = [f"Paragraph {n} says something about item {n}." for n in range(count)]
            answer = "\n\n".join(paragraphs) + "\n"
            printer = printer_for(term, clock)
            stream(printer, answer, size=7)
            printer.finish()
            shown = [line for line in term.answer if line]
            return len(term.out_file.getvalue()) / len(answer), shown, paragraphs

        short, shown, paragraphs = written(30)
        assert shown == paragraphs
        long, shown, paragraphs = written(300)
        assert shown == paragraphs
        # each redraw shows only the unfinished block, so ten times the answer writes ten
        # times as much (redrawing all of it would write ~ten times as much per character)
        assert long < 1.2 * short

    def test_redraws_are_throttled(self, term: Terminal, clock: Clock) -> None:
        printer = RichEventPrinter(
            out=term.out, err=term.err, refresh_interval=0.5, clock=clock, animate=False
        )
        stream(printer, "one two three four five six seven", size=1)
        frames = term.out_file.getvalue().count("\x1b[2K")
        clock.now += 1
        printer.emit(ModelTextDelta(text=" eight"))
        assert term.out_file.getvalue().count("\x1b[2K") > frames
        printer.finish()
        assert [line for line in term.answer if line] == ["one two three four five six seven eight"]
        assert frames <= 2  # the first delta drew; the 30 after it within 0.5 s did not

    def test_a_held_stream_shows_the_finished_paragraph_and_the_heading_once(
        self, term: Terminal, clock: Clock
    ) -> None:
        """The stream stops mid-list (the model is slow): the heading is committed while the
        live region showed it; the screen must not keep that stale frame under it."""
        printer = RichEventPrinter(
            out=term.out, err=term.err, refresh_interval=0.5, clock=clock, animate=False
        )
        printer.emit(ModelTextDelta(text="## Release notes\n\n"))
        printer.emit(ModelTextDelta(text="Three changes:\n\n- faster"))  # within 0.5 s
        assert shown_rows(term) == ["Release notes", "", "Three changes:", "", " • faster"]
        printer.emit(ModelTextDelta(text=" start\n"))
        printer.finish()
        assert shown_rows(term) == ["Release notes", "", "Three changes:", "", " • faster start"]

    def test_blocks_are_spaced_as_in_the_whole_text(self, term: Terminal, clock: Clock) -> None:
        answer = (
            "## Release notes\n\nThree changes:\n\n- faster start\n- fewer prompts\n\n"
            "```python\nprint('hello')\n```\n\n> quoted\n\nThat is all.\n"
        )
        printer = printer_for(term, clock)
        stream(printer, answer, size=5)
        printer.finish()
        whole = Terminal()
        whole.out.print(Markdown(answer, code_theme=markdown_stream.CODE_THEME))
        assert shown_rows(term) == shown_rows(whole)
        assert shown_rows(term)[4:8] == [" • faster start", " • fewer prompts", "", ""]
        assert shown_rows(term)[8] == " print('hello')"  # the blank row, then the code's padding

    def test_work_is_linear_in_the_answer(
        self, clock: Clock, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """One long code block (nothing is committed until it closes): the characters handed
        to the Markdown parser per character of the answer do not grow with the answer."""
        parsed: list[int] = []

        def counting(source: str, **options: Any) -> Markdown:
            parsed.append(len(source))
            return Markdown(source, **options)

        monkeypatch.setattr(markdown_stream, "Markdown", counting)

        def parsed_per_character(count: int) -> float:
            parsed.clear()
            rows = "".join(f"x{n:05d} = {n:05d}\n" for n in range(count))
            answer = f"```python\n{rows}```\n"
            console = Console(file=io.StringIO(), force_terminal=True, width=40, height=6)
            answer_stream = markdown_stream.MarkdownStream(console, refresh_interval=0, clock=clock)
            for start in range(0, len(answer), 16):
                answer_stream.feed(answer[start : start + 16])
            answer_stream.finish()
            return sum(parsed) / len(answer)

        short, long = parsed_per_character(100), parsed_per_character(1000)
        assert long < 1.2 * short  # redrawing all of the block would parse ~10x per character


class TestToolCards:
    def test_a_finished_call_shows_its_outcome_time_argument_and_a_bounded_preview(
        self, term: Terminal, clock: Clock
    ) -> None:
        printer = printer_for(term, clock)
        printer.emit(started("c1", "shell", {"command": "seq 20"}))
        assert printer.mid_line  # the spinner is on the screen
        assert "shell(command=seq 20)" in "\n".join(term.cards)
        clock.now += 2.5
        printer.emit(completed("c1", "shell", "\n".join(str(n) for n in range(1, 21))))
        assert not printer.mid_line
        assert term.cards[:8] == [
            "⏺ shell(command=seq 20) ✓ 2.5s",
            "  ⎿ 1",
            "    2",
            "    3",
            "    4",
            "    5",
            "    6",
            "    … +14 lines",
        ]

    def test_a_failed_call_is_marked(self, term: Terminal, clock: Clock) -> None:
        printer = printer_for(term, clock)
        printer.emit(started("c1", "read_file", {"path": "missing.txt"}))
        clock.now += 0.25
        printer.emit(completed("c1", "read_file", "missing.txt does not exist", error=True))
        assert term.cards[:2] == [
            "⏺ read_file(path=missing.txt) ✗ 0.2s",
            "  ⎿ missing.txt does not exist",
        ]

    def test_denied_and_skipped_calls_get_their_own_cards(
        self, term: Terminal, clock: Clock
    ) -> None:
        printer = printer_for(term, clock)
        printer.emit(started("c1", "shell", {"command": "rm -rf build"}))
        printer.emit(PermissionRequested(tool_name="shell", call_id="c1", argument="rm -rf build"))
        assert not printer.mid_line  # the spinner left the screen for the question
        printer.emit(PermissionDecided(tool_name="shell", call_id="c1", behavior="deny"))
        printer.emit(completed("c1", "shell", "the user denied this call", error=True))
        call = ToolCallPart(id="p2", name="frobnicate", arguments={})
        printer.emit(
            ToolCallSkipped(call=call, reason="unknown_tool", message="no tool named frobnicate")
        )
        assert printer.denied == 1
        assert [line for line in term.cards if line] == [
            "⏺ shell(command=rm -rf build) ⊘ denied 0.0s",
            "  ⎿ the user denied this call",
            "⊘ frobnicate unknown tool",
            "  ⎿ no tool named frobnicate",
        ]

    def test_a_call_still_running_when_the_turn_ends_says_so(
        self, term: Terminal, clock: Clock
    ) -> None:
        printer = printer_for(term, clock)
        printer.emit(started("c1", "shell", {"command": "sleep 100"}))
        printer.finish()
        assert [line for line in term.cards if line] == ["⏺ shell(command=sleep 100) ⊘ cancelled"]


class TestDiffs:
    def test_an_edit_shows_the_files_diff(self, term: Terminal, clock: Clock, ws: Path) -> None:
        (ws / "app.py").write_text("import os\n\nDEBUG = True\nPORT = 80\n")
        printer = printer_for(term, clock, ws)
        arguments = {"path": "app.py", "old_string": "DEBUG = True", "new_string": "DEBUG = False"}
        printer.emit(started("c1", "edit_file", arguments))
        (ws / "app.py").write_text("import os\n\nDEBUG = False\nPORT = 80\n")  # the tool's edit
        printer.emit(completed("c1", "edit_file", "Edited app.py: replaced 1 occurrence"))
        assert [line for line in term.cards if line] == [
            "⏺ edit_file(path=app.py) ✓ 0.0s",
            "  ⎿ Edited app.py: replaced 1 occurrence",
            "    --- a/app.py",
            "    +++ b/app.py",
            "    @@ -1,4 +1,4 @@",
            "     import os",
            "    -DEBUG = True",
            "    +DEBUG = False",
            "     PORT = 80",
        ]
        raw = term.err_file.getvalue()
        assert re.search(r"\x1b\[[0-9;]*31m-DEBUG = True", raw)  # removals red
        assert re.search(r"\x1b\[[0-9;]*32m\+DEBUG = False", raw)  # additions green

    def test_a_long_diff_is_bounded(self, term: Terminal, clock: Clock, ws: Path) -> None:
        printer = printer_for(term, clock, ws)
        content = "".join(f"line {n}\n" for n in range(200))
        printer.emit(started("c1", "write_file", {"path": "new.txt", "content": content}))
        (ws / "new.txt").write_text(content)
        printer.emit(completed("c1", "write_file", "Created new.txt (1890 bytes, 200 lines)"))
        cards = [line for line in term.cards if line]
        assert cards[2:5] == ["    --- a/new.txt", "    +++ b/new.txt", "    @@ -0,0 +1,200 @@"]
        assert cards[-2:] == ["    +line 76", "    … +123 lines"]  # 80 of 203 diff lines

    def test_files_outside_the_workspace_are_never_read(
        self, term: Terminal, clock: Clock, ws: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        outside = ws.parent / "outside"
        outside.mkdir()
        secret = outside / "secret.txt"
        secret.write_text("TOP-SECRET-VALUE\n")
        (ws / "link.txt").symlink_to(secret)
        opened: list[str] = []
        real_open = os.open

        def spy(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
            opened.append(os.fsdecode(path))
            return real_open(path, flags, *args, **kwargs)

        monkeypatch.setattr(os, "open", spy)
        printer = printer_for(term, clock, ws)
        for n, path in enumerate(("../outside/secret.txt", str(secret), "link.txt")):
            arguments = {"path": path, "content": "replaced\n"}
            printer.emit(started(f"c{n}", "write_file", arguments))
            secret.write_text("TOP-SECRET-VALUE\nreplaced\n")
            printer.emit(completed(f"c{n}", "write_file", "Overwrote it"))
        shown = "\n".join(term.cards)
        assert "TOP-SECRET-VALUE" not in shown
        assert "---" not in shown  # no diff at all
        assert not [p for p in opened if "outside" in p]
        assert read_workspace_file(ws, "link.txt") is None

    def test_only_regular_small_text_files_are_read(self, ws: Path) -> None:
        (ws / "big.txt").write_bytes(b"x" * ((1 << 20) + 1))
        (ws / "bin.dat").write_bytes(b"\x00\x01")
        (ws / "dir").mkdir()
        os.mkfifo(ws / "fifo")
        (ws / "ok.txt").write_text("fine\n")
        assert [read_workspace_file(ws, n) for n in ("big.txt", "bin.dat", "dir", "fifo")] == [
            None
        ] * 4
        assert read_workspace_file(ws, "ok.txt") == "fine\n"
        assert read_workspace_file(ws, str(ws / "ok.txt")) == "fine\n"


class TestStatusLine:
    def test_without_a_session_it_names_the_model_tokens_and_cost(self) -> None:
        seen = {"claude-sonnet-4-5": Usage(input_tokens=12_300, output_tokens=850)}
        status = StatusLine(provider_type="anthropic", usage=lambda: seen, model="x")
        assert status.text() == "x · 12.3k in / 850 out · $0.0496"  # 12,300 x $3 + 850 x $15 / M

    @pytest.mark.anyio
    async def test_a_real_turn_edits_a_file_and_the_status_line_follows_the_session(
        self, term: Terminal, clock: Clock, ws: Path, tmp_path: Path
    ) -> None:
        """The edit is made by the real ``edit_file`` tool in a real session; the printer
        shows the answer, the card with its diff, and the status line after the turn."""
        (ws / "notes.md").write_text("# Notes\n\ncolour: red\n")
        provider = ScriptedProvider(
            [
                [
                    text("I'll fix the spelling."),
                    tool_call(
                        "t1",
                        "edit_file",
                        {"path": "notes.md", "old_string": "colour", "new_string": "color"},
                    ),
                    usage(input_tokens=1500, output_tokens=40),
                ],
                [
                    text("Done: **colour** is now *color*."),
                    usage(input_tokens=1600, output_tokens=9),
                ],
            ]
        )
        config = SessionConfig(
            provider=provider,
            model="m",
            workspace=ws,
            title=False,
            permission_mode=PermissionMode.BYPASS,
            background_dir=tmp_path / "bg",
            checkpoint_dir=tmp_path / "cp",
        )
        printer = printer_for(term, clock, ws)
        printer.status = StatusLine(
            provider_type="openai-compatible", usage=lambda: printer.usage_by_model
        )
        async with await InteractiveSession.start(config) as session:
            session.subscribe(printer)
            printer.follow(session)
            await session.submit("fix the spelling in notes.md")
            printer.finish()
            breakdown = session.context_breakdown()
        assert (ws / "notes.md").read_text() == "# Notes\n\ncolor: red\n"
        assert [line for line in term.answer if line] == [
            "I'll fix the spelling.",
            "Done: colour is now color.",
        ]
        cards = [line for line in term.cards if line]
        assert cards[0] == "⏺ edit_file(path=notes.md) ✓ 0.0s"
        assert "    -colour: red" in cards
        assert "    +color: red" in cards
        context = f"context {compact_count(breakdown.total)}"  # the window of "m" is unknown
        assert cards[-1] == f"m · 3.1k in / 49 out · cost unknown · {context}"


def request(tool: str, arguments: dict[str, Any], reason: str) -> PermissionRequest:
    decision = PermissionDecision(
        behavior=Behavior.ASK, step=DecisionStep.MODE, reason=reason, tool_name=tool
    )
    return PermissionRequest(
        tool_name=tool,
        argument=str(arguments.get("path")),
        arguments_text=json.dumps(arguments),
        reason=reason,
        decision=decision,
    )


@pytest.fixture
def ask() -> Callable[..., tuple[str, str]]:
    def run(req: PermissionRequest, answer: str, workspace: Path | None) -> tuple[str, str]:
        err = io.StringIO()
        panel = io.StringIO()
        console = Console(file=panel, force_terminal=True, width=72, color_system="truecolor")
        approver = TerminalApprover(
            reader=lambda: answer, err=err, console=console, workspace=workspace
        )
        approval = anyio.run(approver, req)
        return approval.kind, "\n".join(screen(panel.getvalue())) + "\n" + err.getvalue()

    return run


class TestPermissionQuestion:
    def test_the_full_call_and_the_proposed_diff_are_shown(
        self, ask: Callable[..., tuple[str, str]], ws: Path
    ) -> None:
        (ws / "app.py").write_text("import os\n\nDEBUG = True\n")
        arguments = {
            "path": "app.py",
            "old_string": "DEBUG = True",
            "new_string": "DEBUG = False",
            "replace_all": False,
        }
        kind, shown = ask(request("edit_file", arguments, "edit_file modifies files"), "a", ws)
        assert kind == "allow_session"
        assert "edit_file wants to run" in shown
        for line in (
            '"path": "app.py",',
            '"old_string": "DEBUG = True",',
            '"new_string": "DEBUG = False",',
            '"replace_all": false',
            "why: edit_file modifies files",
            "-DEBUG = True",
            "+DEBUG = False",
        ):
            assert line in shown, line
        assert shown.endswith("[y] allow once   [a] allow for this session   [n] deny > ")

    def test_long_values_are_cut_with_a_count_of_what_is_hidden(
        self, ask: Callable[..., tuple[str, str]], ws: Path
    ) -> None:
        content = "".join(f"row {n:04d}\n" for n in range(500))  # 4,500 characters
        arguments = {"path": "rows.txt", "content": content}
        kind, shown = ask(request("write_file", arguments, "writes a file"), "n", ws)
        assert kind == "deny"
        words = " ".join(shown.replace("│", " ").split())
        # the first 6 lines of the value, what is hidden, the last 3 lines
        assert '"content": "row 0000\\nrow 0001\\n' in words
        assert (
            "row 0005\\n… (+4,419 characters hidden, 491 more lines) …"
            "row 0497\\nrow 0498\\nrow 0499\\n"
        ) in words
        assert "+row 0000" in shown
        assert "+row 0076" in shown
        assert "+row 0077" not in shown
        assert "… +423 lines" in shown
        # the diff is cut too: y/a wait until the whole call was viewed
        assert shown.endswith("[v] view all first (4,419 characters not shown)   [n] deny > ")

    def test_bounded_arguments_keep_short_values_whole(self) -> None:
        text_ = bounded_arguments('{"command": "ls -la", "timeout": 5}')
        assert json.loads(text_) == {"command": "ls -la", "timeout": 5}
        assert bounded_arguments("not json " * 100, limit=10) == (
            "not js… (+890 characters hidden) …son "
        )
        many = json.dumps({"s": "".join(f"{n}\n" for n in range(12))})
        assert json.loads(bounded_arguments(many)) == {
            "s": "0\n1\n2\n3\n4\n5\n… (+6 characters hidden, 3 more lines) …9\n10\n11\n"
        }


class TestChoosingThePrinter:
    def test_plain_outside_a_terminal_with_json_or_a_dumb_terminal(self, ws: Path) -> None:
        class Tty(io.StringIO):
            def isatty(self) -> bool:
                return True

        env: dict[str, str] = {"TERM": "xterm"}
        assert wants_rich(json_mode=False, no_color=False, out=Tty(), env=env)
        assert not wants_rich(json_mode=False, no_color=False, out=io.StringIO(), env=env)
        assert not wants_rich(json_mode=True, no_color=False, out=Tty(), env=env)
        assert not wants_rich(json_mode=False, no_color=False, out=Tty(), env={"TERM": "dumb"})
        # no colour is still the rendering: only its colours go
        assert wants_rich(json_mode=False, no_color=True, out=Tty(), env=env)
        assert wants_rich(json_mode=False, no_color=False, out=Tty(), env={"NO_COLOR": "1"})
        assert not wants_color(no_color=True, env=env)
        assert not wants_color(no_color=False, env={"NO_COLOR": "1"})
        assert wants_color(no_color=False, env={"NO_COLOR": ""})
        printer = choose_printer(json_mode=True, no_color=False, workspace=ws)
        assert type(printer) is EventPrinter
        assert printer.json_mode


@pytest.mark.parametrize("module", ["robota.cli.tui.status_line", "robota.cli.tui.call_view"])
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0
    assert result.attempted > 0
