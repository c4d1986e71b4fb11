"""The overhead benchmark's quick mode runs end to end and prints its table (no timing checks).

It runs ``python -m tools.bench --quick`` in a fresh process against the loopback server the
harness starts itself, and checks that the last line's figures are the JSON's and that the JSON's
summary figures are the ratios of its tables. CI does not install the ``bench`` dependency group, so there the peers
(PydanticAI, OpenAI Agents SDK) are reported as not installed and the raw SDK and Robota rows are
still measured; with the group installed the peers' rows appear too.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration

PEERS = {"pydantic_ai": "pydantic_ai", "openai_agents": "agents"}
_FLOOR_AND_ROBOTA_ROWS = [
    f"{family}/{api}/{mode}"
    for family in ("wire", "raw", "robota")
    for api in ("chat", "responses")
    for mode in ("stream", "buffered")
]
_NUM = r"-?\d+\.\d{3}|n/a"
_LAST = re.compile(
    rf"^bench: robota/wire=(?P<wire>{_NUM}) robota/raw=(?P<raw>{_NUM}) "
    rf"robota/pydantic_ai=(?P<pa>{_NUM}) robota/openai_agents=(?P<oa>{_NUM}) "
    rf"concurrent_robota/raw=(?P<conc>{_NUM}) idle_kib=(?P<idle>{_NUM})$"
)
_GROUPS = {
    "wire": "robota/wire",
    "raw": "robota/raw",
    "pa": "robota/pydantic_ai",
    "oa": "robota/openai_agents",
    "conc": "concurrent_robota/raw",
    "idle": "idle_kib",
}


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory, repo_root: Path) -> tuple[str, Any]:
    out = tmp_path_factory.mktemp("bench") / "result.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = str(repo_root)
    done = subprocess.run(
        [sys.executable, "-m", "tools.bench", "--quick", "--json", str(out)],
        cwd=repo_root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stdout, json.loads(out.read_text())


@pytest.fixture(scope="module")
def repo_root() -> Path:
    return Path(__file__).resolve().parent.parent


def test_quick_mode_ends_with_the_ratio_line(quick_run: tuple[str, Any]) -> None:
    stdout, result = quick_run
    last = stdout.rstrip("\n").splitlines()[-1]
    match = _LAST.match(last)
    assert match is not None, last
    summary = result["summary"]
    assert set(summary) == set(_GROUPS.values())
    for group, key in _GROUPS.items():
        if summary[key] is None:
            assert match[group] == "n/a", key
        else:
            assert float(match[group]) == pytest.approx(summary[key], abs=0.0005), key
    for group in ("wire", "raw", "conc", "idle"):  # measured without any peer
        assert match[group] != "n/a", group
    for peer, group in (("pydantic_ai", "pa"), ("openai_agents", "oa")):
        if not _installed(PEERS[peer]):
            assert match[group] == "n/a"


def test_the_summary_figures_are_the_ratios_of_the_tables(quick_run: tuple[str, Any]) -> None:
    _, result = quick_run
    summary = result["summary"]
    rows = {row["name"]: row for row in result["rounds"]}
    robota, wire, raw = (rows[f"{f}/chat/stream"] for f in ("robota", "wire", "raw"))
    assert summary["robota/wire"] == pytest.approx(robota["round_ms"] / wire["round_ms"])
    assert summary["robota/raw"] == pytest.approx(robota["round_ms"] / raw["round_ms"])
    conc = {
        c["name"]: c for c in result["concurrency"] if c["runs"] == result["meta"]["concurrent"]
    }
    assert summary["concurrent_robota/raw"] == pytest.approx(
        conc["robota/chat/stream"]["runs_per_s"] / conc["raw/chat/stream"]["runs_per_s"]
    )
    traced = result["memory"]["robota"]["traced_bytes_per_session"]
    assert summary["idle_kib"] == pytest.approx(traced / 1024)


def test_quick_mode_prints_every_table(quick_run: tuple[str, Any]) -> None:
    stdout, _ = quick_run
    for title in (
        "== per round",
        "== concurrent runs on one event loop",
        "== cold import in a fresh process",
        "== idle sessions",
        "== first request body with 200 extra tools",
    ):
        assert title in stdout
    for row in ("robota.core", *_FLOOR_AND_ROBOTA_ROWS):
        assert re.search(rf"^{re.escape(row)}\s", stdout, re.MULTILINE), row


def test_missing_peers_are_reported_not_fatal(quick_run: tuple[str, Any]) -> None:
    stdout, result = quick_run
    missing = sorted(name for name, module in PEERS.items() if not _installed(module))
    assert result["not_installed"] == missing
    measured = {row["name"].split("/")[0] for row in result["rounds"]}
    assert measured == {"wire", "raw", "robota"} | (set(PEERS) - set(missing))
    loaded = {c["name"] for c in result["concurrency"]}
    assert loaded == {f"{f}/chat/stream" for f in measured}
    if missing:
        assert "not installed (uv sync --group bench): " + ", ".join(missing) in stdout


def test_every_contender_ran_the_scenario_and_deferral_shrinks_the_request(
    quick_run: tuple[str, Any],
) -> None:
    _, result = quick_run
    rows = {row["name"]: row for row in result["rounds"]}
    assert set(_FLOOR_AND_ROBOTA_ROWS) <= set(rows)
    assert rows["raw/chat/stream"]["x_floor"] == 1.0
    assert rows["wire/responses/buffered"]["x_wire"] == 1.0
    assert rows["robota/chat/stream"]["floor"] == "raw/chat/stream"
    assert rows["robota/responses/buffered"]["wire_floor"] == "wire/responses/buffered"
    assert all(row["samples"] == result["meta"]["reps"] for row in rows.values())
    assert set(result["ttft_ms"]) == {name for name in rows if name.endswith("/stream")}
    for load in result["concurrency"]:
        assert load["runs"] == result["meta"]["concurrent"]
        assert load["server_cpu_s"] is not None  # the server answered GET /bench/stats
        assert load["max_over_median"] >= 1.0
        if load["name"] == "wire/chat/stream":
            assert load["p99_overhead_ms"] == 0.0
    sizes = result["request_bytes"]
    # 200 tool schemas withheld behind tool_search: the request must be far smaller.
    assert sizes["robota/chat (200 deferred)"] * 10 < sizes["robota/chat (200 resident)"]
    assert {m["sessions"] for m in result["memory"].values()} == {result["meta"]["sessions"]}
