"""``python -m tools.bench``: Robota's loop against the wire floor, the raw SDK and two peers.

Usage::

    uv run --all-packages --group bench python -m tools.bench --json bench.json
    uv run python -m tools.bench --quick --json /tmp/bench.json   # < 60 s; peers optional
    uv run python -m tools.bench --quick --profile /tmp/robota.prof.txt

Contenders (same scenario, same loopback server, same httpx client settings): ``wire`` (httpx
and json alone, :mod:`tools.bench._wire`: the least any client can do), ``raw`` (hand-written
loop on the ``openai`` SDK), ``robota`` and the peers PydanticAI and OpenAI Agents SDK (the
``bench`` group), each for Chat Completions and Responses, streamed and buffered (quick mode
keeps only the peers' streamed Chat Completions rows). Every per-round figure is reported as a
ratio to the wire floor and to the raw SDK loop of the same api and mode, and Robota's overhead
over the raw loop as a ratio to each peer's.

The concurrent load (streamed Chat Completions, ``Plan.concurrent`` runs at once on one event
loop; in full mode also ``Plan.concurrent_large`` runs of wire, raw and Robota) reports per
contender the elapsed time, runs/s, p50 and p99 round time, max/median latency (starvation),
p99 overhead over the wire floor, client CPU seconds, and the server's CPU seconds and share
of the elapsed time (the server is not the bottleneck when that share is small).

Prints tables, writes the JSON (``--json``), and ends with the line::

    bench: robota/wire=W robota/raw=R robota/pydantic_ai=P robota/openai_agents=O \
concurrent_robota/raw=C idle_kib=K

where W and R are Robota's per-round time (Chat Completions, streamed) over the wire floor's and
the raw SDK loop's; P and O are Robota's per-round overhead over the raw loop (its round time
minus the raw loop's) over each peer's; C is Robota's runs per second over the raw loop's under
the concurrent load; K is KiB per idle Robota session (traced bytes per session / 1024, fresh
process). Three decimals; ``n/a`` when a figure is missing (a peer not installed, or a peer
overhead that is not positive).

``--profile PATH`` writes one text report of Robota (``robota/chat/stream``) in two parts: a
sequential part (many runs one after another) and a concurrent part (``Plan.concurrent`` runs at
once, spread over clients as in the concurrency figure, or ``--profile-concurrent N``). It uses
pyinstrument (``bench`` group) when importable, else the standard library's cProfile (pstats
text sorted by cumulative then internal time), so it works on a fresh machine;
``--profiler cprofile`` forces the fallback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import dataclasses
import io
import json
import os
import platform
import pstats
import resource
import subprocess
import sys
import time
from collections.abc import Generator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tools.bench._common import Contender, http_client, installed, optional_module
from tools.bench._durability import durability_figures
from tools.bench._fresh import IMPORT_TARGETS, QUICK_IMPORTS, ROOT, import_times, memory
from tools.bench._measure import (
    RUNS_PER_CLIENT,
    concurrency_table,
    request_bytes,
    round_times,
    time_to_first_text,
)
from tools.bench._peers import PEER_CONTENDERS
from tools.bench._raw import RAW_CONTENDERS
from tools.bench._report import render, summary_line
from tools.bench._robota import ROBOTA_CONTENDERS
from tools.bench._tools200 import tool_bytes
from tools.bench._wire import WIRE_CONTENDERS

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
        concurrent: Runs started at once for the concurrency figure (every family).
        concurrent_reps: Interleaved repetitions of the concurrency figure (medians).
        concurrent_large: Runs started at once for the second concurrency figure (wire, raw
            and Robota only; 0 skips it).
        sessions: Idle sessions for the memory figure.
        import_reps: Fresh processes per import target.
    """

    mode: str
    rounds: int
    reps: int
    warmup: int
    ttft_reps: int
    concurrent: int
    concurrent_reps: int
    concurrent_large: int
    sessions: int
    import_reps: int


QUICK = Plan(
    mode="quick",
    rounds=2,
    reps=5,
    warmup=1,
    ttft_reps=5,
    concurrent=20,
    concurrent_reps=3,
    concurrent_large=0,
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
    concurrent_reps=1,
    concurrent_large=10000,
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


_STARTED = time.perf_counter()


def _progress(what: str) -> None:
    sys.stderr.write(f"bench: [{time.perf_counter() - _STARTED:6.1f} s] {what}\n")
    sys.stderr.flush()


def _overheads(figures: list[dict[str, Any]]) -> None:
    by_name = {f["name"]: f for f in figures}
    for f in figures:
        for key, suffix in (("floor", ""), ("wire_floor", "_wire")):
            floor = by_name.get(f[key])
            if floor is None:
                f[f"overhead{suffix}_ms"] = f[f"overhead{suffix}_pct"] = None
                f["x_floor" if key == "floor" else "x_wire"] = None
                continue
            f[f"overhead{suffix}_ms"] = f["round_ms"] - floor["round_ms"]
            f[f"overhead{suffix}_pct"] = 100 * f[f"overhead{suffix}_ms"] / floor["round_ms"]
            f["x_floor" if key == "floor" else "x_wire"] = f["round_ms"] / floor["round_ms"]


def _concurrency_overheads(figures: list[dict[str, Any]]) -> None:
    """Each figure's overhead over the wire floor at the same run count, and its throughput
    over the raw loop's."""
    by_key = {(f["name"], f["runs"]): f for f in figures}
    for f in figures:
        wire = by_key.get(("wire/chat/stream", f["runs"]))
        raw = by_key.get(("raw/chat/stream", f["runs"]))
        for q in ("p50", "p99"):
            over = f[f"{q}_round_ms"] - wire[f"{q}_round_ms"] if wire else None
            f[f"{q}_overhead_ms"] = over
            f[f"{q}_overhead_pct"] = (
                100 * over / wire[f"{q}_round_ms"] if wire and over is not None else None
            )
        f["x_wire_runs_per_s"] = f["runs_per_s"] / wire["runs_per_s"] if wire else None
        f["x_raw_runs_per_s"] = f["runs_per_s"] / raw["runs_per_s"] if raw else None


def _summary(result: dict[str, Any]) -> dict[str, float | None]:
    by_name = {f["name"]: f for f in result["rounds"]}
    robota = by_name["robota/chat/stream"]
    out: dict[str, float | None] = {
        "robota/wire": robota["x_wire"],
        "robota/raw": robota["x_floor"],
    }
    for peer in ("pydantic_ai", "openai_agents"):
        other = by_name.get(f"{peer}/chat/stream")
        ovh = other["overhead_ms"] if other else None
        out[f"robota/{peer}"] = robota["overhead_ms"] / ovh if ovh and ovh > 0 else None
    plan_runs = result["meta"]["concurrent"]
    conc = {f["name"]: f for f in result["concurrency"] if f["runs"] == plan_runs}
    mine = conc.get("robota/chat/stream")
    out["concurrent_robota/raw"] = mine["x_raw_runs_per_s"] if mine else None
    traced = result["memory"].get("robota", {}).get("traced_bytes_per_session")
    out["idle_kib"] = traced / 1024 if traced is not None else None
    return out


async def _in_process(plan: Plan, url: str, contenders: Sequence[Contender]) -> dict[str, Any]:
    _progress("per-round time")
    rounds = await round_times(
        contenders, url, rounds=plan.rounds, reps=plan.reps, warmup=plan.warmup
    )
    _progress("time to first text")
    ttft = await time_to_first_text(contenders, url, reps=plan.ttft_reps, warmup=plan.warmup)

    def failed(c: Contender, error: BaseException) -> None:
        _progress(f"{c.name} failed under the concurrent load: {error!r}")

    loaded = [c for c in contenders if c.api == "chat" and c.streaming]
    floors = [c for c in loaded if c.family in ("wire", "raw", "robota")]
    peers = [c for c in loaded if c not in floors]
    conc: list[dict[str, Any]] = []
    # The peers run once: they take minutes at 1,000 runs, and their ratios to Robota are large.
    loads = [(plan.concurrent, floors, plan.concurrent_reps), (plan.concurrent, peers, 1)]
    if plan.concurrent_large:
        loads.append((plan.concurrent_large, floors, 1))
    for runs, which, reps in (load for load in loads if load[1]):
        _progress(f"{runs} concurrent runs: {', '.join(c.name for c in which)}")
        figures = await concurrency_table(
            which, url, runs=runs, rounds=plan.rounds, reps=reps, on_error=failed
        )
        conc.extend(asdict(f) for f in figures)
    _concurrency_overheads(conc)
    contender_by_name = {c.name: c for c in contenders}
    figures = [
        {
            **asdict(r),
            "family": contender_by_name[r.name].family,
            "floor": contender_by_name[r.name].floor,
            "wire_floor": contender_by_name[r.name].wire_floor,
        }
        for r in rounds
    ]
    _overheads(figures)
    _progress("request bytes with 200 extra tools")
    return {
        "rounds": figures,
        "ttft_ms": ttft,
        "concurrency": conc,
        "request_bytes": await tool_bytes(url),
    }


def _raise_open_files_limit() -> None:
    """Raise the soft limit on open files to the hard one (inherited by the server): 10,000
    concurrent runs hold 10,000 sockets on each side."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def run_bench(plan: Plan) -> dict[str, Any]:
    """Measure everything in ``plan``; returns the JSON-ready result."""
    load_before = os.getloadavg()[0]
    # Quick mode keeps every wire, raw and Robota row but only the peers' streamed Chat
    # Completions rows (the ones the summary line uses), to stay under a minute.
    peers = [c for c in PEER_CONTENDERS if plan.mode == "full" or (c.api == "chat" and c.streaming)]
    contenders = [
        c for c in (*WIRE_CONTENDERS, *RAW_CONTENDERS, *ROBOTA_CONTENDERS, *peers) if c.available
    ]
    _raise_open_files_limit()
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
        for label, (_modules, peer) in IMPORT_TARGETS.items()
        if (peer is None or installed(peer)) and (plan.mode == "full" or label in QUICK_IMPORTS)
    ]
    imports = import_times(labels, reps=plan.import_reps)
    _progress("durability and persistence (journal, DBOS, sessions, compaction, scale-out)")
    durability = durability_figures(plan.mode)
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
        "durability": durability,
    }
    result["summary"] = _summary(result)
    _progress("done")
    return result


class _Profiler:
    """pyinstrument when importable (and not refused), else cProfile; one text report."""

    def __init__(self, which: str) -> None:
        self.pyinstrument = which != "cprofile" and installed("pyinstrument")
        if which == "pyinstrument" and not self.pyinstrument:
            raise SystemExit("--profiler pyinstrument: pyinstrument is not installed")
        self.name = "pyinstrument" if self.pyinstrument else "cProfile"
        self._impl: Any = None

    def start(self) -> None:
        if self.pyinstrument:
            pyinstrument = optional_module("pyinstrument")
            # The whole thread, not one task: under load every run's work counts.
            self._impl = pyinstrument.Profiler(interval=0.0005, async_mode="disabled")
        else:
            self._impl = cProfile.Profile()
        if self.pyinstrument:
            self._impl.start()
        else:
            self._impl.enable()

    def stop(self) -> str:
        if self.pyinstrument:
            self._impl.stop()
            return str(self._impl.output_text(unicode=False, color=False, show_all=False))
        self._impl.disable()
        out = io.StringIO()
        stats = pstats.Stats(self._impl, stream=out)
        stats.sort_stats("cumulative").print_stats(60)
        stats.sort_stats("tottime").print_stats(40)
        return out.getvalue()


def profile(path: Path, *, rounds: int, runs: int, concurrent: int, profiler: str = "auto") -> str:
    """Profile Robota (``robota/chat/stream``) and write one text report to ``path``.

    Args:
        path: Output file (text; parent directories are created).
        rounds: Tool rounds per run.
        runs: Sequential runs in the first part.
        concurrent: Runs started at once in the second part (0 skips it), spread over clients
            as in the concurrency figure.
        profiler: ``auto`` (pyinstrument if importable, else cProfile), ``pyinstrument`` or
            ``cprofile``.

    Returns:
        The profiler's name (``pyinstrument`` or ``cProfile``).
    """
    contender = next(c for c in ROBOTA_CONTENDERS if c.name == "robota/chat/stream")
    tool = _Profiler(profiler)
    model = f"bench-r{rounds}"

    async def both(url: str) -> str:
        parts: list[str] = []
        async with http_client() as client:
            runner = contender.make(url, client)
            await runner.run(model)
            tool.start()
            for _ in range(runs):
                await runner.run(model)
            parts.append(f"# {tool.name}: {runs} sequential runs of {contender.name}, {model}\n")
            parts.append(tool.stop())
        if concurrent:
            count = max(1, -(-concurrent // RUNS_PER_CLIENT))
            async with contextlib.AsyncExitStack() as stack:
                clients = [
                    await stack.enter_async_context(http_client(RUNS_PER_CLIENT))
                    for _ in range(count)
                ]
                runners = [contender.make(url, c) for c in clients]
                for r in runners:
                    await r.run(model)
                tool.start()
                await asyncio.gather(*(runners[i % count].run(model) for i in range(concurrent)))
                parts.append(
                    f"\n# {tool.name}: {concurrent} concurrent runs of {contender.name}, {model}, "
                    f"over {count} clients\n"
                )
                parts.append(tool.stop())
        return "".join(parts)

    with loopback_server() as url:
        text = asyncio.run(both(url))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return tool.name


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m tools.bench", description="Robota loop overhead benchmark"
    )
    parser.add_argument("--quick", action="store_true", help="small counts; under 60 s")
    parser.add_argument("--json", type=Path, help="write the full result as JSON to this path")
    parser.add_argument(
        "--profile",
        type=Path,
        help="also write a profile of Robota, sequential and under the concurrent load",
    )
    parser.add_argument(
        "--profiler",
        choices=("auto", "pyinstrument", "cprofile"),
        default="auto",
        help="auto: pyinstrument when installed, else cProfile",
    )
    parser.add_argument(
        "--profile-concurrent",
        type=int,
        help="runs at once in the profile's concurrent part (default: the plan's count)",
    )
    parser.add_argument(
        "--concurrent", type=int, help="runs started at once for the concurrency figure"
    )
    parser.add_argument(
        "--concurrent-large",
        type=int,
        help="runs at once for the second (wire, raw, Robota) concurrency figure; 0 skips it",
    )
    args = parser.parse_args(argv)
    plan = QUICK if args.quick else FULL
    if args.concurrent is not None:
        plan = dataclasses.replace(plan, concurrent=args.concurrent)
    if args.concurrent_large is not None:
        plan = dataclasses.replace(plan, concurrent_large=args.concurrent_large)
    result = run_bench(plan)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    if args.profile is not None:
        concurrent = plan.concurrent if args.profile_concurrent is None else args.profile_concurrent
        used = profile(
            args.profile,
            rounds=plan.rounds,
            runs=max(50, plan.reps * 5),
            concurrent=concurrent,
            profiler=args.profiler,
        )
        _progress(f"{used} profile written to {args.profile}")
    text = render(result)
    assert text.endswith(summary_line(result["summary"]))
    sys.stdout.write(text + "\n")
    return 0
