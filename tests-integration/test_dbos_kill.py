"""Kill tests of agent runs as DBOS workflows (``robota.durable.dbos``): a worker running the
workflow SIGKILLs itself at every step boundary, and another process finishes the workflow —
on SQLite a restart with the same executor id (DBOS recovers on launch), on a private
PostgreSQL cluster a second, already running worker that takes over the dead executor's
workflows. No effect and no settled model call may repeat, and the run's messages equal an
uncrashed run's, modulo results reported interrupted.

The worker script is ``journal_kill/dbos_agent.py``. The PostgreSQL cluster is started by the
test (``initdb`` + ``pg_ctl`` on 127.0.0.1, a free port); the Debian ``postgresql`` package must
be installed (``tests-integration/REQUIREMENTS-postgres.sh``).
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from robota.core.journal import INTERRUPTED_EFFECT_TEXT
from robota.core.messages import (
    Message,
    TextPart,
    ToolResultMessage,
    ToolResultPart,
    dump_messages,
    load_messages,
    text_of,
)

SCRIPT = Path(__file__).parent / "journal_kill" / "dbos_agent.py"
BOUNDARIES = (
    "model_before_checkpoint",
    "model_after_checkpoint",
    "start_before_checkpoint",
    "effect_started",
    "effect_done",
    "effect_after_checkpoint",
)
LINES = ("a", "b", "c")


def worker(
    mode: str, workdir: Path, url: str, executor: str, *extra: str, kill_at: str | None = None
) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "ROBOTA_KILL_AT"}
    env["ROBOTA_DBOS_URL"] = url
    env["ROBOTA_DBOS_EXECUTOR"] = executor
    if kill_at is not None:
        env["ROBOTA_KILL_AT"] = kill_at
    return subprocess.Popen(
        [sys.executable, str(SCRIPT), mode, str(workdir), *extra],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=180)
    return process.returncode, out, err


class Checker:
    """The assertions shared by every crashed-and-finished run, with counters."""

    def __init__(self, reference: tuple[Message, ...]) -> None:
        self.reference = reference
        self.effects = self.messages = self.interrupted = 0

    def check(self, label: str, workdir: Path, stdout: str, boundary: str, occurrence: int) -> None:
        document: Any = json.loads(stdout.strip().splitlines()[-1])
        assert document["text"] == "all three lines written", label
        results: list[str] = document["results"]
        assert len(results) == 3, label
        effects = Counter((workdir / "effects.txt").read_text().split())
        assert set(effects) <= set(LINES), label
        for line, result in zip(LINES, results, strict=True):
            assert effects[line] <= 1, (label, line, effects)
            if result == INTERRUPTED_EFFECT_TEXT:
                self.interrupted += 1
            else:
                assert result == f"appended {line}", label
                assert effects[line] == 1, (label, line)
            self.effects += 1
        calls = Counter((workdir / "model_calls.txt").read_text().split())
        repeated = {occurrence: 2} if boundary == "model_before_checkpoint" else {}
        assert calls == Counter({str(s): repeated.get(s, 1) for s in range(3)}), (label, calls)
        actual = tuple(load_messages(json.dumps(document["messages"])))
        assert dump_messages(actual) == dump_messages(self.expected(actual)), label
        self.messages += len(actual)

    def expected(self, actual: tuple[Message, ...]) -> tuple[Message, ...]:
        assert len(actual) == len(self.reference), "a message was lost or duplicated"
        out: list[Message] = []
        for ref, act in zip(self.reference, actual, strict=True):
            if isinstance(ref, ToolResultMessage) and isinstance(act, ToolResultMessage):
                results: list[ToolResultPart] = []
                for r, a in zip(ref.results, act.results, strict=True):
                    if text_of(a.content) == INTERRUPTED_EFFECT_TEXT:
                        r = replace(
                            r, content=(TextPart(text=INTERRUPTED_EFFECT_TEXT),), is_error=True
                        )
                    results.append(r)
                ref = ToolResultMessage(results=tuple(results))
            out.append(ref)
        return tuple(out)


def reference_run(workdir: Path, url: str) -> tuple[Message, ...]:
    code, out, err = finish(worker("run", workdir, url, "reference"))
    assert code == 0, err
    assert (workdir / "effects.txt").read_text().split() == list(LINES)
    document: Any = json.loads(out.strip().splitlines()[-1])
    return tuple(load_messages(json.dumps(document["messages"])))


def test_dbos_on_sqlite_a_restarted_worker_finishes_without_repeating_anything(
    tmp_path: Path,
) -> None:
    ref_dir = tmp_path / "reference"
    ref_dir.mkdir(mode=0o700)
    checker = Checker(reference_run(ref_dir, f"sqlite:///{ref_dir}/dbos.db"))
    runs = 0
    for boundary in BOUNDARIES:
        for occurrence in (0, 2):  # first call of a batch, and a later round
            label = f"sqlite {boundary}:{occurrence}"
            workdir = tmp_path / f"{boundary}-{occurrence}"
            workdir.mkdir(mode=0o700)
            url = f"sqlite:///{workdir}/dbos.db"
            code, _, err = finish(
                worker("run", workdir, url, "w1", kill_at=f"{boundary}:{occurrence}")
            )
            assert code == -signal.SIGKILL, (label, err)
            code, out, err = finish(worker("recover", workdir, url, "w1"))
            assert code == 0, (label, err)
            runs += 2
            checker.check(label, workdir, out, boundary, occurrence)
    assert checker.interrupted >= 4  # effect_started and effect_done, every occurrence
    print(
        f"dbos kill test (sqlite): boundaries={len(BOUNDARIES)} runs={runs} "
        f"effects_checked={checker.effects} messages_checked={checker.messages} "
        f"interrupted={checker.interrupted}"
    )


# --- PostgreSQL ---------------------------------------------------------------------------


def _pg_bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if found:
        return found[-1]
    path = shutil.which(name)
    assert path is not None, (
        f"PostgreSQL's {name} is missing: run tests-integration/REQUIREMENTS-postgres.sh"
    )
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def postgres() -> Iterator[str]:
    """A private PostgreSQL cluster on 127.0.0.1; yields ``postgresql://...@host:port``.

    initdb refuses to run as root, so as root the cluster belongs to the ``postgres`` user
    (created by the Debian package) and the server runs as that user.
    """
    root = Path(tempfile.mkdtemp(prefix="robota-pg-"))
    data = root / "data"
    as_user: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    port = _free_port()
    subprocess.run(
        [
            *as_user,
            _pg_bin("initdb"),
            "-D",
            str(data),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
        ],
        check=True,
        capture_output=True,
    )
    subprocess.run(
        [
            *as_user,
            _pg_bin("pg_ctl"),
            "-D",
            str(data),
            "-l",
            str(root / "server.log"),
            "-w",
            "-o",
            f"-p {port} -k {root} -c listen_addresses=127.0.0.1",
            "start",
        ],
        check=True,
        capture_output=True,
    )
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}"
    finally:
        subprocess.run(
            [*as_user, _pg_bin("pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
            check=False,
            capture_output=True,
        )
        shutil.rmtree(root, ignore_errors=True)


def test_dbos_on_postgres_a_second_worker_takes_over_a_killed_workers_workflow(
    tmp_path: Path, postgres: str
) -> None:
    ref_dir = tmp_path / "reference"
    ref_dir.mkdir(mode=0o700)
    checker = Checker(reference_run(ref_dir, f"{postgres}/robota_reference"))
    runs = 0
    occurrence = 1  # the second call of round 1's batch (SQLite covers occurrences 0 and 2)
    for n, boundary in enumerate(BOUNDARIES):
        label = f"postgres {boundary}:{occurrence}"
        workdir = tmp_path / boundary
        workdir.mkdir(mode=0o700)
        url = f"{postgres}/robota_case_{n}"
        # worker B first, so the database exists and B is running when A dies
        taker = worker("takeover", workdir, url, "worker-b", "worker-a")
        code, _, err = finish(
            worker("run", workdir, url, "worker-a", kill_at=f"{boundary}:{occurrence}")
        )
        assert code == -signal.SIGKILL, (label, err)
        (workdir / "go").touch()
        code, out, err = finish(taker)
        assert code == 0, (label, err)
        runs += 2
        checker.check(label, workdir, out, boundary, occurrence)
    assert checker.interrupted >= 2
    print(
        f"dbos kill test (postgres): boundaries={len(BOUNDARIES)} runs={runs} "
        f"effects_checked={checker.effects} messages_checked={checker.messages} "
        f"interrupted={checker.interrupted}"
    )
