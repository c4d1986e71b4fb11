"""The printed table and the summary line of a benchmark run (from its JSON-ready dict)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tools.bench._fresh import SDK_IMPORT

__all__ = ["SUMMARY_KEYS", "render", "summary_line"]

PEERS = ("pydantic_ai", "openai_agents")


def _table(title: str, head: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]

    def line(cells: Sequence[str]) -> str:
        first = str(cells[0]).ljust(widths[0])
        rest = [str(c).rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
        return "  ".join([first, *rest]).rstrip()

    rule = "-" * len(line(head))
    return ["", f"== {title}", line(head), rule, *(line(r) for r in rows)]


def _num(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _ratio(top: float | None, bottom: float | None) -> float | None:
    if top is None or bottom is None or bottom <= 0:
        return None
    return top / bottom


def _rounds_table(result: dict[str, Any]) -> list[str]:
    rows = result["rounds"]
    by_name = {r["name"]: r for r in rows}
    table: list[list[str]] = []
    for r in rows:
        peer_cells: list[str] = []
        for peer in PEERS:
            other = by_name.get(r["name"].replace(r["family"], peer, 1))
            mine = r["overhead_ms"] if r["family"] == "robota" else None
            peer_cells.append(_num(_ratio(mine, other["overhead_ms"] if other else None)))
        table.append(
            [
                r["name"],
                _num(r["round_ms"], 3),
                _num(r["x_wire"], 3),
                _num(r["overhead_wire_ms"], 3),
                _num(r["x_floor"], 3),
                _num(r["overhead_ms"], 3),
                _num(result["ttft_ms"].get(r["name"]), 2),
                *peer_cells,
            ]
        )
    return _table(
        "per round (median; floors: wire = httpx + json alone, raw = openai SDK loop; same api "
        "and mode)",
        [
            "contender",
            "round ms",
            "x wire",
            "ovh wire ms",
            "x raw",
            "ovh raw ms",
            "ttft ms",
            "ovh raw / pydantic_ai",
            "ovh raw / openai_agents",
        ],
        table,
    )


def _concurrency_table(result: dict[str, Any]) -> list[str]:
    meta = result["meta"]
    conc = result["concurrency"]
    clients = sorted({(c["runs"], c["clients"]) for c in conc})
    spread = ", ".join(f"{runs} runs over {n} httpx clients" for runs, n in clients)
    return _table(
        f"concurrent runs on one event loop (streamed chat, {meta['rounds']} tool rounds each; "
        f"{spread}; ovh = over the wire floor at the same count; srv = loopback server)",
        [
            "contender",
            "runs",
            "elapsed s",
            "runs/s",
            "x raw runs/s",
            "p50 round ms",
            "p99 round ms",
            "max/med",
            "p99 ovh ms",
            "p99 ovh %",
            "client cpu s",
            "srv cpu s",
            "srv % of elapsed",
        ],
        [
            [
                c["name"],
                str(c["runs"]),
                _num(c["elapsed_s"], 2),
                _num(c["runs_per_s"], 1),
                _num(c["x_raw_runs_per_s"], 3),
                _num(c["p50_round_ms"], 2),
                _num(c["p99_round_ms"], 2),
                _num(c["max_over_median"], 2),
                _num(c["p99_overhead_ms"], 2),
                _num(c["p99_overhead_pct"], 1),
                _num(c["client_cpu_s"], 2),
                _num(c["server_cpu_s"], 2),
                _num(None if c["server_share"] is None else 100 * c["server_share"], 1),
            ]
            for c in conc
        ],
    )


def render(result: dict[str, Any]) -> str:
    """The whole human-readable report (several aligned tables)."""
    meta = result["meta"]
    out = [
        f"bench: mode={meta['mode']} rounds={meta['rounds']} reps={meta['reps']} "
        f"python={meta['python']} cpus={meta['cpus']} "
        f"load(1m) before={meta['load_before']:.2f} after={meta['load_after']:.2f}",
    ]
    if result["not_installed"]:
        out.append("not installed (uv sync --group bench): " + ", ".join(result["not_installed"]))
    out += _rounds_table(result)
    out += _concurrency_table(result)
    imports = result["imports_ms"]
    base = imports.get(SDK_IMPORT)
    out += _table(
        "cold import in a fresh process (median ms, bytecode cached; target: Robota's row <= "
        "openai SDK + 50 ms)",
        ["imports", "wall ms", "cpu ms", "over openai SDK wall ms", "over openai SDK cpu ms"],
        [
            [
                k,
                _num(v["wall_ms"], 1),
                _num(v["cpu_ms"], 1),
                _num(None if base is None else v["wall_ms"] - base["wall_ms"], 1),
                _num(None if base is None else v["cpu_ms"] - base["cpu_ms"], 1),
            ]
            for k, v in imports.items()
        ],
    )
    memory = result["memory"]
    robota_kib = memory.get("robota", {}).get("rss_delta_kib")
    out += _table(
        f"idle sessions ({meta['sessions']} agents, 4 messages of history each; fresh process)",
        ["family", "RSS delta KiB", "KiB/session", "traced B/session", "robota / this"],
        [
            [
                k,
                _num(v["rss_delta_kib"], 0),
                _num(v["rss_delta_kib"] / v["sessions"], 2),
                _num(v["traced_bytes_per_session"], 0),
                _num(_ratio(robota_kib, v["rss_delta_kib"])),
            ]
            for k, v in memory.items()
        ],
    )
    sizes = result["request_bytes"]
    resident = sizes.get("robota/chat (200 resident)")
    out += _table(
        "first request body with 200 extra tools",
        ["configuration", "bytes", "x robota resident"],
        [[k, str(v), _num(_ratio(v, resident), 3)] for k, v in sizes.items()],
    )
    if "durability" in result:
        from tools.bench._report_durability import render_durability  # it imports this module

        out += render_durability(result["durability"])
    out.append("")
    out.append(summary_line(result["summary"]))
    return "\n".join(out)


SUMMARY_KEYS = (
    "robota/wire",
    "robota/raw",
    *(f"robota/{p}" for p in PEERS),
    "concurrent_robota/raw",
    "idle_kib",
)
"""The keys of the summary line, in order."""


def summary_line(summary: dict[str, float | None]) -> str:
    """``bench: robota/wire=W robota/raw=R robota/pydantic_ai=P robota/openai_agents=O
    concurrent_robota/raw=C idle_kib=K`` (three decimals; ``n/a`` for a missing figure: a peer
    not installed, or a peer overhead that was not positive)."""
    cells = [f"{key}={_num(summary.get(key), 3)}" for key in SUMMARY_KEYS]
    return "bench: " + " ".join(cells)
