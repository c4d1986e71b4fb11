"""A real process holding an interactive session (SQLite store + JSONL event log) until the
test SIGKILLs it; used by ``tests-integration/test_session_kill.py``.

Usage: ``python worker.py <compact|renew> <root>``.

* ``compact``: three turns (the first two call ``mark``, which appends one line to
  ``<root>/ws/marker.txt``), then ``session.compact()`` whose summary call never answers; prints
  ``COMPACTING`` once the summary request reached the provider.
* ``renew``: one turn calling ``mark``, then a turn calling ``slow``, which appends a line to
  the marker file, prints ``TOOL RUNNING`` and sleeps far longer than the test waits; the
  session's lease (``lease_ttl`` 0.6 s) is renewed every 0.2 s meanwhile.

The session id is written to ``<root>/id.txt`` after the first turn.
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
from robota.core.host.sandbox import NoSandbox
from robota.core.permissions import PermissionMode
from robota.core.testing.scripted import ScriptedProvider, Turn, reached, tool_call, wait_for
from robota.core.tools.base import RiskClass
from robota.core.tools.function import FunctionTool, tool
from robota.framework.interactive import InteractiveSession, SessionConfig
from robota.session import EventLog, SQLiteSessionStore

COMPACT_TTL = 1.0
RENEW_TTL = 0.6


def marker_tools(root: Path) -> tuple[FunctionTool, FunctionTool]:
    marker = root / "ws" / "marker.txt"

    @tool(risk=RiskClass.INSPECT)
    def mark(tag: str) -> str:
        """Append a line to the marker file (the effect the test counts)."""
        with marker.open("a") as out:
            out.write(tag + "\n")
        return f"marked {tag}"

    @tool(risk=RiskClass.INSPECT)
    async def slow(tag: str) -> str:
        """Append a line to the marker file, then run for a long time."""
        with marker.open("a") as out:
            out.write(tag + "\n")
        print("TOOL RUNNING", flush=True)
        await anyio.sleep(120)
        return f"slow {tag}"

    return mark, slow


def config(root: Path, provider: ScriptedProvider, ttl: float) -> SessionConfig:
    return SessionConfig(
        provider=provider,
        model="m",
        workspace=root / "ws",
        title=False,
        auto_compact=None,
        subagents=False,
        sandbox=NoSandbox("tests"),
        permission_mode=PermissionMode.ACCEPT_EDITS,
        background_dir=root / "bg",
        store=SQLiteSessionStore(root / "state" / "sessions.db"),
        event_log=EventLog(root / "state" / "logs"),
        additional_tools=marker_tools(root),
        lease_ttl=ttl,
    )


async def run_compact(root: Path) -> None:
    summary_reached = anyio.Event()
    turns: list[Turn] = [
        [tool_call("m1", "mark", {"tag": "t1"})],
        ["one"],
        [tool_call("m2", "mark", {"tag": "t2"})],
        ["two"],
        ["three"],
        [reached(summary_reached), wait_for(anyio.Event())],  # the summary never answers
    ]
    session = await InteractiveSession.start(config(root, ScriptedProvider(turns), COMPACT_TTL))
    await session.submit("first")
    (root / "id.txt").write_text(session.id)
    await session.submit("second")
    await session.submit("third")
    async with anyio.create_task_group() as group:
        group.start_soon(session.compact)
        await summary_reached.wait()
        print("COMPACTING", flush=True)


async def run_renew(root: Path) -> None:
    turns: list[Turn] = [
        [tool_call("m1", "mark", {"tag": "t1"})],
        ["one"],
        [tool_call("s1", "slow", {"tag": "s1"})],
        ["never"],
    ]
    session = await InteractiveSession.start(config(root, ScriptedProvider(turns), RENEW_TTL))
    await session.submit("first")
    (root / "id.txt").write_text(session.id)
    await session.submit("second")


async def main(mode: str, root: Path) -> None:
    await (run_compact if mode == "compact" else run_renew)(root)


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], Path(sys.argv[2]))
