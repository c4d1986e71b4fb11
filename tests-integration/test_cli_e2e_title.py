"""``robota run`` without ``--no-title`` names the new session after its first turn with one
extra, tool-free model call (seed 003, "The session names itself once, and only with text").

The title call is answered by a real recorded text response when there is one; when the server
has nothing to answer it, the run still succeeds and the session stays untitled.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from robota.core.testing.cassette import load_cassette

sys.path.insert(0, str(Path(__file__).resolve().parent))
from replay_server import MISS_STATUS, ReplayServer  # pyright: ignore[reportImplicitRelativeImport]
from test_cli_e2e import (  # pyright: ignore[reportImplicitRelativeImport]
    PROMPT,
    SOURCE_ROOT,
    VENDORS,
    Host,
    _configure,  # pyright: ignore[reportPrivateUsage]
    _session_id,  # pyright: ignore[reportPrivateUsage]
    _stored,  # pyright: ignore[reportPrivateUsage]
    host_fixture,  # noqa: F401  # pyright: ignore[reportUnusedImport]
    robota,
)

pytestmark = pytest.mark.integration

ANTHROPIC = next(v for v in VENDORS if v.id == "anthropic")


def test_first_turn_names_the_session_with_a_tool_free_call(host: Host) -> None:
    title_answer = load_cassette(
        SOURCE_ROOT / "test_anthropic" / "test_anthropic_model_instructions.yaml"
    ).interactions[0]
    conversation = ANTHROPIC.interactions()[:2]
    with ReplayServer(interactions=[*conversation, title_answer]) as server:
        _configure(host, ANTHROPIC, server)
        done = robota(host, "run", PROMPT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith(ANTHROPIC.final_text + "\n")
    assert server.misses == []
    assert server.served == 3
    title_request = server.received[2].json()
    assert "tools" not in title_request or title_request["tools"] == []
    session_id = _session_id(done.stderr)
    assert _stored(host, session_id).title == "The capital of France is Paris"
    listed = robota(host, "sessions", "list")
    assert listed.stdout.split()[0] == session_id
    assert listed.stdout.rstrip("\n").endswith("The capital of France is Paris")


def test_unanswered_title_call_leaves_the_session_untitled(host: Host) -> None:
    with ReplayServer(interactions=ANTHROPIC.interactions()[:2]) as server:
        _configure(host, ANTHROPIC, server)
        done = robota(host, "run", PROMPT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith(ANTHROPIC.final_text + "\n")
    assert server.served == 2
    # The title call was tried (and retried by the CLI's retry policy), never answered.
    assert server.misses
    assert {r.status for r in server.misses} == {MISS_STATUS}
    record = _stored(host, _session_id(done.stderr))
    assert record.title is None
    assert len(record.messages) == 4
