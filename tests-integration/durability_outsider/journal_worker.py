"""A journaled agent on SQLite that SIGKILLs itself at a journal boundary (outsider attacks).

Usage: ``python journal_worker.py WORKDIR [--scenario lines|flip|multi] [--continue]
[--resend] [--approver allow|deny] [--hooks allow|deny] [--extra-hook] [--rename]``.
Environment: ``OUTSIDER_KILL_AT=<boundary>:<occurrence>`` (see :data:`BOUNDARIES`; the
occurrence counts that boundary in this process, from 0); unset: no kill.

Scenarios (a stateless scripted model: the turn is chosen by how many assistant messages the
request holds, so a re-sent call gets the same answer):

- ``lines``: ``append`` (no gates) with "a" and "b", then "c", then text.
- ``flip``: the same calls to ``deploy`` (execute-class, sequential) behind a permission gate
  whose approver answers ``--approver`` and a hook gate whose ``PreToolUse`` /
  ``PostToolUse`` callables answer ``--hooks`` (``deny``: the pre hook blocks, the post hook
  adds feedback ``POST-REPLACED`` to the result). Every question is appended to ``asked.txt``
  (``<answer>:<line>``), every hook call to ``hooks.txt`` (``pre|post:<answer>:<line>``).
  ``--extra-hook`` adds a second ``PreToolUse`` hook (a hook configuration the first process
  did not have); ``--rename`` registers ``deploy`` as ``deploy_v2``.
- ``multi``: run ``run_load`` calls ``tool_search`` (``select:deploy``; ``deploy`` is
  deferred) and ends; the session is saved; then run ``run_kill`` (same agent, so ``deploy``
  is loaded when it starts) calls ``deploy`` with "a" and ends. The kill is armed only for
  ``run_kill``. ``--continue`` continues ``run_kill`` on a fresh agent.

Every effect appends its line to ``effects.txt``, every call that reaches the model its step to
``model_calls.txt`` (both fsynced). The session (``sessions.db``) is saved after a finished run.
Prints one JSON line: ``{"text", "results"}``, or ``{"refused": {...}}`` when the continuation
was refused (exit code 3).
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
from robota.core.agent import Agent, RunResult
from robota.core.hooks import (
    HookAllow,
    HookConfig,
    HookDeny,
    HookEventName,
    HookGate,
    HookResult,
    HookRunner,
)
from robota.core.hooks.events import HookInput
from robota.core.journal import RESERVED_PREFIX, ContinuationError, ReconciliationError
from robota.core.messages import AssistantMessage, JsonValue, ToolResultMessage, text_of
from robota.core.permissions import Approval, PermissionContext, PermissionGate, PermissionRequest
from robota.core.provider import ModelRequest, StreamEvent
from robota.core.testing.scripted import ScriptedProvider, Turn, text, tool_call
from robota.core.tools.base import RiskClass, Tool
from robota.core.tools.function import tool
from robota.session import SessionNotFoundError, SessionRecord, SQLiteJournal, SQLiteSessionStore

BOUNDARIES = (
    "response_before",
    "response_after",
    "tool_start_before",
    "tool_start_after",
    "tool_result_before",
    "tool_result_after",
)
RUN_ID = "run_kill"
LOAD_RUN_ID = "run_load"
SESSION_ID = "ses_outsider"
SYSTEM = "You write lines."

SCRIPTS: dict[str, list[Turn]] = {
    "lines": [
        [tool_call("t1", "append", {"line": "a"}), tool_call("t2", "append", {"line": "b"})],
        [tool_call("t3", "append", {"line": "c"})],
        [text("all three lines written")],
    ],
    "flip": [
        [tool_call("t1", "deploy", {"line": "a"}), tool_call("t2", "deploy", {"line": "b"})],
        [tool_call("t3", "deploy", {"line": "c"})],
        [text("all three lines written")],
    ],
    "multi": [
        [tool_call("s1", "tool_search", {"query": "select:deploy"})],
        [text("deploy is loaded")],
        [tool_call("t1", "deploy", {"line": "a"})],
        [text("deployed")],
    ],
}


def append_line(path: Path, line: str) -> None:
    """Append ``line`` to ``path`` and fsync it (a marker that survives a SIGKILL)."""
    with path.open("a") as handle:
        handle.write(line + "\n")
        handle.flush()
        os.fsync(handle.fileno())


class Killer:
    """SIGKILLs this process the ``occurrence``-th time ``boundary`` is reached once armed."""

    def __init__(self, spec: str | None, *, armed: bool = True) -> None:
        self.boundary, _, occurrence = (spec or "").partition(":")
        self.occurrence = int(occurrence or 0)
        self.seen = 0
        self.armed = armed

    def at(self, boundary: str) -> None:
        if not self.armed or boundary != self.boundary:
            return
        if self.seen == self.occurrence:
            os.kill(os.getpid(), signal.SIGKILL)
        self.seen += 1


class KillingJournal(SQLiteJournal):
    """A SQLite journal that dies around its writes (tool boundaries count tool calls only)."""

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
        call = not key.startswith(RESERVED_PREFIX)
        if call:
            self.killer.at("tool_start_before")
        await super().record_tool_start(run_id, key, tool_name, arguments)
        if call:
            self.killer.at("tool_start_after")

    async def record_tool_result(self, run_id: str, key: str, result: JsonValue) -> None:
        call = not key.startswith(RESERVED_PREFIX)
        if call:
            self.killer.at("tool_result_before")
        await super().record_tool_result(run_id, key, result)
        if call:
            self.killer.at("tool_result_after")


class StatelessModel(ScriptedProvider):
    """Answers by the number of assistant messages in the request; logs every real call."""

    def __init__(self, calls_file: Path, script: list[Turn]) -> None:
        super().__init__([])
        self.calls_file = calls_file
        self.script = script

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        step = sum(isinstance(m, AssistantMessage) for m in request.messages)
        append_line(self.calls_file, str(step))
        self._turns = [self.script[step]]
        async for event in super().stream(request):
            yield event


def build_tools(scenario: str, workdir: Path, *, rename: bool) -> list[Tool]:
    effects = workdir / "effects.txt"
    if scenario == "lines":

        @tool
        async def append(line: str) -> str:
            """Append one line to the file."""
            append_line(effects, line)
            return f"appended {line}"

        return [append]

    @tool(
        name="deploy_v2" if rename else "deploy",
        risk=RiskClass.EXECUTE,
        residency="deferred" if scenario == "multi" else "auto",
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


def _line_of(hook_input: HookInput) -> str:
    arguments: Any = getattr(hook_input, "tool_input", {})
    return str(arguments.get("line", "?")) if isinstance(arguments, dict) else "?"


def build_gates(args: argparse.Namespace) -> list[Any]:
    if args.scenario != "flip":
        return []
    workdir: Path = args.workdir
    answer: str = args.approver
    hooks: str = args.hooks

    async def approver(request: PermissionRequest) -> Approval:
        line = json.loads(request.arguments_text)["line"]
        append_line(workdir / "asked.txt", f"{answer}:{line}")
        if answer == "deny":
            return Approval(kind="deny", message="the user said no")
        return Approval(kind="allow_once")

    async def pre(hook_input: HookInput) -> HookResult:
        append_line(workdir / "hooks.txt", f"pre:{hooks}:{_line_of(hook_input)}")
        if hooks == "deny":
            return HookDeny(reason="the pre hook says no")
        return HookAllow()

    async def post(hook_input: HookInput) -> HookResult:
        append_line(workdir / "hooks.txt", f"post:{hooks}:{_line_of(hook_input)}")
        if hooks == "deny":
            return HookDeny(reason="POST-REPLACED")
        return HookAllow()

    async def extra(hook_input: HookInput) -> HookResult:
        append_line(workdir / "hooks.txt", f"extra:{_line_of(hook_input)}")
        return HookDeny(reason="a hook added after the crash")

    configs = [
        HookConfig(
            event=HookEventName.PRE_TOOL_USE,
            matcher="deploy",
            type="callable",
            handler=pre,
            id="pre",
        ),
        HookConfig(
            event=HookEventName.POST_TOOL_USE,
            matcher="deploy",
            type="callable",
            handler=post,
            id="post",
        ),
    ]
    if args.extra_hook:
        configs.append(
            HookConfig(
                event=HookEventName.PRE_TOOL_USE,
                matcher="deploy",
                type="callable",
                handler=extra,
                id="extra",
            )
        )
    context = PermissionContext.from_rules(workdir, approver=approver)
    return [PermissionGate(context), HookGate(HookRunner(configs))]


def report(outcome: RunResult) -> dict[str, Any]:
    results = [
        text_of(r.content)
        for m in outcome.new_messages
        if isinstance(m, ToolResultMessage)
        for r in m.results
    ]
    return {"text": outcome.text, "results": results}


async def main(args: argparse.Namespace) -> int:
    workdir: Path = args.workdir
    killer = Killer(os.environ.get("OUTSIDER_KILL_AT"), armed=args.scenario != "multi")
    journal = KillingJournal(workdir / "journal.db", killer)
    store = SQLiteSessionStore(workdir / "sessions.db")
    try:
        try:
            record = await store.get(SESSION_ID)
        except SessionNotFoundError:
            record = await store.create(SessionRecord(id=SESSION_ID, system_prompt=SYSTEM))
        agent = Agent(
            StatelessModel(workdir / "model_calls.txt", SCRIPTS[args.scenario]),
            system_prompt=SYSTEM,
            tools=build_tools(args.scenario, workdir, rename=args.rename),
            gates=build_gates(args),
            journal=journal,
            history=record.messages,
        )
        if args.resume:
            try:
                outcome = await agent.continue_run(RUN_ID, resend_unrecorded_model_call=args.resend)
            except ContinuationError as error:
                differences = [d.what for d in getattr(error, "differences", ())]
                refused = {
                    "type": type(error).__name__,
                    "reason": error.reason,
                    "reconciliation": isinstance(error, ReconciliationError),
                    "differences": differences,
                    "message": str(error),
                }
                print(json.dumps({"refused": refused}), flush=True)
                return 3
        else:
            if args.scenario == "multi":
                await agent.run("Load the deploy tool.", run_id=LOAD_RUN_ID)
                record = await store.save(record.with_messages(agent.history[1:]))
                killer.armed = True
            outcome = await agent.run("Write the lines.", run_id=RUN_ID)
        await store.save(record.with_messages(agent.history[1:]))
        print(json.dumps(report(outcome)), flush=True)
        return 0
    finally:
        await journal.aclose()
        await store.aclose()


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--scenario", default="lines", choices=sorted(SCRIPTS))
    parser.add_argument("--continue", dest="resume", action="store_true")
    parser.add_argument("--resend", action="store_true")
    parser.add_argument("--approver", default="allow", choices=["allow", "deny"])
    parser.add_argument("--hooks", default="allow", choices=["allow", "deny"])
    parser.add_argument("--extra-hook", action="store_true")
    parser.add_argument("--rename", action="store_true")
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(anyio.run(main, parse(sys.argv[1:])))
