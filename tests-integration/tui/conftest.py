"""Fixtures for the terminal tests: a :class:`~desk.Desk` whose tmux panes are killed at the
end of each test. A machine without tmux fails these tests (never skips them): CI installs it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tui import Desk, require_tmux


@pytest.fixture
def desk(tmp_path: Path) -> Iterator[Desk]:
    """A private home and workspace; ``desk.chat(...)`` starts ``robota chat`` in tmux.

    Raises:
        tui.TmuxMissingError: when tmux is not installed (the test errors; it is not skipped).
    """
    require_tmux()
    opened = Desk(tmp_path)
    try:
        yield opened
    finally:
        opened.close()
