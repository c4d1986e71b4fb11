"""What a new user hit following the README on a clean clone (issue #18), each through the real
``robota`` console script: at a real terminal (a pseudo-terminal the process has as its
controlling terminal, so Ctrl-C is the terminal driver's SIGINT), against a loopback server that
answers (``replay_server.py``), one that accepts and never answers, or a closed port.
"""

from __future__ import annotations

import json
import os
import re
import select
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path

import anyio
import pytest
from robota.core.testing.cassette import Interaction
from robota.session import SessionRecord, SQLiteSessionStore

sys.path.insert(0, str(Path(__file__).resolve().parent))
from replay_server import ReplayServer  # pyright: ignore[reportImplicitRelativeImport]
from test_cli_e2e import (  # pyright: ignore[reportImplicitRelativeImport]
    ROBOTA,
    Host,
    host_fixture,  # noqa: F401  # pyright: ignore[reportUnusedImport]
)

pytestmark = pytest.mark.integration

EXIT_HINT = "press Ctrl-C again or Ctrl-D to exit"
README = Path(__file__).resolve().parent.parent / "README.md"
# Run a program with the pseudo-terminal on fd 0 as its controlling terminal (it is a session
# leader: start_new_session), so the terminal's Ctrl-C reaches it as SIGINT.
_WITH_TTY = (
    "import fcntl, os, sys, termios; fcntl.ioctl(0, termios.TIOCSCTTY, 0); "
    "os.execv(sys.argv[1], sys.argv[1:])"
)


def _answer(text: str, model: str = "gpt-4o-mini") -> Interaction:
    """A Chat Completions streamed answer saying ``text``."""
    chunks = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]
    body = "".join(
        "data: "
        + json.dumps({"id": "c1", "object": "chat.completion.chunk", "model": model, **chunk})
        + "\n\n"
        for chunk in chunks
    )
    return Interaction(
        method="POST",
        uri="http://127.0.0.1/v1/chat/completions",
        request_body=None,
        status=200,
        headers={"content-type": "text/event-stream"},
        body=(body + "data: [DONE]\n\n").encode(),
    )


def _settings(host: Host, base_url: str) -> None:
    profile = {"type": "openai-chat", "base_url": base_url, "api_key": "test"}
    settings = {"providers": {"rec": {**profile, "model": "gpt-4o-mini"}}, "provider": "rec"}
    (host.home / "settings.json").write_text(json.dumps(settings), encoding="utf-8")


def _robota(host: Host, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """The console script with pipes (no terminal)."""
    return subprocess.run(
        [str(ROBOTA), *args],
        env=host.env,
        cwd=host.workspace,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@contextmanager
def _silent_server() -> Generator[str]:
    """``http://127.0.0.1:PORT/v1`` of a server that accepts connections and never answers."""
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except TimeoutError:
                continue
            except OSError:
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        stop.set()
        thread.join()
        for connection in held:
            connection.close()
        listener.close()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Terminal:
    """``robota`` running at a pseudo-terminal: keys in, the screen's bytes out."""

    def __init__(self, host: Host, *args: str) -> None:
        master, slave = os.openpty()
        self._master = master
        self._process = subprocess.Popen(
            [sys.executable, "-c", _WITH_TTY, str(ROBOTA), *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env={**host.env, "TERM": "xterm"},
            cwd=host.workspace,
            start_new_session=True,
        )
        os.close(slave)
        self._seen = b""
        self._cursor = 0

    @property
    def screen(self) -> str:
        """Everything written to the terminal so far."""
        return self._seen.decode(errors="replace")

    def _pump(self, wait: float) -> bool:
        ready, _, _ = select.select([self._master], [], [], wait)
        if not ready:
            return True
        try:
            chunk = os.read(self._master, 65536)
        except OSError:  # EIO: the process closed the terminal
            return False
        self._seen += chunk
        return bool(chunk)

    def expect(self, text: str, timeout: float = 60.0) -> None:
        """Wait until ``text`` appears after the previous match."""
        wanted = text.encode()
        deadline = time.monotonic() + timeout
        while True:
            found = self._seen.find(wanted, self._cursor)
            if found >= 0:
                self._cursor = found + len(wanted)
                return
            if time.monotonic() > deadline or not self._pump(0.2):
                raise AssertionError(f"{text!r} never appeared; the screen:\n{self.screen}")

    def type(self, keys: bytes) -> None:
        os.write(self._master, keys)

    def wait(self, timeout: float = 60.0) -> int:
        """Drain the screen until the process exits; its exit status."""
        deadline = time.monotonic() + timeout
        while self._process.poll() is None and time.monotonic() < deadline:
            self._pump(0.1)
        while self._pump(0.05) and self._process.poll() is not None:
            pass
        code = self._process.wait(timeout=5)
        os.close(self._master)
        return code


def _sessions(host: Host) -> list[SessionRecord]:
    async def read() -> list[SessionRecord]:
        async with SQLiteSessionStore(host.home / "sessions.db") as store:
            return [await store.get(row.id) for row in await store.list()]

    return anyio.run(read)


def _user_texts(body: bytes) -> list[str]:
    messages = json.loads(body)["messages"]
    return [m["content"] for m in messages if m["role"] == "user"]


# -- Ctrl-C and Ctrl-D in `robota chat` ------------------------------------------------------


def test_ctrl_c_at_the_prompt_keeps_the_next_line_and_a_second_one_exits_130(host: Host) -> None:
    with ReplayServer(interactions=[_answer("Hello from the model.")]) as server:
        _settings(host, server.url + "/v1")
        chat = Terminal(host, "chat", "--no-title", "--trust")
        chat.expect("> ")
        chat.type(b"half a thought")
        chat.type(b"\x03")
        chat.expect(EXIT_HINT)
        chat.expect("> ")
        chat.type(b"hello there\r")
        chat.expect("Hello from the model.")
        chat.expect("> ")
        chat.type(b"\x03")
        chat.expect(EXIT_HINT)
        chat.type(b"\x03")
        code = chat.wait()
    assert code == 130, chat.screen
    assert "Traceback" not in chat.screen
    [request] = server.received
    assert _user_texts(request.body) == ["hello there"]  # the line after Ctrl-C got through
    assert len(_sessions(host)) == 1


def test_ctrl_c_cancels_a_waiting_turn_and_ctrl_d_exits_0(host: Host) -> None:
    with _silent_server() as url:
        _settings(host, url)
        chat = Terminal(host, "chat", "--no-title", "--trust", "--timeout", "120")
        chat.expect("> ")
        chat.type(b"are you there?\r")
        chat.expect("waiting for the model… (")
        chat.type(b"\x03")
        chat.expect(f"turn cancelled; {EXIT_HINT}")
        chat.expect("> ")
        chat.type(b"\x04")
        code = chat.wait()
    assert code == 0, chat.screen
    assert "Traceback" not in chat.screen
    # the model never answered: no "(untitled)" session is left behind
    listed = _robota(host, "sessions", "list")
    assert (listed.returncode, listed.stdout) == (0, "")
    assert "no sessions yet" in listed.stderr


# -- a silent server, a refused connection, and what is stored after them --------------------


def test_a_silent_server_times_out_with_progress_on_a_terminal(host: Host) -> None:
    with _silent_server() as url:
        _settings(host, url)
        run = Terminal(host, "run", "--no-title", "--trust", "--timeout", "1", "hi")
        run.expect("waiting for the model… (")
        code = run.wait()
    assert code == 4, run.screen
    assert f"no answer from the model at {url} within 1 s (--timeout)" in run.screen
    assert "Traceback" not in run.screen


def test_a_silent_server_times_out_in_one_line_without_a_terminal(host: Host) -> None:
    with _silent_server() as url:
        _settings(host, url)
        done = _robota(host, "run", "--no-title", "--timeout", "1", "hi")
    assert done.returncode == 4, done.stderr
    assert "waiting for the model" not in done.stderr  # plain output off a terminal
    [line] = [line for line in done.stderr.splitlines() if "ProviderTimeoutError" in line]
    assert line.startswith(
        f"robota: ProviderTimeoutError: no answer from the model at {url} within 1 s (--timeout)"
    )
    assert done.stdout == ""
    listed = _robota(host, "sessions", "list")
    assert (listed.returncode, listed.stdout) == (0, "")


def test_a_refused_connection_names_the_url_once_and_leaves_no_session(host: Host) -> None:
    port = _closed_port()
    _settings(host, f"http://127.0.0.1:{port}/v1")
    done = _robota(host, "run", "--no-title", "hi")
    assert done.returncode == 4, done.stderr
    failures = [line for line in done.stderr.splitlines() if "onnect" in line]
    assert failures == [
        f"robota: ProviderConnectionError: cannot connect to http://127.0.0.1:{port}/v1: "
        "connection refused (gave up after 3 retries)"
    ]
    assert "Connection error." not in done.stderr
    assert "session=" not in done.stderr
    assert _sessions(host) == []
    assert list((host.home / "logs").glob("*.jsonl")) == []


# -- /model, trust after credentials ---------------------------------------------------------


def test_slash_model_shows_and_switches_the_model(host: Host) -> None:
    answers = [_answer("First."), _answer("Second.", model="gpt-4.1-nano")]
    with ReplayServer(interactions=answers) as server:
        _settings(host, server.url + "/v1")
        lines = "hello\n/model\n/model gpt-4.1-nano\nagain\n/model\n"
        done = _robota(host, "chat", "--no-title", stdin=lines)
    assert done.returncode == 0, done.stderr
    assert "unknown command" not in done.stderr
    said = [line for line in done.stderr.splitlines() if line.startswith("robota: model:")]
    assert said == [
        "robota: model: gpt-4o-mini (rec)",
        "robota: model: gpt-4.1-nano (rec), from the next turn on",
        "robota: model: gpt-4.1-nano (rec)",
    ]
    assert [r.json()["model"] for r in server.received] == ["gpt-4o-mini", "gpt-4.1-nano"]
    assert done.stdout == "First.\nSecond.\n"
    [record] = _sessions(host)
    assert record.model == "gpt-4.1-nano"


def test_chat_checks_credentials_before_asking_about_trust(host: Host) -> None:
    chat = Terminal(host, "chat")
    code = chat.wait()
    assert code == 3, chat.screen
    assert "none of ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY is set" in chat.screen
    assert "Do you trust" not in chat.screen
    assert not (host.home / "trust.json").exists()  # nothing was asked, nothing remembered


def test_chat_with_credentials_still_asks_about_trust(host: Host) -> None:
    with ReplayServer(interactions=[]) as server:
        _settings(host, server.url + "/v1")
        chat = Terminal(host, "chat", "--no-title")
        chat.expect(f"Do you trust the files in {host.workspace}?")
        chat.type(b"n\r")
        chat.expect("> ")
        chat.type(b"\x04")
        assert chat.wait() == 0, chat.screen


def test_ctrl_c_at_the_trust_question_exits_130_and_remembers_nothing(host: Host) -> None:
    with ReplayServer(interactions=[]) as server:
        _settings(host, server.url + "/v1")
        chat = Terminal(host, "chat", "--no-title")
        chat.expect("Do you trust the files in")
        chat.type(b"\x03")
        assert chat.wait() == 130, chat.screen
    assert "Traceback" not in chat.screen
    assert not (host.home / "trust.json").exists()


# -- sessions, the state folder, --help, the README ------------------------------------------


def test_sessions_show_of_an_unknown_id_exits_3_with_or_without_a_store(host: Host) -> None:
    fresh = _robota(host, "sessions", "show", "bogus")
    assert (fresh.returncode, fresh.stdout) == (3, "")
    assert fresh.stderr == "robota: no session 'bogus' (no sessions yet)\n"
    with ReplayServer(interactions=[_answer("Hi.")]) as server:
        _settings(host, server.url + "/v1")
        assert _robota(host, "run", "--no-title", "hi").returncode == 0
    stored = _robota(host, "sessions", "show", "bogus")
    assert stored.returncode == 3
    assert stored.stderr.count("\n") == 1
    assert "no session 'bogus'" in stored.stderr


def test_an_insecure_home_says_the_exact_chmod(host: Host) -> None:
    host.home.chmod(0o755)
    for args in (("sessions", "list"), ("run", "--no-title", "hi")):
        done = _robota(host, *args)
        assert done.returncode == 3, done.stderr
        [line] = done.stderr.splitlines()
        assert f"run `chmod 700 {host.home}`" in line
        assert line.count("chmod") == 1


@pytest.mark.parametrize(
    "command",
    [
        ["run"],
        ["chat"],
        ["sessions"],
        ["sessions", "list"],
        ["sessions", "show"],
        ["eval"],
        ["eval", "run"],
        ["eval", "compare"],
    ],
    ids=lambda c: " ".join(c),
)
def test_every_subcommand_help_lists_the_exit_codes(host: Host, command: list[str]) -> None:
    done = _robota(host, *command, "--help")
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert re.search(r"exit codes: 0 [^,]*, 1 unexpected error, 2 usage, 3 ", text), text


def test_the_readme_python_example_says_how_to_run_it() -> None:
    section = README.read_text(encoding="utf-8").split("## Use it from Python", 1)[1]
    intro = section.split("```python", 1)[0]
    assert "uv run python" in intro
