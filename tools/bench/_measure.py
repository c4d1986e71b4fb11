"""In-process figures against the loopback server: per-round time, time to first text delta,
concurrent runs and request bytes.

Timing rules (so machine noise cancels): every contender runs inside one process against one
server process, repetitions are interleaved (each repetition runs every contender once, in a
rotated order), and only medians and ratios are reported.
"""

from __future__ import annotations

import asyncio
import gc
import json
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from tools.bench._common import Contender, Runner, http_client

__all__ = [
    "ConcurrencyFigure",
    "RoundFigure",
    "concurrency",
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
        elapsed_s: Wall time until the last run finished (seconds).
        runs_per_s: Throughput (runs per second).
        p50_round_ms: Median run latency divided by model calls per run (ms).
        p99_round_ms: 99th-percentile run latency divided by model calls per run (ms).
    """

    name: str
    runs: int
    elapsed_s: float
    runs_per_s: float
    p50_round_ms: float
    p99_round_ms: float


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


async def concurrency(
    contender: Contender, base_url: str, *, runs: int, rounds: int
) -> ConcurrencyFigure:
    """Start ``runs`` runs of ``contender`` at once on this event loop and time them."""
    model = f"bench-r{rounds}"
    calls = rounds + 1
    async with http_client() as client:
        runner = contender.make(base_url, client)
        await runner.run(model)
        gc.collect()
        latencies: list[float] = []

        async def one() -> None:
            start = time.perf_counter()
            await runner.run(model)
            latencies.append(time.perf_counter() - start)

        start = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(runs)))
        elapsed = time.perf_counter() - start
    return ConcurrencyFigure(
        name=contender.name,
        runs=runs,
        elapsed_s=elapsed,
        runs_per_s=runs / elapsed,
        p50_round_ms=quantile(latencies, 0.5) * 1000 / calls,
        p99_round_ms=quantile(latencies, 0.99) * 1000 / calls,
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
