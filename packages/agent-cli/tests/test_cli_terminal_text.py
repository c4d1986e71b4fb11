"""The one sanitizer of terminal-bound text (robota.cli.terminal_text) and the permission
question's ``[v] view all`` when part of a call is not on the screen."""

from __future__ import annotations

import doctest
import importlib
import io
import json

import anyio
import pytest
from rich.console import Console
from robota.cli.approve import TerminalApprover
from robota.cli.terminal_text import shown
from robota.core.permissions import Behavior, DecisionStep, PermissionDecision, PermissionRequest


def test_what_a_terminal_would_act_on_is_escaped() -> None:
    hostile = "a\x1b]0;T\x07b\x9b2Jc\x7fd\u202ee\u2066f\u200bg\u2028h\ufeffi\U000e0041"
    assert shown(hostile) == (
        "a\\x1b]0;T\\x07b\\x9b2Jc\\x7fd\\u202ee\\u2066f\\u200bg\\u2028h\\ufeffi\\U000e0041"
    )


def test_text_of_every_script_passes_unchanged() -> None:
    text = "한국어\u3000日本語 café naïve\u00a0x 👩\u200d💻 \ue0a0"
    assert shown(text) == text


def test_lines_and_tabs_kept_only_when_asked() -> None:
    assert shown("a\r\nb\tc\rd\r", keep_lines=True) == "a\nb\tc\\rd"
    assert shown("a\nb\tc") == "a\\nb\\tc"


def _request(arguments: dict[str, object]) -> PermissionRequest:
    decision = PermissionDecision(
        behavior=Behavior.ASK, step=DecisionStep.MODE, reason="asks", tool_name="shell"
    )
    return PermissionRequest(
        tool_name="shell",
        argument=None,
        arguments_text=json.dumps(arguments),
        reason="asks",
        decision=decision,
    )


def _ask(arguments: dict[str, object], answers: list[str]) -> tuple[str, str, str]:
    panel, err = io.StringIO(), io.StringIO()
    console = Console(file=panel, force_terminal=False, width=100)
    approver = TerminalApprover(reader=lambda: answers.pop(0), err=err, console=console)
    approval = anyio.run(approver, _request(arguments))
    return approval.kind, panel.getvalue(), err.getvalue()


LONG = (
    "echo start\n"
    + "".join(f"echo step {i}\n" for i in range(40))
    + "rm -rf MIDDLE\n"
    + ("".join(f"echo more {i}\n" for i in range(40)))
)


def test_a_call_with_a_hidden_middle_is_viewed_whole_before_y_counts() -> None:
    kind, panel, err = _ask({"command": LONG}, ["y", "y"])
    assert kind == "allow_once"
    first, _, rest = panel.partition("the whole call")
    assert "rm -rf MIDDLE" not in first  # cut from the panel...
    assert "characters hidden" in first
    assert "rm -rf MIDDLE" in rest  # ...shown whole before the second y
    assert "[v] view all first (" in err
    assert err.endswith("[y] allow once   [a] allow for this session   [n] deny > ")


@pytest.mark.parametrize(("answers", "kind"), [(["v", "a"], "allow_session"), (["n"], "deny")])
def test_view_then_allow_or_deny(answers: list[str], kind: str) -> None:
    viewed = answers[0] == "v"
    got, panel, _ = _ask({"command": LONG}, answers)
    assert got == kind
    assert ("rm -rf MIDDLE" in panel) is viewed


def test_a_short_call_asks_at_once() -> None:
    kind, panel, err = _ask({"command": "ls -la"}, ["y"])
    assert kind == "allow_once"
    assert "view all" not in err
    assert "ls -la" in panel


@pytest.mark.parametrize("module", ["robota.cli.terminal_text", "robota.cli.tui.call_arguments"])
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0
    assert result.attempted > 0
