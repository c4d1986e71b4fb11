"""In-process figures against the loopback server: per-round time, time to first text delta,
concurrent runs and request bytes.

Timing rules (so machine noise cancels): every contender runs inside one process against one
server process, repetitions are interleaved (each repetition runs every contender once, in a
rotated order), and only medians and ratios are reported. The concurrent load also reports the
CPU seconds of the client process and of the server (its ``GET /bench/stats``), which a shared
machine disturbs less than wall time.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from tools.bench._common import Contender, Runner, http_client

__all__ = [
    "RUNS_PER_CLIENT",
    "ConcurrencyFigure",
    "RoundFigure",
    "concurrency",
    "concurrency_table",
    "quantile",
    "request_bytes",
    "round_times",
    "time_to_first_text",
]


@dataclass(frozen=True, kw_only=True, slots=True)
class RoundFigure:
    """Per-round time of one contender.

    Attributes:
        name: Contender name.
        round_ms: Median run time divided by model calls per run (milliseconds).
        samples: Repetitions measured.
    """

    name: str
    round_ms: float
    samples: int


@dataclass(frozen=True, kw_only=True, slots=True)
class ConcurrencyFigure:
    """Many concurrent runs of one contender on one event loop.

    Attributes:
        name: Contender name.
        runs: Concurrent runs started at once.
        clients: httpx clients the runs were spread over (one runner each).
        elapsed_s: Wall time until the last run finished (seconds).
        runs_per_s: Throughput (runs per second).
        p50_round_ms: Median run latency divided by model calls per run (ms).
        p99_round_ms: 99th-percentile run latency divided by model calls per run (ms).
        max_over_median: Slowest run's latency over the median run's (starvation; 1.0 = none).
        client_cpu_s: CPU seconds this (client) process used during the runs.
        server_cpu_s: CPU seconds the loopback server used during the runs (None when the
            server cannot tell).
        server_share: ``server_cpu_s / elapsed_s``, the server's share of one core (None when
            unknown); near 1.0 would mean the server, not the client, sets the pace.
    """

    name: str
    runs: int
    clients: int
    elapsed_s: float
    runs_per_s: float
    p50_round_ms: float
    p99_round_ms: float
    max_over_median: float
    client_cpu_s: float
    server_cpu_s: float | None
    server_share: float | None


RUNS_PER_CLIENT = 100
"""Concurrent runs per httpx client (and its pool's connection count) under the concurrent load.

httpcore's pool (1.0) rescans every pooled request and connection, polling each idle socket, on
every request and release: O(N) per request, O(N^2) per load. Measured here with 1,000
concurrent streamed wire-floor runs (3 tool rounds): on one client of 1,000 connections the
floor took 15.5 client CPU s (58.6 runs/s; cProfile put about 60% of it in
``_assign_requests_to_connections``), and a 256-connection pool queueing the rest was slower
still; spread over ten clients of 100 it took 7.2 CPU s (138 runs/s), close to 200 runs on one
client scaled up. So the load spreads runs over ``ceil(runs / 100)`` clients, each with its own
runner, and the figure measures the clients rather than pool bookkeeping; every contender gets
the same setting.
"""


def quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` by linear interpolation."""
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    at = q * (len(ordered) - 1)
    low = int(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


async def round_times(
    contenders: Sequence[Contender],
    base_url: str,
    *,
    rounds: int,
    reps: int,
    warmup: int,
) -> list[RoundFigure]:
    """Median per-round time of each contender over ``reps`` interleaved repetitions of the
    scenario with ``rounds`` tool rounds (``rounds + 1`` model calls per run)."""
    model = f"bench-r{rounds}"
    calls = rounds + 1
    async with http_client() as client:
        runners: list[Runner] = [c.make(base_url, client) for c in contenders]
        for runner in runners:
            for _ in range(warmup):
                await runner.run(model)
        samples: list[list[float]] = [[] for _ in contenders]
        for rep in range(reps):
            gc.collect()
            order = list(range(len(runners)))
            shift = rep % len(order)
            order = order[shift:] + order[:shift]
            for index in order:
                start = time.perf_counter()
                await runners[index].run(model)
                samples[index].append(time.perf_counter() - start)
    return [
        RoundFigure(name=c.name, round_ms=statistics.median(s) * 1000 / calls, samples=len(s))
        for c, s in zip(contenders, samples, strict=True)
    ]


async def time_to_first_text(
    contenders: Sequence[Contender], base_url: str, *, reps: int, warmup: int
) -> dict[str, float]:
    """Median milliseconds from the start of a run to its first text delta, for streaming
    contenders, on a scenario without tool rounds (one model call answering with text)."""
    streaming = [c for c in contenders if c.streaming]
    out: dict[str, list[float]] = {c.name: [] for c in streaming}
    async with http_client() as client:
        runners = [(c.name, c.make(base_url, client)) for c in streaming]
        for _, runner in runners:
            for _ in range(warmup):
                await runner.run("bench-r0")
        for rep in range(reps):
            gc.collect()
            shift = rep % max(1, len(runners))
            for name, runner in runners[shift:] + runners[:shift]:
                start = time.perf_counter()
                first = await runner.run("bench-r0")
                if first is None:
                    raise RuntimeError(f"{name} streamed no text delta")
                out[name].append(first - start)
    return {name: statistics.median(v) * 1000 for name, v in out.items()}


async def _server_cpu(control: httpx.AsyncClient, root: str) -> float | None:
    response = await control.get(f"{root}/bench/stats")
    if response.status_code != 200:
        return None
    return float(json.loads(response.content)["cpu_s"])


async def concurrency(
    contender: Contender,
    base_url: str,
    *,
    runs: int,
    rounds: int,
    runs_per_client: int = RUNS_PER_CLIENT,
) -> ConcurrencyFigure:
    """Start ``runs`` runs of ``contender`` at once on this event loop and time them.

    The runs are spread round-robin over ``ceil(runs / runs_per_client)`` httpx clients (pool of
    ``runs_per_client`` connections each, one runner per client; see :data:`RUNS_PER_CLIENT`).
    Each runner runs the scenario once first (unmeasured). Client CPU is this process's
    ``time.process_time``; server CPU comes from the server's ``GET /bench/stats``.
    """
    model = f"bench-r{rounds}"
    calls = rounds + 1
    root = base_url.removesuffix("/v1")
    count = max(1, -(-runs // runs_per_client))
    async with contextlib.AsyncExitStack() as stack:
        control = await stack.enter_async_context(httpx.AsyncClient())
        clients = [
            await stack.enter_async_context(http_client(runs_per_client)) for _ in range(count)
        ]
        runners = [contender.make(base_url, client) for client in clients]
        for runner in runners:
            await runner.run(model)
        gc.collect()
        latencies: list[float] = []

        async def one(runner: Runner) -> None:
            start = time.perf_counter()
            await runner.run(model)
            latencies.append(time.perf_counter() - start)

        server_before = await _server_cpu(control, root)
        cpu_before = time.process_time()
        start = time.perf_counter()
        await asyncio.gather(*(one(runners[i % count]) for i in range(runs)))
        elapsed = time.perf_counter() - start
        client_cpu = time.process_time() - cpu_before
        server_after = await _server_cpu(control, root)
    server_cpu = (
        server_after - server_before
        if server_before is not None and server_after is not None
        else None
    )
    median = quantile(latencies, 0.5)
    return ConcurrencyFigure(
        name=contender.name,
        runs=runs,
        clients=count,
        elapsed_s=elapsed,
        runs_per_s=runs / elapsed,
        p50_round_ms=median * 1000 / calls,
        p99_round_ms=quantile(latencies, 0.99) * 1000 / calls,
        max_over_median=max(latencies) / median,
        client_cpu_s=client_cpu,
        server_cpu_s=server_cpu,
        server_share=server_cpu / elapsed if server_cpu is not None else None,
    )


async def concurrency_table(
    contenders: Sequence[Contender],
    base_url: str,
    *,
    runs: int,
    rounds: int,
    reps: int,
    runs_per_client: int = RUNS_PER_CLIENT,
    on_error: Callable[[Contender, BaseException], None] | None = None,
) -> list[ConcurrencyFigure]:
    """:func:`concurrency` for each contender, ``reps`` interleaved repetitions (rotated order),
    each field the median over the repetitions.

    A contender that raises under the load is dropped from the result after ``on_error`` is
    told (a peer failing under load is a finding, not a crash); without ``on_error`` it raises.
    """
    samples: dict[str, list[ConcurrencyFigure]] = {c.name: [] for c in contenders}
    failed: set[str] = set()
    for rep in range(reps):
        shift = rep % max(1, len(contenders))
        for c in [*contenders[shift:], *contenders[:shift]]:
            if c.name in failed:
                continue
            try:
                figure = await concurrency(
                    c, base_url, runs=runs, rounds=rounds, runs_per_client=runs_per_client
                )
            except Exception as error:
                if on_error is None:
                    raise
                on_error(c, error)
                failed.add(c.name)
                continue
            samples[c.name].append(figure)
    return [_median_figure(samples[c.name]) for c in contenders if c.name not in failed]


def _median_figure(figures: Sequence[ConcurrencyFigure]) -> ConcurrencyFigure:
    def mid(values: Sequence[float | None]) -> float | None:
        known = [v for v in values if v is not None]
        return statistics.median(known) if known else None

    first = figures[0]
    elapsed = statistics.median(f.elapsed_s for f in figures)
    return ConcurrencyFigure(
        name=first.name,
        runs=first.runs,
        clients=first.clients,
        elapsed_s=elapsed,
        runs_per_s=statistics.median(f.runs_per_s for f in figures),
        p50_round_ms=statistics.median(f.p50_round_ms for f in figures),
        p99_round_ms=statistics.median(f.p99_round_ms for f in figures),
        max_over_median=statistics.median(f.max_over_median for f in figures),
        client_cpu_s=statistics.median(f.client_cpu_s for f in figures),
        server_cpu_s=mid([f.server_cpu_s for f in figures]),
        server_share=mid([f.server_share for f in figures]),
    )


async def request_bytes(base_url: str, runner: Runner) -> int:
    """Body bytes of the first model request ``runner`` sends (scenario ``bench-r0``), as the
    loopback server received them."""
    root = base_url.removesuffix("/v1")
    async with httpx.AsyncClient() as control:
        (await control.post(f"{root}/bench/reset")).raise_for_status()
        await runner.run("bench-r0")
        seen: list[Any] = json.loads((await control.get(f"{root}/bench/requests")).content)
    if not seen:
        raise RuntimeError("the server saw no model request")
    return int(seen[0][1])
