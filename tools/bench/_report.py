"""The printed table and the summary line of a benchmark run (from its JSON-ready dict)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["render", "summary_line"]

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
                _num(r["overhead_ms"], 3),
                _num(r["overhead_pct"], 1),
                _num(r["x_floor"], 3),
                _num(result["ttft_ms"].get(r["name"]), 2),
                *peer_cells,
            ]
        )
    out += _table(
        "per round (median; floor = raw SDK loop, same api and mode)",
        [
            "contender",
            "round ms",
            "ovh ms",
            "ovh %",
            "x floor",
            "ttft ms",
            "ovh / pydantic_ai",
            "ovh / openai_agents",
        ],
        table,
    )
    conc = result["concurrency"]
    out += _table(
        f"concurrent runs on one event loop ({meta['concurrent']} at once, {meta['rounds']} "
        "tool rounds each)",
        [
            "contender",
            "elapsed s",
            "runs/s",
            "p50 round ms",
            "p99 round ms",
            "p50 ovh ms",
            "p99 ovh ms",
        ],
        [
            [
                c["name"],
                _num(c["elapsed_s"], 2),
                _num(c["runs_per_s"], 1),
                _num(c["p50_round_ms"], 2),
                _num(c["p99_round_ms"], 2),
                _num(c["p50_overhead_ms"], 2),
                _num(c["p99_overhead_ms"], 2),
            ]
            for c in conc
        ],
    )
    imports = result["imports_ms"]
    base = imports.get("pydantic_ai")
    out += _table(
        "cold import in a fresh process (median ms)",
        ["modules", "ms", "x pydantic_ai"],
        [[k, _num(v, 1), _num(_ratio(v, base))] for k, v in imports.items()],
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
    out.append("")
    out.append(summary_line(result["summary"]))
    return "\n".join(out)


def summary_line(summary: dict[str, float | None]) -> str:
    """``bench: robota/raw=R robota/pydantic_ai=P robota/openai_agents=O`` (``n/a`` for a peer
    that is not installed or whose overhead was not positive)."""
    cells = [
        f"{key}={_num(summary.get(key), 3)}"
        for key in ("robota/raw", *(f"robota/{p}" for p in PEERS))
    ]
    return "bench: " + " ".join(cells)
