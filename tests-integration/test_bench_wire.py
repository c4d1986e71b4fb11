"""The benchmark's wire floor (httpx and json alone) and its harness pieces, without timing.

The wire contenders run the scenario against the real loopback server (in this process); the
Server-Sent Events parser is fed byte streams cut at awkward places; the summary line and the
profile report are checked for their documented shapes.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tools.bench._report import SUMMARY_KEYS, summary_line
from tools.bench._wire import WIRE_CONTENDERS, sse_events
from tools.bench.run import profile
from tools.bench.server import BenchServer

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


async def _chunks(parts: list[bytes]) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


async def _events(parts: list[bytes]) -> list[tuple[str, str]]:
    return [event async for event in sse_events(_chunks(parts))]


async def test_sse_events_parse_fields_across_chunk_boundaries() -> None:
    body = (
        b": a comment\r\n"
        b'event: response.created\r\ndata: {"a":1}\r\n\r\n'
        b"data: line one\ndata: line two\n\n"
        b"data:no-space\r\rdata: [DONE]\n\n"
    )
    expected = [
        ("response.created", '{"a":1}'),
        ("message", "line one\nline two"),
        ("message", "no-space"),
        ("message", "[DONE]"),
    ]
    # Whole, one byte at a time (every CR LF split), and cut in the middle of a CR LF.
    assert await _events([body]) == expected
    assert await _events([body[i : i + 1] for i in range(len(body))]) == expected
    cut = body.index(b"\r\n\r\n") + 1
    assert await _events([body[:cut], body[cut:]]) == expected


async def test_sse_events_drop_an_unterminated_last_event() -> None:
    assert await _events([b"data: whole\n\n", b"data: cut off"]) == [("message", "whole")]


@pytest.fixture
async def server() -> AsyncIterator[tuple[BenchServer, str]]:
    bench = BenchServer()
    await bench.start()
    try:
        yield bench, f"http://127.0.0.1:{bench.port}/v1"
    finally:
        await bench.aclose()


@pytest.mark.parametrize("name", [c.name for c in WIRE_CONTENDERS])
async def test_wire_contender_runs_the_whole_scenario(
    server: tuple[BenchServer, str], name: str
) -> None:
    bench, url = server
    contender = next(c for c in WIRE_CONTENDERS if c.name == name)
    async with httpx.AsyncClient() as client:
        first = await contender.make(url, client).run("bench-r2")
    # Two tool rounds then the answer: three model calls, on the contender's own endpoint.
    endpoint = "/v1/chat/completions" if contender.api == "chat" else "/v1/responses"
    assert [path for path, _ in bench.requests] == [endpoint] * 3
    assert bench.model_requests == 3
    assert (first is not None) is contender.streaming


async def test_wire_chat_sends_back_every_tool_result(server: tuple[BenchServer, str]) -> None:
    _, url = server
    seen: list[dict[str, Any]] = []

    async def keep(request: httpx.Request) -> None:
        seen.append(json.loads(request.content))

    contender = next(c for c in WIRE_CONTENDERS if c.name == "wire/chat/stream")
    async with httpx.AsyncClient(event_hooks={"request": [keep]}) as client:
        await contender.make(url, client).run("bench-r2")
    last = seen[-1]["messages"]
    roles = ["user", "assistant", "tool", "tool", "assistant", "tool", "tool"]
    assert [m["role"] for m in last] == roles
    assert [m["content"] for m in last if m["role"] == "tool"] == [
        "Sunny, 21 C in Paris",
        "12:00 in Paris",
    ] * 2
    assert last[1]["tool_calls"][1]["function"] == {
        "name": "get_time",
        "arguments": '{"city": "Paris"}',
    }


async def test_server_reports_its_own_cpu_time(server: tuple[BenchServer, str]) -> None:
    _, url = server
    async with httpx.AsyncClient() as client:
        stats = (await client.get(url.removesuffix("/v1") + "/bench/stats")).json()
    assert set(stats) == {"cpu_s", "model_requests"}
    assert stats["cpu_s"] > 0
    assert stats["model_requests"] == 0


def test_summary_line_has_every_key_in_order_with_n_a_for_missing() -> None:
    line = summary_line({"robota/wire": 1.23456, "robota/raw": 0.5, "idle_kib": 2.0})
    assert line == (
        "bench: robota/wire=1.235 robota/raw=0.500 robota/pydantic_ai=n/a "
        "robota/openai_agents=n/a concurrent_robota/raw=n/a idle_kib=2.000"
    )
    assert [cell.split("=")[0] for cell in line.split()[1:]] == list(SUMMARY_KEYS)


def test_profile_falls_back_to_cprofile_and_covers_both_loads(tmp_path: Path) -> None:
    out = tmp_path / "deep" / "robota.prof.txt"
    assert profile(out, rounds=1, runs=2, concurrent=3, profiler="cprofile") == "cProfile"
    cprofile_report = out.read_text()
    heads = re.findall(r"^# cProfile: (.*)$", cprofile_report, re.MULTILINE)
    assert heads == [
        "2 sequential runs of robota/chat/stream, bench-r1",
        "3 concurrent runs of robota/chat/stream, bench-r1, over 1 clients",
    ]
    # Each part: pstats sorted by cumulative, then by internal time.
    assert cprofile_report.count("Ordered by: cumulative time") == 2
    assert cprofile_report.count("Ordered by: internal time") == 2
    assert "robota" in cprofile_report
