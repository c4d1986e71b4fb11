"""A fork server for the ``robota`` command: imports the CLI (and the provider SDKs) once,
then forks one child per run, each of which sets its environment and working directory,
points stdin at ``/dev/null`` and stdout / stderr at files, and calls the console script's
entry point ``robota.cli.main:main(argv)`` — the same function the installed ``robota`` script
calls — and exits with its status. A run costs the run, not the interpreter's start-up.

Protocol (this file run as a script): one JSON object per stdin line, ``{"argv": [...],
"env": {...}, "cwd": "...", "stdout": path, "stderr": path, "rc": path}``; the child writes its
exit status to ``rc`` last (written to a temporary name, then renamed).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, cast

__all__ = ["Zygote"]


def _child(request: Mapping[str, Any]) -> int:
    from robota.cli.main import main

    os.environ.clear()
    os.environ.update(cast(Mapping[str, str], request["env"]))
    os.chdir(str(request["cwd"]))
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    for fd, key in ((1, "stdout"), (2, "stderr")):
        target = os.open(str(request[key]), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(target, fd)
        os.close(target)
    sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the child's life is the file's
    try:
        return main(list(cast(Sequence[str], request["argv"])))
    except BaseException:
        traceback.print_exc()
        return 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()


def _serve() -> None:
    import importlib

    for module in (  # imported once, for every child
        "anthropic",
        "google.genai",
        "openai",
        "robota.cli.app",
        "robota.cli.main",
        "robota.providers.anthropic",
        "robota.providers.google",
        "robota.providers.openai",
    ):
        importlib.import_module(module)

    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped automatically
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    for line in sys.stdin:
        request = cast(dict[str, Any], json.loads(line))
        if os.fork() == 0:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            code = _child(request)
            rc = Path(str(request["rc"]))
            tmp = rc.with_suffix(".tmp")
            tmp.write_text(str(code), encoding="utf-8")
            tmp.rename(rc)
            os._exit(code)


class Zygote:
    """The fork server, as a context manager; :meth:`run` is thread-safe."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()
        self._count = 0

    def __enter__(self) -> Zygote:
        self._proc = subprocess.Popen(
            [sys.executable, __file__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._proc.stdout is not None
        assert self._proc.stdout.readline().strip() == "ready"
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            assert proc.stdin is not None
            proc.stdin.close()
            proc.wait(timeout=10)

    def run(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: Path,
        scratch: Path,
        timeout: float,
    ) -> subprocess.CompletedProcess[str]:
        """Run ``robota ARGV`` in a forked child; files go to ``scratch``.

        Raises:
            TimeoutError: the child did not finish within ``timeout`` seconds.
        """
        with self._lock:
            self._count += 1
            tag = self._count
        out, err, rc = (scratch / f"run{tag}.{suffix}" for suffix in ("out", "err", "rc"))
        request = {
            "argv": list(argv),
            "env": dict(env),
            "cwd": str(cwd),
            "stdout": str(out),
            "stderr": str(err),
            "rc": str(rc),
        }
        with self._lock:
            proc = self._proc
            assert proc is not None
            assert proc.stdin is not None
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
        deadline = time.monotonic() + timeout
        while not rc.exists():
            if time.monotonic() > deadline:
                raise TimeoutError(f"robota {' '.join(argv)} did not finish in {timeout}s")
            time.sleep(0.02)
        return subprocess.CompletedProcess(
            args=["robota", *argv],
            returncode=int(rc.read_text(encoding="utf-8")),
            stdout=out.read_text(encoding="utf-8"),
            stderr=err.read_text(encoding="utf-8"),
        )


if __name__ == "__main__":
    _serve()
