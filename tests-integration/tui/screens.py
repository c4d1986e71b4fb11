"""Capture what ``robota chat`` shows, for the CLI README: scripted chats run in tmux (the
terminal tests' harness: a private tmux server, a scripted model server on 127.0.0.1, a
throwaway home and workspace) and each screen is written as plain text, runs of blank rows
squeezed to one.

Usage (``tools/capture_screens.py`` runs this file)::

    uv run --frozen python tools/capture_screens.py [--out DIR]

Writes ``DIR/*.txt`` (default ``packages/agent-cli/docs/screens``), one file per screen:

- ``chat.txt``: the greeting, a question, a ``read_file`` tool card and a Markdown answer;
- ``permission.txt``: an ``edit_file`` call waiting at its permission prompt;
- ``diff.txt``: the same edit after ``y``: its card and the diff;
- ``help.txt``: ``/help``.

Needs tmux (``apt-get install tmux``). Exits 1, naming the screen, when a chat does not show
what it should within 60 s.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE.parent))
from tui import (  # noqa: E402
    Desk,
    Reply,
    ScriptedModel,
    TmuxPane,
    prompt_back,
    text,
    tool_calls,
    wait_prompt,
)

DEFAULT_OUT = REPO / "packages" / "agent-cli" / "docs" / "screens"
WIDTH, HEIGHT = 120, 32
NOTES = "# Notes\n\nShip the 0.4 release on Friday.\nAsk Dana about the MCP demo.\n"
ANSWER = (
    "## What the notes say\n\n",
    "Two things are planned:\n\n",
    "- **ship** the 0.4 release on Friday\n",
    "- ask Dana about the MCP demo\n\n",
    "To check the release date:\n\n",
    "```bash\ngit log -1 --format=%cd v0.4\n```\n",
)


def _screen(pane: TmuxPane) -> str:
    """The pane's rows as a person sees them, trailing blank rows dropped and runs of blank
    rows (the empty middle of a tall terminal) squeezed to one."""
    rows: list[str] = []
    for row in (row.rstrip() for row in pane.screen().splitlines()):
        if row or (rows and rows[-1]):
            rows.append(row)
    while rows and not rows[-1]:
        rows.pop()
    return "\n".join(rows) + "\n"


Scene = Callable[[Desk, TmuxPane], dict[str, str]]


def _chat_scene(desk: Desk, pane: TmuxPane) -> dict[str, str]:
    wait_prompt(pane, timeout=60)
    pane.send_line("What is in notes.txt?")
    prompt_back(pane, "What is in notes.txt?", timeout=60)
    return {"chat.txt": _screen(pane)}


def _edit_scene(desk: Desk, pane: TmuxPane) -> dict[str, str]:
    wait_prompt(pane, timeout=60)
    pane.send_line("Move the release to Monday.")
    pane.wait_for("allow for this session", timeout=60)
    asked = _screen(pane)
    pane.press("y", "Enter")
    prompt_back(pane, "Move the release to Monday.", timeout=60)
    return {"permission.txt": asked, "diff.txt": _screen(pane)}


def _help_scene(desk: Desk, pane: TmuxPane) -> dict[str, str]:
    wait_prompt(pane, timeout=60)
    pane.send_line("/help")
    prompt_back(pane, "/help", timeout=60)
    return {"help.txt": _screen(pane)}


SCENES: tuple[tuple[str, Callable[[], list[Reply]], Scene], ...] = (
    (
        "chat",
        lambda: [tool_calls(("read_file", {"path": "notes.txt"})), text(*ANSWER)],
        _chat_scene,
    ),
    (
        "edit",
        lambda: [
            tool_calls(
                (
                    "edit_file",
                    {"path": "notes.txt", "old_string": "on Friday", "new_string": "on Monday"},
                )
            ),
            text("Done: the release is now on **Monday**."),
        ],
        _edit_scene,
    ),
    ("help", list, _help_scene),
)


def capture(out: Path) -> list[Path]:
    """Run every scene and write its screens under ``out``; the files written.

    Raises:
        AssertionError: a chat did not show what the scene waits for (the message holds the
            screen).
        TmuxMissingError: tmux is not installed.
    """
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for _name, replies, scene in SCENES:
        with tempfile.TemporaryDirectory(prefix="robota-screens-") as root:
            desk = Desk(Path(root))
            (desk.workspace / "notes.txt").write_text(NOTES, encoding="utf-8")
            try:
                with ScriptedModel(replies=replies()) as model:
                    desk.settings(model.url)
                    pane = desk.chat(width=WIDTH, height=HEIGHT)
                    screens = scene(desk, pane)
                    pane.press("C-d")
                    pane.wait_exit(timeout=30)
            finally:
                desk.close()
        for filename, screen in screens.items():
            path = out / filename
            path.write_text(screen, encoding="utf-8")
            written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    """The command line; 0 when every screen was written, 1 otherwise."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder for the screens")
    args = parser.parse_args(argv)
    try:
        written = capture(args.out)
    except AssertionError as failure:
        print(f"capture_screens: {failure}", file=sys.stderr)
        return 1
    for path in written:
        print(path.relative_to(REPO) if path.is_relative_to(REPO) else path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
