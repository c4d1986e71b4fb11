"""What the outsider durability tests share: running the worker processes, reading their marker
files, and recording the verdict of each attempt for the figures line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

HERE = Path(__file__).resolve().parent
JOURNAL_WORKER = HERE / "journal_worker.py"
SESSION_WORKER = HERE / "session_worker.py"
KILLED = -9
T = TypeVar("T")
R = TypeVar("R")


@dataclass(kw_only=True, slots=True)
class Verdict:
    """The outcome of one attempt.

    Attributes:
        promise: Which promise (1-8) it attacks.
        held: True when the promise held.
        detail: What happened (shown in the assertion message and the report).
        reasked: Settled decisions asked again (approver or hook calls for a settled call).
        lost: Messages (or settled results) that should be stored and are not.
        repeated: Effects that ran more than once.
        broken_parts: The cases of the attempt that broke, for the detail line.
    """

    promise: int
    held: bool = True
    detail: str = ""
    reasked: int = 0
    lost: int = 0
    repeated: int = 0
    broken_parts: list[str] = field(default_factory=list[str])

    def fail(self, part: str) -> None:
        """Mark one case of the attempt as broken."""
        self.held = False
        self.broken_parts.append(part)

    def message(self) -> str:
        parts = "; ".join(self.broken_parts[:6])
        more = f" (+{len(self.broken_parts) - 6} more)" if len(self.broken_parts) > 6 else ""
        return f"promise {self.promise} broken: {parts}{more}. {self.detail}".strip()


class Ledger:
    """Every attempt's verdict in this pytest process, by test name."""

    def __init__(self) -> None:
        self.verdicts: dict[str, Verdict] = {}

    def record(self, name: str, verdict: Verdict) -> None:
        self.verdicts[name] = verdict

    def line(self) -> str:
        verdicts = list(self.verdicts.values())
        held = sum(v.held for v in verdicts)
        return (
            f"kill test(outsider): tried={len(verdicts)} held={held} "
            f"broken={len(verdicts) - held} reasked={sum(v.reasked for v in verdicts)} "
            f"lost={sum(v.lost for v in verdicts)} repeated={sum(v.repeated for v in verdicts)}"
        )


LEDGER = Ledger()


def private_dir(path: Path) -> Path:
    """Create ``path`` (and its parents) owner-only and return it."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path, 0o700)
    return path


def environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OUTSIDER_KILL_AT", "ROBOTA_KILL_AT")}
    env.update(extra)
    return env


def run(
    script: Path, *args: str, kill_at: str | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """Run a worker to completion (or to its SIGKILL)."""
    extra = {"OUTSIDER_KILL_AT": kill_at} if kill_at is not None else {}
    return subprocess.run(
        [sys.executable, str(script), *args],
        env=environment(**extra),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def spawn(script: Path, *args: str) -> subprocess.Popen[str]:
    """Start a worker in the background."""
    return subprocess.Popen(
        [sys.executable, str(script), *args],
        env=environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_file(path: Path, process: subprocess.Popen[str] | None, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if process is not None and process.poll() is not None:
            out, err = process.communicate()
            raise AssertionError(f"worker ended before {path.name}: {out}\n{err}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {path}")
        time.sleep(0.02)


def kill(process: subprocess.Popen[str]) -> str:
    """SIGKILL a worker this test started (if it still runs), reap it; its stdout."""
    if process.poll() is None:
        process.kill()
    out, _ = process.communicate(timeout=30)
    return out


def last_json(output: str) -> Any:
    lines = [line for line in output.strip().splitlines() if line.startswith("{")]
    if not lines:
        raise AssertionError(f"no JSON line in worker output: {output!r}")
    return json.loads(lines[-1])


def lines_of(path: Path) -> Counter[str]:
    return Counter(path.read_text().split()) if path.exists() else Counter()


def parallel(fn: Callable[[T], R], items: Sequence[T], workers: int = 3) -> list[R]:
    """``[fn(item) for item in items]`` with up to ``workers`` at a time (each item runs its own
    worker processes in its own folder)."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(fn, items))
