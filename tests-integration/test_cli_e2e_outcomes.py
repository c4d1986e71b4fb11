"""Exit codes and stored records of the ``robota`` command when a run does not go the happy way:
a denied tool call (exit 5, the model still answers, the file's content never leaves the
machine) and an unknown session id on ``--resume``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from robota.core.messages import ToolResultMessage

sys.path.insert(0, str(Path(__file__).resolve().parent))
from replay_server import ReplayServer  # pyright: ignore[reportImplicitRelativeImport]
from test_cli_e2e import (  # pyright: ignore[reportImplicitRelativeImport]
    PROMPT,
    VENDORS,
    Host,
    _session_id,  # pyright: ignore[reportPrivateUsage]
    _stored,  # pyright: ignore[reportPrivateUsage]
    host_fixture,  # noqa: F401  # pyright: ignore[reportUnusedImport]
    robota,
)

pytestmark = pytest.mark.integration

OPENAI_CHAT = next(v for v in VENDORS if v.id == "openai-chat")


def _settings(host: Host, server: ReplayServer, **extra: object) -> None:
    profile = {
        "type": OPENAI_CHAT.type,
        "base_url": server.url + OPENAI_CHAT.base_path,
        "api_key": "test",
        "model": OPENAI_CHAT.model,
    }
    settings = {"providers": {"rec": profile}, "provider": "rec", **extra}
    (host.home / "settings.json").write_text(json.dumps(settings), encoding="utf-8")


def test_denied_read_exits_5_and_keeps_the_file_private(host: Host) -> None:
    with ReplayServer(interactions=OPENAI_CHAT.interactions()[:2]) as server:
        _settings(host, server, permissions={"deny": ["read_file(notes.txt)"]})
        done = robota(host, "run", "--no-title", PROMPT)
    assert done.returncode == 5, done.stderr
    # The recorded model still answers after the denial.
    assert done.stdout == OPENAI_CHAT.final_text + "\n"
    assert "⏺ read_file(path=notes.txt) ✗" in done.stderr
    assert server.misses == []
    assert b"the launch code is 7319." not in server.received[1].body
    record = _stored(host, _session_id(done.stderr))
    [results] = [m for m in record.messages if isinstance(m, ToolResultMessage)]
    assert results.results[0].is_error
    assert "7319" not in results.results[0].text


def test_a_whole_tool_deny_rule_hides_the_tool_from_the_model(host: Host) -> None:
    with ReplayServer(interactions=OPENAI_CHAT.interactions()[:2]) as server:
        _settings(host, server, permissions={"deny": ["read_file"]})
        done = robota(host, "run", "--no-title", PROMPT)
    offered = [t["function"]["name"] for t in server.received[0].json()["tools"]]
    assert "read_file" not in offered
    assert "write_file" in offered
    # The recorded model calls it anyway: an unknown-tool skip, not a permission denial.
    assert "⊘ read_file: Tool call skipped: no tool named 'read_file'" in done.stderr
    assert done.returncode == 0, done.stderr
    assert b"the launch code is 7319." not in server.received[1].body


def test_plan_mode_still_allows_reading(host: Host) -> None:
    with ReplayServer(interactions=OPENAI_CHAT.interactions()[:2]) as server:
        _settings(host, server)
        done = robota(host, "run", "--no-title", "--permission-mode", "plan", PROMPT)
    assert done.returncode == 0, done.stderr
    assert b"the launch code is 7319." in server.received[1].body


def test_resume_of_an_unknown_session_fails_without_a_model_call(host: Host) -> None:
    with ReplayServer(interactions=OPENAI_CHAT.interactions()[:2]) as server:
        _settings(host, server)
        done = robota(host, "run", "--no-title", "--resume", "ses_doesnotexist", "hi")
    assert done.returncode != 0
    assert "no session 'ses_doesnotexist'" in done.stderr
    assert "Traceback" not in done.stderr
    assert server.received == []


def test_resume_of_an_unknown_session_is_a_configuration_exit(host: Host) -> None:
    with ReplayServer(interactions=[]) as server:
        _settings(host, server)
        done = robota(host, "run", "--no-title", "--resume", "ses_doesnotexist", "hi")
    assert done.returncode == 3
