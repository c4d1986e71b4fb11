"""The ``robota`` command end to end over recorded provider traffic (issue "The product",
"Real input, end to end").

Each test starts a loopback replay server (``replay_server.py``) serving a recorded multi-round
tool conversation — Anthropic Messages, OpenAI Chat Completions, OpenAI Responses, Gemini — and
runs the real ``robota`` console script as a subprocess, pointed at the server by a user
settings profile in ``$ROBOTA_HOME/settings.json``. The recorded model calls ``read_file`` on
``notes.txt`` (cassettes derived from real recordings by renaming only the tool call; see
``cassettes/README.md``), so the real built-in tool reads a real file in a real workspace. The
session is persisted to ``$ROBOTA_HOME/sessions.db``; a second ``robota run --resume`` turn is
answered by another real recorded response.

``--no-title`` is passed everywhere: session naming makes one extra model call that no recording
answers (``test_cli_e2e_title.py`` covers what happens without it).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from robota.core.messages import (
    AssistantMessage,
    Message,
    TextPart,
    ToolResultMessage,
    UserMessage,
)
from robota.core.testing.cassette import Interaction, load_cassette
from robota.session import SessionRecord, SQLiteSessionStore

sys.path.insert(0, str(Path(__file__).resolve().parent))
from replay_server import ReplayServer  # pyright: ignore[reportImplicitRelativeImport]

pytestmark = pytest.mark.integration

HERE = Path(__file__).resolve().parent
CASSETTES = HERE / "cassettes"
SOURCE_ROOT = Path(
    os.environ.get("ROBOTA_CASSETTE_DIR")
    or HERE.parent.parent / "shared" / "cassettes" / "pydantic-ai"
)
ROBOTA = Path(sys.executable).with_name("robota")

NOTES = "Robota end-to-end notes: the launch code is 7319.\nSecond line stays here.\n"
PROMPT = "Read notes.txt and answer."
RESUME_PROMPT = "One more question, please."


@dataclass(frozen=True, kw_only=True, slots=True)
class Vendor:
    """One recorded conversation and how the CLI reaches it."""

    id: str
    cassette: str
    type: str
    base_path: str
    model: str
    first_text: str
    final_text: str
    resume_source: str
    resume_text: str
    resume_model: str | None = None

    def interactions(self) -> list[Interaction]:
        """The derived conversation, then the recorded answer for the resumed turn."""
        conversation = list(load_cassette(CASSETTES / self.cassette).interactions)
        resume = load_cassette(SOURCE_ROOT / self.resume_source).interactions[0]
        return [*conversation, resume]


ANTHROPIC_FINAL = (
    "Based on the result, you are located in Mexico. The largest city in Mexico is Mexico City "
    "(Ciudad de México), which is both the capital and the most populous city in the country. "
    "With a population of approximately 9.2 million people in the city proper and over 21 "
    "million people in its metropolitan area, Mexico City is not only the largest city in Mexico "
    "but also one of the largest cities in the world."
)

VENDORS = (
    Vendor(
        id="anthropic",
        cassette="anthropic_read_file.yaml",
        type="anthropic",
        base_path="",
        model="claude-sonnet-4-5",
        first_text="I'll help find the largest city in your country. Let me first check your "
        "country using the get_user_country tool.",
        final_text=ANTHROPIC_FINAL,
        resume_source="test_anthropic/test_anthropic_model_instructions.yaml",
        resume_text="The capital of France is Paris.",
    ),
    Vendor(
        id="openai-chat",
        cassette="openai_chat_read_file.yaml",
        type="openai-chat",
        base_path="/v1",
        model="gpt-4o-mini",
        first_text="",
        final_text="The capital of the UK is London.",
        resume_source="test_openai/test_openai_moderation_stream.yaml",
        resume_text="Paris.",
    ),
    Vendor(
        id="openai-responses",
        cassette="openai_responses_read_file.yaml",
        type="openai",
        base_path="/v1",
        model="gpt-4o",
        first_text="",
        final_text="The capital of France is Paris.",
        resume_source="test_openai_responses/test_openai_responses_moderation_stream.yaml",
        resume_text="Paris.",
    ),
    Vendor(
        id="google",
        cassette="google_read_file.yaml",
        type="google",
        base_path="/",
        model="gemini-3-pro-preview",
        first_text="",
        final_text="The capital of Mexico is Mexico City.",
        resume_source="test_google/test_google_model_stream.yaml",
        resume_text="The capital of France is Paris.\n",
        resume_model="gemini-2.0-flash-exp",
    ),
)


@dataclass(frozen=True, kw_only=True, slots=True)
class Host:
    """A robota home and a workspace on disk."""

    home: Path
    workspace: Path
    env: dict[str, str]


@pytest.fixture(name="host")
def host_fixture(tmp_path: Path) -> Host:
    """A private robota home and a workspace holding ``notes.txt``."""
    home = tmp_path / "robota-home"
    home.mkdir(mode=0o700)
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "notes.txt").write_text(NOTES, encoding="utf-8")
    env = {
        key: value
        for key, value in os.environ.items()
        if "proxy" not in key.lower() and not key.endswith(("_API_KEY", "_BASE_URL"))
    }
    env.update(ROBOTA_HOME=str(home), HOME=str(tmp_path), NO_PROXY="*")
    return Host(home=home, workspace=workspace, env=env)


def _configure(host: Host, vendor: Vendor, server: ReplayServer) -> None:
    profile = {
        "type": vendor.type,
        "base_url": server.url + vendor.base_path,
        "api_key": "test",
        "model": vendor.model,
    }
    settings = {"providers": {"rec": profile}, "provider": "rec"}
    (host.home / "settings.json").write_text(json.dumps(settings), encoding="utf-8")


def robota(host: Host, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the ``robota`` console script (no TTY: stdin is /dev/null)."""
    return subprocess.run(
        [str(ROBOTA), *args],
        env=host.env,
        cwd=host.workspace,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _session_id(stderr: str) -> str:
    found = re.findall(r"session=(ses_[0-9a-f]+)", stderr)
    assert len(found) == 1, stderr
    return found[0]


def _stored(host: Host, session_id: str) -> SessionRecord:
    async def read() -> SessionRecord:
        async with SQLiteSessionStore(host.home / "sessions.db") as store:
            return await store.get(session_id)

    return anyio.run(read)


def _user_text(message: Message) -> str:
    assert isinstance(message, UserMessage)
    return "".join(p.text for p in message.parts if isinstance(p, TextPart))


def _assert_first_turn(messages: Sequence[Message], vendor: Vendor) -> None:
    user, call, results, answer = messages
    assert _user_text(user) == PROMPT
    assert isinstance(call, AssistantMessage)
    assert [(c.name, c.arguments) for c in call.tool_calls] == [
        ("read_file", {"path": "notes.txt"})
    ]
    assert call.text == vendor.first_text
    assert isinstance(results, ToolResultMessage)
    [result] = results.results
    assert result.name == "read_file"
    assert not result.is_error
    assert result.call_id == call.tool_calls[0].id
    assert result.text == (
        "     1\tRobota end-to-end notes: the launch code is 7319.\n     2\tSecond line stays here."
    )
    assert isinstance(answer, AssistantMessage)
    assert answer.text == vendor.final_text
    assert answer.tool_calls == ()


def _first_run(host: Host, vendor: Vendor, server: ReplayServer) -> str:
    done = robota(host, "run", "--no-title", PROMPT)
    assert done.returncode == 0, done.stderr
    before = f"{vendor.first_text}\n" if vendor.first_text else ""
    assert done.stdout == f"{before}{vendor.final_text}\n"
    assert "⏺ read_file(path=notes.txt) ✓" in done.stderr
    assert [(r.path, r.status) for r in server.received] == [
        (server.interactions[0].path, 200),
        (server.interactions[1].path, 200),
    ]
    # The real tool output went back to the model in the second request.
    assert b"the launch code is 7319." not in server.received[0].body
    assert b"the launch code is 7319." in server.received[1].body
    return _session_id(done.stderr)


@pytest.mark.parametrize("vendor", VENDORS, ids=[v.id for v in VENDORS])
def test_run_reads_a_real_file_persists_and_resumes(host: Host, vendor: Vendor) -> None:
    with ReplayServer(interactions=vendor.interactions()) as server:
        _configure(host, vendor, server)
        session_id = _first_run(host, vendor, server)

        record = _stored(host, session_id)
        assert record.model == vendor.model
        _assert_first_turn(record.messages, vendor)
        assert record.usage.requests == 2

        shown = robota(host, "sessions", "show", session_id)
        assert shown.returncode == 0, shown.stderr
        lines = shown.stdout.splitlines()
        assert lines[0].startswith(f"session {session_id}  model={vendor.model}")
        assert f"user: {PROMPT}" in lines
        assert any(line.startswith("tool call: read_file ") for line in lines)
        assert "tool result (ok):      1\tRobota end-to-end notes: the launch code is 7319." in (
            shown.stdout
        )
        assert f"assistant: {vendor.final_text}" in shown.stdout

        resume_args = ["run", "--no-title", "--resume", session_id, RESUME_PROMPT]
        if vendor.resume_model:
            resume_args[1:1] = ["--model", vendor.resume_model]
        resumed = robota(host, *resume_args)
        assert resumed.returncode == 0, resumed.stderr
        assert resumed.stdout.endswith(vendor.resume_text.rstrip("\n") + "\n")
        assert _session_id(resumed.stderr) == session_id
        assert server.misses == []
        assert server.served == 3
        # The resumed request carries the stored conversation and the new prompt.
        third = server.received[2].body
        assert PROMPT.encode() in third
        assert b"the launch code is 7319." in third
        assert RESUME_PROMPT.encode() in third

    after = _stored(host, session_id)
    assert after.id == session_id
    assert after.messages[:4] == record.messages
    _assert_first_turn(after.messages[:4], vendor)
    user, answer = after.messages[4:]
    assert _user_text(user) == RESUME_PROMPT
    assert isinstance(answer, AssistantMessage)
    assert answer.text == vendor.resume_text
    assert after.model == (vendor.resume_model or vendor.model)
    assert after.usage.requests == 3
    assert after.revision > record.revision

    listed = robota(host, "sessions", "list")
    assert listed.returncode == 0
    assert [line.split()[0] for line in listed.stdout.splitlines()] == [session_id]
    assert (host.workspace / "notes.txt").read_text(encoding="utf-8") == NOTES


@pytest.mark.parametrize("vendor", VENDORS, ids=[v.id for v in VENDORS])
def test_json_mode_prints_one_event_per_line(host: Host, vendor: Vendor) -> None:
    with ReplayServer(interactions=vendor.interactions()[:2]) as server:
        _configure(host, vendor, server)
        done = robota(host, "run", "--no-title", "--json", PROMPT)
    assert done.returncode == 0, done.stderr
    assert server.misses == []
    events: list[dict[str, Any]] = [json.loads(line) for line in done.stdout.splitlines()]
    types = [e["type"] for e in events]
    assert types[0] == "run.started"
    assert types.count("run.completed") == 1
    completed = events[types.index("run.completed")]
    assert completed["text"] == vendor.final_text
    assert completed["interrupted"] is False
    assert completed["usage"]["requests"] == 2
    # Nothing of the run comes after run.completed; only the session save may follow.
    assert set(types[types.index("run.completed") + 1 :]) <= {"session.saved"}
    tool_done = [e for e in events if e["type"] == "tool.call_completed"]
    assert [e["result"]["name"] for e in tool_done] == ["read_file"]
    assert tool_done[0]["result"]["is_error"] is False
    assert "the launch code is 7319." in tool_done[0]["result"]["content"][0]["text"]
    decided = [e for e in events if e["type"] == "permission.decided"]
    assert [(e["tool_name"], e["behavior"]) for e in decided] == [("read_file", "allow")]
    saved = [e for e in events if e["type"] == "session.saved"]
    assert saved
    record = _stored(host, saved[-1]["session_id"])
    _assert_first_turn(record.messages, vendor)
