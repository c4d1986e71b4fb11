"""A program running in a private ``tmux`` server, driven as a person would: keys in
(``send-keys``), the screen out (``capture-pane``), the exit status read from the dead pane.

Each :class:`TmuxPane` starts its own tmux server on a unique socket name (``tmux -L``) with a
small config of its own (never the user's ``~/.tmux.conf``): a fixed window size, ``TERM``
``xterm-256color`` inside the pane and ``remain-on-exit`` so the last screen can still be read
after the program ends. :meth:`TmuxPane.close` kills the server.

The exit status comes from a small wrapper that runs the program and writes its status to a
file: tmux's own ``#{pane_dead_status}`` is not reliable (tmux 3.3a marks a pane dead as soon as
its terminal closes and, now and then, never collects the status at all).

Waiting is polling: :meth:`TmuxPane.wait_for` captures the pane every 50 ms until the text or
pattern shows, and fails with the screen in the message; nothing here sleeps and then asserts.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType

__all__ = ["TmuxMissingError", "TmuxPane", "require_tmux"]

_POLL = 0.05
# Run argv[2:] in the pane and write its exit status (128 + N for signal N) to argv[1]. The
# wrapper ignores Ctrl-C's SIGINT (it is for the program, which gets the default disposition
# back) and leaves with the program's status.
_WRAPPER = """\
import os, signal, sys
status_file, argv = sys.argv[1], sys.argv[2:]
pid = os.fork()
if pid == 0:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        os.execvp(argv[0], argv)
    finally:
        os._exit(127)
signal.signal(signal.SIGINT, signal.SIG_IGN)
status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
code = 128 - status if status < 0 else status
with open(status_file + ".part", "w") as out:
    out.write(str(code))
os.replace(status_file + ".part", status_file)
sys.exit(code)
"""
_CONFIG = """\
set -g default-terminal xterm-256color
set -g default-size {width}x{height}
set -g remain-on-exit on
set -g history-limit 20000
set -g escape-time 0
set -g status off
"""


class TmuxMissingError(RuntimeError):
    """``tmux`` is not on ``PATH``: the terminal tests need it (``.ci/run`` installs it)."""


def require_tmux() -> str:
    """The ``tmux`` executable's path.

    Raises:
        TmuxMissingError: when there is none (a failure, not a skip: CI installs tmux).
    """
    found = shutil.which("tmux")
    if found is None:
        raise TmuxMissingError(
            "tmux is not installed, and the terminal tests drive `robota chat` inside it: "
            "install it (apt-get install tmux; .ci/run does)"
        )
    return found


Target = str | re.Pattern[str]


def _find(target: Target, text: str) -> bool:
    if isinstance(target, str):
        return target in text
    return target.search(text) is not None


class TmuxPane:
    """One program in one tmux pane of a fixed size.

    Args:
        argv: The program and its arguments (run directly, no shell).
        env: The program's whole environment (the tmux server is started with it; ``TMUX``
            and ``TMUX_PANE`` are dropped so an outer tmux is never reached).
        cwd: The program's working directory.
        config_dir: Where the server's config file is written.
        width: Columns (default 120).
        height: Rows (default 40).

    Raises:
        TmuxMissingError: when tmux is not installed.
        subprocess.CalledProcessError: when tmux refuses to start the session.

    Example::

        with TmuxPane([robota, "chat"], env=env, cwd=workspace, config_dir=tmp) as pane:
            pane.wait_for("> ")
            pane.type("hello")
            pane.press("Enter")
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: Path,
        config_dir: Path,
        width: int = 120,
        height: int = 40,
    ) -> None:
        self._tmux = require_tmux()
        self.socket = f"robota-tui-{os.getpid()}-{uuid.uuid4().hex[:10]}"
        self._env = {k: v for k, v in env.items() if k not in ("TMUX", "TMUX_PANE")}
        self._env["TERM"] = "xterm-256color"
        config = config_dir / f"{self.socket}.conf"
        config.write_text(_CONFIG.format(width=width, height=height), encoding="utf-8")
        self._config = config
        self._status = config_dir / f"{self.socket}.status"
        self._socket_path: Path | None = None
        self.width, self.height = width, height
        self._tmux_run(
            "new-session",
            "-d",
            "-s",
            "main",
            "-x",
            str(width),
            "-y",
            str(height),
            "-c",
            str(cwd),
            sys.executable,
            "-c",
            _WRAPPER,
            str(self._status),
            *argv,
        )
        self._socket_path = Path(self._tmux_run("display-message", "-p", "#{socket_path}").strip())

    def _tmux_run(self, *args: str) -> str:
        done = subprocess.run(
            [self._tmux, "-L", self.socket, "-f", str(self._config), *args],
            env=self._env,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
        return done.stdout

    # -- keys --------------------------------------------------------------------------------

    def type(self, text: str) -> None:
        """Type ``text`` literally (``send-keys -l``: no key names, no Enter)."""
        self._tmux_run("send-keys", "-t", "main", "-l", text)

    def press(self, *keys: str) -> None:
        """Press keys by tmux name, in order: ``"Enter"``, ``"Up"``, ``"C-c"``, ``"C-d"``,
        ``"Escape"``, ``"Tab"``, ``"y"``."""
        self._tmux_run("send-keys", "-t", "main", *keys)

    def send_line(self, text: str) -> None:
        """Type ``text`` and press Enter."""
        self.type(text)
        self.press("Enter")

    # -- the screen --------------------------------------------------------------------------

    def screen(self, *, colours: bool = False) -> str:
        """What the pane shows now: its rows, trailing blanks trimmed (``capture-pane -p``;
        ``colours`` keeps the SGR escape sequences, ``-e``)."""
        return self._capture(colours=colours, history=False)

    def transcript(self, *, colours: bool = False) -> str:
        """Everything the pane showed that is still in its history, then the screen, wrapped
        lines joined (``capture-pane -p -J -S -``)."""
        return self._capture(colours=colours, history=True)

    def _capture(self, *, colours: bool, history: bool) -> str:
        args = ["capture-pane", "-p", "-t", "main"]
        if colours:
            args.append("-e")
        if history:
            args += ["-J", "-S", "-"]
        return self._tmux_run(*args).rstrip("\n")

    def lines(self) -> list[str]:
        """The transcript's lines, trailing blanks trimmed."""
        return [line.rstrip() for line in self.transcript().splitlines()]

    def wait_for(self, target: Target, *, timeout: float = 30.0, colours: bool = False) -> str:
        """Poll the transcript until ``target`` (a substring, or a compiled pattern searched
        for) shows; the transcript then.

        Raises:
            AssertionError: after ``timeout`` seconds, with the screen in the message.
        """
        return self.wait_until(
            lambda text: _find(target, text),
            f"{target if isinstance(target, str) else target.pattern!r}",
            timeout=timeout,
            colours=colours,
        )

    def wait_until(
        self,
        check: Callable[[str], bool],
        what: str,
        *,
        timeout: float = 30.0,
        colours: bool = False,
    ) -> str:
        """Poll the transcript until ``check(transcript)`` is true; the transcript then.

        Raises:
            AssertionError: after ``timeout`` seconds (or when the program ended and the
                check still fails), naming ``what`` and showing the screen.
        """
        deadline = time.monotonic() + timeout
        while True:
            text = self.transcript(colours=colours)
            if check(text):
                return text
            if self.exit_status() is not None:
                text = self.transcript(colours=colours)
                if check(text):
                    return text
                raise AssertionError(f"{what} never showed; the program ended:\n{self.dump()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"{what} never showed in {timeout} s:\n{self.dump()}")
            time.sleep(_POLL)

    def settle(self, *, quiet: float = 0.5, timeout: float = 30.0) -> str:
        """Wait until the screen has not changed for ``quiet`` seconds (a live region done
        redrawing); the screen then.

        Raises:
            AssertionError: when it still changes after ``timeout`` seconds (with the screen).
        """
        deadline = time.monotonic() + timeout
        last, since = self.screen(), time.monotonic()
        while time.monotonic() - since < quiet:
            if time.monotonic() > deadline:
                raise AssertionError(f"the screen kept changing for {timeout} s:\n{self.dump()}")
            time.sleep(_POLL)
            now = self.screen()
            if now != last:
                last, since = now, time.monotonic()
        return last

    def dump(self) -> str:
        """The transcript framed for a failure message."""
        rule = "-" * self.width
        return f"{rule}\n{self.transcript()}\n{rule}"

    # -- the program's end -------------------------------------------------------------------

    def exit_status(self) -> int | None:
        """The program's exit status once it ended (128 + N when signal N killed it), else
        None."""
        try:
            return int(self._status.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None

    def wait_exit(self, *, timeout: float = 30.0) -> int:
        """Wait for the program to end; its exit status.

        Raises:
            AssertionError: when it still runs after ``timeout`` seconds (with the screen).
        """
        deadline = time.monotonic() + timeout
        while (status := self.exit_status()) is None:
            if time.monotonic() > deadline:
                raise AssertionError(f"still running after {timeout} s:\n{self.dump()}")
            time.sleep(_POLL)
        return status

    def close(self) -> None:
        """Kill the tmux server (and the program, if it still runs) and remove its socket
        (tmux leaves it behind); idempotent."""
        subprocess.run(
            [self._tmux, "-L", self.socket, "kill-server"],
            env=self._env,
            capture_output=True,
            timeout=10,
            check=False,
        )
        for leftover in (self._config, self._status, self._socket_path):
            if leftover is not None:
                leftover.unlink(missing_ok=True)

    def __enter__(self) -> TmuxPane:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
