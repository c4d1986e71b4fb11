"""The tmux driver itself (``tmux.py``): keys reach the program through a real terminal, the
screen comes back, exit statuses are read right (tmux marks the pane dead before it knows the
status),
a wait that fails shows the screen, and a machine without tmux gets a clear error."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tui import TmuxMissingError, TmuxPane, require_tmux

pytestmark = pytest.mark.integration


def _pane(tmp_path: Path, script: str) -> TmuxPane:
    require_tmux()
    return TmuxPane(
        [sys.executable, "-c", script],
        env=dict(os.environ),
        cwd=tmp_path,
        config_dir=tmp_path,
        width=80,
        height=20,
    )


@pytest.mark.parametrize(("code", "status"), [("0", 0), ("3", 3)])
def test_the_exit_status_is_read_from_the_dead_pane(tmp_path: Path, code: str, status: int) -> None:
    script = f"import os, sys; print('cols', os.get_terminal_size().columns); sys.exit({code})"
    with _pane(tmp_path, script) as pane:
        assert pane.wait_exit(timeout=30) == status
        assert "cols 80" in pane.transcript()


def test_a_signal_reads_as_128_plus_its_number(tmp_path: Path) -> None:
    with _pane(tmp_path, "import os, signal; os.kill(os.getpid(), signal.SIGTERM)") as pane:
        assert pane.wait_exit(timeout=30) == 128 + 15


def test_keys_reach_the_program_at_a_terminal_and_ctrl_c_is_sigint(tmp_path: Path) -> None:
    script = (
        "import os, sys\n"
        "print('TERM=' + os.environ['TERM'], 'tty' if sys.stdin.isatty() else 'pipe')\n"
        "try:\n"
        "    print('got', input('? '))\n"
        "    input('again? ')\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted'); sys.exit(7)\n"
    )
    with _pane(tmp_path, script) as pane:
        pane.wait_for("? ")
        pane.send_line("hello there")
        pane.wait_for("got hello there")
        assert "TERM=xterm-256color tty" in pane.screen()
        pane.press("C-c")
        assert pane.wait_exit(timeout=30) == 7
        assert "interrupted" in pane.transcript()


def test_a_wait_that_fails_shows_the_screen(tmp_path: Path) -> None:
    script = "import time; print('only this'); time.sleep(60)"
    with _pane(tmp_path, script) as pane:
        pane.wait_for("only this")
        with pytest.raises(AssertionError, match=r"'never' never showed in 0.2 s:\n-+\nonly this"):
            pane.wait_for("never", timeout=0.2)


def test_no_tmux_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(TmuxMissingError, match=r"tmux is not installed.*apt-get install tmux"):
        require_tmux()
