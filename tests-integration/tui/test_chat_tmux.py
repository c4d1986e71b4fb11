"""``robota chat`` as a person uses it (issue #18, "Tested as a person uses it"): the real console
script runs in a tmux pane (a real terminal, 120x40, ``TERM=xterm-256color``) against a scripted
Chat Completions server on 127.0.0.1 (``model.py``); keys go in with ``send-keys`` and every
assertion is about what the screen shows (``capture-pane``), what reached the model, what
changed on disk, and the exit status.
"""

from __future__ import annotations

import json
import re
import stat
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from robota.cli.paths import CliPaths

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tui import (
    PROMPT,
    Desk,
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

RECORDING_SERVER = Path(__file__).resolve().parent.parent / "mcp_servers" / "recording_server.py"
NOTES = "alpha\nbeta\ngamma\ndelta\n"
PERMISSION = re.compile(r"allow for (?:this )?session", re.IGNORECASE)
ELAPSED = r"\d+(?:\.\d+)?\s?m?s\b"
# model, input and output tokens, cost in USD, context used, in that order on one row
STATUS = r"{model}\b.*\b{tokens_in} in\b.*\b{tokens_out} out\b.*\$\d+\.\d+.*context \d+%"


def _count(pattern: re.Pattern[str], at_least: int) -> Callable[[str], bool]:
    return lambda screen: len(pattern.findall(screen)) >= at_least


def _poll(check: Callable[[], bool], what: str, pane: TmuxPane, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen in {timeout} s:\n{pane.dump()}")
        time.sleep(0.05)


def _leave(pane: TmuxPane) -> None:
    """Ctrl-D at an empty prompt: the chat ends with exit status 0, no traceback."""
    pane.press("C-d")
    assert pane.wait_exit(timeout=30) == 0, pane.dump()
    assert "Traceback" not in pane.transcript()


def _card(pane: TmuxPane, name: str, *, timeout: float = 30.0) -> str:
    """Wait for a tool card: the tool's name, ✓ and an elapsed time on one row; that row."""
    card = re.compile(rf"^.*{re.escape(name)}\b.*✓.*{ELAPSED}.*$", re.MULTILINE)
    found = card.search(pane.wait_for(card, timeout=timeout))
    assert found is not None
    return found[0]


# -- the greeting and /help --------------------------------------------------------------------


def test_the_greeting_names_the_session_and_help_and_the_prompt_waits(desk: Desk) -> None:
    with ScriptedModel(replies=[]) as model:
        desk.settings(model.url)
        pane = desk.chat()
        wait_prompt(pane)
        screen = pane.transcript()
        assert re.search(r"ses_[0-9a-f]{8,}", screen), pane.dump()
        assert "/help" in screen, pane.dump()
        [(_, typed)] = prompt_rows(pane)
        assert typed == ""
        _leave(pane)
    assert model.received == []


def test_slash_help_lists_the_commands_without_asking_the_model(desk: Desk) -> None:
    with ScriptedModel(replies=[]) as model:
        desk.settings(model.url)
        pane = desk.chat()
        wait_prompt(pane)
        pane.send_line("/help")
        prompt_back(pane, "/help")
        lines = pane.lines()
        start = max(i for i, line in enumerate(lines) if PROMPT.match(line) and "/help" in line)
        listed = "\n".join(lines[start + 1 :])
        for command in ("/context", "/tools", "/model", "/mcp", "/resume", "/compact", "/exit"):
            assert re.search(rf"^\s*{re.escape(command)}\b", listed, re.MULTILINE), pane.dump()
        _leave(pane)
    assert model.received == []


# -- a streamed Markdown answer ------------------------------------------------------------


def test_a_streamed_markdown_answer_is_rendered_not_shown_raw(desk: Desk) -> None:
    answer = text(
        "## Release notes\n\n",
        "Three changes:\n\n- faster start\n",
        "- fewer prompts\n- a new `/help`\n\n",
        '```python\nprint("hello")\n```\n\n',
        "That is all.",
        held_after=2,
    )
    with ScriptedModel(replies=[answer]) as model:
        desk.settings(model.url)
        pane = desk.chat()
        wait_prompt(pane)
        pane.send_line("what changed?")
        # a finished paragraph shows while the rest of the answer is still held back
        pane.wait_for("Three changes:")
        answer.release()
        prompt_back(pane, "what changed?")
        screen = pane.transcript()
        lines = pane.lines()
        assert "```" not in screen, pane.dump()
        assert not any(line.lstrip().startswith("#") for line in lines), pane.dump()
        heading = [line for line in lines if "Release notes" in line]
        assert len(heading) == 1, pane.dump()  # drawn once, not once per streamed piece
        for item in ("faster start", "fewer prompts", "a new /help"):
            assert any(re.match(rf"^\s*\S\s+{re.escape(item)}$", ln) for ln in lines), item
        assert any(line.strip() == 'print("hello")' for line in lines), pane.dump()
        # the heading is styled: escape sequences on its row
        [styled] = [ln for ln in pane.transcript(colours=True).splitlines() if "Release" in ln]
        assert "\x1b[" in styled, repr(styled)
        _leave(pane)


def test_a_half_streamed_answer_shows_each_line_once(desk: Desk) -> None:
    answer = text("## Release notes\n\n", "Three changes:\n\n- faster", " start\n", held_after=2)
    with ScriptedModel(replies=[answer]) as model:
        desk.settings(model.url)
        pane = desk.chat()
        wait_prompt(pane)
        pane.send_line("what changed?")
        pane.wait_for("Release notes")
        held = pane.settle()  # the stream waits here; what a person looks at meanwhile
        answer.release()
        prompt_back(pane, "what changed?")
        _leave(pane)
    rows = [row.strip() for row in held.splitlines()]
    assert rows.count("Release notes") == 1, held
    assert "Three changes:" in rows, held  # a finished paragraph is shown while the list streams


# -- a tool card -----------------------------------------------------------------------------


def test_a_tool_call_is_a_card_with_name_check_mark_and_elapsed_time(desk: Desk) -> None:
    (desk.workspace / "notes.txt").write_text(NOTES, encoding="utf-8")
    replies = [tool_calls(("read_file", {"path": "notes.txt"})), text("The notes list four words.")]
    with ScriptedModel(replies=replies) as model:
        desk.settings(model.url)
        pane = desk.chat()
        wait_prompt(pane)
        pane.send_line("read notes.txt")
        card = _card(pane, "read_file")
        assert "notes.txt" in card, card
        prompt_back(pane, "read notes.txt")
        _leave(pane)
    result = model.received[1]["messages"][-1]
    assert result["role"] == "tool"
    assert "gamma" in result["content"]  # the real tool read the real file


# -- the status line -------------------------------------------------------------------------


def test_the_status_line_shows_model_tokens_cost_and_context(desk: Desk) -> None:
    replies = [text("Hello.", usage=(640, 345)), text("Again.", usage=(300, 55))]
    with ScriptedModel(replies=replies) as model:
        desk.settings(model.url)
        pane = desk.chat()
        wait_prompt(pane)
        pane.send_line("hi")
        prompt_back(pane, "hi")
        first = STATUS.format(model="gpt-4o-mini", tokens_in="640", tokens_out="345")
        pane.wait_for(re.compile(first, re.MULTILINE))
        pane.send_line("again")
        prompt_back(pane, "again")
        # summed over the turns, redrawn in place: one status line on the screen
        now = STATUS.format(model="gpt-4o-mini", tokens_in="940", tokens_out="400")
        pane.wait_for(re.compile(now, re.MULTILINE))
        assert len(re.findall(r"context \d+%", pane.screen())) == 1, pane.dump()
        _leave(pane)


# -- permission prompts answered by keys, and the diff of an edit -------------------------


def _edit(old: str, new: str) -> tuple[str, dict[str, str]]:
    return ("edit_file", {"path": "notes.txt", "old_string": old, "new_string": new})


def _answer(pane: TmuxPane, key: str) -> None:
    pane.press(key, "Enter")


def test_permission_prompts_answered_with_n_y_and_a(desk: Desk) -> None:
    notes = desk.workspace / "notes.txt"
    notes.write_text(NOTES, encoding="utf-8")
    replies = [
        tool_calls(_edit("beta", "BETA")),
        text("Not edited."),
        tool_calls(_edit("beta", "BETA")),
        text("Edited once."),
        tool_calls(_edit("gamma", "GAMMA")),
        text("Edited twice."),
        tool_calls(_edit("delta", "DELTA")),
        text("Edited without asking."),
    ]
    with ScriptedModel(replies=replies) as model:
        desk.settings(model.url)
        pane = desk.chat()
        wait_prompt(pane)

        pane.send_line("edit it")
        screen = pane.wait_until(_count(PERMISSION, 1), "the first permission prompt")
        asked = screen[screen.rfind("edit it") :]
        assert "edit_file" in asked, pane.dump()
        assert "notes.txt" in asked, pane.dump()
        assert "BETA" in asked, pane.dump()  # the whole call: what would be written too
        _answer(pane, "n")
        prompt_back(pane, "edit it")
        assert notes.read_text() == NOTES  # denied: the file is as it was
        denied = model.received[1]["messages"][-1]
        assert denied["role"] == "tool"
        assert "denied" in denied["content"]

        pane.send_line("edit it now")
        pane.wait_until(_count(PERMISSION, 2), "the second permission prompt")
        _answer(pane, "y")
        prompt_back(pane, "edit it now")
        assert notes.read_text() == NOTES.replace("beta", "BETA")

        pane.send_line("and gamma")
        pane.wait_until(_count(PERMISSION, 3), "the third permission prompt")
        _answer(pane, "a")
        prompt_back(pane, "and gamma")
        assert notes.read_text() == "alpha\nBETA\nGAMMA\ndelta\n"

        pane.send_line("and delta")  # allowed for the session: no question this time
        prompt_back(pane, "and delta")
        assert len(PERMISSION.findall(pane.transcript())) == 3, pane.dump()
        assert notes.read_text() == "alpha\nBETA\nGAMMA\nDELTA\n"
        _leave(pane)
    # the lines typed at the prompt are kept, the answers to the questions are not
    kept = CliPaths.from_env(desk.env).history.read_text(encoding="utf-8").splitlines()
    entries = {line.removeprefix("+") for line in kept if not line.startswith("#")}
    assert {"edit it", "edit it now", "and gamma", "and delta"} <= entries
    assert entries.isdisjoint({"n", "y", "a"})


def test_a_file_edit_is_shown_as_a_unified_diff(desk: Desk) -> None:
    notes = desk.workspace / "notes.txt"
    notes.write_text(NOTES, encoding="utf-8")
    replies = [tool_calls(_edit("beta\ngamma", "beta\nGAMMA\nepsilon")), text("Done.")]
    with ScriptedModel(replies=replies) as model:
        desk.settings(model.url, permissions={"allow": ["edit_file"]})
        pane = desk.chat()
        wait_prompt(pane)
        pane.send_line("edit it")
        prompt_back(pane, "edit it")
        lines = [line.strip() for line in pane.lines()]
        assert notes.read_text() == "alpha\nbeta\nGAMMA\nepsilon\ndelta\n"
        # the changed lines, with unchanged context around them
        assert any(re.fullmatch(r"(?:\d+\s*)?-\s?gamma", ln) for ln in lines), pane.dump()
        assert any(re.fullmatch(r"(?:\d+\s*)?\+\s?GAMMA", ln) for ln in lines), pane.dump()
        assert any(re.fullmatch(r"(?:\d+\s*)?\+\s?epsilon", ln) for ln in lines), pane.dump()
        assert not any(re.fullmatch(r"(?:\d+\s*)?[-+]\s?beta", ln) for ln in lines), pane.dump()
        assert any(line.endswith("beta") for line in lines), pane.dump()
        _leave(pane)


# -- Ctrl-C mid-turn, then Ctrl-D or a second Ctrl-C ------------------------------------


@pytest.mark.parametrize(("key", "status"), [("C-d", 0), ("C-c", 130)])
def test_ctrl_c_mid_turn_cancels_it_then_ctrl_d_or_ctrl_c_exits(
    desk: Desk, key: str, status: int
) -> None:
    with ScriptedModel(replies=[hang(), text("Back again.")]) as model:
        desk.settings(model.url)
        pane = desk.chat()
        wait_prompt(pane)
        pane.send_line("think for a long time")
        _poll(lambda: model.requests == 1, "the request to the model", pane)
        pane.press("C-c")
        pane.wait_for(re.compile(r"cancel", re.IGNORECASE))
        prompt_back(pane, "think for a long time")
        assert pane.exit_status() is None  # one Ctrl-C cancels the turn, not the chat
        if key == "C-d":  # the chat still works: the next line is a turn
            pane.send_line("are you there?")
            pane.wait_for("Back again.")
            prompt_back(pane, "are you there?")
        pane.press(key)
        assert pane.wait_exit(timeout=30) == status, pane.dump()
        assert "Traceback" not in pane.transcript()


# -- history ---------------------------------------------------------------------------------


def _holds(pane: TmuxPane, typed: str) -> None:
    """Wait until the last input row holds ``typed``."""
    pane.wait_until(
        lambda _: bool(rows := prompt_rows(pane)) and rows[-1][1] == typed,
        f"{typed!r} in the input",
    )


def test_up_brings_back_the_previous_line_in_this_chat_and_the_next(desk: Desk) -> None:
    with ScriptedModel(replies=[text("Four.")]) as model:
        desk.settings(model.url)
        pane = desk.chat()
        wait_prompt(pane)
        pane.send_line("what is two plus two?")
        prompt_back(pane, "what is two plus two?")
        pane.press("Up")
        _holds(pane, "what is two plus two?")
        pane.press("C-u")
        _holds(pane, "")
        _leave(pane)

        again = desk.chat()  # a new chat: the history was kept
        wait_prompt(again)
        again.press("Up")
        _holds(again, "what is two plus two?")
        again.press("C-u")
        _holds(again, "")
        _leave(again)
    assert len(model.received) == 1
    history = CliPaths.from_env(desk.env).history
    assert stat.S_IMODE(history.stat().st_mode) == 0o600  # owner-only
    assert "what is two plus two?" in history.read_text(encoding="utf-8")


# -- completion ----------------------------------------------------------------------------


def test_tab_completes_slash_commands_and_file_references(desk: Desk) -> None:
    (desk.workspace / "notes.txt").write_text("the launch code is 7319\n", encoding="utf-8")
    with ScriptedModel(replies=[text("It is 7319.")]) as model:
        desk.settings(model.url)
        pane = desk.chat()
        wait_prompt(pane)
        pane.type("/comp")
        # the menu offers it (the greeting names it once), then Tab takes it
        pane.wait_until(lambda screen: screen.count("/compact") >= 2, "/compact offered")
        pane.press("Tab")
        _holds(pane, "/compact")
        pane.press("C-u")
        _holds(pane, "")
        pane.type("what does @no")
        pane.wait_for("notes.txt")
        pane.press("Tab")
        _holds(pane, "what does @notes.txt")
        pane.type(" say?")
        pane.press("Enter")
        pane.wait_for("It is 7319.")
        prompt_back(pane, "what does @notes.txt say?")
        _leave(pane)
    [request] = model.received
    assert "the launch code is 7319" in json.dumps(request["messages"])  # attached


# -- a configured stdio MCP server -------------------------------------------------------


def test_a_configured_stdio_mcp_server_tool_is_called(desk: Desk, tmp_path: Path) -> None:
    record = tmp_path / "record.txt"
    server = {
        "type": "stdio",
        "command": sys.executable,
        "args": [str(RECORDING_SERVER)],
        "env": {"RECORD_FILE": str(record)},
    }
    replies = [tool_calls(("mcp__rec__record", {"text": "from the chat"})), text("Recorded.")]
    with ScriptedModel(replies=replies) as model:
        desk.settings(
            model.url,
            mcp_servers={"rec": server},
            permissions={"allow": ["mcp__rec__record"]},
        )
        pane = desk.chat()
        wait_prompt(pane, timeout=60)
        pane.send_line("record something")
        _card(pane, "mcp__rec__record")
        prompt_back(pane, "record something")
        _leave(pane)
    assert record.read_text().splitlines()[1:] == ["call from the chat"]
    offered = {tool["function"]["name"] for tool in model.received[0]["tools"]}
    assert "mcp__rec__record" in offered
    result = model.received[1]["messages"][-1]
    assert json.dumps(result["content"]).startswith('"recorded from the chat')
