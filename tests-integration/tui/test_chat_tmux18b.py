"""What a new user met in ``robota chat`` and ``robota run`` in tmux (issue #18, second round):
keys typed during an answer, a pane resized mid-answer, ``--no-color``, a fast Tab and Ctrl-C
in ``robota run``. Every assertion is about the screen (``capture-pane``), what reached the
model, or the exit status.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tui import (
    ROBOTA,
    Desk,
    Reply,
    ScriptedModel,
    TmuxPane,
    hang,
    prompt_back,
    prompt_rows,
    text,
    tool_calls,
    wait_prompt,
)

pytestmark = pytest.mark.integration

# SGR parameters that set a colour (30-38, 40-48, 90-97, 100-107; 39/49 only reset it)
_COLOUR = re.compile(r"^(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])$")
_SGR = re.compile(r"\x1b\[([0-9;:]*)m")


def _colours(screen: str) -> list[str]:
    """Every SGR sequence in ``screen`` that sets a colour."""
    found: list[str] = []
    for match in _SGR.finditer(screen):
        if any(_COLOUR.match(p) for p in re.split(r"[;:]", match[1])):
            found.append(match[0])
    return found


def _leave(pane: TmuxPane) -> None:
    pane.press("C-d")
    assert pane.wait_exit(timeout=30) == 0, pane.dump()
    assert "Traceback" not in pane.transcript()


def _user_texts(model: ScriptedModel) -> list[str]:
    """The text of the last user message of each chat request."""
    said: list[str] = []
    for body in model.received:
        if not isinstance(body, dict) or "messages" not in body:
            continue
        users = [m for m in body["messages"] if m.get("role") == "user"]
        content = users[-1]["content"] if users else ""
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        said.append(str(content))
    return said


# -- 1. keys typed during an answer ----------------------------------------------------------


def test_a_line_typed_during_an_answer_is_not_echoed_into_it_and_is_sent_after(
    desk: Desk,
) -> None:
    answer = text(
        "First paragraph of the answer.\n\n",
        "Second paragraph, after the user typed.\n\n",
        "The end.",
        held_after=1,
    )
    with ScriptedModel(replies=[answer, text("Queued answer.")]) as model:
        desk.settings(model.url)
        pane = desk.chat()
        wait_prompt(pane)
        pane.send_line("hello")
        pane.wait_for("First paragraph")
        pane.send_line("next question")
        pane.type("half typ")
        held = pane.settle()
        assert "next question" not in held, pane.dump()  # not echoed into the answer
        assert "half typ" not in held, pane.dump()
        answer.release()
        pane.wait_until(  # the queued line was sent; the unfinished one waits at the prompt
            lambda screen: "Queued answer." in screen and prompt_rows(pane)[-1][1] == "half typ",
            "the answer to the queued line, then the prompt holding the unfinished one",
        )
        lines = pane.lines()
        assert any(ln.strip() == "Second paragraph, after the user typed." for ln in lines)
        assert any(ln.strip() == "Queued answer." for ln in lines), pane.dump()
        # the queued line shows once, as a prompt row; the unfinished one waits in the prompt
        assert [ln for ln in lines if "next question" in ln] == ["> next question"], pane.dump()
        assert sum("First paragraph" in ln for ln in lines) == 1, pane.dump()
        pane.press("C-u")
        _leave(pane)
    assert _user_texts(model) == ["hello", "next question"]


def test_a_line_typed_ahead_never_answers_a_permission_question(desk: Desk) -> None:
    """``a`` typed (with Enter) while the answer streams, before the model asked for an edit,
    must not allow the edit for the session: a question is answered only by what is typed
    once it is shown; the early line is sent as the next chat message instead."""
    notes = desk.workspace / "notes.txt"
    notes.write_text("alpha\nbeta\n", encoding="utf-8")
    started = text("Let me edit it.", held_after=1)
    edit = tool_calls(
        ("edit_file", {"path": "notes.txt", "old_string": "beta", "new_string": "BETA"})
    )
    asks = Reply(  # some text, held, then the tool call
        chunks=(started.chunks[0], *edit.chunks),
        pause=0.01,
        held_after=1,
        gate=threading.Event(),
    )
    with ScriptedModel(replies=[asks, text("Not edited."), text("Queued.")]) as model:
        desk.settings(model.url)
        pane = desk.chat()
        wait_prompt(pane)
        pane.send_line("edit it")
        pane.wait_for("Let me edit it.")
        pane.send_line("a")  # typed ahead: meant as the next message
        pane.settle()
        asks.release()
        pane.wait_for("allow for this session")
        held = pane.settle()
        assert "allow for this session" in held, pane.dump()
        assert notes.read_text(encoding="utf-8") == "alpha\nbeta\n", pane.dump()  # not allowed
        pane.press("n", "Enter")
        pane.wait_until(lambda screen: "Queued." in screen, "the early line sent as a message")
        _leave(pane)
    assert notes.read_text(encoding="utf-8") == "alpha\nbeta\n"
    assert _user_texts(model)[-1] == "a"


def test_the_terminal_echoes_again_after_a_turn_cancelled_by_ctrl_c(desk: Desk) -> None:
    with ScriptedModel(replies=[hang()]) as model:
        desk.settings(model.url)
        # the shell keeps going after the chat (a trap, not an ignore: the chat gets Ctrl-C)
        script = (
            f"trap : INT; {ROBOTA} chat --no-title --trust; "
            "stty -a | tr ' ;' '\\n\\n' | grep -x -- '-*echo'"
        )
        with TmuxPane(
            ["sh", "-c", script], env=desk.env, cwd=desk.workspace, config_dir=desk.root
        ) as pane:
            wait_prompt(pane)
            pane.send_line("wait for me")
            pane.wait_until(lambda _: model.requests >= 1, "the request")
            pane.press("C-c")  # cancels the turn
            pane.wait_for("turn cancelled")
            pane.press("C-c")  # and leaves
            assert pane.wait_exit() == 0, pane.dump()  # the shell's status: stty's
            modes = [row for row in pane.lines() if row in ("echo", "-echo")]  # stty's word
            assert modes == ["echo"], pane.dump()


# -- 2. a resize mid-answer ----------------------------------------------------------------


def _resize(pane: TmuxPane, width: int) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
    subprocess.run(
        ["tmux", "-L", pane.socket, "resize-window", "-t", "main", "-x", str(width)],
        env=env,
        check=True,
        capture_output=True,
        timeout=10,
    )


def test_a_pane_narrowed_mid_answer_shows_each_finished_line_once(desk: Desk) -> None:
    first = "The first paragraph is long enough to wrap when the pane gets narrow: " + "x" * 40
    answer = text(
        first + "\n\n",
        "A second paragraph is still streaming when the pane is resized, ",
        "and it goes on after.\n\n",
        "Last words.",
        held_after=2,
        pause=0.2,  # each piece is drawn before the next (the live region is throttled)
    )
    with ScriptedModel(replies=[answer]) as model:
        desk.settings(model.url)
        pane = desk.chat()
        wait_prompt(pane)
        pane.send_line("tell me")
        pane.wait_for("still streaming")
        pane.settle()
        _resize(pane, 60)
        pane.settle()
        answer.release()
        prompt_back(pane, "tell me")
        joined = pane.transcript()
        assert joined.count("The first paragraph") == 1, pane.dump()
        assert joined.count("Last words.") == 1, pane.dump()
        _leave(pane)


# -- 3. --no-color and NO_COLOR --------------------------------------------------------------

MARKDOWN = (
    "# Plan\n\n",
    "Some **bold** words.\n\n",
    "| name | size |\n|---|---|\n| a.txt | 3 |\n\n",
    "```python\nx = 1\n```\n\n",
    "Done.",
)


@pytest.mark.parametrize("how", ["--no-color", "NO_COLOR"])
def test_no_color_keeps_the_markdown_rendering_without_colours(desk: Desk, how: str) -> None:
    with ScriptedModel(replies=[text(*MARKDOWN)]) as model:
        desk.settings(model.url)
        if how == "NO_COLOR":
            desk.env["NO_COLOR"] = "1"
        pane = desk.chat(*(["--no-color"] if how == "--no-color" else []))
        wait_prompt(pane)
        pane.send_line("plan?")
        prompt_back(pane, "plan?")
        lines = pane.lines()
        screen = "\n".join(lines)
        assert "Plan" in screen, pane.dump()
        for raw in ("# Plan", "**bold**", "```", "|---|"):
            assert raw not in screen, pane.dump()
        assert any(ln.strip() == "x = 1" for ln in lines), pane.dump()
        assert any("a.txt" in ln and "|" not in ln for ln in lines), pane.dump()
        coloured = pane.transcript(colours=True)
        assert _colours(coloured) == [], pane.dump()
        prompt_row = next(ln for ln in coloured.splitlines() if "plan?" in ln)
        assert not re.search(r"\x1b\[[0-9;]*\b1m", prompt_row.split("plan?")[0]), repr(prompt_row)
        _leave(pane)


# -- 4. a fast Tab -----------------------------------------------------------------------------


def test_tab_typed_in_the_same_burst_completes_a_slash_command(desk: Desk) -> None:
    with ScriptedModel(replies=[]) as model:
        desk.settings(model.url)
        pane = desk.chat()
        wait_prompt(pane)
        pane.type("/mo\t")  # one write: the characters and the Tab together
        pane.wait_until(
            lambda _: prompt_rows(pane)[-1][1].rstrip() == "/model", "the completed command"
        )
        pane.press("C-u")
        _leave(pane)
    assert model.received == []


# -- 6. Ctrl-C in `robota run` ---------------------------------------------------------------


def test_ctrl_c_in_robota_run_on_a_terminal_says_interrupted_once_and_exits_130(
    desk: Desk,
) -> None:
    with ScriptedModel(replies=[hang()]) as model:
        desk.settings(model.url)
        argv = [str(ROBOTA), "run", "--no-title", "--trust", "count to ten"]
        with TmuxPane(argv, env=desk.env, cwd=desk.workspace, config_dir=desk.root) as pane:
            pane.wait_until(lambda _: model.requests >= 1, "the request")
            pane.press("C-c")
            assert pane.wait_exit() == 130, pane.dump()
            lines = pane.lines()
            assert lines.count("robota: interrupted") == 1, pane.dump()
            assert "Traceback" not in pane.transcript()


def test_ctrl_c_in_robota_run_in_a_pipe_says_interrupted_once_and_exits_130(
    desk: Desk,
) -> None:
    with ScriptedModel(replies=[hang()]) as model:
        desk.settings(model.url)
        run = subprocess.Popen(
            [str(ROBOTA), "run", "--no-title", "--trust", "count to ten"],
            env=desk.env,
            cwd=desk.workspace,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 30
            while model.requests < 1 and run.poll() is None:
                assert time.monotonic() < deadline, "the request never came"
                time.sleep(0.05)
            run.send_signal(signal.SIGINT)
            out, err = run.communicate(timeout=30)
        finally:
            if run.poll() is None:
                run.kill()
                run.wait()
    assert run.returncode == 130, err
    assert err.splitlines().count("robota: interrupted") == 1, err
    assert "Traceback" not in err
    assert out == ""
