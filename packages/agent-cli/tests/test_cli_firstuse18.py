"""What a new user's first ``robota chat`` showed (issue #18): tool cards naming an MCP tool's
arguments, a card's time that leaves out the permission question, and the status line's cost
before the first answer. The cards come from real sessions (scripted provider, real tools,
the permission question answered by an approver that takes its time on an injected clock)."""

from __future__ import annotations

import doctest
import io
from pathlib import Path

import pytest
from rich.console import Console
from robota.cli.render import EventPrinter, key_argument
from robota.cli.tui import RichEventPrinter, StatusLine
from robota.core.permissions import Approval, PermissionMode, PermissionRequest
from robota.core.testing.scripted import ScriptedProvider, text, tool_call
from robota.core.usage import Usage
from robota.framework.interactive import InteractiveSession, SessionConfig

pytestmark = pytest.mark.anyio


class Clock:
    """Monotonic seconds that move only when told."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_call_without_a_known_key_argument_shows_its_first_two() -> None:
    assert key_argument({"a": 2, "b": 3}) == "a=2, b=3"
    assert key_argument({"a": 2, "b": 3, "c": 4}) == "a=2, b=3, ..."
    assert key_argument({"tags": ["x", "y"], "opts": {"deep": True}}) == (
        'tags=["x","y"], opts={"deep":true}'
    )
    assert key_argument({"text": "x" * 100}) == f"text={'x' * 21}..."
    assert key_argument({"text": "\x1b[2Jboom\r"}) == "text=\\x1b[2Jboom\\r"
    assert key_argument({"\x1b]0;t\x07": 1}) == "\\x1b]0;t\\x07=1"
    assert key_argument({}) == ""
    # a known key argument still wins, wherever it is
    assert key_argument({"limit": 5, "path": "README.md"}) == "path=README.md"


class _SlowAnswer:
    """Answers every permission question with "allow once" after ``seconds`` on ``clock``."""

    def __init__(self, clock: Clock, seconds: float) -> None:
        self.clock = clock
        self.seconds = seconds
        self.asked: list[str] = []

    async def __call__(self, request: PermissionRequest) -> Approval:
        self.asked.append(request.tool_name)
        self.clock.now += self.seconds
        return Approval(kind="allow_once")


async def _edit_with_a_question(tmp_path: Path, printer: EventPrinter, clock: Clock) -> _SlowAnswer:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.md").write_text("colour\n")
    provider = ScriptedProvider(
        [
            [
                tool_call(
                    "t1",
                    "edit_file",
                    {"path": "notes.md", "old_string": "colour", "new_string": "color"},
                )
            ],
            [text("Done.")],
        ]
    )
    approver = _SlowAnswer(clock, 3.8)
    config = SessionConfig(
        provider=provider,
        model="m",
        workspace=workspace,
        title=False,
        permission_mode=PermissionMode.DEFAULT,
        approver=approver,
        background_dir=tmp_path / "bg",
        checkpoint_dir=tmp_path / "cp",
    )
    async with await InteractiveSession.start(config) as session:
        session.subscribe(printer)
        await session.submit("fix the spelling")
        printer.finish()
    assert (workspace / "notes.md").read_text() == "color\n"
    return approver


async def test_the_plain_card_times_the_call_from_its_permission_decision(
    tmp_path: Path,
) -> None:
    clock = Clock()
    out, err = io.StringIO(), io.StringIO()
    approver = await _edit_with_a_question(
        tmp_path, EventPrinter(out=out, err=err, clock=clock), clock
    )
    assert approver.asked == ["edit_file"]
    assert err.getvalue().splitlines() == ["  ⏺ edit_file(path=notes.md) ✓ 0.0s"]  # not 3.8s


async def test_the_rich_card_leaves_out_the_time_the_question_was_asked(tmp_path: Path) -> None:
    clock = Clock()
    err_file = io.StringIO()
    printer = RichEventPrinter(
        out=Console(file=io.StringIO(), force_terminal=True, width=72),
        err=Console(file=err_file, force_terminal=True, width=72, color_system=None),
        clock=clock,
        animate=False,
    )
    approver = await _edit_with_a_question(tmp_path, printer, clock)
    assert approver.asked == ["edit_file"]
    cards = [line for line in err_file.getvalue().splitlines() if "⏺" in line]
    assert cards[-1].endswith("⏺ edit_file(path=notes.md) ✓ 0.0s"), cards


def test_the_status_line_says_cost_unknown_before_the_first_answer_too() -> None:
    usage: dict[str, Usage] = {}
    local = StatusLine(provider_type="openai-compatible", model="local", usage=lambda: usage)
    assert local.text() == "local · 0 in / 0 out · cost unknown"
    usage["local"] = Usage(input_tokens=1200, output_tokens=40)
    assert local.text() == "local · 1.2k in / 40 out · cost unknown"
    priced = StatusLine(provider_type="openai-chat", model="gpt-4o-mini", usage=dict)
    assert priced.text() == "gpt-4o-mini · 0 in / 0 out · $0.0000"


def test_the_render_docstring_examples_run() -> None:
    from robota.cli import render

    result = doctest.testmod(render)
    assert result.failed == 0
    assert result.attempted >= 2
