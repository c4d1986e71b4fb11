"""A DBOS-durable agent run that SIGKILLs itself at a chosen step boundary (driven by
``tests-integration/test_dbos_kill.py``).

Usage: ``python dbos_agent.py MODE WORKDIR [DEAD_EXECUTOR]`` with MODE one of

- ``run``: launch DBOS and run the workflow ``wf_kill``;
- ``recover``: launch DBOS with the same executor id (DBOS recovers the pending workflow by
  itself) and wait for the workflow's result;
- ``takeover``: launch DBOS under its own executor id, wait until ``WORKDIR/go`` exists, then
  recover the pending workflows of ``DEAD_EXECUTOR`` and wait for the result.

Environment: ``ROBOTA_DBOS_URL`` (system database URL), ``ROBOTA_DBOS_EXECUTOR`` (executor id),
``ROBOTA_KILL_AT`` = ``<boundary>:<occurrence>`` (see :data:`BOUNDARIES`; unset: no kill).

The scripted model and the ``append`` tool are those of ``kill_agent.py``. Every call that
reaches the model appends its step to ``WORKDIR/model_calls.txt``. Prints one JSON line: the
run's final text, tool result texts and new messages.
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
from robota.core.agent import Agent
from robota.core.messages import (
    AssistantMessage,
    JsonValue,
    Message,
    ToolResultMessage,
    dump_messages,
    text_of,
)
from robota.core.provider import ModelRequest, ResponseCompleted, StreamEvent
from robota.core.testing.scripted import ScriptedProvider, Turn, text, tool_call
from robota.core.tools.base import Tool, ToolContext
from robota.core.tools.function import FunctionTool, tool
from robota.durable.dbos import DBOSAgent, DBOSProvider, DBOSTool

BOUNDARIES = (
    "model_before_checkpoint",  # the model answered inside the step; no checkpoint yet
    "model_after_checkpoint",  # the model-call step is checkpointed; the loop has not used it
    "start_before_checkpoint",  # inside the start-marker step; marker not checkpointed
    "effect_started",  # marker checkpointed; the effect has not run
    "effect_done",  # the effect ran inside its step; no checkpoint yet
    "effect_after_checkpoint",  # the effect step is checkpointed
)
TURNS: list[Turn] = [
    [tool_call("t1", "append", {"line": "a"}), tool_call("t2", "append", {"line": "b"})],
    [tool_call("t3", "append", {"line": "c"})],
    [text("all three lines written")],
]
WORKFLOW_ID = "wf_kill"


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


class StatelessModel(ScriptedProvider):
    """Chooses the turn by the number of assistant messages in the request; logs every call;
    dies at ``model_before_checkpoint`` (inside the DBOS step, before its checkpoint)."""

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
    def build_agent(self, history: Sequence[Message], nonce: str) -> Agent:
        return Agent(
            KillingProvider(self.provider),
            tools=[KillingTool(t, nonce) for t in self.tools],
            history=history,
            **self.agent_options,
        )


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


def report(workflow_text: str, messages: Sequence[Message]) -> None:
    results = [
        text_of(r.content) for m in messages if isinstance(m, ToolResultMessage) for r in m.results
    ]
    document: Any = json.loads(dump_messages(messages))
    print(json.dumps({"text": workflow_text, "results": results, "messages": document}))


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
    tools: list[Tool] = [append_tool(workdir / "effects.txt")]
    durable = KillingDBOSAgent(
        StatelessModel(workdir / "model_calls.txt"),
        tools=tools,
        name="kill_test",
        system_prompt="You append lines to a file.",
    )
    DBOS.launch()
    try:
        if mode == "run":
            result = await durable.run("Write a, b and c.", workflow_id=WORKFLOW_ID)
        elif mode == "recover":
            result = await durable.result(WORKFLOW_ID)
        else:
            assert dead_executor is not None
            while not (workdir / "go").exists():  # noqa: ASYNC110 - set by another process
                await anyio.sleep(0.05)
            DBOS._recover_pending_workflows([dead_executor])  # pyright: ignore[reportPrivateUsage]
            result = await durable.result(WORKFLOW_ID)
        report(result.text, result.new_messages)
    finally:
        DBOS.destroy()


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], Path(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else None)
