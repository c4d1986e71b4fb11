"""A journaled agent run that SIGKILLs itself at a chosen journal boundary (driven by
``tests-integration/test_journal_kill.py``).

Usage: ``python kill_agent.py WORKDIR [--scenario NAME] [--continue] [--resend]
[--answer approve|wrong-id] [--approver allow|deny] [--wait]``. Environment:
``ROBOTA_KILL_AT`` = ``<boundary>:<occurrence>`` where boundary is one of :data:`BOUNDARIES`
and occurrence is the 0-based count of that boundary in this process; unset: no kill.

Scenarios (each a scripted, stateless model; every effect appends a line to
``WORKDIR/effects.txt``, fsynced):

- ``lines`` (default): round 1 calls ``append`` with "a" and "b", round 2 with "c", round 3
  answers text.
- ``approver``: the same calls, to ``deploy`` (risk ``execute``) behind a permission gate whose
  approver answers ``--approver`` (``allow`` by default) and appends ``<answer>:<line>`` to
  ``WORKDIR/asked.txt`` for every question it is asked.
- ``residency``: ``deploy`` is deferred; round 1 calls ``tool_search`` (``select:deploy``),
  round 2 calls ``deploy`` with "a", round 3 answers text.
- ``wait``: round 1 calls ``release`` (an ``approval`` tool) with "a", round 2 answers text.
  A first process runs until the pause, writes ``WORKDIR/waiting`` and blocks (the test kills
  it); ``--answer approve`` saves the response to request ``1:0`` with ``Agent.respond`` and
  continues; ``--answer wrong-id`` tries request ``2:0`` and must be refused.

The journal is a :class:`~robota.session.SQLiteJournal` and the conversation is saved to a
:class:`~robota.session.SQLiteSessionStore` after the run. ``--continue`` rebuilds the agent from
the saved session and calls ``continue_run`` (``--resend``: with
``resend_unrecorded_model_call=True``). Every provider call that really reaches the model appends
its step to ``WORKDIR/model_calls.txt``. The script prints one JSON line: the final text and the
tool result texts of the run.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
from robota.core.agent import Agent, RunPaused
from robota.core.agent.pause import Approve
from robota.core.journal import RESERVED_PREFIX, WaitResponseError
from robota.core.messages import AssistantMessage, JsonValue, ToolResultMessage, text_of
from robota.core.permissions import Approval, PermissionContext, PermissionGate, PermissionRequest
from robota.core.provider import ModelRequest, StreamEvent
from robota.core.testing.scripted import ScriptedProvider, Turn, text, tool_call
from robota.core.tools.base import RiskClass, Tool
from robota.core.tools.function import tool
from robota.session import SessionNotFoundError, SessionRecord, SQLiteJournal, SQLiteSessionStore

BOUNDARIES = (
    "response_before",  # the model answered; the response is not recorded yet
    "response_after",  # the response is recorded; the loop has not used it
    "tool_start_before",  # a tool call is about to be recorded as started
    "tool_start_after",  # recorded as started; its effect has not run
    "tool_result_before",  # the effect ran; its result is not recorded
    "tool_result_after",  # the result is recorded
    "wait_request_after",  # a wait's request is saved; the run has not suspended yet
    "wait_response_after",  # a wait's response is saved; the call has not run yet
)

SCENARIOS: dict[str, list[Turn]] = {
    "lines": [
        [tool_call("t1", "append", {"line": "a"}), tool_call("t2", "append", {"line": "b"})],
        [tool_call("t3", "append", {"line": "c"})],
        [text("all three lines written")],
    ],
    "approver": [
        [tool_call("t1", "deploy", {"line": "a"}), tool_call("t2", "deploy", {"line": "b"})],
        [tool_call("t3", "deploy", {"line": "c"})],
        [text("all three lines written")],
    ],
    "residency": [
        [tool_call("s1", "tool_search", {"query": "select:deploy"})],
        [tool_call("t1", "deploy", {"line": "a"})],
        [text("deployed")],
    ],
    "wait": [
        [tool_call("r1", "release", {"line": "a"})],
        [text("released")],
    ],
}
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
    """A SQLite journal that dies around its writes as :class:`Killer` says (tool boundaries
    count tool calls only; model-call starts, residency and waits are runtime records)."""

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
        tool_call_record = not key.startswith(RESERVED_PREFIX)
        if tool_call_record:
            self.killer.at("tool_start_before")
        await super().record_tool_start(run_id, key, tool_name, arguments)
        if tool_call_record:
            self.killer.at("tool_start_after")

    async def record_tool_result(self, run_id: str, key: str, result: JsonValue) -> None:
        tool_call_record = not key.startswith(RESERVED_PREFIX)
        if tool_call_record:
            self.killer.at("tool_result_before")
        await super().record_tool_result(run_id, key, result)
        if tool_call_record:
            self.killer.at("tool_result_after")

    async def record_wait_request(self, run_id: str, request_id: str, request: JsonValue) -> None:
        await super().record_wait_request(run_id, request_id, request)
        self.killer.at("wait_request_after")

    async def record_wait_response(self, run_id: str, request_id: str, response: JsonValue) -> None:
        await super().record_wait_response(run_id, request_id, response)
        self.killer.at("wait_response_after")


class StatelessModel(ScriptedProvider):
    """Answers like a stateless model: the turn is chosen by how many assistant messages the
    run's request already holds, so a re-issued call gets the same answer."""

    def __init__(self, calls_file: Path, turns: list[Turn]) -> None:
        super().__init__([])
        self.calls_file = calls_file
        self.script = turns

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        step = sum(isinstance(m, AssistantMessage) for m in request.messages)
        append_line(self.calls_file, str(step))
        self._turns = [self.script[step]]
        async for event in super().stream(request):
            yield event


def append_line(path: Path, line: str) -> None:
    with path.open("a") as f:
        f.write(line + "\n")
        f.flush()
        os.fsync(f.fileno())


def build_tools(scenario: str, effects: Path) -> list[Tool]:
    if scenario == "lines":

        @tool
        async def append(line: str) -> str:
            """Append one line to the file."""
            append_line(effects, line)
            return f"appended {line}"

        return [append]
    if scenario == "wait":

        @tool(execution="approval")
        async def release(line: str) -> str:
            """Release one line (a person approves it first)."""
            append_line(effects, line)
            return f"appended {line}"

        return [release]

    @tool(
        risk=RiskClass.EXECUTE,
        residency="deferred" if scenario == "residency" else "auto",
        sequential=True,
    )
    async def deploy(line: str) -> str:
        """Deploy one line to the file."""
        append_line(effects, line)
        return f"appended {line}"

    @tool(risk=RiskClass.INSPECT)
    async def status() -> str:
        """Show the deployment status."""
        return "ok"

    return [status, deploy]


def build_gates(scenario: str, workdir: Path, answer: str) -> list[PermissionGate]:
    if scenario != "approver":
        return []

    async def approver(request: PermissionRequest) -> Approval:
        line = json.loads(request.arguments_text)["line"]
        append_line(workdir / "asked.txt", f"{answer}:{line}")
        if answer == "deny":
            return Approval(kind="deny", message="user said no this time")
        return Approval(kind="allow_once")

    context = PermissionContext.from_rules(workdir, approver=approver)
    return [PermissionGate(context)]


async def main(args: argparse.Namespace) -> None:
    workdir: Path = args.workdir
    killer = Killer(os.environ.get("ROBOTA_KILL_AT"))
    journal = KillingJournal(workdir / "journal.db", killer)
    store = SQLiteSessionStore(workdir / "sessions.db")
    try:
        try:
            record = await store.get(SESSION_ID)
        except SessionNotFoundError:
            record = await store.create(SessionRecord(id=SESSION_ID, system_prompt=SYSTEM))
        agent = Agent(
            StatelessModel(workdir / "model_calls.txt", SCENARIOS[args.scenario]),
            system_prompt=SYSTEM,
            tools=build_tools(args.scenario, workdir / "effects.txt"),
            gates=build_gates(args.scenario, workdir, args.approver),
            journal=journal,
            history=record.messages,
        )
        if args.answer == "wrong-id":
            try:
                await agent.respond(RUN_ID, "2:0", Approve())
            except WaitResponseError as error:
                print(json.dumps({"refused": error.reason}))
                return
            raise AssertionError("a response for another request was accepted")
        if args.answer == "approve":
            await agent.respond(RUN_ID, "1:0", Approve())
        if args.resume:
            outcome: Any = await agent.continue_until_pause(
                RUN_ID, resend_unrecorded_model_call=args.resend
            )
        else:
            outcome = await agent.run_until_pause("Write a, b and c.", run_id=RUN_ID)
        if isinstance(outcome, RunPaused):
            print(json.dumps({"paused": [p.request_id for p in outcome.pending]}), flush=True)
            if args.wait:
                (workdir / "waiting").touch()
                await anyio.sleep_forever()  # a durable wait: the test kills this process
            return
        await store.save(record.with_messages(agent.history[1:]))
        results = [
            text_of(r.content)
            for m in outcome.new_messages
            if isinstance(m, ToolResultMessage)
            for r in m.results
        ]
        print(json.dumps({"text": outcome.text, "results": results}))
    finally:
        await journal.aclose()
        await store.aclose()


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--scenario", default="lines", choices=sorted(SCENARIOS))
    parser.add_argument("--continue", dest="resume", action="store_true")
    parser.add_argument("--resend", action="store_true")
    parser.add_argument("--answer", choices=["approve", "wrong-id"])
    parser.add_argument("--approver", default="allow", choices=["allow", "deny"])
    parser.add_argument("--wait", action="store_true")
    return parser.parse_args(argv)


if __name__ == "__main__":
    anyio.run(main, parse(sys.argv[1:]))
