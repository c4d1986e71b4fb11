"""The terminal's echo during a chat turn (:func:`robota.cli.terminal_mode.quiet_typing`), on a
real pseudo-terminal."""

from __future__ import annotations

import os
import pty
import termios
from collections.abc import Iterator

import pytest
from robota.cli.terminal_mode import quiet_typing


@pytest.fixture
def terminal() -> Iterator[int]:
    """The follower side of a new pseudo-terminal (echo on, canonical, signals)."""
    leader, follower = pty.openpty()
    try:
        yield follower
    finally:
        os.close(leader)
        os.close(follower)


def _lflag(fd: int) -> int:
    return termios.tcgetattr(fd)[3]


def test_echo_is_off_inside_and_back_after_the_line_mode_and_signals_untouched(
    terminal: int,
) -> None:
    before = _lflag(terminal)
    assert before & termios.ECHO
    with quiet_typing(terminal) as changed:
        inside = _lflag(terminal)
        assert changed
        assert not inside & termios.ECHO
        assert inside & termios.ICANON
        assert inside & termios.ISIG
    assert _lflag(terminal) == before


def test_echo_comes_back_when_the_block_raises(terminal: int) -> None:
    with pytest.raises(KeyboardInterrupt), quiet_typing(terminal):
        raise KeyboardInterrupt
    assert _lflag(terminal) & termios.ECHO


def test_a_terminal_already_silent_is_left_silent(terminal: int) -> None:
    attributes = termios.tcgetattr(terminal)
    attributes[3] &= ~termios.ECHO
    termios.tcsetattr(terminal, termios.TCSANOW, attributes)
    with quiet_typing(terminal) as changed:
        assert not changed
    assert not _lflag(terminal) & termios.ECHO


def test_not_a_terminal_changes_nothing() -> None:
    read, write = os.pipe()
    try:
        with quiet_typing(read) as changed:
            assert not changed
    finally:
        os.close(read)
        os.close(write)
