"""Tables of the durability figures (:mod:`tools.bench._durability`, :mod:`tools.bench._scaleout`)
in the style of :mod:`tools.bench._report`."""

from __future__ import annotations

from typing import Any

from tools.bench._report import _num, _table  # pyright: ignore[reportPrivateUsage]

__all__ = ["render_durability"]


def _met(value: float | None, target: float) -> str:
    if value is None:
        return "n/a"
    return "yes" if value <= target else "NO"


def render_durability(d: dict[str, Any]) -> list[str]:
    """The durability tables (per-round overhead, session save/load, compaction, scale-out),
    each figure with its target and whether it is met."""
    targets: dict[str, float] = d["targets"]
    rounds = d["rounds"]
    out: list[str] = []
    rows: list[list[str]] = [["plain", _num(rounds["plain"], 3), "", "", "", ""]]
    for variant in ("journal", "journal/normal", "dbos/sqlite", "dbos/postgres"):
        key = f"{variant}_ovh_ms"
        target = targets[key]
        if variant not in rounds:
            rows.append([variant, "not measured", "", "", f"<= {target}", ""])
            continue
        rows.append(
            [
                variant,
                _num(rounds[variant], 3),
                _num(rounds[key], 3),
                _num(rounds[f"{variant}_ovh_pct"], 1),
                f"<= {target}",
                _met(rounds[key], target),
            ]
        )
    out += _table(
        f"durability per round (bench-r3, median of {rounds['samples']}; overhead over plain "
        "in the same process)",
        ["variant", "round ms", "ovh ms", "ovh %", "target ovh ms", "met"],
        rows,
    )
    s = d["sessions"]
    turn_limit = targets["turn_save_bytes"] * s["turn_bytes"] + 8192
    load = targets["load_ms"]
    out += _table(
        f"session save/load ({s['messages']} messages, record {s['record_bytes']} B; one more "
        f"turn = 4 messages, {s['turn_bytes']} B; bytes = write() bytes)",
        ["store", "first ms", "first B", "turn ms", "turn B", "load ms", "target", "met"],
        [
            [
                name,
                _num(s[f"{p}_first_ms"], 1),
                str(int(s[f"{p}_first_bytes"])),
                _num(s[f"{p}_turn_ms"], 2),
                str(int(s[f"{p}_turn_bytes"])),
                _num(s[f"{p}_load_ms"], 1),
                f"turn <= {int(turn_limit)} B, load <= {load:g} ms",
                "yes" if s[f"{p}_turn_bytes"] <= turn_limit and s[f"{p}_load_ms"] <= load else "NO",
            ]
            for name, p in (("SQLiteSessionStore", "sqlite"), ("EventLog (JSONL)", "log"))
        ],
    )
    c = d.get("compaction")
    if c is not None:
        out += _table(
            f"compaction ({c['messages']} messages, {c['history_chars']} characters of text; "
            "scripted summary model)",
            ["path", "ms", "target ms", "met"],
            [
                [label, _num(c[key], 1), f"<= {targets[key]:g}", _met(c[key], targets[key])]
                for label, key in (
                    ("compact_with_chain (no window)", "compact_ms"),
                    ("compact (fit to a 128k window)", "compact_fit_128k_ms"),
                )
            ],
        )
    scale = d.get("scaleout")
    if scale is not None:
        by = scale["by_workers"]
        one = by.get("1", {}).get("runs_per_s")
        out += _table(
            f"DBOS workers on one PostgreSQL ({scale['runs']} queued runs, "
            f"{scale['worker_concurrency']} at once per worker, model {scale['model_seconds']} s "
            "per call)",
            ["workers", "elapsed s", "runs/s", "x 1 worker", "runs by worker"],
            [
                [
                    n,
                    _num(f["elapsed_s"], 2),
                    _num(f["runs_per_s"], 1),
                    _num(f["runs_per_s"] / one if one else None, 2),
                    " ".join(str(r) for r in f["runs_by_worker"]),
                ]
                for n, f in by.items()
            ],
        )
    if d["skipped"]:
        out.append("durability skipped: " + ", ".join(d["skipped"]))
    return out
