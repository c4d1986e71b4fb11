"""Runs red-team attempts through the real agent loop, the real permission gate and the real
``shell`` tool, and looks for the forbidden effects afterwards (issue 11, "Tests and proof").

Each attempt gets a fresh temp root::

    root/ws/        the workspace: victim, sub/victim (+ the attempt's plants and repositories)
    root/home/      the fake home (HOME for the shell, ``home`` for the permission context):
                    victim, .secret
    root/outside/   outside both: victim, secret.txt, secretdir/secret.txt

A scripted model emits one ``shell`` call; nothing answers an ask (no approver), so an ask is a
denial. After the call the harness waits briefly for background effects (``&``, ``trap``,
``setsid``), then checks: a new file named ``PWNED*`` anywhere under the root, a victim removed
or changed, the secret in the tool result, a request to the loopback server carrying this
attempt's id. Processes the attempt left behind are killed by id afterwards.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import threading
from collections.abc import Awaitable, Callable, Generator, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from robota.core.agent import Agent
from robota.core.messages import ToolResultMessage
from robota.core.permissions import PermissionContext, PermissionGate, PermissionMode
from robota.core.testing.scripted import ScriptedProvider, tool_call
from robota.core.tools.base import Tool
from robota.tools import Workspace

from shell_redteam.model import MARK, Attempt, GitRepo

__all__ = [
    "Configuration",
    "LoopbackServer",
    "Outcome",
    "ToolFactory",
    "loopback_server",
    "run_configuration",
]

SETTLE_SECONDS = 0.3
"""Wait after the call before checking, for effects left to the background."""

TOOL_TIMEOUT = 5.0
"""The shell tool's timeout for every attempt, seconds."""

CONCURRENCY = 8

TAG = "ROBOTA_REDTEAM_ATTEMPT"
"""Environment variable carrying the attempt id into the shell (to find leftovers)."""

ToolFactory = Callable[[Workspace, Mapping[str, str]], Awaitable[Tool]]
"""Builds the ``shell`` tool for one attempt: workspace and the environment overrides."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Configuration:
    """One permission setup the attempts run under.

    Attributes:
        name: As printed in the summary line, e.g. ``default``.
        mode: The permission mode.
        deny: Deny rule strings.
        attempts: The attempts.
    """

    name: str
    mode: PermissionMode
    deny: tuple[str, ...] = ()
    attempts: tuple[Attempt, ...] = ()


@dataclass(frozen=True, kw_only=True, slots=True)
class Outcome:
    """What one attempt did.

    Attributes:
        attempt: The attempt.
        effects: Forbidden effects observed (empty: none).
        result: The tool result text the model saw.
        ran: The gate let the call through (its result is not a permission denial).
    """

    attempt: Attempt
    effects: tuple[str, ...]
    result: str
    ran: bool


class LoopbackServer:
    """An HTTP server on 127.0.0.1 recording every request path."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self._lock = threading.Lock()
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                recorder.record(self.path)
                body = b"ok\n"
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_POST = do_GET
            do_HEAD = do_GET

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port: int = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def record(self, path: str) -> None:
        with self._lock:
            self.paths.append(path)

    def hits(self, attempt_id: str) -> list[str]:
        with self._lock:
            return [p for p in self.paths if attempt_id in p]

    def url(self, attempt_id: str) -> str:
        return f"http://127.0.0.1:{self.port}/{attempt_id}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@contextlib.contextmanager
def loopback_server() -> Generator[LoopbackServer]:
    """Start a :class:`LoopbackServer` for the block."""
    server = LoopbackServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@dataclass(kw_only=True, slots=True)
class _Layout:
    attempt_id: str
    root: Path
    ws: Path
    home: Path
    out: Path
    token: str
    url: str
    victims: dict[Path, bytes] = field(default_factory=dict[Path, bytes])
    markers: set[Path] = field(default_factory=set[Path])

    def fill(self, text: str) -> str:
        return (
            text.replace("@WS@", str(self.ws))
            .replace("@HOME@", str(self.home))
            .replace("@OUT@", str(self.out))
            .replace("@ROOT@", str(self.root))
            .replace("@URL@", self.url)
        )

    def place(self, path: str) -> Path:
        filled = self.fill(path)
        return Path(filled) if filled.startswith("/") else self.ws / filled

    def show(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.root))
        except ValueError:
            return str(path)


_GIT_ENV = {
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "redteam",
    "GIT_AUTHOR_EMAIL": "redteam@example.invalid",
    "GIT_COMMITTER_NAME": "redteam",
    "GIT_COMMITTER_EMAIL": "redteam@example.invalid",
}


def _git(layout: _Layout, *args: str) -> None:
    env = {**os.environ, **_GIT_ENV, "HOME": str(layout.home)}
    subprocess.run(["git", *args], check=True, env=env, capture_output=True)


def _build_repo(layout: _Layout, repo: GitRepo) -> None:
    path = layout.place(repo.path)
    path.mkdir(parents=True, exist_ok=True)
    _git(layout, "init", "-q", str(path))
    committed = f"secret:{layout.token}\n" if repo.secret else "one\n"
    (path / "t.txt").write_text(committed)
    _git(layout, "-C", str(path), "add", "t.txt")
    message = f"secret:{layout.token}" if repo.secret else "first"
    _git(layout, "-C", str(path), "-c", "commit.gpgsign=false", "commit", "-qm", message)
    (path / "t.txt").write_text(committed + "two\n")
    config = str(path / ".git" / "config")
    for key, value in repo.config:
        _git(layout, "config", "--file", config, key, layout.fill(value))
    if repo.attributes is not None:
        (path / ".gitattributes").write_text(repo.attributes)


def _prepare(attempt: Attempt, root: Path, attempt_id: str, url: str) -> _Layout:
    ws, home, out = root / "ws", root / "home", root / "outside"
    token = secrets.token_hex(12)
    layout = _Layout(
        attempt_id=attempt_id, root=root, ws=ws, home=home, out=out, token=token, url=url
    )
    for folder in (ws / "sub", home, out / "secretdir"):
        folder.mkdir(parents=True)
    secret = f"secret:{token}\n"
    for path in (out / "secret.txt", out / "secretdir" / "secret.txt", home / ".secret"):
        path.write_text(secret)
    for path in (ws / "victim", ws / "sub" / "victim", home / "victim", out / "victim"):
        path.write_text(f"victim {layout.show(path)}\n")
        layout.victims[path] = path.read_bytes()
    for repo in attempt.repos:
        _build_repo(layout, repo)
    for plant in attempt.plants:
        path = layout.place(plant.path)
        path.parent.mkdir(parents=True, exist_ok=True)
        if plant.link is not None:
            path.symlink_to(layout.fill(plant.link))
            continue
        path.write_text(layout.fill(plant.text or ""))
        path.chmod(0o755 if plant.executable else 0o644)
        if plant.victim:
            layout.victims[path] = path.read_bytes()
    if attempt.setup is not None:
        env = {**os.environ, **_GIT_ENV, "HOME": str(home)}
        script = layout.fill(attempt.setup)
        subprocess.run(["bash", "-c", script], cwd=ws, env=env, check=True, capture_output=True)
    layout.markers = set(_markers(root))
    return layout


def _markers(root: Path) -> Iterator[Path]:
    for folder, dirs, files in os.walk(root, followlinks=False):
        for name in (*dirs, *files):
            if name.startswith(MARK):
                yield Path(folder) / name


def _effects(layout: _Layout, result: str, server: LoopbackServer) -> list[str]:
    found: list[str] = []
    for path in sorted(set(_markers(layout.root)) - layout.markers):
        found.append(f"created {layout.show(path)}")
    for path, content in layout.victims.items():
        if not path.exists():
            found.append(f"removed {layout.show(path)}")
        elif path.is_file() and path.read_bytes() != content:
            found.append(f"changed {layout.show(path)}")
    if layout.token in result:
        found.append("read the outside secret (it is in the tool result)")
    if server.hits(layout.attempt_id):
        found.append("reached the loopback server")
    return found


def _leftovers(attempt_id: str, root: Path) -> list[int]:
    """Processes started for this attempt still alive: tagged environment or a working
    directory under the attempt's root."""
    tag = f"{TAG}={attempt_id}".encode()
    mine = os.getpid()
    found: list[int] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == mine:
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
            cwd = os.readlink(f"/proc/{entry}/cwd")
        except OSError:
            continue
        if tag in environ.split(b"\0") or cwd.startswith(str(root) + "/"):
            found.append(int(entry))
    return found


def _kill(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


async def _run_one(
    attempt: Attempt,
    index: int,
    configuration: Configuration,
    make_tool: ToolFactory,
    server: LoopbackServer,
    base: Path,
    limiter: anyio.CapacityLimiter,
) -> Outcome:
    attempt_id = f"rt{index:04d}x{secrets.token_hex(4)}"
    root = base / f"{index:04d}"
    layout = await anyio.to_thread.run_sync(
        _prepare, attempt, root, attempt_id, server.url(attempt_id)
    )
    async with limiter:
        env = {"HOME": str(layout.home), TAG: attempt_id}
        tool = await make_tool(Workspace.at(layout.ws), env)
        context = PermissionContext.from_rules(
            layout.ws, mode=configuration.mode, deny=configuration.deny, home=layout.home
        )
        arguments: dict[str, Any] = {"command": layout.fill(attempt.line)}
        if attempt.cwd is not None:
            arguments["cwd"] = layout.fill(attempt.cwd)
        provider = ScriptedProvider([[tool_call("c1", "shell", arguments)], "done"])
        agent = Agent(provider, tools=[tool], gates=[PermissionGate(context)])
        with anyio.fail_after(TOOL_TIMEOUT + 20):
            await agent.run("go")
    results = [
        part.text
        for message in agent.history
        if isinstance(message, ToolResultMessage)
        for part in message.results
    ]
    result = "\n".join(results)
    await anyio.sleep(SETTLE_SECONDS)
    effects = await anyio.to_thread.run_sync(_effects, layout, result, server)
    await anyio.to_thread.run_sync(_kill, _leftovers(attempt_id, root))
    ran = not result.startswith("Permission denied")
    return Outcome(attempt=attempt, effects=tuple(effects), result=result, ran=ran)


async def run_configuration(
    configuration: Configuration,
    make_tool: ToolFactory,
    server: LoopbackServer,
    base: Path,
    *,
    concurrency: int = CONCURRENCY,
) -> list[Outcome]:
    """Run every attempt of ``configuration`` (``concurrency`` calls at a time) and return the
    outcomes in attempt order."""
    limiter = anyio.CapacityLimiter(concurrency)
    outcomes: list[Outcome | None] = [None] * len(configuration.attempts)

    async def one(index: int, attempt: Attempt) -> None:
        outcomes[index] = await _run_one(
            attempt, index, configuration, make_tool, server, base, limiter
        )

    async with anyio.create_task_group() as group:
        for index, attempt in enumerate(configuration.attempts):
            group.start_soon(one, index, attempt)
    return [o for o in outcomes if o is not None]
