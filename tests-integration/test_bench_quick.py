"""The overhead benchmark's quick mode runs end to end and prints its table (no timing checks).

It runs ``python -m tools.bench --quick`` in a fresh process against the loopback server the
harness starts itself. CI does not install the ``bench`` dependency group, so there the peers
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
_LAST = re.compile(
    r"^bench: robota/raw=(?P<raw>\d+\.\d{3}) robota/pydantic_ai=(?P<pa>\S+) "
    r"robota/openai_agents=(?P<oa>\S+)$"
)


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
    assert float(match["raw"]) == pytest.approx(result["summary"]["robota/raw"], abs=0.0005)
    for peer, group in (("pydantic_ai", "pa"), ("openai_agents", "oa")):
        if not _installed(PEERS[peer]):
            assert match[group] == "n/a"


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
    for row in ("raw/chat/stream", "robota/chat/stream", "robota/chat/buffered", "robota.core"):
        assert re.search(rf"^{re.escape(row)}\s", stdout, re.MULTILINE), row


def test_missing_peers_are_reported_not_fatal(quick_run: tuple[str, Any]) -> None:
    stdout, result = quick_run
    missing = sorted(name for name, module in PEERS.items() if not _installed(module))
    assert result["not_installed"] == missing
    measured = {row["name"].split("/")[0] for row in result["rounds"]}
    assert measured == {"raw", "robota"} | (set(PEERS) - set(missing))
    if missing:
        assert "not installed (uv sync --group bench): " + ", ".join(missing) in stdout


def test_every_contender_ran_the_scenario_and_deferral_shrinks_the_request(
    quick_run: tuple[str, Any],
) -> None:
    _, result = quick_run
    rows = {row["name"]: row for row in result["rounds"]}
    assert rows["raw/chat/stream"]["x_floor"] == 1.0
    assert rows["robota/chat/stream"]["floor"] == "raw/chat/stream"
    assert all(row["samples"] == result["meta"]["reps"] for row in rows.values())
    assert set(result["ttft_ms"]) == {name for name in rows if name.endswith("/stream")}
    sizes = result["request_bytes"]
    # 200 tool schemas withheld behind tool_search: the request must be far smaller.
    assert sizes["robota/chat (200 deferred)"] * 10 < sizes["robota/chat (200 resident)"]
    assert {m["sessions"] for m in result["memory"].values()} == {result["meta"]["sessions"]}
