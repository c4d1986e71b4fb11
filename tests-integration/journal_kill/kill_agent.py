"""A journaled agent run that SIGKILLs itself at a chosen journal boundary (driven by
``tests-integration/test_journal_kill.py``).

Usage: ``python kill_agent.py WORKDIR [--continue]``. Environment: ``ROBOTA_KILL_AT`` =
``<boundary>:<occurrence>`` where boundary is one of :data:`BOUNDARIES` and occurrence is the
0-based count of that boundary in this process; unset: no kill.

The scripted model: round 1 calls ``append`` with "a" and "b", round 2 calls ``append`` with
"c", round 3 answers text. ``append`` appends a line to ``WORKDIR/effects.txt`` (fsynced). The
journal is a :class:`~robota.session.SQLiteJournal` and the conversation is saved to a
:class:`~robota.session.SQLiteSessionStore` after the run. ``--continue`` rebuilds the agent from
the saved session and calls ``continue_run``. Every provider call that really reaches the model
appends a line to ``WORKDIR/model_calls.txt``. The script prints one JSON line: the tool result
texts of the run.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
from robota.core.agent import Agent
from robota.core.messages import AssistantMessage, JsonValue, ToolResultMessage, text_of
from robota.core.provider import ModelRequest, StreamEvent
from robota.core.testing.scripted import ScriptedProvider, Turn, text, tool_call
from robota.core.tools.function import FunctionTool, tool
from robota.session import SessionNotFoundError, SessionRecord, SQLiteJournal, SQLiteSessionStore

BOUNDARIES = (
    "response_before",  # the model answered; the response is not recorded yet
    "response_after",  # the response is recorded; the loop has not used it
    "tool_start_before",  # a tool call is about to be recorded as started
    "tool_start_after",  # recorded as started; its effect has not run
    "tool_result_before",  # the effect ran; its result is not recorded
    "tool_result_after",  # the result is recorded
)

TURNS: list[Turn] = [
    [tool_call("t1", "append", {"line": "a"}), tool_call("t2", "append", {"line": "b"})],
    [tool_call("t3", "append", {"line": "c"})],
    [text("all three lines written")],
]
RUN_ID = "run_kill"
SESSION_ID = "ses_kill"
SYSTEM = "You append lines to a file."


class Killer:
    """Kills this process at the ``occurrence``-th time ``boundary`` is reached."""

    def __init__(self, spec: str | None) -> None:
        self.boundary, _, occurrence = (spec or "").partition(":")
        self.occurrence = int(occurrence or 0)
        self.seen = 0

    def at(self, boundary: str) -> None:
        if boundary != self.boundary:
            return
        if self.seen == self.occurrence:
            os.kill(os.getpid(), signal.SIGKILL)
        self.seen += 1


class KillingJournal(SQLiteJournal):
    """A SQLite journal that dies around its writes as :class:`Killer` says."""

    def __init__(self, path: Path, killer: Killer) -> None:
        super().__init__(path)
        self.killer = killer

    async def record_response(self, run_id: str, step: int, response: JsonValue) -> None:
        self.killer.at("response_before")
        await super().record_response(run_id, step, response)
        self.killer.at("response_after")

    async def record_tool_start(
        self, run_id: str, key: str, tool_name: str, arguments: JsonValue
    ) -> None:
        self.killer.at("tool_start_before")
        await super().record_tool_start(run_id, key, tool_name, arguments)
        self.killer.at("tool_start_after")

    async def record_tool_result(self, run_id: str, key: str, result: JsonValue) -> None:
        self.killer.at("tool_result_before")
        await super().record_tool_result(run_id, key, result)
        self.killer.at("tool_result_after")


class StatelessModel(ScriptedProvider):
    """Answers like a stateless model: the turn is chosen by how many assistant messages the
    run's request already holds, so a re-issued call gets the same answer."""

    def __init__(self, calls_file: Path) -> None:
        super().__init__([])
        self.calls_file = calls_file

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        step = sum(isinstance(m, AssistantMessage) for m in request.messages)
        with self.calls_file.open("a") as f:
            f.write(f"{step}\n")
            f.flush()
            os.fsync(f.fileno())
        self._turns = [TURNS[step]]
        async for event in super().stream(request):
            yield event


def append_tool(effects: Path) -> FunctionTool:
    @tool
    async def append(line: str) -> str:
        """Append one line to the file."""
        with effects.open("a") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())
        return f"appended {line}"

    return append


async def main(workdir: Path, resume: bool) -> None:
    killer = Killer(os.environ.get("ROBOTA_KILL_AT"))
    journal = KillingJournal(workdir / "journal.db", killer)
    store = SQLiteSessionStore(workdir / "sessions.db")
    try:
        try:
            record = await store.get(SESSION_ID)
        except SessionNotFoundError:
            record = await store.create(SessionRecord(id=SESSION_ID, system_prompt=SYSTEM))
        agent = Agent(
            StatelessModel(workdir / "model_calls.txt"),
            system_prompt=SYSTEM,
            tools=[append_tool(workdir / "effects.txt")],
            journal=journal,
            history=record.messages,
        )
        if resume:
            result = await agent.continue_run(RUN_ID)
        else:
            result = await agent.run("Write a, b and c.", run_id=RUN_ID)
        await store.save(record.with_messages(agent.history[1:]))
        results = [
            text_of(r.content)
            for m in result.new_messages
            if isinstance(m, ToolResultMessage)
            for r in m.results
        ]
        print(json.dumps({"text": result.text, "results": results}))
    finally:
        await journal.aclose()
        await store.aclose()


if __name__ == "__main__":
    anyio.run(main, Path(sys.argv[1]), "--continue" in sys.argv[2:])
