"""``python -m tools.bench``: Robota's loop overhead against the raw SDK and two peers.

Usage::

    uv run --all-packages --group bench python -m tools.bench --json bench.json
    uv run python -m tools.bench --quick --json /tmp/bench.json   # < 60 s; peers optional

Prints tables, writes the JSON (``--json``), and ends with the line
``bench: robota/raw=R robota/pydantic_ai=P robota/openai_agents=O`` where R is Robota's per-round
time over the raw SDK loop's (Chat Completions, streamed) and P, O are Robota's per-round
overhead (its round time minus the raw loop's) over each peer's, measured in this run. A peer
that is not installed is reported as ``not installed`` and its ratio as ``n/a``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Generator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tools.bench._common import Contender, installed, optional_module
from tools.bench._fresh import IMPORT_TARGETS, ROOT, import_times, memory
from tools.bench._measure import concurrency, request_bytes, round_times, time_to_first_text
from tools.bench._peers import PEER_CONTENDERS
from tools.bench._raw import RAW_CONTENDERS
from tools.bench._report import render, summary_line
from tools.bench._robota import ROBOTA_CONTENDERS
from tools.bench._tools200 import tool_bytes

__all__ = ["Plan", "main", "run_bench"]

_ = request_bytes  # re-exported for callers measuring their own configurations


@dataclass(frozen=True, kw_only=True, slots=True)
class Plan:
    """How much to measure.

    Attributes:
        mode: ``quick`` or ``full``.
        rounds: Tool rounds per scenario run (model calls per run = rounds + 1).
        reps: Interleaved repetitions for per-round time.
        warmup: Unmeasured runs per contender first.
        ttft_reps: Repetitions for time to first text delta.
        concurrent: Runs started at once for the concurrency figure.
        sessions: Idle sessions for the memory figure.
        import_reps: Fresh processes per import target.
    """

    mode: str
    rounds: int
    reps: int
    warmup: int
    ttft_reps: int
    concurrent: int
    sessions: int
    import_reps: int


QUICK = Plan(
    mode="quick",
    rounds=2,
    reps=5,
    warmup=1,
    ttft_reps=5,
    concurrent=20,
    sessions=100,
    import_reps=1,
)
FULL = Plan(
    mode="full",
    rounds=3,
    reps=30,
    warmup=3,
    ttft_reps=20,
    concurrent=1000,
    sessions=1000,
    import_reps=5,
)


@contextlib.contextmanager
def loopback_server() -> Generator[str]:
    """Start ``python -m tools.bench.server`` on 127.0.0.1 and yield its ``/v1`` base URL;
    stop it (stdin closed, then terminate) on exit."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    process = subprocess.Popen(
        [sys.executable, "-m", "tools.bench.server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=ROOT,
        env=env,
        text=True,
    )
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline().strip())
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        if process.stdin is not None:
            process.stdin.close()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.terminate()
            process.wait(timeout=5)


def _progress(what: str) -> None:
    sys.stderr.write(f"bench: {what}\n")
    sys.stderr.flush()


def _overheads(figures: list[dict[str, Any]]) -> None:
    by_name = {f["name"]: f for f in figures}
    for f in figures:
        floor = by_name.get(f["floor"])
        if floor is None:
            f["overhead_ms"] = f["overhead_pct"] = f["x_floor"] = None
            continue
        f["overhead_ms"] = f["round_ms"] - floor["round_ms"]
        f["overhead_pct"] = 100 * f["overhead_ms"] / floor["round_ms"]
        f["x_floor"] = f["round_ms"] / floor["round_ms"]


def _summary(rounds: list[dict[str, Any]]) -> dict[str, float | None]:
    by_name = {f["name"]: f for f in rounds}
    robota = by_name["robota/chat/stream"]
    out: dict[str, float | None] = {"robota/raw": robota["x_floor"]}
    for peer in ("pydantic_ai", "openai_agents"):
        other = by_name.get(f"{peer}/chat/stream")
        ovh = other["overhead_ms"] if other else None
        out[f"robota/{peer}"] = robota["overhead_ms"] / ovh if ovh and ovh > 0 else None
    return out


async def _in_process(plan: Plan, url: str, contenders: Sequence[Contender]) -> dict[str, Any]:
    _progress("per-round time")
    rounds = await round_times(
        contenders, url, rounds=plan.rounds, reps=plan.reps, warmup=plan.warmup
    )
    _progress("time to first text")
    ttft = await time_to_first_text(contenders, url, reps=plan.ttft_reps, warmup=plan.warmup)
    _progress("concurrent runs")
    conc: list[dict[str, Any]] = []
    for c in contenders:
        if c.api == "chat" and c.streaming:
            try:
                figure = await concurrency(c, url, runs=plan.concurrent, rounds=plan.rounds)
            except Exception as error:  # a peer failing under load is a finding, not a crash
                _progress(f"{c.name} failed under {plan.concurrent} concurrent runs: {error!r}")
                continue
            conc.append(asdict(figure))
    raw = next(c for c in conc if c["name"] == "raw/chat/stream")
    for c in conc:
        c["p50_overhead_ms"] = c["p50_round_ms"] - raw["p50_round_ms"]
        c["p99_overhead_ms"] = c["p99_round_ms"] - raw["p99_round_ms"]
    contender_by_name = {c.name: c for c in contenders}
    figures = [
        {
            **asdict(r),
            "family": contender_by_name[r.name].family,
            "floor": contender_by_name[r.name].floor,
        }
        for r in rounds
    ]
    _overheads(figures)
    return {
        "rounds": figures,
        "ttft_ms": ttft,
        "concurrency": conc,
        "request_bytes": await tool_bytes(url),
    }


def run_bench(plan: Plan) -> dict[str, Any]:
    """Measure everything in ``plan``; returns the JSON-ready result."""
    load_before = os.getloadavg()[0]
    # Quick mode keeps every raw and Robota row but only the peers' streamed Chat Completions
    # rows (the ones the summary line uses), to stay under a minute.
    peers = [c for c in PEER_CONTENDERS if plan.mode == "full" or (c.api == "chat" and c.streaming)]
    contenders = [c for c in (*RAW_CONTENDERS, *ROBOTA_CONTENDERS, *peers) if c.available]
    missing = sorted({m for c in PEER_CONTENDERS for m in c.requires if not installed(m)})
    with loopback_server() as url:
        measured = asyncio.run(_in_process(plan, url, contenders))
    families = ["raw", "robota"] + [
        family
        for family, module in (("pydantic_ai", "pydantic_ai"), ("openai_agents", "agents"))
        if installed(module)
    ]
    # Memory children run side by side (RSS is per process); they also leave every module's
    # bytecode compiled, so the import timings below measure imports, not compilation.
    _progress("idle sessions and imports (fresh processes)")
    mem = memory(families, plan.sessions)
    labels = [
        label
        for label, (modules, peer) in IMPORT_TARGETS.items()
        if (peer is None or installed(peer)) and (plan.mode == "full" or len(modules) == 1)
    ]
    imports = import_times(labels, reps=plan.import_reps)
    result: dict[str, Any] = {
        "meta": {
            **asdict(plan),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_before": load_before,
            "load_after": os.getloadavg()[0],
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        },
        "not_installed": [{"agents": "openai_agents"}.get(m, m) for m in missing],
        **measured,
        "imports_ms": imports,
        "memory": mem,
    }
    result["summary"] = _summary(result["rounds"])
    return result


def profile(path: Path, *, rounds: int, runs: int) -> None:
    """Profile ``runs`` runs of ``robota/chat/stream`` with pyinstrument (``bench`` group) and
    write its text report to ``path``."""
    pyinstrument = optional_module("pyinstrument")
    contender = next(c for c in ROBOTA_CONTENDERS if c.name == "robota/chat/stream")

    async def many(url: str) -> str:
        from tools.bench._common import http_client

        async with http_client() as client:
            runner = contender.make(url, client)
            await runner.run(f"bench-r{rounds}")
            profiler = pyinstrument.Profiler(interval=0.0002, async_mode="disabled")
            profiler.start()
            for _ in range(runs):
                await runner.run(f"bench-r{rounds}")
            profiler.stop()
            return profiler.output_text(unicode=False, color=False, show_all=False)

    with loopback_server() as url:
        path.write_text(asyncio.run(many(url)))


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m tools.bench", description="Robota loop overhead benchmark"
    )
    parser.add_argument("--quick", action="store_true", help="small counts; under 60 s")
    parser.add_argument("--json", type=Path, help="write the full result as JSON to this path")
    parser.add_argument("--profile", type=Path, help="also write a pyinstrument profile of Robota")
    parser.add_argument(
        "--concurrent", type=int, help="runs started at once for the concurrency figure"
    )
    args = parser.parse_args(argv)
    plan = QUICK if args.quick else FULL
    if args.concurrent is not None:
        plan = dataclasses.replace(plan, concurrent=args.concurrent)
    result = run_bench(plan)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    if args.profile is not None:
        profile(args.profile, rounds=plan.rounds, runs=max(50, plan.reps * 5))
    text = render(result)
    assert text.endswith(summary_line(result["summary"]))
    sys.stdout.write(text + "\n")
    return 0
