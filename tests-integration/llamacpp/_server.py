"""Starting and stopping a real ``llama-server`` on 127.0.0.1 with a free port.

Flags follow the llama.cpp server README (tools/server/README.md): ``-m`` model, ``--host`` /
``--port``, ``--jinja`` (chat template from the model, falling back to ChatML for a GGUF without
one), ``-c`` context size in tokens, ``-n`` default and upper output limit in tokens, ``-t`` / ``-tb``
generation and prompt threads, ``--alias`` the model name served on ``/v1/models``. ``GET /health`` answers 503 while the model loads and
200 once it serves.
"""

from __future__ import annotations

import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from ._locate import LlamaFiles

__all__ = ["MODEL_ALIAS", "LlamaServer", "LlamaStartError", "free_port", "start_server"]

MODEL_ALIAS = "gemma"
"""The model id the server answers to (and reports back in responses)."""
HOST = "127.0.0.1"


class LlamaStartError(RuntimeError):
    """The server exited or did not become healthy; the message carries its log's tail."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


@dataclass(kw_only=True, slots=True)
class LlamaServer:
    """One running ``llama-server`` process.

    Attributes:
        process: The server process (its output goes to ``log_path``).
        port: The TCP port on 127.0.0.1.
        log_path: The server's combined stdout/stderr.
        model: The model id it serves (``--alias``).
    """

    process: subprocess.Popen[bytes]
    port: int
    log_path: Path
    model: str = MODEL_ALIAS

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:PORT`` (the native endpoints: ``/health``, ``/tokenize``)."""
        return f"http://{HOST}:{self.port}"

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``, the OpenAI-compatible base URL."""
        return f"{self.origin}/v1"

    def log_tail(self, lines: int = 30) -> str:
        """The last ``lines`` lines of the server log."""
        return _tail(self.log_path, lines)

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM, then SIGKILL after ``timeout`` seconds; idempotent."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=timeout)


def _wait_healthy(server: LlamaServer, deadline: float) -> bool:
    """Poll ``GET /health`` until 200 (True) or the process exits / the deadline passes (False)."""
    with httpx.Client(timeout=2.0) as client:
        while time.monotonic() < deadline:
            if server.process.poll() is not None:
                return False
            try:
                if client.get(f"{server.origin}/health").status_code == 200:
                    return True
            except httpx.TransportError:
                pass
            time.sleep(0.2)
    return False


def start_server(
    files: LlamaFiles,
    *,
    log_dir: Path,
    context_tokens: int = 4096,
    max_output_tokens: int = 128,
    threads: int = 1,
    startup_timeout: float = 120.0,
    attempts: int = 3,
    temperature: float | None = None,
    seed: int | None = None,
) -> LlamaServer:
    """Start ``llama-server`` on a free port and wait until ``/health`` answers 200.

    Args:
        files: The binary and model (see ``locate``).
        log_dir: Folder for ``llama-server-<port>.log``.
        context_tokens: ``-c``, the context size in tokens.
        max_output_tokens: ``-n``, the output limit in tokens when a request sets none, and the
            cap of any request's ``max_tokens`` (the base model otherwise rambles until the
            context is full).
        threads: ``-t`` and ``-tb``. One thread by default: measured on a 2-core machine
            shared with the test process, the CLI under test and other load, two threads
            generated 2.5 tokens/s (every token waits at thread barriers for a descheduled
            thread) against 34 tokens/s with one.
        startup_timeout: Seconds to wait for health per attempt.
        attempts: Tries with a fresh port (another process may take the port first).
        temperature: ``--temp``, the default sampling temperature (None: the server's).
        seed: ``--seed``, the default sampling seed (None: random), for repeatable answers.

    Raises:
        LlamaStartError: every attempt exited early or stayed unhealthy; carries the log tail.
    """
    log_dir.mkdir(parents=True, exist_ok=True)
    failure = ""
    for _ in range(attempts):
        port = free_port()
        log_path = log_dir / f"llama-server-{port}.log"
        command = [
            str(files.server),
            "-m", str(files.model),
            "--host", HOST,
            "--port", str(port),
            "--alias", MODEL_ALIAS,
            "--jinja",
            "-c", str(context_tokens),
            "-n", str(max_output_tokens),
            "--parallel", "1",
            "-t", str(threads),
            "-tb", str(threads),
        ]  # fmt: skip
        if temperature is not None:
            command += ["--temp", str(temperature)]
        if seed is not None:
            command += ["--seed", str(seed)]
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
            )
        server = LlamaServer(process=process, port=port, log_path=log_path)
        if _wait_healthy(server, time.monotonic() + startup_timeout):
            return server
        server.stop()
        failure = (
            f"llama-server on port {port} exited with {process.returncode} or stayed unhealthy "
            f"for {startup_timeout:.0f}s; command: {' '.join(command)}\nlog tail:\n"
            f"{server.log_tail()}"
        )
    raise LlamaStartError(failure)
