"""Scale past one machine (issue #20): N worker processes on one PostgreSQL DBOS database
taking agent runs from one DBOS queue.

Each worker (``python -m tools.bench._scaleout worker ...``) registers the same
:class:`~robota.durable.dbos.DBOSAgent` workflow (``scale.run``) and the queue
``robota_runs`` (at most :data:`WORKER_CONCURRENCY` runs at once per worker, polled every
50 ms), launches DBOS under its own executor id and takes runs until its stdin closes. The
parent enqueues runs with a ``DBOSClient`` (it registers no workflow: an API process that only
enqueues) and waits for every result. A run is the ``lines`` shape of the kill tests: three
model calls, two tool effects; the model is scripted and stateless (it reads the step from the
request) and sleeps :data:`MODEL_SECONDS` per call, standing in for a model's latency, so the
figure measures how runs spread over workers, not a model.

Each effect appends ``<run>/<step> <executor>`` to ``WORKDIR/effects.txt`` (fsynced): the
integration test ``tests-integration/test_dbos_scaleout.py`` checks every run's effects ran
exactly once over several workers, also when one worker is SIGKILLed
(``ROBOTA_KILL_AFTER=<n>``: after its n-th effect, before the effect's checkpoint) and another
recovers its pending runs (``WORKDIR/go`` appears: ``DBOS._recover_pending_workflows``).

Figure: throughput (runs per second, enqueue of the first run to the last result) with 1, 2 and
4 workers, :data:`RUNS` runs each, a fresh database per N.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

__all__ = ["RUNS", "WORKER_CONCURRENCY", "enqueue_runs", "scaleout_figures", "start_worker"]

APP = "robota-scale"
VERSION = "scale-1"
QUEUE = "robota_runs"
WORKFLOW = "scale.run"
WORKER_CONCURRENCY = 8
MODEL_SECONDS = 0.05
RUNS = 96
ROOT = Path(__file__).resolve().parents[2]


def start_worker(
    db_url: str,
    executor: str,
    workdir: Path,
    *,
    kill_after: int | None = None,
    resend: bool = False,
) -> subprocess.Popen[str]:
    """Start one worker; it writes ``WORKDIR/ready-<executor>`` once DBOS is launched and runs
    until its stdin is closed. ``kill_after``: it SIGKILLs itself after that many effects;
    ``resend``: a run it recovers re-sends a model call sent without a recorded response
    (``resend_unrecorded_model_call=True``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROBOTA_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    if kill_after is not None:
        env["ROBOTA_KILL_AFTER"] = str(kill_after)
    if resend:
        env["ROBOTA_RESEND"] = "1"
    return subprocess.Popen(
        [sys.executable, "-m", "tools.bench._scaleout", "worker", db_url, executor, str(workdir)],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_ready(workdir: Path, executors: list[str], timeout: float = 120.0) -> None:
    """Wait until every worker in ``executors`` is launched.

    Raises:
        TimeoutError: a worker did not get ready within ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while not all((workdir / f"ready-{e}").exists() for e in executors):
        if time.monotonic() > deadline:
            raise TimeoutError(f"workers not ready: {executors}")
        time.sleep(0.05)


def stop(workers: list[subprocess.Popen[str]]) -> None:
    """Close every worker's stdin and wait for it (killing one that does not stop)."""
    for w in workers:
        if w.stdin is not None and w.poll() is None:
            w.stdin.close()
    for w in workers:
        try:
            w.wait(timeout=60)
        except subprocess.TimeoutExpired:
            w.kill()
            w.wait()


async def enqueue_runs(db_url: str, runs: int) -> tuple[list[str], float, list[Any]]:
    """Enqueue ``runs`` runs (prompt = workflow id) and wait for all; returns the workflow ids,
    the seconds from the first enqueue to the last result and each workflow's output (the JSON
    of a :class:`~robota.durable.dbos.DurableRunResult`).

    Raises:
        Exception: what a workflow raised.
    """
    from dbos import DBOSClient, EnqueueOptions
    from robota.core.messages import dump_messages

    client = DBOSClient(system_database_url=db_url, application_name=APP)
    history: Any = json.loads(dump_messages(()))
    try:
        ids = [f"scale-{uuid.uuid4().hex[:12]}" for _ in range(runs)]
        started = time.perf_counter()
        handles: list[Any] = []
        for wid in ids:
            options: EnqueueOptions = {
                "queue_name": QUEUE,
                "workflow_name": WORKFLOW,
                "workflow_id": wid,
                "app_version": VERSION,
            }
            handles.append(await client.enqueue_async(options, wid, history, []))
        results = await asyncio.gather(*(h.get_result(polling_interval_sec=0.05) for h in handles))
        return ids, time.perf_counter() - started, list(results)
    finally:
        client.destroy()


def effects(workdir: Path) -> list[tuple[str, str]]:
    """``(run/step, executor)`` per effect line written so far."""
    path = workdir / "effects.txt"
    if not path.exists():
        return []
    return [(a, b) for a, b in (line.split() for line in path.read_text().splitlines() if line)]


def scaleout_figures(
    db_base: str, workdir: Path, workers: tuple[int, ...] = (1, 2, 4)
) -> dict[str, Any]:
    """Throughput with each worker count, a fresh database each (``<db_base>/robota_scale_<n>``).

    Returns:
        ``{"runs", "worker_concurrency", "model_seconds", "by_workers": {n: {"elapsed_s",
        "runs_per_s", "runs_by_worker": [..]}}}``.
    """
    out: dict[str, Any] = {
        "runs": RUNS,
        "worker_concurrency": WORKER_CONCURRENCY,
        "model_seconds": MODEL_SECONDS,
        "by_workers": {},
    }
    for n in workers:
        folder = workdir / f"scale-{n}"
        folder.mkdir(mode=0o700)
        url = f"{db_base}/robota_scale_{n}"
        names = [f"w{i}" for i in range(n)]
        procs = [start_worker(url, e, folder) for e in names]
        try:
            wait_ready(folder, names)
            ids, elapsed, _ = asyncio.run(enqueue_runs(url, RUNS))
        finally:
            stop(procs)
        done = effects(folder)
        per_run = Counter(r.partition("/")[0] for r, _ in done)
        assert set(per_run) == set(ids), "a run did not run"
        assert set(per_run.values()) == {2}, "an effect repeated or was lost"
        by_worker = Counter(e for _, e in done)
        out["by_workers"][str(n)] = {
            "elapsed_s": elapsed,
            "runs_per_s": RUNS / elapsed,
            "runs_by_worker": [by_worker[e] // 2 for e in names],
        }
    return out


# --- the worker process ----------------------------------------------------------------------


def _append(path: Path, line: str) -> None:
    with path.open("a") as f:
        f.write(line + "\n")
        f.flush()
        os.fsync(f.fileno())


async def _worker(db_url: str, executor: str, workdir: Path) -> None:
    from dbos import DBOS
    from robota.core.messages import AssistantMessage, UserMessage, text_of
    from robota.core.provider import ModelRequest, StreamEvent
    from robota.core.testing.scripted import ScriptedProvider, text, tool_call
    from robota.core.tools.function import tool
    from robota.durable.dbos import DBOSAgent

    kill_after = int(os.environ.get("ROBOTA_KILL_AFTER", "0"))
    done = 0

    class StatelessModel(ScriptedProvider):
        async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
            step = sum(isinstance(m, AssistantMessage) for m in request.messages)
            run = next(text_of(m.parts) for m in request.messages if isinstance(m, UserMessage))
            await asyncio.sleep(MODEL_SECONDS)
            self._turns = [
                [tool_call(f"c{step}", "append", {"line": f"{run}/{step}"})]
                if step < 2
                else [text("done")]
            ]
            async for event in super().stream(request):
                yield event

    @tool
    async def append(line: str) -> str:
        """Append one line to the effects file."""
        nonlocal done
        _append(workdir / "effects.txt", f"{line} {executor}")
        done += 1
        if done == kill_after:
            os.kill(os.getpid(), signal.SIGKILL)
        return f"appended {line}"

    DBOS(
        config={
            "name": APP,
            "system_database_url": db_url,
            "application_version": VERSION,
            "executor_id": executor,
            "log_level": "WARNING",
        }
    )
    DBOSAgent(
        StatelessModel([]),
        tools=[append],
        name="scale",
        model="scripted",
        resend_unrecorded_model_call=os.environ.get("ROBOTA_RESEND") == "1",
    )
    DBOS.launch()
    await DBOS.register_queue_async(
        QUEUE,
        worker_concurrency=WORKER_CONCURRENCY,
        polling_interval_sec=0.05,
        on_conflict="never_update",
    )
    (workdir / f"ready-{executor}").touch()
    loop = asyncio.get_running_loop()
    closed = loop.run_in_executor(None, sys.stdin.read)
    recovered = False
    try:
        while not closed.done():
            go = workdir / "go"
            if not recovered and go.exists():
                dead = go.read_text().split()
                DBOS._recover_pending_workflows(dead)  # pyright: ignore[reportPrivateUsage]
                recovered = True
            await asyncio.sleep(0.05)
    finally:
        DBOS.destroy()


def _main(argv: list[str]) -> None:
    if argv[0] == "worker":
        asyncio.run(_worker(argv[1], argv[2], Path(argv[3])))
    elif argv[0] == "figures":
        import tempfile

        from tools.bench._postgres import private_postgres

        with private_postgres() as pg, tempfile.TemporaryDirectory() as work:
            print(json.dumps(scaleout_figures(pg, Path(work)), indent=2))


if __name__ == "__main__":
    _main(sys.argv[1:])
