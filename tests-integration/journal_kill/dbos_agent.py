"""A DBOS-durable agent run that SIGKILLs itself at a chosen step boundary (driven by
``tests-integration/test_dbos_kill.py``).

Usage: ``python dbos_agent.py MODE WORKDIR [DEAD_EXECUTOR]`` with MODE one of

- ``run``: launch DBOS and run the workflow ``wf_kill``;
- ``recover``: launch DBOS with the same executor id (DBOS recovers the pending workflow by
  itself) and wait for the workflow's result;
- ``takeover``: launch DBOS under its own executor id, wait until ``WORKDIR/go`` exists, then
  recover the pending workflows of ``DEAD_EXECUTOR`` and wait for the result.

Environment: ``ROBOTA_DBOS_URL`` (system database URL), ``ROBOTA_DBOS_EXECUTOR`` (executor id),
``ROBOTA_KILL_AT`` = ``<boundary>:<occurrence>`` (see :data:`BOUNDARIES`; unset: no kill),
``ROBOTA_SCENARIO`` (``lines`` by default, ``approver``, ``residency``, ``wait``; see
``kill_agent.py``), ``ROBOTA_APPROVER`` (``allow`` by default or ``deny``: what the approver of
the ``approver`` scenario answers; it appends ``<answer>:<line>`` to ``WORKDIR/asked.txt`` per
question), ``ROBOTA_RESEND=1`` (build the agent with ``resend_unrecorded_model_call=True``),
``ROBOTA_ANSWER`` (``approve``: in the ``wait`` scenario this process answers request ``1:0``
once the workflow saved it; it first checks that a response to request ``2:0`` is refused).

In the ``wait`` scenario the worker writes ``WORKDIR/waiting`` once the request is saved. Every
call that reaches the model appends its step to ``WORKDIR/model_calls.txt``. Prints one JSON
line: the run's final text, tool result texts and new messages — or ``{"error": <type>,
"reason": ...}`` when the workflow ended with an error.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import anyio
from dbos import DBOS
from robota.core.agent.pause import Approve
from robota.core.journal import WaitResponseError
from robota.core.messages import (
    AssistantMessage,
    JsonValue,
    Message,
    ToolResultMessage,
    dump_messages,
    text_of,
)
from robota.core.permissions import Approval, PermissionContext, PermissionGate, PermissionRequest
from robota.core.provider import ModelRequest, Provider, ResponseCompleted, StreamEvent
from robota.core.testing.scripted import ScriptedProvider, Turn, text, tool_call
from robota.core.tools.base import RiskClass, Tool, ToolContext
from robota.core.tools.function import tool
from robota.durable.dbos import ANSWERED_EVENT_PREFIX, DBOSAgent, DBOSProvider, DBOSTool

BOUNDARIES = (
    "model_before_checkpoint",  # the model answered inside the step; no checkpoint yet
    "model_after_checkpoint",  # the model-call step is checkpointed; the loop has not used it
    "start_before_checkpoint",  # inside the start-marker step; marker not checkpointed
    "effect_started",  # marker checkpointed; the effect has not run
    "effect_done",  # the effect ran inside its step; no checkpoint yet
    "effect_after_checkpoint",  # the effect step is checkpointed
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
WORKFLOW_ID = "wf_kill"
SCENARIO = os.environ.get("ROBOTA_SCENARIO", "lines")


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


KILLER = Killer(os.environ.get("ROBOTA_KILL_AT"))


def append_line(path: Path, line: str) -> None:
    with path.open("a") as f:
        f.write(line + "\n")
        f.flush()
        os.fsync(f.fileno())


class StatelessModel(ScriptedProvider):
    """Chooses the turn by the number of assistant messages in the request; logs every call;
    dies at ``model_before_checkpoint`` (inside the DBOS step, before its checkpoint)."""

    def __init__(self, calls_file: Path) -> None:
        super().__init__([])
        self.calls_file = calls_file

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        step = sum(isinstance(m, AssistantMessage) for m in request.messages)
        append_line(self.calls_file, str(step))
        self._turns = [SCENARIOS[SCENARIO][step]]
        async for event in super().stream(request):
            if isinstance(event, ResponseCompleted):
                KILLER.at("model_before_checkpoint")
            yield event


class KillingProvider(DBOSProvider):
    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        async for event in super().stream(request):
            KILLER.at("model_after_checkpoint")
            yield event


class KillingTool(DBOSTool):
    async def _start(self, arguments: dict[str, Any]) -> JsonValue:
        KILLER.at("start_before_checkpoint")
        return await super()._start(arguments)

    async def _effect(
        self, started_earlier: bool, arguments: dict[str, Any], ctx: ToolContext[Any]
    ) -> JsonValue:
        KILLER.at("effect_started")
        out = await super()._effect(started_earlier, arguments, ctx)
        KILLER.at("effect_done")
        return out

    async def call(self, arguments: dict[str, Any], ctx: ToolContext[Any]) -> Any:
        out = await super().call(arguments, ctx)
        KILLER.at("effect_after_checkpoint")
        return out


class KillingDBOSAgent(DBOSAgent):
    def durable_provider(self, nonce: str) -> Provider:
        return KillingProvider(
            self.provider, nonce, resend_unrecorded_model_call=self.resend_unrecorded_model_call
        )

    def durable_tool(self, tool: Tool, nonce: str) -> Tool:
        return KillingTool(tool, nonce)


def build_tools(effects: Path) -> list[Tool]:
    if SCENARIO == "lines":

        @tool
        async def append(line: str) -> str:
            """Append one line to the file."""
            append_line(effects, line)
            return f"appended {line}"

        return [append]
    if SCENARIO == "wait":

        @tool(execution="approval")
        async def release(line: str) -> str:
            """Release one line (a person approves it first)."""
            append_line(effects, line)
            return f"appended {line}"

        return [release]

    @tool(risk=RiskClass.EXECUTE, residency="deferred" if SCENARIO == "residency" else "auto")
    async def deploy(line: str) -> str:
        """Deploy one line to the file."""
        append_line(effects, line)
        return f"appended {line}"

    @tool(risk=RiskClass.INSPECT)
    async def status() -> str:
        """Show the deployment status."""
        return "ok"

    return [status, deploy]


def build_gates(workdir: Path) -> list[PermissionGate]:
    if SCENARIO != "approver":
        return []
    answer = os.environ.get("ROBOTA_APPROVER", "allow")

    async def approver(request: PermissionRequest) -> Approval:
        line = json.loads(request.arguments_text)["line"]
        append_line(workdir / "asked.txt", f"{answer}:{line}")
        if answer == "deny":
            return Approval(kind="deny", message="user said no this time")
        return Approval(kind="allow_once")

    return [PermissionGate(PermissionContext.from_rules(workdir, approver=approver))]


def report(workflow_text: str, messages: Sequence[Message]) -> None:
    results = [
        text_of(r.content) for m in messages if isinstance(m, ToolResultMessage) for r in m.results
    ]
    document: Any = json.loads(dump_messages(messages))
    print(json.dumps({"text": workflow_text, "results": results, "messages": document}))


async def answer_the_wait(durable: DBOSAgent, workdir: Path) -> None:
    """Wait until the workflow saved its request; then (``ROBOTA_ANSWER=approve``) check that a
    response to another request is refused and answer it."""
    while "1:0" not in await durable.requests(WORKFLOW_ID):
        used = await DBOS.get_event_async(
            WORKFLOW_ID, ANSWERED_EVENT_PREFIX + "1:0", timeout_seconds=0
        )
        if used is not None:
            return  # answered and used before this process started: nothing to ask
        await anyio.sleep(0.05)
    (workdir / "waiting").touch()
    if os.environ.get("ROBOTA_ANSWER") != "approve":
        return
    try:
        await durable.respond(WORKFLOW_ID, "2:0", Approve())
    except WaitResponseError as error:
        (workdir / "refused.txt").write_text(error.reason)
    else:
        raise AssertionError("a response for another request was accepted")
    await durable.respond(WORKFLOW_ID, "1:0", Approve())


async def main(mode: str, workdir: Path, dead_executor: str | None) -> None:
    DBOS(
        config={
            "name": "robota-kill",
            "system_database_url": os.environ["ROBOTA_DBOS_URL"],
            "application_version": "kill-test-1",
            "executor_id": os.environ.get("ROBOTA_DBOS_EXECUTOR", "local"),
            "log_level": "WARNING",
        }
    )
    durable = KillingDBOSAgent(
        StatelessModel(workdir / "model_calls.txt"),
        tools=build_tools(workdir / "effects.txt"),
        name="kill_test",
        system_prompt="You append lines to a file.",
        gates=build_gates(workdir),
        resend_unrecorded_model_call=os.environ.get("ROBOTA_RESEND") == "1",
    )
    DBOS.launch()
    try:
        if mode == "run":
            await durable.start("Write a, b and c.", workflow_id=WORKFLOW_ID)
        elif mode == "takeover":
            assert dead_executor is not None
            while not (workdir / "go").exists():  # noqa: ASYNC110 - set by another process
                await anyio.sleep(0.05)
            DBOS._recover_pending_workflows([dead_executor])  # pyright: ignore[reportPrivateUsage]
        if SCENARIO == "wait":
            await answer_the_wait(durable, workdir)
        try:
            result = await durable.result(WORKFLOW_ID)
        except Exception as error:  # the workflow ended with an error: report it
            print(
                json.dumps(
                    {"error": type(error).__name__, "reason": getattr(error, "reason", None)}
                )
            )
            return
        report(result.text, result.new_messages)
    finally:
        DBOS.destroy()


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], Path(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else None)
