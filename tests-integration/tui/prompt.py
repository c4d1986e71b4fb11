"""Finding the chat's input line on the screen: a row that starts with the prompt mark (``>``,
or ``❯``/``›`` should the look change), then what is typed so far."""

from __future__ import annotations

import re

from .tmux import TmuxPane

__all__ = ["PROMPT", "prompt_back", "prompt_rows", "wait_prompt"]

PROMPT = re.compile(r"^(?:>|❯|›) ?(?P<typed>.*)$")
"""An input row; group ``typed`` is what it holds."""


def prompt_rows(pane: TmuxPane) -> list[tuple[int, str]]:
    """Every input row in the transcript: (row index, what it holds)."""
    rows: list[tuple[int, str]] = []
    for index, line in enumerate(pane.lines()):
        found = PROMPT.match(line)
        if found:
            rows.append((index, found["typed"]))
    return rows


def wait_prompt(pane: TmuxPane, *, timeout: float = 30.0) -> None:
    """Wait for the first prompt (the chat started; MCP servers connected).

    Raises:
        AssertionError: after ``timeout`` seconds, with the screen.
    """
    pane.wait_until(lambda _: bool(prompt_rows(pane)), "the prompt", timeout=timeout)


def prompt_back(pane: TmuxPane, sent: str, *, timeout: float = 30.0) -> None:
    """Wait for an empty input row below the last input row that held ``sent`` (the turn or
    command that line started has ended).

    Raises:
        AssertionError: after ``timeout`` seconds, with the screen.
    """

    def back(_: str) -> bool:
        rows = prompt_rows(pane)
        sends = [i for i, typed in rows if typed == sent]
        return bool(sends) and any(i > sends[-1] and typed == "" for i, typed in rows)

    pane.wait_until(back, f"the prompt after {sent!r} was sent", timeout=timeout)
