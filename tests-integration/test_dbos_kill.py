"""Kill tests of agent runs as DBOS workflows (``robota.durable.dbos``): a worker running the
workflow SIGKILLs itself at a step boundary (or is SIGKILLed while the workflow waits for an
outside response), and another process finishes the workflow — on SQLite a restart with the
same executor id (DBOS recovers on launch), on a private PostgreSQL cluster a second, already
running worker that takes over the dead executor's workflows.

No effect may repeat; no checkpointed model call may repeat, and one sent without a
checkpointed response is refused unless the recovering worker opts in; no settled decision is
asked again (an approver that would now say no is not consulted about a call admitted before
the kill); a tool loaded through ``tool_search`` is dispatched after recovery; a durable wait
survives a kill and answers only its own request; and the run's messages equal an uncrashed
run's, modulo results reported interrupted (or denied by the approver that now says no, for
calls not admitted before the kill).

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
import time
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
DENIED = "Permission denied"


def worker(
    mode: str,
    workdir: Path,
    url: str,
    executor: str,
    *extra: str,
    kill_at: str | None = None,
    **settings: str,
) -> subprocess.Popen[str]:
    """Start ``dbos_agent.py``; ``settings`` become ``ROBOTA_<NAME>`` variables (``scenario``,
    ``approver``, ``resend``, ``answer``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROBOTA_")}
    env["ROBOTA_DBOS_URL"] = url
    env["ROBOTA_DBOS_EXECUTOR"] = executor
    if kill_at is not None:
        env["ROBOTA_KILL_AT"] = kill_at
    for name, value in settings.items():
        env[f"ROBOTA_{name.upper()}"] = value
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


def last(out: str) -> Any:
    return json.loads(out.strip().splitlines()[-1])


def lines_of(path: Path) -> Counter[str]:
    return Counter(path.read_text().split()) if path.exists() else Counter()


class Checker:
    """The assertions shared by every crashed-and-finished run, with the figures of its
    ``kill test(<backend>)`` line."""

    def __init__(self, reference: tuple[Message, ...], backend: str) -> None:
        self.reference = reference
        self.backend = backend
        self.boundaries: set[str] = set()
        self.runs = self.effects = self.messages = self.interrupted = 0
        self.reasked = self.lost = self.refused = 0

    def check(self, label: str, workdir: Path, stdout: str, boundary: str, occurrence: int) -> None:
        """The ``lines`` scenario."""
        self.boundaries.add(boundary)
        document: Any = last(stdout)
        assert document["text"] == "all three lines written", label
        results: list[str] = document["results"]
        assert len(results) == 3, label
        effects = lines_of(workdir / "effects.txt")
        assert set(effects) <= set(LINES), label
        for line, result in zip(LINES, results, strict=True):
            assert effects[line] <= 1, (label, line, effects)
            if result == INTERRUPTED_EFFECT_TEXT:
                self.interrupted += 1
            else:
                assert result == f"appended {line}", label
                assert effects[line] == 1, (label, line)
            self.effects += 1
        check_model_calls(label, workdir, boundary, occurrence, 3)
        self.compare(label, document)

    def check_approver(
        self, label: str, workdir: Path, out: str, boundary: str, occurrence: int
    ) -> None:
        """The ``approver`` scenario: calls admitted before the kill are never asked about
        again and keep their result (or are reported interrupted); later calls are decided now,
        by the approver that now says no."""
        self.boundaries.add(boundary)
        document: Any = last(out)
        assert document["text"] == "all three lines written", label
        asked = lines_of(workdir / "asked.txt")
        effects = lines_of(workdir / "effects.txt")
        for index, (line, result) in enumerate(zip(LINES, document["results"], strict=True)):
            first, again = asked[f"allow:{line}"], asked[f"deny:{line}"]
            self.reasked += max(0, first + again - 1)
            assert first + again == 1, (label, line, asked)
            if index <= occurrence:
                assert first == 1, (label, line)
                assert not result.startswith(DENIED), (label, line, result)
                if result == INTERRUPTED_EFFECT_TEXT:
                    self.interrupted += 1
                    assert effects[line] <= 1
                else:
                    assert result == f"appended {line}", (label, result)
                    assert effects[line] == 1
            else:
                assert result.startswith(DENIED), (label, line, result)
                assert effects[line] == 0
            self.effects += 1
        check_model_calls(label, workdir, boundary, occurrence, 3)
        self.compare(label, document)

    def check_residency(
        self, label: str, workdir: Path, out: str, boundary: str, occurrence: int
    ) -> None:
        """The ``residency`` scenario: the tool loaded through ``tool_search`` is offered again
        and its call answered or run normally, never an unknown-tool skip."""
        self.boundaries.add(boundary)
        document: Any = last(out)
        assert document["text"] == "deployed", label
        search, deploy = document["results"]
        assert search.startswith("Loaded 1 tool(s)"), (label, search)
        effects = lines_of(workdir / "effects.txt")
        if deploy == INTERRUPTED_EFFECT_TEXT:
            self.interrupted += 1
            assert effects["a"] <= 1
        else:
            assert deploy == "appended a", (label, deploy)
            assert effects["a"] == 1
        self.effects += 1
        check_model_calls(label, workdir, boundary, occurrence, 3)
        self.compare(label, document)

    def compare(self, label: str, document: Any) -> None:
        actual = tuple(load_messages(json.dumps(document["messages"])))
        assert dump_messages(actual) == dump_messages(self.expected(actual)), label
        self.messages += len(actual)

    def expected(self, actual: tuple[Message, ...]) -> tuple[Message, ...]:
        self.lost += abs(len(actual) - len(self.reference))
        assert len(actual) == len(self.reference), "a message was lost or duplicated"
        out: list[Message] = []
        for ref, act in zip(self.reference, actual, strict=True):
            if isinstance(ref, ToolResultMessage) and isinstance(act, ToolResultMessage):
                results: list[ToolResultPart] = []
                for r, a in zip(ref.results, act.results, strict=True):
                    said = text_of(a.content)
                    if said == INTERRUPTED_EFFECT_TEXT or said.startswith(DENIED):
                        r = replace(r, content=(TextPart(text=said),), is_error=True)
                    results.append(r)
                ref = ToolResultMessage(results=tuple(results))
            out.append(ref)
        return tuple(out)

    def line(self) -> str:
        return (
            f"kill test({self.backend}): boundaries={len(self.boundaries)} runs={self.runs} "
            f"effects_checked={self.effects} reasked={self.reasked} lost={self.lost} "
            f"interrupted={self.interrupted} refused={self.refused} "
            f"messages_checked={self.messages}"
        )


def check_model_calls(
    label: str, workdir: Path, boundary: str, occurrence: int, steps: int
) -> None:
    """A checkpointed model call is never requested again; only one whose response was lost
    before its checkpoint is requested a second time, and only after the worker opted in."""
    calls = lines_of(workdir / "model_calls.txt")
    repeated = {occurrence: 2} if boundary == "model_before_checkpoint" else {}
    assert calls == Counter({str(s): repeated.get(s, 1) for s in range(steps)}), (label, calls)


def reference_run(
    workdir: Path, url: str, scenario: str = "lines", **settings: str
) -> tuple[Message, ...]:
    code, out, err = finish(worker("run", workdir, url, "reference", scenario=scenario, **settings))
    assert code == 0, err
    return tuple(load_messages(json.dumps(last(out)["messages"])))


def sqlite_url(workdir: Path) -> str:
    return f"sqlite:///{workdir}/dbos.db"


def crash_and_recover(
    checker: Checker, label: str, workdir: Path, kill_at: str, **settings: str
) -> tuple[Path, str]:
    """On SQLite: kill a worker at ``kill_at`` and recover with a restarted worker (same
    executor id); returns the folder of the finished run and the recovering worker's output.

    A kill at ``model_before_checkpoint`` is first recovered without the opt-in — the workflow
    must end refused (``ReconciliationError``) with nothing sent or run again — then crashed
    again in a fresh database and recovered with ``resend_unrecorded_model_call``."""
    workdir.mkdir(mode=0o700)
    code, _, err = finish(
        worker("run", workdir, sqlite_url(workdir), "w1", kill_at=kill_at, **settings)
    )
    assert code == -signal.SIGKILL, (label, err)
    checker.runs += 1
    if kill_at.startswith("model_before_checkpoint"):
        calls = lines_of(workdir / "model_calls.txt")
        effects = lines_of(workdir / "effects.txt")
        code, out, err = finish(worker("recover", workdir, sqlite_url(workdir), "w1", **settings))
        assert code == 0, (label, err)
        assert last(out) == {"error": "ReconciliationError", "reason": "unrecorded_model_call"}
        assert lines_of(workdir / "model_calls.txt") == calls, label  # nothing sent again
        assert lines_of(workdir / "effects.txt") == effects, label
        checker.refused += 1
        checker.runs += 1
        workdir = workdir.with_name(workdir.name + "-resend")
        workdir.mkdir(mode=0o700)
        code, _, err = finish(
            worker("run", workdir, sqlite_url(workdir), "w1", kill_at=kill_at, **settings)
        )
        assert code == -signal.SIGKILL, (label, err)
        checker.runs += 1
        settings = {**settings, "resend": "1"}
    code, out, err = finish(worker("recover", workdir, sqlite_url(workdir), "w1", **settings))
    assert code == 0, (label, err)
    checker.runs += 1
    return workdir, out


def test_dbos_on_sqlite_a_restarted_worker_finishes_without_repeating_anything(
    tmp_path: Path,
) -> None:
    ref_dir = tmp_path / "reference"
    ref_dir.mkdir(mode=0o700)
    checker = Checker(reference_run(ref_dir, sqlite_url(ref_dir)), "dbos-sqlite")
    assert (ref_dir / "effects.txt").read_text().split() == list(LINES)
    for boundary in BOUNDARIES:
        for occurrence in (0, 2):  # first call of a batch, and a later round
            label = f"sqlite {boundary}:{occurrence}"
            workdir, out = crash_and_recover(
                checker, label, tmp_path / f"{boundary}-{occurrence}", f"{boundary}:{occurrence}"
            )
            checker.check(label, workdir, out, boundary, occurrence)
    assert checker.interrupted >= 4  # effect_started and effect_done, every occurrence
    assert checker.refused == 2  # model_before_checkpoint, every occurrence
    print(checker.line())


def test_dbos_on_sqlite_a_recovered_workflow_never_asks_a_settled_decision_again(
    tmp_path: Path,
) -> None:
    """The first worker's approver allows; the recovering worker's approver denies."""
    ref_dir = tmp_path / "reference"
    ref_dir.mkdir(mode=0o700)
    checker = Checker(
        reference_run(ref_dir, sqlite_url(ref_dir), "approver"), "dbos-sqlite approver"
    )
    for boundary in ("effect_started", "effect_done", "effect_after_checkpoint"):
        for occurrence in (0, 2):
            label = f"approver {boundary}:{occurrence}"
            workdir = tmp_path / f"approver-{boundary}-{occurrence}"
            workdir.mkdir(mode=0o700)
            url = sqlite_url(workdir)
            kill_at = f"{boundary}:{occurrence}"
            code, _, err = finish(
                worker("run", workdir, url, "w1", kill_at=kill_at, scenario="approver")
            )
            assert code == -signal.SIGKILL, (label, err)
            code, out, err = finish(
                worker("recover", workdir, url, "w1", scenario="approver", approver="deny")
            )
            assert code == 0, (label, err)
            checker.runs += 2
            checker.check_approver(label, workdir, out, boundary, occurrence)
    assert checker.reasked == 0
    assert checker.interrupted >= 4
    print(checker.line())


def test_dbos_on_sqlite_a_tool_loaded_through_tool_search_is_dispatched_after_recovery(
    tmp_path: Path,
) -> None:
    ref_dir = tmp_path / "reference"
    ref_dir.mkdir(mode=0o700)
    checker = Checker(
        reference_run(ref_dir, sqlite_url(ref_dir), "residency"), "dbos-sqlite residency"
    )
    for boundary in BOUNDARIES:
        # the loaded tool is called by model call 1 and is the only durable tool call
        occurrence = 1 if boundary.startswith("model") else 0
        label = f"residency {boundary}:{occurrence}"
        workdir, out = crash_and_recover(
            checker,
            label,
            tmp_path / f"residency-{boundary}",
            f"{boundary}:{occurrence}",
            scenario="residency",
        )
        checker.check_residency(label, workdir, out, boundary, occurrence)
    assert checker.interrupted >= 1
    print(checker.line())


def wait_case(
    checker: Checker,
    label: str,
    workdir: Path,
    url: str,
    kill_at: str | None,
    *,
    taker: bool = False,
) -> None:
    """The ``wait`` scenario: the workflow saves its request and waits. With ``kill_at`` None
    the first worker is killed while the workflow waits and the next worker answers; otherwise
    the first worker answers and dies at ``kill_at``. The next worker (a restart on SQLite, a
    takeover when ``taker``) finishes the run: one effect at most, no model call repeated, the
    decision not asked for again."""
    workdir.mkdir(mode=0o700)
    answer = {} if kill_at is None else {"answer": "approve"}
    second: subprocess.Popen[str] | None = None
    if taker:
        second = worker(
            "takeover", workdir, url, "worker-b", "worker-a", scenario="wait", answer="approve"
        )
    first = worker(
        "run",
        workdir,
        url,
        "worker-a" if taker else "w1",
        kill_at=kill_at,
        scenario="wait",
        **answer,
    )
    if kill_at is None:
        deadline = time.monotonic() + 120
        while not (workdir / "waiting").exists():
            assert first.poll() is None, (label, first.communicate())
            assert time.monotonic() < deadline, label
            time.sleep(0.05)
        first.send_signal(signal.SIGKILL)
    code, _, err = finish(first)
    assert code == -signal.SIGKILL, (label, err)
    assert lines_of(workdir / "effects.txt")["a"] <= 1
    if second is None:
        second = worker("recover", workdir, url, "w1", scenario="wait", answer="approve")
    else:
        (workdir / "waiting").unlink(missing_ok=True)
        (workdir / "go").touch()
    code, out, err = finish(second)
    assert code == 0, (label, err)
    checker.runs += 2
    document: Any = last(out)
    assert document["text"] == "released", (label, document)
    [result] = document["results"]
    effects = lines_of(workdir / "effects.txt")
    if result == INTERRUPTED_EFFECT_TEXT:
        checker.interrupted += 1
        assert effects["a"] <= 1
    else:
        assert result == "appended a", (label, result)
        assert effects["a"] == 1
    checker.effects += 1
    assert lines_of(workdir / "model_calls.txt") == Counter({"0": 1, "1": 1}), label
    if kill_at is None:  # the next worker answered, after a response to another id was refused
        assert (workdir / "refused.txt").read_text() == "unknown_request"
    checker.compare(label, document)


def test_dbos_on_sqlite_a_durable_wait_survives_a_kill(tmp_path: Path) -> None:
    ref_dir = tmp_path / "reference"
    ref_dir.mkdir(mode=0o700)
    ref = reference_run(ref_dir, sqlite_url(ref_dir), "wait", answer="approve")
    assert (ref_dir / "refused.txt").read_text() == "unknown_request"
    checker = Checker(ref, "dbos-sqlite wait")
    cases = {"waiting": None, "effect_started": "effect_started:0", "effect_done": "effect_done:0"}
    for name, kill_at in cases.items():
        checker.boundaries.add(name)
        workdir = tmp_path / f"wait-{name}"
        wait_case(checker, f"wait {name}", workdir, sqlite_url(workdir), kill_at)
    assert checker.interrupted >= 1  # effect_done
    print(checker.line())


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
    checker = Checker(reference_run(ref_dir, f"{postgres}/robota_reference"), "dbos-postgres")
    occurrence = 1  # the second call of round 1's batch (SQLite covers occurrences 0 and 2)
    for n, boundary in enumerate(BOUNDARIES):
        label = f"postgres {boundary}:{occurrence}"
        workdir = tmp_path / boundary
        workdir.mkdir(mode=0o700)
        url = f"{postgres}/robota_case_{n}"
        # worker B first, so the database exists and B is running when A dies; B opts into
        # re-sending a model call sent without a checkpoint (the SQLite test checks the refusal)
        taker = worker("takeover", workdir, url, "worker-b", "worker-a", resend="1")
        code, _, err = finish(
            worker("run", workdir, url, "worker-a", kill_at=f"{boundary}:{occurrence}")
        )
        assert code == -signal.SIGKILL, (label, err)
        (workdir / "go").touch()
        code, out, err = finish(taker)
        assert code == 0, (label, err)
        checker.runs += 2
        checker.check(label, workdir, out, boundary, occurrence)
    assert checker.interrupted >= 2
    print(checker.line())


def test_dbos_on_postgres_decisions_residency_and_waits_survive_a_takeover(
    tmp_path: Path, postgres: str
) -> None:
    """The approver, residency and wait scenarios, each killed between an effect and its
    checkpoint (or while waiting) and taken over by a second worker."""
    checker = Checker((), "dbos-postgres approver+residency+wait")
    for n, (scenario, occurrence) in enumerate((("approver", 1), ("residency", 0))):
        ref_dir = tmp_path / f"reference-{scenario}"
        ref_dir.mkdir(mode=0o700)
        checker.reference = reference_run(ref_dir, f"{postgres}/robota_ref_{n}", scenario)
        label = f"postgres {scenario} effect_done:{occurrence}"
        workdir = tmp_path / scenario
        workdir.mkdir(mode=0o700)
        url = f"{postgres}/robota_more_{n}"
        taker = worker(
            "takeover", workdir, url, "worker-b", "worker-a", scenario=scenario, approver="deny"
        )
        kill_at = f"effect_done:{occurrence}"
        code, _, err = finish(
            worker("run", workdir, url, "worker-a", kill_at=kill_at, scenario=scenario)
        )
        assert code == -signal.SIGKILL, (label, err)
        (workdir / "go").touch()
        code, out, err = finish(taker)
        assert code == 0, (label, err)
        checker.runs += 2
        if scenario == "approver":
            checker.check_approver(label, workdir, out, "effect_done", occurrence)
        else:
            checker.check_residency(label, workdir, out, "effect_done", occurrence)
    ref_dir = tmp_path / "reference-wait"
    ref_dir.mkdir(mode=0o700)
    checker.reference = reference_run(
        ref_dir, f"{postgres}/robota_ref_wait", "wait", answer="approve"
    )
    checker.boundaries.add("waiting")
    wait_case(
        checker, "postgres wait", tmp_path / "wait", f"{postgres}/robota_wait", None, taker=True
    )
    assert checker.reasked == 0
    print(checker.line())
