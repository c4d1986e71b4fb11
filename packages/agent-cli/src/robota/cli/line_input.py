"""Reading lines of input without a thread, so Ctrl-C can interrupt a pending read and no line
is lost.

``input()`` in a worker thread (what ``robota chat`` did before) cannot be interrupted: after a
Ctrl-C the thread stays blocked in ``input()``, swallows the next line typed, and keeps the
process from exiting cleanly. :class:`LineReader` instead waits in the event loop until the file
descriptor is readable (on a terminal in canonical mode: until a whole line was entered, the
terminal driver doing the editing) and reads what is there into its own buffer, which the chat
loop and the permission prompts share.
"""

from __future__ import annotations

import os
import sys
from typing import Protocol

import anyio

__all__ = ["InputInterrupted", "LineReader", "LineSource"]


class InputInterrupted(Exception):
    """A pending :meth:`LineReader.read_line` was interrupted (Ctrl-C); what had been typed of
    the current line is dropped."""


class LineSource(Protocol):
    """Where the chat prompt, the permission questions and the pickers read a line: the plain
    :class:`LineReader` (a pipe, a file, a terminal without line editing) or the line editor
    of :mod:`robota.cli.prompt_input` (history, multi-line editing, completion).

    The chat owns Ctrl-C through a ``SIGINT`` receiver; a source that reads keys itself (the
    terminal in raw mode) turns a Ctrl-C key into ``SIGINT`` for the process, so both kinds of
    source behave alike.
    """

    @property
    def waiting(self) -> bool:
        """True while a :meth:`read_line` waits for input."""
        ...

    def interrupt(self, *, sticky: bool = False) -> bool:
        """Make the pending :meth:`read_line` raise :class:`InputInterrupted` (with
        ``sticky``, the next one when none is pending); True when a pending read was
        interrupted."""
        ...

    async def read_line(self, prompt: str = "", *, history: bool = False) -> str | None:
        """The next line (``prompt`` shown first, on standard error), or None at the end of
        input (Ctrl-D). A line editor's line may hold newlines (multi-line input).
        ``history``: the line is a chat message, which a line editor records in its history
        and completes (answers to questions and pickers pass False, never recorded).

        Raises:
            InputInterrupted: :meth:`interrupt` was called while this waited.
        """
        ...


class LineReader:
    """Lines from one file descriptor (standard input by default), read in the event loop.

    Args:
        fd: The file descriptor to read (0: standard input). A descriptor the event loop cannot
            wait on (a regular file, ``/dev/null``) is read directly; it never blocks.

    Example:
        >>> import anyio, os
        >>> read, write = os.pipe()
        >>> _ = os.write(write, b"first\\nsecond\\n"); os.close(write)
        >>> async def demo() -> list[str | None]:
        ...     lines = LineReader(read)
        ...     return [await lines.read_line() for _ in range(3)]
        >>> anyio.run(demo)
        ['first', 'second', None]
    """

    def __init__(self, fd: int = 0) -> None:
        self._fd = fd
        self._buffer = bytearray()
        self._eof = False
        self._pollable = True
        self._scope: anyio.CancelScope | None = None
        self._interrupt_next = False

    @property
    def waiting(self) -> bool:
        """True while a :meth:`read_line` waits for input."""
        return self._scope is not None

    def interrupt(self, *, sticky: bool = False) -> bool:
        """Make the pending :meth:`read_line` raise :class:`InputInterrupted`.

        Args:
            sticky: With no read pending, make the next one raise instead (for a Ctrl-C that
                arrives just before the prompt is shown).

        Returns:
            True when a pending read was interrupted.
        """
        if self._scope is not None:
            self._scope.cancel()
            return True
        if sticky:
            self._interrupt_next = True
        return False

    async def read_line(self, prompt: str = "", *, history: bool = False) -> str | None:
        """The next line without its line ending (undecodable bytes replaced), or None at the
        end of input (an unterminated last line is returned first).

        Args:
            prompt: Written to standard error first (nothing when empty).
            history: Ignored: this reader keeps no history.

        Raises:
            InputInterrupted: :meth:`interrupt` was called while this waited.
        """
        if prompt:
            sys.stderr.write(prompt)
            sys.stderr.flush()
        while True:
            newline = self._buffer.find(b"\n")
            if newline >= 0:
                line = bytes(self._buffer[:newline])
                del self._buffer[: newline + 1]
                return line.decode(errors="replace").removesuffix("\r")
            if self._eof:
                if not self._buffer:
                    return None
                rest = bytes(self._buffer)
                self._buffer.clear()
                return rest.decode(errors="replace")
            await self._wait()
            chunk = os.read(self._fd, 65536)
            if chunk:
                self._buffer += chunk
            else:
                self._eof = True

    async def _wait(self) -> None:
        if self._interrupt_next:
            self._interrupt_next = False
            self._buffer.clear()
            raise InputInterrupted
        if not self._pollable:
            return
        with anyio.CancelScope() as scope:
            self._scope = scope
            try:
                await anyio.wait_readable(self._fd)
            except (OSError, ValueError):  # epoll refuses regular files and /dev/null
                self._pollable = False
            finally:
                self._scope = None
        if scope.cancelled_caught:
            self._buffer.clear()
            raise InputInterrupted
