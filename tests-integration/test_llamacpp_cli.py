"""The ``robota`` command as a subprocess against a real llama.cpp server on 127.0.0.1.

``robota run`` streams the answer to stdout while the model produces it, exits 0, stores the
session (``robota sessions list`` shows it) and ``--resume`` continues it. The model is a small
pretrained base model that cannot call tools: the runs use ``--permission-mode plan`` and one
round, and only the wire-level behaviour a user notices is asserted. A missing server fails these
tests; ``ROBOTA_SKIP_LLAMA=1`` skips them (see ``llamacpp/``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from llamacpp import MODEL_ALIAS, LlamaServer, shared_server

pytestmark = pytest.mark.integration

SUMMARY = re.compile(r"tokens: in=(\d+) out=(\d+) .*session=(\S+)")


@pytest.fixture(scope="session")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    with shared_server(tmp_path_factory.mktemp("llama-server")) as server:
        yield server


def _robota() -> Path:
    """The installed ``robota`` console script of the interpreter running the tests."""
    script = Path(sys.executable).parent / "robota"
    if not script.is_file():
        pytest.fail(f"no robota command next to {sys.executable}; run `uv sync --all-packages`")
    return script


@dataclass(frozen=True, kw_only=True, slots=True)
class Home:
    """A private HOME / ROBOTA_HOME and a workspace for one test."""

    env: dict[str, str]
    workspace: Path
    robota_home: Path


@pytest.fixture
def home(tmp_path: Path) -> Home:
    user_home = tmp_path / "home"
    robota_home = user_home / ".robota"
    workspace = tmp_path / "workspace"
    user_home.mkdir()
    workspace.mkdir()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("OPENAI_", "ANTHROPIC_", "GEMINI_", "GOOGLE_", "ROBOTA_"))
    }
    env.update(HOME=str(user_home), ROBOTA_HOME=str(robota_home))
    env.pop("PYTHONUNBUFFERED", None)  # the command must flush the stream itself
    return Home(env=env, workspace=workspace, robota_home=robota_home)


@dataclass(frozen=True, kw_only=True, slots=True)
class Streamed:
    """What one ``robota run`` showed."""

    returncode: int
    stdout: str
    stderr: str
    running_at_first_chunk: bool
    summary_written_at_first_chunk: bool
    chunks: int


def _run_streaming(home: Home, server: LlamaServer, task: str, *extra: str) -> Streamed:
    """Run ``robota run`` and read stdout incrementally. At the first stdout bytes, note whether
    the process was still running and whether the closing usage line (written to stderr after
    the turn) had appeared yet."""
    stderr_path = home.workspace.parent / f"stderr-{len(list(home.workspace.parent.iterdir()))}"
    command = [
        str(_robota()),
        "run",
        task,
        "--base-url",
        server.base_url,
        "--model",
        MODEL_ALIAS,
        "--compat-profile",
        "llamacpp",
        "--permission-mode",
        "plan",
        "--max-rounds",
        "1",
        "--no-title",
        "--accept-truncated",  # a 270M base model rarely stops before the token limit
        *extra,
    ]
    with stderr_path.open("wb") as stderr_file:
        process = subprocess.Popen(
            command,
            cwd=home.workspace,
            env=home.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr_file,
        )
        assert process.stdout is not None
        received = bytearray()
        chunks = 0
        running_at_first = False
        summary_at_first = False
        try:
            while True:
                chunk = os.read(process.stdout.fileno(), 4096)
                if not chunk:
                    break
                if chunks == 0:
                    running_at_first = process.poll() is None
                    summary_at_first = "tokens:" in stderr_path.read_text(errors="replace")
                chunks += 1
                received += chunk
            returncode = process.wait(timeout=300)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            process.stdout.close()
    return Streamed(
        returncode=returncode,
        stdout=received.decode("utf-8", errors="replace"),
        stderr=stderr_path.read_text(errors="replace"),
        running_at_first_chunk=running_at_first,
        summary_written_at_first_chunk=summary_at_first,
        chunks=chunks,
    )


def _robota_output(home: Home, *args: str) -> str:
    done = subprocess.run(
        [str(_robota()), *args],
        cwd=home.workspace,
        env=home.env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _session_id(result: Streamed) -> str:
    match = SUMMARY.search(result.stderr)
    assert match is not None, result.stderr
    assert int(match.group(1)) > 0
    assert int(match.group(2)) > 0
    return match.group(3)


def _listed(home: Home) -> dict[str, int]:
    """``robota sessions list`` as {session id: message count}."""
    rows: dict[str, int] = {}
    for line in _robota_output(home, "sessions", "list").splitlines():
        match = re.match(r"(\S+)\s+\S+ \S+\s+(\d+) msgs", line)
        assert match is not None, line
        rows[match.group(1)] = int(match.group(2))
    return rows


def test_run_streams_the_answer_while_running_and_stores_the_session(
    llama: LlamaServer, home: Home
) -> None:
    first = _run_streaming(home, llama, "Tell me about the sea.")

    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() != ""
    assert first.running_at_first_chunk
    assert not first.summary_written_at_first_chunk
    session_id = _session_id(first)
    assert _listed(home) == {session_id: 2}

    shown = _robota_output(home, "sessions", "show", session_id)
    assert "user: Tell me about the sea." in shown
    assert "assistant: " in shown

    second = _run_streaming(home, llama, "And about the mountains?", "--resume", session_id)

    assert second.returncode == 0, second.stderr
    assert second.stdout.strip() != ""
    assert _session_id(second) == session_id
    assert _listed(home) == {session_id: 4}
    shown = _robota_output(home, "sessions", "show", session_id)
    assert shown.index("user: Tell me about the sea.") < shown.index(
        "user: And about the mountains?"
    )
