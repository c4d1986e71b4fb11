"""Many agent runs spread over several DBOS workers on one PostgreSQL database (issue #20,
"Scale past one machine"): runs enqueued on one DBOS queue are taken by two worker processes,
each run's effects happen exactly once, and when one worker is SIGKILLed with several runs in
flight the other recovers its pending runs and finishes every one without repeating an effect
(an effect cut before its checkpoint is reported interrupted, never run twice).

Single-workflow takeover at every step boundary is proven by ``test_dbos_kill.py``; this file
adds the queue and the many-runs case. Workers are ``python -m tools.bench._scaleout worker``
(the benchmark's scale-out worker); the private cluster is ``tools.bench._postgres``
(``tests-integration/REQUIREMENTS-postgres.sh`` installs PostgreSQL).
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from robota.core.journal import INTERRUPTED_EFFECT_TEXT
from robota.core.messages import ToolResultMessage, text_of
from robota.durable.dbos import DurableRunResult

from tools.bench._postgres import postgres_available, private_postgres
from tools.bench._scaleout import effects, enqueue_runs, start_worker, stop, wait_ready

RUNS = 30


@pytest.fixture(scope="module")
def postgres() -> Iterator[str]:
    assert postgres_available(), "run tests-integration/REQUIREMENTS-postgres.sh"
    with private_postgres() as url:
        yield url


def tool_results(output: Any) -> list[str]:
    result = DurableRunResult.from_json(output)
    assert result.text == "done"
    return [
        text_of(r.content)
        for m in result.new_messages
        if isinstance(m, ToolResultMessage)
        for r in m.results
    ]


def test_runs_on_a_queue_spread_over_two_workers_each_done_exactly_once(
    tmp_path: Path, postgres: str
) -> None:
    url = f"{postgres}/robota_scale_spread"
    workers = [start_worker(url, e, tmp_path) for e in ("w0", "w1")]
    try:
        wait_ready(tmp_path, ["w0", "w1"])
        ids, _, outputs = asyncio.run(enqueue_runs(url, RUNS))
    finally:
        stop(workers)
    done = effects(tmp_path)
    assert Counter(r for r, _ in done) == Counter(f"{i}/{s}" for i in ids for s in (0, 1))
    for output, wid in zip(outputs, ids, strict=True):
        assert tool_results(output) == [f"appended {wid}/0", f"appended {wid}/1"]
    by_worker = Counter(e for _, e in done)
    assert by_worker["w0"] > 0, by_worker  # both workers took runs
    assert by_worker["w1"] > 0, by_worker


def test_a_killed_workers_runs_are_finished_by_the_other_without_repeating_an_effect(
    tmp_path: Path, postgres: str
) -> None:
    url = f"{postgres}/robota_scale_takeover"
    doomed = start_worker(url, "w0", tmp_path, kill_after=5)
    # w0 dies with up to 8 runs in flight: some mid model call, so the survivor opts into
    # re-sending a call sent without a recorded response (test_dbos_kill.py checks the refusal)
    survivor = start_worker(url, "w1", tmp_path, resend=True)

    async def run_and_take_over() -> tuple[list[str], list[Any]]:
        async def take_over() -> None:
            while doomed.poll() is None:  # noqa: ASYNC110 - another process
                await asyncio.sleep(0.05)
            (tmp_path / "go").write_text("w0")

        watcher = asyncio.create_task(take_over())
        ids, _, outputs = await enqueue_runs(url, RUNS)
        await watcher
        return ids, outputs

    try:
        wait_ready(tmp_path, ["w0", "w1"])
        started = time.monotonic()
        ids, outputs = asyncio.run(run_and_take_over())
        assert time.monotonic() - started < 300
    finally:
        stop([survivor])
    assert doomed.wait() == -9
    done = effects(tmp_path)
    counts = Counter(r for r, _ in done)
    assert max(counts.values()) == 1, counts  # no effect ran twice
    by_effect = dict(done)
    interrupted = 0
    for output, wid in zip(outputs, ids, strict=True):
        for step, said in enumerate(tool_results(output)):
            if said == INTERRUPTED_EFFECT_TEXT:
                # w0 died after this call's start marker and before its result's checkpoint
                # (the effect ran there or not yet); w1 finished the run without running it
                ran_on = by_effect.get(f"{wid}/{step}")
                assert ran_on in (None, "w0"), ran_on
                interrupted += ran_on == "w0"
            else:
                assert said == f"appended {wid}/{step}"
                assert counts[f"{wid}/{step}"] == 1
    assert interrupted >= 1  # w0's fifth effect, cut by the kill: reported, not run again
    assert Counter(e for _, e in done)["w0"] == 5
