"""The ``robota`` command as a subprocess against a real llama.cpp server on 127.0.0.1.

``robota run`` streams the answer to stdout while the model produces it, stores the session
(``robota sessions list`` shows it) and ``--resume`` continues it. The model is a small
pretrained base model whose chat template has no tool support: the CLI says so (from the
server's ``/props``), never prints chat-template markers, and exits 7 when the answer is cut at
the output token limit. The runs use ``--permission-mode plan`` and one round, and only what a
user notices is asserted. A missing server fails these tests; ``ROBOTA_SKIP_LLAMA=1`` skips them
(see ``llamacpp/``).
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
from robota.cli.exit_codes import ExitCode
from robota.cli.local_server import TEMPLATE_STOP_SEQUENCES, TOOLS_DROPPED

sys.path.insert(0, str(Path(__file__).parent))
from llamacpp import MODEL_ALIAS, LlamaServer, locate, shared_server, skip_requested, start_server

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


def _finished(result: Streamed) -> None:
    """A base model may run into the output token limit: 0, or 7 with the cut answer kept."""
    assert result.returncode in (ExitCode.OK, ExitCode.TRUNCATED), result.stderr
    if result.returncode == ExitCode.TRUNCATED:
        assert "note: the answer was cut off at the model's output token limit" in result.stderr


def test_run_streams_the_answer_while_running_and_stores_the_session(
    llama: LlamaServer, home: Home
) -> None:
    first = _run_streaming(home, llama, "Tell me about the sea.", "--accept-truncated")

    _finished(first)
    assert first.stdout.strip() != ""
    assert first.running_at_first_chunk
    assert not first.summary_written_at_first_chunk
    session_id = _session_id(first)
    assert _listed(home) == {session_id: 2}

    shown = _robota_output(home, "sessions", "show", session_id)
    assert "user: Tell me about the sea." in shown
    assert "assistant: " in shown

    second = _run_streaming(
        home, llama, "And about the mountains?", "--resume", session_id, "--accept-truncated"
    )

    _finished(second)
    assert second.stdout.strip() != ""
    assert _session_id(second) == session_id
    assert _listed(home) == {session_id: 4}
    shown = _robota_output(home, "sessions", "show", session_id)
    assert shown.index("user: Tell me about the sea.") < shown.index(
        "user: And about the mountains?"
    )


def test_the_cli_says_the_template_drops_the_tools_and_prints_no_template_markers(
    llama: LlamaServer, home: Home
) -> None:
    (home.workspace / "README.md").write_text(
        "# demo\n\n## Packages\n\n- alpha-core\n- alpha-cli\n"
    )

    result = _run_streaming(
        home, llama, "read README.md and list the packages", "--accept-truncated"
    )

    _finished(result)
    said = [line for line in result.stderr.splitlines() if "chat template" in line]
    assert said == [f"robota: {TOOLS_DROPPED}"]
    answered = SUMMARY.search(result.stderr)
    if (
        answered is not None
    ):  # a base model may also stop at once (an unanswered run keeps no session)
        assert "tool call" not in _robota_output(home, "sessions", "show", answered.group(3))
    for marker in TEMPLATE_STOP_SEQUENCES:
        assert marker not in result.stdout


@pytest.fixture(scope="module")
def short_llama(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """A second server whose output limit is 4 tokens, sampling greedily with a fixed seed."""
    if skip_requested():
        pytest.skip("ROBOTA_SKIP_LLAMA=1: llama.cpp server tests skipped")
    server = start_server(
        locate(),
        log_dir=tmp_path_factory.mktemp("llama-short"),
        max_output_tokens=4,
        temperature=0.0,
        seed=1,
    )
    try:
        yield server
    finally:
        server.stop()


def test_an_answer_cut_at_the_token_limit_exits_7(short_llama: LlamaServer, home: Home) -> None:
    task = "Write a long story about a lighthouse keeper and the sea."
    failed = _run_streaming(home, short_llama, task)

    assert failed.returncode == ExitCode.TRUNCATED == 7, failed.stderr
    assert "TruncatedResponseError" in failed.stderr

    kept = _run_streaming(home, short_llama, task, "--accept-truncated")

    assert kept.returncode == ExitCode.TRUNCATED, kept.stderr
    assert kept.stdout.strip() != ""
    assert "note: the answer was cut off at the model's output token limit" in kept.stderr
