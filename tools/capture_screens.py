"""Capture what ``robota chat`` shows, for the CLI README (``packages/agent-cli/docs/screens``).

Usage::

    uv run --frozen python tools/capture_screens.py [--out DIR]

The scenes and the tmux harness live with the terminal tests:
``tests-integration/tui/screens.py`` (this runs it).
"""

from __future__ import annotations

import runpy
from pathlib import Path

SCREENS = Path(__file__).resolve().parent.parent / "tests-integration" / "tui" / "screens.py"

if __name__ == "__main__":
    runpy.run_path(str(SCREENS), run_name="__main__")
