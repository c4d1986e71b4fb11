"""The terminal's echo while a chat turn runs: off, so keys typed ahead are not printed into the
middle of the streamed answer (the line editor replays them at the next prompt,
:func:`robota.cli.prompt_input.keep_type_ahead`).

Only ``ECHO`` changes: the terminal stays in canonical mode (typed lines are kept whole by the
driver, Backspace still edits them) and ``ISIG`` stays on (Ctrl-C still sends ``SIGINT``). A
permission question asked during the turn reads through the line editor, which puts the
terminal in raw mode and draws what is typed itself, then puts back the echo-less mode.
"""

from __future__ import annotations

import os
import termios
from collections.abc import Generator
from contextlib import contextmanager, suppress

__all__ = ["quiet_typing"]


def _echo(fd: int, *, on: bool) -> None:
    attributes = termios.tcgetattr(fd)
    lflag = attributes[3]
    attributes[3] = lflag | termios.ECHO if on else lflag & ~termios.ECHO
    if attributes[3] != lflag:
        termios.tcsetattr(fd, termios.TCSANOW, attributes)  # TCSANOW: typed keys are kept


@contextmanager
def quiet_typing(fd: int = 0) -> Generator[bool]:
    """Turn the terminal's echo off on ``fd`` for the ``with`` block; put it back as it was
    when the block ends in any way (an exception, a cancellation, Ctrl-C).

    Args:
        fd: The terminal's file descriptor (standard input by default).

    Yields:
        True when the echo was turned off; False when ``fd`` is not a terminal (or its modes
        cannot be read), and nothing is changed.

    Example:
        >>> read, write = os.pipe()
        >>> with quiet_typing(read) as changed:  # a pipe is no terminal
        ...     changed
        False
        >>> os.close(read); os.close(write)
    """
    try:
        was_on = os.isatty(fd) and bool(termios.tcgetattr(fd)[3] & termios.ECHO)
        if was_on:
            _echo(fd, on=False)
    except (OSError, termios.error):
        was_on = False
    try:
        yield was_on
    finally:
        if was_on:
            with suppress(OSError, termios.error):  # the terminal went away
                _echo(fd, on=True)
