"""An ``InteractiveSession`` host as a real process (outsider attacks on one-writer and
recovery).

Usage: ``python session_worker.py MODE WORKDIR [--ttl S] [--tag T] [--barrier FILE]
[--kill-at POINT] [--turns N]``. State lives in ``WORKDIR/state`` (``sessions.db`` and the
``logs`` folder); the session id in ``WORKDIR/id.txt``.

Modes:

- ``setup``: start a session, run ``--turns`` plain turns, shut down (releases the lease).
- ``hold``: start (or, with an ``id.txt``, resume) a session, run one turn, write
  ``owner.txt`` and ``ready``, then sleep holding the lease until killed.
- ``attempt``: (once ``--barrier`` exists, if given) resume the session and run one turn.
  Prints ``{"outcome": "refused", "holder", "expires_at", "error"}`` or ``{"outcome": "ok",
  "recovered_from", "messages": [[kind, text], ...], "pairing_ok"}``; with ``--hold`` it then
  writes ``won_<tag>`` and keeps the lease until killed.
- ``die``: resume the session and run a turn that calls ``note`` once, SIGKILLing this process at
  ``--kill-at``: ``commit:K`` (when the turn's K-th message is committed, before the session's
  log writes it), ``tool`` (inside the tool, after its effect), ``saved`` (after the turn was
  saved).

Markers (``WORKDIR``, fsynced, one line each): ``effects.txt`` (``note`` effects),
``model_calls_<tag>.txt`` (every provider call), ``hooks_<tag>.txt`` (``SessionStart``,
``UserPromptSubmit``, ``PreCompact`` command hooks).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
from robota.core.agent.events import HistoryCommitted
from robota.core.events import Event
from robota.core.messages import AssistantMessage, Message, ToolResultMessage
from robota.core.provider import ModelRequest, StreamEvent
from robota.core.testing.scripted import ScriptedProvider, Turn, text, tool_call
from robota.core.tools.function import tool
from robota.framework import InteractiveSession, SessionConfig
from robota.framework.interactive.events import SessionSaved
from robota.framework.settings import Settings
from robota.framework.settings.model import HookEntry, PermissionSettings
from robota.session import EventLog, SessionLeaseHeldError, SQLiteSessionStore


def append_line(path: Path, line: str) -> None:
    """Append ``line`` to ``path`` and fsync it."""
    with path.open("a") as handle:
        handle.write(line + "\n")
        handle.flush()
        os.fsync(handle.fileno())


class CountingModel(ScriptedProvider):
    """A scripted provider that appends one line per call to a marker file and answers the
    last turn forever once the script runs out."""

    def __init__(self, calls: Path, turns: list[Turn]) -> None:
        super().__init__(turns)
        self.calls = calls
        self.last: Turn = turns[-1]

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        append_line(self.calls, "call")
        if not self._turns:
            self._turns = [self.last]
        async for event in super().stream(request):
            yield event


class KillSink:
    """SIGKILLs this process at a session event (see the module docstring)."""

    def __init__(self, point: str | None) -> None:
        self.point = point or ""
        self.commits = 0

    def emit(self, event: Event) -> None:
        if isinstance(event, HistoryCommitted):
            self.commits += 1
            if self.point == f"commit:{self.commits}":
                os.kill(os.getpid(), signal.SIGKILL)
        if isinstance(event, SessionSaved) and self.point == "saved":
            os.kill(os.getpid(), signal.SIGKILL)


def pairing_ok(messages: tuple[Message, ...]) -> bool:
    """Every tool call has exactly one result and every result answers a call."""
    calls: list[str] = []
    results: list[str] = []
    for message in messages:
        if isinstance(message, AssistantMessage):
            calls.extend(c.id for c in message.tool_calls)
        elif isinstance(message, ToolResultMessage):
            results.extend(r.call_id for r in message.results)
    return sorted(calls) == sorted(results) and len(set(calls)) == len(calls)


def describe(messages: tuple[Message, ...]) -> list[list[str]]:
    out: list[list[str]] = []
    for message in messages:
        body = ""
        if isinstance(message, AssistantMessage):
            body = message.text or ",".join(c.id for c in message.tool_calls)
        elif isinstance(message, ToolResultMessage):
            body = ",".join(r.call_id for r in message.results)
        else:
            body = "".join(getattr(p, "text", "") for p in getattr(message, "parts", ()))
        out.append([message.kind, body])
    return out


def config(args: argparse.Namespace, turns: list[Turn], sink: KillSink | None) -> SessionConfig:
    workdir: Path = args.workdir
    marker = workdir / f"hooks_{args.tag}.txt"
    hook = f"printf '%s\\n' {{event}} >> {marker}"
    settings = Settings(
        permissions=PermissionSettings(allow=("note",)),
        hooks={
            event: (HookEntry(id=event, type="command", command=hook.format(event=event)),)
            for event in ("SessionStart", "UserPromptSubmit", "PreCompact")
        },
    )
    effects = workdir / "effects.txt"
    kill_in_tool = args.kill_at == "tool"

    @tool
    async def note(x: str) -> str:
        """Write a note."""
        append_line(effects, x)
        if kill_in_tool:
            os.kill(os.getpid(), signal.SIGKILL)
        return f"noted {x}"

    return SessionConfig(
        provider=CountingModel(workdir / f"model_calls_{args.tag}.txt", turns),
        model="scripted-model",
        workspace=workdir,
        default_tools=(),
        additional_tools=(note,),
        title=False,
        auto_compact=None,
        settings=settings,
        store=SQLiteSessionStore(workdir / "state" / "sessions.db"),
        event_log=EventLog(workdir / "state" / "logs"),
        lease_ttl=args.ttl,
        sinks=[sink] if sink is not None else [],
    )


async def main(args: argparse.Namespace) -> int:
    workdir: Path = args.workdir
    id_file = workdir / "id.txt"
    if args.mode == "setup":
        cfg = config(args, [[text(f"answer {n}")] for n in range(args.turns)], None)
        async with await InteractiveSession.start(cfg) as session:
            for n in range(args.turns):
                await session.submit(f"question {n}")
            id_file.write_text(session.id)
        return 0
    if args.mode == "hold":
        cfg = config(args, [[text("held")]], None)
        if id_file.exists():
            session = await InteractiveSession.resume(cfg, id_file.read_text())
        else:
            session = await InteractiveSession.start(cfg)
        await session.submit("hold it")
        id_file.write_text(session.id)
        (workdir / "owner.txt").write_text(session.lease_owner or "")
        (workdir / "ready").touch()
        await anyio.sleep_forever()
        return 0
    if args.mode == "die":
        sink = KillSink(args.kill_at)
        turns: list[Turn] = [[tool_call("d1", "note", {"x": "die"})], [text("noted")]]
        cfg = config(args, turns, sink)
        session = await InteractiveSession.resume(cfg, id_file.read_text())
        await session.submit("note and die")
        await session.shutdown()
        return 0
    # attempt
    cfg = config(args, [[text(f"answer from {args.tag}")]], None)
    try:
        session = await InteractiveSession.resume(cfg, id_file.read_text())
    except SessionLeaseHeldError as refused:
        outcome: dict[str, Any] = {
            "outcome": "refused",
            "holder": refused.holder,
            "expires_at": refused.expires_at.isoformat(),
            "error": type(refused).__name__,
        }
        print(json.dumps(outcome), flush=True)
        return 0
    try:
        recovered = session.recovered_from
        await session.submit(f"question from {args.tag}")
        request = cfg.provider.requests[-1] if isinstance(cfg.provider, ScriptedProvider) else None
        sent = tuple(request.messages) if request is not None else ()
        outcome = {
            "outcome": "ok",
            "recovered_from": recovered,
            "messages": describe(session.messages),
            "pairing_ok": pairing_ok(sent),
        }
        print(json.dumps(outcome), flush=True)
        if args.hold:
            (workdir / f"won_{args.tag}").touch()
            await anyio.sleep_forever()
    finally:
        await session.shutdown()
    return 0


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["setup", "hold", "attempt", "die"])
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--ttl", type=float, default=30.0)
    parser.add_argument("--tag", default="x")
    parser.add_argument("--barrier", type=Path)
    parser.add_argument("--kill-at")
    parser.add_argument("--turns", type=int, default=1)
    parser.add_argument("--hold", action="store_true")
    return parser.parse_args(argv)


def wait_for_barrier(barrier: Path) -> None:
    """Block until ``barrier`` exists (another process's start signal; imports are done)."""
    deadline = time.monotonic() + 30
    while not barrier.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no barrier {barrier}")
        time.sleep(0.002)


if __name__ == "__main__":
    arguments = parse(sys.argv[1:])
    if arguments.barrier is not None:
        wait_for_barrier(arguments.barrier)
    sys.exit(anyio.run(main, arguments))
