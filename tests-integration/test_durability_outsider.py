"""Outsider attacks on Robota's durability promises (issue #15; seed 000 "Execution Journal and
Continuation"; the journal section of agent-core's README, agent-session's README, and
agent-framework's one-writer, recovery, compaction and fallback sections).

Each test is one attempt against one promise; it passes when the promise held and fails, naming
what broke, when it did not:

1. continuation reuses every durable settlement (no approver, permission gate or tool hook is
   asked again; a recorded result is never replaced; nothing runs twice);
2. residency (tools loaded through ``tool_search``) is restored on continuation;
3. an unrecorded model call and runtime state that differs from the checkpoint are refused with
   a typed error naming what differs;
4. durable waits: a response answers only its own request and is never replaced;
5. compaction's summary request always fits the compaction model's window (or is a typed error
   before sending); overflow recovery shortens the newest tool results;
6. one session, one writer: a second host is refused before anything runs, a dead holder
   releases by expiry, no turn that ran is lost and nothing is stored twice;
7. resume rebuilds from the JSONL log when the snapshot is missing or unreadable, skips a torn
   last line, and raises a typed error when neither is usable;
8. the fallback chain belongs to the session (a turn stays on the model that answered, the next
   turn starts on the primary, usage is charged per model).

Real processes (``durability_outsider/journal_worker.py`` and ``session_worker.py``) are
SIGKILLed at journal boundaries and mid-turn; stores and logs are damaged on disk; two
processes race for one SQLite file. Effects, approver questions, hook calls and model calls are
counted from fsynced marker files. The last test prints
``kill test(outsider): tried=N held=H broken=B reasked=R lost=L repeated=E``.

Run: ``uv run --frozen pytest tests-integration/test_durability_outsider.py``.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from robota.core import Agent, tool
from robota.core.agent import RunPaused
from robota.core.agent.context import estimate_tokens
from robota.core.agent.pause import Approve, Deny
from robota.core.errors import (
    ContextWindowExceededError,
    JournalError,
    OverloadedError,
    ProviderError,
    RobotaError,
)
from robota.core.events import Event
from robota.core.journal import (
    INTERRUPTED_EFFECT_TEXT,
    ContinuationError,
    ReconciliationError,
    WaitResponseError,
)
from robota.core.messages import (
    AssistantMessage,
    JsonValue,
    MediaPart,
    Message,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    ToolResultPart,
    UserMessage,
    dump_messages,
)
from robota.core.permissions import (
    Approval,
    PermissionContext,
    PermissionGate,
    PermissionMode,
    PermissionRequest,
)
from robota.core.provider import ModelRequest, StreamEvent
from robota.core.settings import ModelSettings
from robota.core.testing.scripted import (
    ScriptedProvider,
    Turn,
    fail,
    reached,
    text,
    tool_call,
    usage,
    wait_for,
)
from robota.core.tools.base import RiskClass, Tool
from robota.framework import FallbackProvider, InteractiveSession, SessionConfig
from robota.framework.interactive.events import SessionRecovered
from robota.framework.settings import Settings
from robota.framework.settings.model import HookEntry, PermissionSettings
from robota.session import (
    EventLog,
    SessionLeaseHeldError,
    SessionRecord,
    SessionUnrecoverableError,
    SQLiteJournal,
    SQLiteSessionStore,
)
from robota.session.compaction import (
    CompactionError,
    OverflowRecoveringProvider,
    SummaryTooLargeError,
    compact,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))  # for the durability_outsider helpers
from durability_outsider.kit import (  # pyright: ignore[reportImplicitRelativeImport]
    JOURNAL_WORKER,
    KILLED,
    LEDGER,
    SESSION_WORKER,
    Verdict,
    kill,
    last_json,
    lines_of,
    parallel,
    private_dir,
    run,
    spawn,
    wait_for_file,
)

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(sys.platform != "linux", reason="SIGKILL, fsync and file modes: Linux"),
]

Attempt = Callable[[Path], Verdict]
ATTEMPTS: dict[str, Attempt] = {}
LINES = ("a", "b", "c")


def attempt(fn: Attempt) -> Callable[[Path], None]:
    """Register ``fn`` as an attempt and make it a test of the same name: the verdict is
    recorded for the figures line and the test fails when the promise broke."""
    name = fn.__name__
    ATTEMPTS[name] = fn

    def test(tmp_path: Path) -> None:
        verdict = fn(private_dir(tmp_path / "work"))
        LEDGER.record(name, verdict)
        assert verdict.held, verdict.message()

    test.__name__ = test.__qualname__ = name
    test.__doc__ = fn.__doc__
    return test


# ---------------------------------------------------------------------------------------------
# journal workers (promises 1-3)


def journal_run(workdir: Path, *args: str, kill_at: str | None = None) -> Any:
    """Run the journal worker; the process result."""
    return run(JOURNAL_WORKER, str(workdir), *args, kill_at=kill_at)


def continue_with_opt_in(workdir: Path, *args: str, kill_at: str | None = None) -> Any:
    """Continue the run; a refusal for an unrecorded model call is checked to have changed
    nothing, then the continuation is repeated with ``--resend`` (the host's opt-in)."""
    effects = lines_of(workdir / "effects.txt")
    calls = lines_of(workdir / "model_calls.txt")
    resumed = journal_run(workdir, "--continue", *args, kill_at=kill_at)
    if resumed.returncode == 3 and "unrecorded_model_call" in resumed.stdout:
        assert lines_of(workdir / "effects.txt") == effects, "a refused continuation ran a tool"
        assert lines_of(workdir / "model_calls.txt") == calls, "a refused continuation was sent"
        resumed = journal_run(workdir, "--continue", "--resend", *args, kill_at=kill_at)
    return resumed


def stored_kinds(workdir: Path) -> list[str]:
    async def read() -> list[str]:
        async with SQLiteSessionStore(workdir / "sessions.db") as store:
            return [m.kind for m in (await store.get("ses_outsider")).messages]

    return anyio.run(read)


REFERENCE_KINDS = ["user", "assistant", "tool_results", "assistant", "tool_results", "assistant"]


def check_messages(verdict: Verdict, case: str, kinds: list[str], reference: list[str]) -> None:
    """The stored conversation has exactly the reference's messages: none lost, none twice."""
    if kinds != reference:
        missing = sum((Counter(reference) - Counter(kinds)).values())
        verdict.lost += missing
        verdict.fail(f"{case}: stored {kinds} instead of {reference}")


FLIP_BOUNDARIES = ("tool_start_after", "tool_result_before", "tool_result_after")


def flip_case(workdir: Path, kill_at: str, first: Sequence[str], then: Sequence[str]) -> Any:
    private_dir(workdir)
    crashed = journal_run(workdir, "--scenario", "flip", *first, kill_at=kill_at)
    assert crashed.returncode == KILLED, (kill_at, crashed.stdout, crashed.stderr)
    resumed = continue_with_opt_in(workdir, "--scenario", "flip", *then)
    assert resumed.returncode == 0, (kill_at, resumed.stdout, resumed.stderr)
    return last_json(resumed.stdout)


@attempt
def test_p1_a_denial_journaled_before_a_kill_stays_when_the_approver_would_now_allow(
    tmp: Path,
) -> Verdict:
    """The first process's approver denies every deploy; it is SIGKILLed at each tool
    boundary; the continuing process's approver would allow. A call whose start (with its
    denial) was journaled keeps the denial without the approver being asked again; calls not
    admitted before the kill are decided now. (The suite's own test flips allow → deny.)"""
    verdict = Verdict(promise=1)
    cases = [f"{b}:{n}" for b in FLIP_BOUNDARIES for n in range(3)]

    def one(kill_at: str) -> tuple[str, Any]:
        workdir = tmp / kill_at.replace(":", "-")
        return kill_at, flip_case(workdir, kill_at, ["--approver", "deny"], ["--approver", "allow"])

    for kill_at, report in parallel(one, cases):
        workdir = tmp / kill_at.replace(":", "-")
        occurrence = int(kill_at.split(":")[1])
        asked = lines_of(workdir / "asked.txt")
        effects = lines_of(workdir / "effects.txt")
        for index, (line, result) in enumerate(zip(LINES, report["results"], strict=True)):
            total = asked[f"deny:{line}"] + asked[f"allow:{line}"]
            verdict.reasked += max(0, total - 1)
            verdict.repeated += max(0, effects[line] - 1)
            if total != 1:
                verdict.fail(f"{kill_at}: asked about {line} {total} times")
            if index <= occurrence:
                if not result.startswith("Permission denied") or effects[line]:
                    verdict.fail(f"{kill_at}: settled denial of {line} became {result!r}")
            elif result != f"appended {line}" or effects[line] != 1:
                verdict.fail(f"{kill_at}: new call {line} gave {result!r}, ran {effects[line]}x")
        if lines_of(workdir / "model_calls.txt") != Counter({"0": 1, "1": 1, "2": 1}):
            verdict.fail(f"{kill_at}: model calls {lines_of(workdir / 'model_calls.txt')}")
        check_messages(verdict, kill_at, stored_kinds(workdir), REFERENCE_KINDS)
    return verdict


@attempt
def test_p1_settled_calls_never_meet_pre_or_post_tool_hooks_again(tmp: Path) -> Verdict:
    """First process: approver allows, ``PreToolUse``/``PostToolUse`` hooks allow; SIGKILL at
    each tool boundary. Continuing process: the same hook configuration, but the pre hook now
    blocks and the post hook would append ``POST-REPLACED`` to the result. A call whose start
    was journaled is never shown to either hook again and keeps its recorded result (or is
    reported interrupted); it never runs twice."""
    verdict = Verdict(promise=1)
    cases = [f"{b}:{n}" for b in FLIP_BOUNDARIES for n in range(3)]

    def one(kill_at: str) -> tuple[str, Any]:
        workdir = tmp / kill_at.replace(":", "-")
        return kill_at, flip_case(workdir, kill_at, ["--hooks", "allow"], ["--hooks", "deny"])

    for kill_at, report in parallel(one, cases):
        workdir = tmp / kill_at.replace(":", "-")
        occurrence = int(kill_at.split(":")[1])
        hooks = lines_of(workdir / "hooks.txt")
        effects = lines_of(workdir / "effects.txt")
        for index, (line, result) in enumerate(zip(LINES, report["results"], strict=True)):
            verdict.repeated += max(0, effects[line] - 1)
            if index <= occurrence:  # admitted before the kill
                again = hooks[f"pre:deny:{line}"] + hooks[f"post:deny:{line}"]
                verdict.reasked += again + max(0, hooks[f"pre:allow:{line}"] - 1)
                if again or hooks[f"pre:allow:{line}"] != 1:
                    verdict.fail(f"{kill_at}: settled {line} met the hooks again ({hooks})")
                if result not in (f"appended {line}", INTERRUPTED_EFFECT_TEXT):
                    verdict.fail(f"{kill_at}: settled result of {line} replaced by {result!r}")
                if result == f"appended {line}" and effects[line] != 1:
                    verdict.fail(f"{kill_at}: {line} reported done but ran {effects[line]}x")
            elif not result.startswith("Blocked") or effects[line]:
                verdict.fail(f"{kill_at}: new call {line} gave {result!r}")
        check_messages(verdict, kill_at, stored_kinds(workdir), REFERENCE_KINDS)
    return verdict


DOUBLE_KILLS = (
    ("tool_start_after:0", "tool_result_after:0"),
    ("tool_result_before:1", "response_before:0"),
    ("response_before:1", "tool_start_after:0"),
    ("tool_result_after:0", "tool_result_before:0"),
    ("response_after:1", "response_before:0"),
    ("tool_start_before:2", "tool_start_after:0"),
)


@attempt
def test_p1_a_second_kill_during_the_continuation_repeats_nothing(tmp: Path) -> Verdict:
    """The impatient host: SIGKILL at one boundary, SIGKILL the continuing process at another,
    then continue again. Every effect runs at most once (exactly once unless reported
    interrupted), a recorded response is never requested again, and the stored conversation
    has each message once."""
    verdict = Verdict(promise=1)

    def one(kills: tuple[str, str]) -> tuple[tuple[str, str], Any, int]:
        workdir = private_dir(tmp / "-".join(kills).replace(":", "_"))
        crashed = journal_run(workdir, kill_at=kills[0])
        assert crashed.returncode == KILLED, (kills, crashed.stderr)
        lost_responses = int(kills[0].startswith("response_before"))
        second = continue_with_opt_in(workdir, kill_at=kills[1])
        if second.returncode == KILLED:
            lost_responses += int(kills[1].startswith("response_before"))
            final = continue_with_opt_in(workdir)
        else:
            final = second
        assert final.returncode == 0, (kills, final.stdout, final.stderr)
        return kills, last_json(final.stdout), lost_responses

    for kills, report, lost_responses in parallel(one, DOUBLE_KILLS):
        workdir = tmp / "-".join(kills).replace(":", "_")
        case = " then ".join(kills)
        effects = lines_of(workdir / "effects.txt")
        for line, result in zip(LINES, report["results"], strict=True):
            verdict.repeated += max(0, effects[line] - 1)
            if effects[line] > 1:
                verdict.fail(f"{case}: {line} ran {effects[line]}x")
            if result != INTERRUPTED_EFFECT_TEXT and effects[line] != 1:
                verdict.fail(f"{case}: {line} reported {result!r} but ran {effects[line]}x")
        calls = lines_of(workdir / "model_calls.txt")
        if any(n > 1 + lost_responses for n in calls.values()) or set(calls) != {"0", "1", "2"}:
            verdict.fail(f"{case}: model calls {dict(calls)}")
        check_messages(verdict, case, stored_kinds(workdir), REFERENCE_KINDS)
    return verdict


MULTI_KILLS = (
    "response_before:0",
    "response_after:0",
    "tool_start_before:0",
    "tool_start_after:0",
    "tool_result_before:0",
    "tool_result_after:0",
    "response_before:1",
    "response_after:1",
)


@attempt
def test_p2_a_run_that_started_with_a_loaded_tool_gets_it_back_after_a_kill(tmp: Path) -> Verdict:
    """Run 1 loads the deferred ``deploy`` through ``tool_search`` and ends; run 2 (the same
    agent, so ``deploy`` is loaded when it starts) calls ``deploy`` and is SIGKILLed at every
    boundary. A fresh process continues run 2: the residency the run *started* with is restored,
    so ``deploy`` is answered or run — never an unknown-tool skip — and runs at most once."""
    verdict = Verdict(promise=2)

    def one(kill_at: str) -> tuple[str, Any]:
        workdir = private_dir(tmp / kill_at.replace(":", "-"))
        crashed = journal_run(workdir, "--scenario", "multi", kill_at=kill_at)
        assert crashed.returncode == KILLED, (kill_at, crashed.stderr)
        resumed = continue_with_opt_in(workdir, "--scenario", "multi")
        if resumed.returncode != 0:
            return kill_at, {"error": resumed.stdout + resumed.stderr[-600:]}
        return kill_at, last_json(resumed.stdout)

    for kill_at, report in parallel(one, MULTI_KILLS):
        workdir = tmp / kill_at.replace(":", "-")
        effects = lines_of(workdir / "effects.txt")
        verdict.repeated += max(0, effects["a"] - 1)
        if "error" in report:
            verdict.fail(f"{kill_at}: continuation failed: {report['error'][-300:]}")
            continue
        result = report["results"][-1] if report["results"] else ""
        if result not in ("appended a", INTERRUPTED_EFFECT_TEXT) or effects["a"] > 1:
            verdict.fail(f"{kill_at}: deploy gave {result!r}, ran {effects['a']}x")
    return verdict


def refused_continuation(workdir: Path, *args: str) -> tuple[Any, Counter[str], Counter[str]]:
    """Kill the flip scenario once its first response is recorded (no tool started), then
    continue with ``args``; returns the continuation's report and the effects and model calls
    made by the continuation."""
    crashed = journal_run(workdir, "--scenario", "flip", kill_at="response_after:0")
    assert crashed.returncode == KILLED, crashed.stderr
    effects = lines_of(workdir / "effects.txt")
    calls = lines_of(workdir / "model_calls.txt")
    resumed = journal_run(workdir, "--scenario", "flip", "--continue", *args)
    report = last_json(resumed.stdout) if resumed.stdout.strip() else {"stderr": resumed.stderr}
    return (
        report,
        lines_of(workdir / "effects.txt") - effects,
        lines_of(workdir / "model_calls.txt") - calls,
    )


@attempt
def test_p3_a_checkpoint_whose_tool_was_renamed_is_refused_before_anything_runs(
    tmp: Path,
) -> Verdict:
    """The crashed run offered ``deploy``; the continuing process registers it as
    ``deploy_v2``. The continuation is refused with a typed error naming the tool, before any
    model call, approver question or effect."""
    verdict = Verdict(promise=3)
    report, effects, calls = refused_continuation(private_dir(tmp / "renamed"), "--rename")
    refused = report.get("refused")
    if refused is None:
        verdict.fail(f"continued with a renamed tool: {report}")
    elif "deploy" not in refused["message"]:
        verdict.fail(f"refusal does not name the tool: {refused['message']}")
    if effects or calls or (tmp / "renamed" / "asked.txt").exists():
        verdict.fail(f"ran before refusing: effects {effects}, model calls {calls}")
    if refused is not None:
        verdict.detail = f"refused as {refused['type']}({refused['reason']})"
    return verdict


@attempt
def test_p3_a_tool_hook_added_after_the_crash_is_refused_as_state_drift(tmp: Path) -> Verdict:
    """The continuing process has one more ``PreToolUse`` hook than the crashed run had (a
    different hook gate). Runtime state that decides calls and differs from the checkpoint is
    refused with a ``ReconciliationError`` naming the gates, unless the host opts in — as it
    is for a changed permission mode or rule."""
    verdict = Verdict(promise=3)
    workdir = private_dir(tmp / "hook")
    report, _effects, calls = refused_continuation(workdir, "--extra-hook")
    refused = report.get("refused")
    if refused is None or not refused["reconciliation"] or "gates" not in refused["differences"]:
        extra = lines_of(workdir / "hooks.txt")
        verdict.fail(
            f"not refused as state drift: continuation gave {report} after {sum(calls.values())} "
            f"model call(s); the added hook was consulted "
            f"{sum(n for k, n in extra.items() if k.startswith('extra'))}x"
        )
    return verdict


# ---------------------------------------------------------------------------------------------
# in-process journal attacks (promises 1, 3, 4)


class PowerCut(BaseException):
    """Stands in for the process dying at a journal write."""


effects_log: list[str] = []


def journal_tools() -> list[Tool]:
    @tool(risk=RiskClass.EXECUTE, sequential=True)
    def deploy(line: str) -> str:
        """Deploy one line."""
        effects_log.append(line)
        return f"appended {line}"

    @tool(risk=RiskClass.INSPECT)
    def status() -> str:
        """Deployment status."""
        return "ok"

    return [status, deploy]


class DiesAfterFirstResult(SQLiteJournal):
    armed = True

    async def record_tool_result(self, run_id: str, key: str, result: JsonValue) -> None:
        await super().record_tool_result(run_id, key, result)
        if self.armed and not key.startswith("@"):
            self.armed = False
            raise PowerCut


class DiesBeforeSecondResponse(SQLiteJournal):
    async def record_response(self, run_id: str, step: int, response: JsonValue) -> None:
        if step == 1:
            raise PowerCut
        await super().record_response(run_id, step, response)


TWO_ROUNDS: list[Turn] = [
    [tool_call("t1", "deploy", {"line": "a"})],
    [tool_call("t2", "deploy", {"line": "b"})],
    "done",
]


async def crashed_run(journal: SQLiteJournal, **agent: Any) -> None:
    with contextlib.suppress(PowerCut, BaseExceptionGroup):
        await Agent(
            ScriptedProvider(TWO_ROUNDS), tools=journal_tools(), journal=journal, **agent
        ).run("go", run_id="r")
    await journal.aclose()


@tool(risk=RiskClass.INSPECT)
def version() -> str:
    """The deployed version."""
    return "1"


def allow_gate(workspace: Path, mode: PermissionMode | None = None) -> PermissionGate:
    async def approver(request: PermissionRequest) -> Approval:
        return Approval(kind="allow_once")

    context = PermissionContext.from_rules(workspace, approver=approver, mode=mode)
    return PermissionGate(context)


@attempt
def test_p3_every_runtime_drift_is_refused_naming_what_differs(tmp: Path) -> Verdict:
    """A run crashed after its first tool result; the continuing agent differs in one thing:
    model id, system prompt, settings, permission mode, an extra tool — or the journal shows a
    model call sent without a recorded response. Each is refused with a
    ``ReconciliationError`` naming the difference, with nothing sent."""
    verdict = Verdict(promise=3)
    base: dict[str, Any] = {"model": "m1", "system_prompt": "sys"}
    variants: dict[str, tuple[dict[str, Any], str]] = {
        "model": ({"model": "m2"}, "model"),
        "system prompt": ({"system_prompt": "changed"}, "system prompt"),
        "settings": ({"settings": ModelSettings(temperature=0.9)}, "agent settings"),
        "permission mode": ({"mode": PermissionMode.PLAN}, "gates"),
        "extra tool": ({"extra": True}, "offered tools"),
    }

    async def main() -> None:
        for label, (change, what) in variants.items():
            folder = private_dir(tmp / label.replace(" ", "_"))
            await crashed_run(
                DiesAfterFirstResult(folder / "j.db"), gates=[allow_gate(folder)], **base
            )
            options = {**base, **{k: v for k, v in change.items() if k not in ("mode", "extra")}}
            tools = journal_tools()
            if change.get("extra"):
                tools.append(version)
            provider = ScriptedProvider(["done"])
            journal = SQLiteJournal(folder / "j.db")
            try:
                await Agent(
                    provider,
                    tools=tools,
                    journal=journal,
                    gates=[allow_gate(folder, change.get("mode"))],
                    **options,
                ).continue_run("r")
                verdict.fail(f"{label}: continued")
            except ReconciliationError as error:
                named = [d.what for d in error.differences]
                if error.reason != "state_drift" or what not in named:
                    verdict.fail(f"{label}: refused as {error.reason} naming {named}")
            finally:
                await journal.aclose()
            if provider.requests:
                verdict.fail(f"{label}: {len(provider.requests)} model call(s) before refusing")
        folder = private_dir(tmp / "unrecorded")
        await crashed_run(DiesBeforeSecondResponse(folder / "j.db"), **base)
        provider = ScriptedProvider(["done"])
        journal = SQLiteJournal(folder / "j.db")
        try:
            await Agent(provider, tools=journal_tools(), journal=journal, **base).continue_run("r")
            verdict.fail("unrecorded model call: continued")
        except ReconciliationError as error:
            if error.reason != "unrecorded_model_call" or error.steps != (1,):
                verdict.fail(f"unrecorded model call: {error.reason} steps {error.steps}")
        finally:
            await journal.aclose()
        if provider.requests:
            verdict.fail("unrecorded model call: sent before refusing")

    effects_log.clear()
    anyio.run(main)
    return verdict


class DiskFull(SQLiteJournal):
    async def record_tool_result(self, run_id: str, key: str, result: JsonValue) -> None:
        if key == "1:0":
            raise sqlite3.OperationalError("database or disk is full")
        await super().record_tool_result(run_id, key, result)


@attempt
def test_p1_a_rejected_journal_write_fails_the_run_and_nothing_runs_twice(tmp: Path) -> Verdict:
    """The disk fills up exactly when the first tool's result is written. The run fails with
    ``JournalError`` (never a tool error the model could retry), the next sequential call never
    starts and no further model call is made; the continuation reports the first call
    interrupted (never runs it again) and runs the second once."""
    verdict = Verdict(promise=1)

    async def main() -> None:
        turns: list[Turn] = [
            [tool_call("t1", "deploy", {"line": "a"}), tool_call("t2", "deploy", {"line": "b"})],
            "done",
        ]
        provider = ScriptedProvider(turns)
        journal = DiskFull(tmp / "j.db")
        try:
            await Agent(provider, tools=journal_tools(), journal=journal).run("go", run_id="r")
            verdict.fail("the run succeeded although a journal write failed")
        except JournalError:
            pass
        except BaseException as error:
            verdict.fail(f"the run failed with {type(error).__name__}, not JournalError")
        finally:
            await journal.aclose()
        if len(provider.requests) != 1 or Counter(effects_log) != Counter({"a": 1}):
            verdict.fail(f"after the failed write: {len(provider.requests)} calls, {effects_log}")
        journal = SQLiteJournal(tmp / "j.db")
        try:
            result = await Agent(
                ScriptedProvider(["done"]), tools=journal_tools(), journal=journal
            ).continue_run("r")
        finally:
            await journal.aclose()
        texts = [
            r.text
            for m in result.new_messages
            if isinstance(m, ToolResultMessage)
            for r in m.results
        ]
        verdict.repeated += max(0, effects_log.count("a") - 1)
        if texts != [INTERRUPTED_EFFECT_TEXT, "appended b"] or Counter(effects_log) != Counter(
            {"a": 1, "b": 1}
        ):
            verdict.fail(f"continuation gave {texts}, effects {effects_log}")

    effects_log.clear()
    anyio.run(main)
    return verdict


def corrupt_journal(db: Path, case: str) -> None:
    if case == "garbage file":
        db.write_bytes(b"\x00garbage" * 512)
        return
    if case == "zero bytes":
        db.write_bytes(b"")
        return
    updates = {
        "checkpoint a list": "UPDATE journal_runs SET checkpoint='[]'",
        "checkpoint half": "UPDATE journal_runs SET checkpoint=substr(checkpoint, 1, 40)",
        "response wrong shape": "UPDATE journal_responses SET body='{\"x\": 1}' WHERE step=0",
        "tool result wrong shape": "UPDATE journal_tools SET result='[1]' WHERE key='1:0'",
        "admission unknown verdict": (
            'UPDATE journal_tools SET result=NULL, arguments=\'{"$robota.admitted": 1, '
            '"arguments": {"line": "a"}, "admission": {"verdict": "maybe"}}\' WHERE key=\'1:0\''
        ),
    }
    connection = sqlite3.connect(db)
    try:
        connection.execute(updates[case])
        connection.commit()
    finally:
        connection.close()


@attempt
def test_p1_a_corrupted_journal_is_refused_typed_before_anything_runs(tmp: Path) -> Verdict:
    """The journal file of a crashed run is damaged on disk in several ways. Continuation
    refuses with a typed error (``ContinuationError`` or ``JournalError``) and sends nothing,
    runs nothing."""
    verdict = Verdict(promise=1)
    cases = (
        "garbage file",
        "zero bytes",
        "checkpoint a list",
        "checkpoint half",
        "response wrong shape",
        "tool result wrong shape",
        "admission unknown verdict",
    )

    async def main() -> None:
        for case in cases:
            folder = private_dir(tmp / case.replace(" ", "_"))
            await crashed_run(DiesBeforeSecondResponse(folder / "j.db"))
            corrupt_journal(folder / "j.db", case)
            before = list(effects_log)
            provider = ScriptedProvider(["done", "done", "done"])
            journal = SQLiteJournal(folder / "j.db")
            try:
                await Agent(provider, tools=journal_tools(), journal=journal).continue_run(
                    "r", resend_unrecorded_model_call=True
                )
                verdict.fail(f"{case}: continued")
            except (ContinuationError, JournalError):
                pass
            except Exception as error:
                verdict.fail(f"{case}: untyped {type(error).__name__}: {error}")
            finally:
                await journal.aclose()
            if provider.requests or effects_log != before:
                verdict.fail(
                    f"{case}: sent {len(provider.requests)}, ran {effects_log[len(before) :]}"
                )

    effects_log.clear()
    anyio.run(main)
    return verdict


@tool(execution="approval")
def release(version: str) -> str:
    """Publish a release."""
    effects_log.append(f"release {version}")
    return f"released {version}"


@tool(execution="external")
def lookup(query: str) -> str:
    """Ask someone outside."""
    return "never runs here"


class SlowDisk(SQLiteJournal):
    """Holds every wait-response write until the other host reached its own (a slow disk: the
    check and the write are two steps)."""

    def __init__(self, path: Path, mine: anyio.Event, other: anyio.Event) -> None:
        super().__init__(path)
        self.mine = mine
        self.other = other

    async def record_wait_response(self, run_id: str, request_id: str, response: JsonValue) -> None:
        self.mine.set()
        with anyio.fail_after(5):
            await self.other.wait()
        await super().record_wait_response(run_id, request_id, response)


@attempt
def test_p4_two_hosts_answering_one_wait_at_once_never_replace_a_saved_response(
    tmp: Path,
) -> Verdict:
    """A run waits for approval of ``release``. Two hosts (two connections to the journal file)
    answer request ``1:0`` at the same time: one approves, one denies. A response is saved
    before use and never replaced, so at most one of them may be told its response was saved;
    the other must get ``WaitResponseError(already_answered)``."""
    verdict = Verdict(promise=4)

    async def main() -> None:
        journal = SQLiteJournal(tmp / "j.db")
        paused = await Agent(
            ScriptedProvider([[tool_call("c1", "release", {"version": "1"})]]),
            tools=[release],
            journal=journal,
        ).run_until_pause("Release 1", run_id="r")
        await journal.aclose()
        assert isinstance(paused, RunPaused)
        first, second = anyio.Event(), anyio.Event()
        hosts = [SlowDisk(tmp / "j.db", first, second), SlowDisk(tmp / "j.db", second, first)]
        answers: dict[str, bool | str] = {}

        async def answer(name: str, journal: SQLiteJournal, decision: Approve | Deny) -> None:
            agent = Agent(ScriptedProvider([]), tools=[release], journal=journal)
            try:
                answers[name] = await agent.respond("r", "1:0", decision)
            except WaitResponseError as error:
                answers[name] = error.reason
            except RobotaError as error:  # e.g. a write refused by the store: not "saved"
                answers[name] = type(error).__name__

        async with anyio.create_task_group() as group:
            group.start_soon(answer, "approve", hosts[0], Approve())
            group.start_soon(answer, "deny", hosts[1], Deny(message="no"))
        run = await hosts[0].load_run("r")
        for host in hosts:
            await host.aclose()
        saved = run.waits["1:0"].response if run is not None else None
        told = [name for name, answer in answers.items() if answer is True]
        kept = "approve" if "approve" in json.dumps(saved) else "deny"
        if len(told) > 1:
            verdict.fail(
                f"both hosts were told their response was saved ({answers}); the journal now "
                f"holds {json.dumps(saved)} — the other saved response was replaced"
            )
        elif told and told != [kept]:
            verdict.fail(f"{told[0]} was told it was saved, the journal holds {kept}")

    anyio.run(main)
    return verdict


@attempt
def test_p4_a_response_answers_only_its_own_request(tmp: Path) -> Verdict:
    """Two runs wait on request ``1:0`` each (different arguments). A response for an unknown
    request id, the other run's pause state, a second different response, a mismatched kind
    and a response to a finished run are all refused with ``WaitResponseError``; the saved
    response is the one used."""
    verdict = Verdict(promise=4)

    async def main() -> None:
        journal = SQLiteJournal(tmp / "j.db")

        def agent(turns: list[Turn]) -> Agent:
            return Agent(ScriptedProvider(turns), tools=[release, lookup], journal=journal)

        one = await agent([[tool_call("c1", "release", {"version": "1"})]]).run_until_pause(
            "one", run_id="r1"
        )
        two = await agent([[tool_call("c1", "release", {"version": "2"})]]).run_until_pause(
            "two", run_id="r2"
        )
        ext = await agent([[tool_call("c1", "lookup", {"query": "q"})]]).run_until_pause(
            "ext", run_id="r3"
        )
        assert isinstance(one, RunPaused)
        assert isinstance(two, RunPaused)
        assert isinstance(ext, RunPaused)
        attempts: list[tuple[str, Any, str]] = [
            ("unknown id", agent([]).respond("r1", "2:0", Approve()), "unknown_request"),
            ("approve for external", agent([]).respond("r3", "1:0", Approve()), "mismatched"),
        ]
        for label, call, reason in attempts:
            try:
                await call
                verdict.fail(f"{label}: accepted")
            except WaitResponseError as error:
                if error.reason != reason:
                    verdict.fail(f"{label}: refused as {error.reason}")
        assert await agent([]).respond("r1", "1:0", Approve())
        try:
            await agent([]).respond("r1", "1:0", Deny(message="changed my mind"))
            verdict.fail("a different second response was accepted")
        except WaitResponseError as error:
            if error.reason != "already_answered":
                verdict.fail(f"second response refused as {error.reason}")
        try:  # r2's pause state answered through r1's journal entry
            tampered = replace(two.state, run_id="r1")
            await agent(["Released."]).resume(tampered, {tampered.pending[0].key: Approve()})
            verdict.fail("another run's pause state was accepted")
        except WaitResponseError as error:
            if error.reason != "unknown_request":
                verdict.fail(f"another run's pause state refused as {error.reason}")
        result = await agent(["Released."]).continue_run("r1")
        if effects_log != ["release 1"] or result.text != "Released.":
            verdict.fail(f"continuation ran {effects_log}")
        try:
            await agent([]).respond("r1", "1:0", Approve())
            verdict.fail("a response to a finished run was accepted")
        except WaitResponseError as error:
            if error.reason != "finished":
                verdict.fail(f"finished run refused as {error.reason}")
        await journal.aclose()

    effects_log.clear()
    anyio.run(main)
    return verdict


# ---------------------------------------------------------------------------------------------
# compaction and overflow recovery (promise 5)


class WindowedModel(ScriptedProvider):
    """A scripted model with a hard context window: a request whose size (Robota's estimate
    times ``ratio``, a tokenizer that counts more than the estimate) exceeds it is refused
    with a provider-reported overflow. Records the estimate of every request."""

    def __init__(self, turns: list[Turn], window: int, *, ratio: float = 1.0) -> None:
        super().__init__(turns, context_window=window)
        self.window = window
        self.ratio = ratio
        self.sizes: list[int] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        size = estimate_tokens(request.messages, request.tools)
        self.sizes.append(size)
        if size * self.ratio > self.window:
            self.requests.append(request)
            raise ContextWindowExceededError(
                "prompt is too long",
                context_window=self.window,
                provider_error=ProviderError("prompt is too long", provider=self.name, status=400),
            )
        async for event in super().stream(request):
            yield event


def tool_pair(n: int, content: Sequence[TextPart | MediaPart]) -> list[Message]:
    call = ToolCallPart(id=f"c{n}", name="read", arguments={"n": n}, raw_arguments=f'{{"n": {n}}}')
    result = ToolResultPart(call_id=f"c{n}", name="read", content=tuple(content))
    return [AssistantMessage(parts=(call,)), ToolResultMessage(results=(result,))]


RECENT: list[Message] = [
    UserMessage.of("recent one"),
    AssistantMessage(parts=(TextPart(text="ok"),)),
    UserMessage.of("recent two"),
    AssistantMessage(parts=(TextPart(text="ok"),)),
]


def pairing_problems(messages: Sequence[Message]) -> list[str]:
    calls: list[str] = []
    results: list[str] = []
    for message in messages:
        if isinstance(message, AssistantMessage):
            calls.extend(c.id for c in message.tool_calls)
        elif isinstance(message, ToolResultMessage):
            results.extend(r.call_id for r in message.results)
    problems = [f"call {c} without a result" for c in calls if c not in results]
    problems += [f"result {r} without a call" for r in results if r not in calls]
    problems += [f"result {r} twice" for r, n in Counter(results).items() if n > 1]
    return problems


def compaction_verdict(
    older: list[Message], window: int, *, can_never_fit: bool = False
) -> Verdict:
    """Compact ``older`` + two recent turns for a ``window``-token model; the summary request
    must fit the window and be well paired (or, when it can never fit, be refused with
    ``SummaryTooLargeError`` before sending)."""
    verdict = Verdict(promise=5)
    model = WindowedModel(["The summary."], window)
    history = [*older, *RECENT]
    try:
        record = anyio.run(lambda: compact(model, "local", history))
    except SummaryTooLargeError as error:
        if model.requests:
            verdict.fail(f"SummaryTooLargeError after {len(model.requests)} request(s)")
        elif not can_never_fit:
            verdict.fail(
                f"refused as too large ({error.minimum_tokens} > {error.budget_tokens} tokens "
                '"even with every tool result and message elided") although eliding the '
                "large content fits"
            )
        verdict.detail = f"minimum {error.minimum_tokens} tokens, budget {error.budget_tokens}"
        return verdict
    except RobotaError as error:
        verdict.fail(f"compaction failed: {type(error).__name__}: {error}")
        return verdict
    retries = record.summary_request.overflow_retries if record.summary_request else 0
    if max(model.sizes) > window or len(model.sizes) != 1 + retries:
        verdict.fail(f"summary requests of {model.sizes} tokens for a {window}-token window")
    sent = model.requests[-1].messages
    problems = pairing_problems(sent)
    if problems:
        verdict.fail(f"summary request not pairing-repaired: {problems}")
    removed = len(history) - len(RECENT)
    if dump_messages(record.removed) != dump_messages(history[:removed]):
        verdict.lost += 1
        verdict.fail("the removed messages were not kept verbatim")
    return verdict


@attempt
def test_p5_a_1mb_tool_result_fits_a_32k_local_model(tmp: Path) -> Verdict:
    """A 1 MB tool result in the turns being summarized, a 32k-token model."""
    return compaction_verdict(
        [UserMessage.of("read it"), *tool_pair(0, [TextPart(text="x" * 1_000_000)])], 32_768
    )


@attempt
def test_p5_a_1mb_tool_result_in_many_content_blocks_fits_a_32k_local_model(tmp: Path) -> Verdict:
    """The same 1 MB of tool output delivered as 50,000 text blocks of 20 characters (as an MCP
    server returning a list of content items does). Replacing the result's content with one
    marker fits easily; the summary request must fit, not be refused."""
    blocks = [TextPart(text="y" * 20) for _ in range(50_000)]
    return compaction_verdict([UserMessage.of("read it"), *tool_pair(0, blocks)], 32_768)


@attempt
def test_p5_one_giant_user_message_fits_a_32k_local_model(tmp: Path) -> Verdict:
    """A 4 MB user message (a pasted log) in the turns being summarized."""
    return compaction_verdict([UserMessage.of("log: " + "z" * 4_000_000)], 32_768)


@attempt
def test_p5_images_in_messages_and_tool_results_fit_a_32k_local_model(tmp: Path) -> Verdict:
    """A 2 MB PNG in a user message and another returned by a tool."""
    image = MediaPart(
        media_kind="image", media_type="image/png", data=b"\x89PNG" + bytes(2_000_000)
    )
    older: list[Message] = [
        UserMessage(parts=(TextPart(text="look"), image)),
        *tool_pair(1, [image, TextPart(text="screenshot")]),
    ]
    return compaction_verdict(older, 32_768)


@attempt
def test_p5_dangling_orphan_and_duplicate_tool_results_are_repaired_in_the_summary_request(
    tmp: Path,
) -> Verdict:
    """The summarized turns hold a tool call without a result, a result without a call and a
    result given twice (a crash between call and result, a hand-edited record)."""
    dangling = ToolCallPart(id="d1", name="read", arguments={}, raw_arguments="{}")
    orphan = ToolResultPart(call_id="zz", name="read", content=(TextPart(text="orphan"),))
    twice = tool_pair(2, [TextPart(text="once")])
    older: list[Message] = [
        UserMessage.of("start"),
        AssistantMessage(parts=(dangling,)),
        UserMessage.of("go on"),
        ToolResultMessage(results=(orphan,)),
        *twice,
        twice[1],
    ]
    return compaction_verdict(older, 32_768)


@attempt
def test_p5_thousands_of_tiny_tool_results_fit_or_are_refused_before_sending(tmp: Path) -> Verdict:
    """3,000 tool calls with two-character results, a 32k model: nothing large to shorten. The
    summary request fits, or — since pairing is kept, so no part can go — it is refused with
    ``SummaryTooLargeError`` before anything is sent."""
    older: list[Message] = [UserMessage.of("scan")]
    for n in range(3_000):
        older += tool_pair(n, [TextPart(text="ok")])
    return compaction_verdict(older, 32_768, can_never_fit=True)


@attempt
def test_p5_a_1m_context_history_compacted_by_a_200k_model_fits(tmp: Path) -> Verdict:
    """A conversation sized for a 1M-token model (40 tool results of 100 KB, ~1M tokens)
    compacted by a 200k-token model after a switch."""
    older: list[Message] = [UserMessage.of("scan")]
    for n in range(40):
        older += tool_pair(n, [TextPart(text="w" * 100_000)])
    return compaction_verdict(older, 200_000)


@attempt
def test_p5_the_summary_request_runs_through_overflow_recovery(tmp: Path) -> Verdict:
    """The model's tokenizer counts 2.5x Robota's estimate: the sized summary request is refused
    as too long by the provider; overflow recovery must send a smaller one that is accepted."""
    verdict = Verdict(promise=5)
    model = WindowedModel(["The summary."], 32_768, ratio=2.5)
    older = [UserMessage.of("read"), *tool_pair(0, [TextPart(text="x" * 1_000_000)])]
    try:
        record = anyio.run(lambda: compact(model, "local", [*older, *RECENT]))
    except RobotaError as error:
        verdict.fail(f"compaction failed: {type(error).__name__}: {error} (sizes {model.sizes})")
        return verdict
    if record.summary_request is None or record.summary_request.overflow_retries < 1:
        verdict.fail(f"no overflow retry recorded (sizes {model.sizes})")
    return verdict


def overflow_verdict(newest: Sequence[TextPart]) -> Verdict:
    verdict = Verdict(promise=5)
    model = WindowedModel(["ok"], 32_768)
    request = ModelRequest(
        model="local",
        messages=(
            UserMessage.of("old"),
            *tool_pair(0, [TextPart(text="old output " * 100)]),
            UserMessage.of("read the big one"),
            *tool_pair(1, newest),
        ),
    )
    try:
        response = anyio.run(OverflowRecoveringProvider(model).complete, request)
    except ContextWindowExceededError:
        verdict.fail(
            f"overflow recovery could not shorten the newest tool result (requests of "
            f"{model.sizes} tokens for a 32768-token window)"
        )
        return verdict
    if response.message.text != "ok" or max(model.sizes[1:], default=0) > 32_768:
        verdict.fail(f"retried with {model.sizes}")
    return verdict


@attempt
def test_p5_overflow_recovery_shortens_the_newest_1mb_tool_result(tmp: Path) -> Verdict:
    """A turn whose newest tool result is 1 MB overflows a 32k model; overflow recovery
    shortens that newest result and the retry is accepted."""
    return overflow_verdict([TextPart(text="x" * 1_000_000)])


@attempt
def test_p5_overflow_recovery_shortens_a_newest_result_made_of_many_blocks(tmp: Path) -> Verdict:
    """The newest tool result is 1 MB in 50,000 blocks of 20 characters; the retry must fit."""
    return overflow_verdict([TextPart(text="y" * 20) for _ in range(50_000)])


@attempt
def test_p5_a_summary_request_that_can_never_fit_is_a_typed_error_before_sending(
    tmp: Path,
) -> Verdict:
    """A 64-token model cannot hold even the summary instruction and the answer reserve: a
    typed ``SummaryTooLargeError`` (a ``CompactionError``) before anything is sent."""
    verdict = Verdict(promise=5)
    model = WindowedModel(["The summary."], 64)
    older: list[Message] = [UserMessage.of("question " * 400), *tool_pair(0, [TextPart(text="x")])]
    try:
        anyio.run(lambda: compact(model, "tiny", [*older, *RECENT]))
        verdict.fail(f"compacted into a 64-token window with requests {model.sizes}")
    except SummaryTooLargeError:
        pass
    except CompactionError as error:
        verdict.fail(f"refused with {type(error).__name__}, not SummaryTooLargeError")
    if model.sizes:
        verdict.fail(f"sent {len(model.sizes)} request(s) first")
    return verdict


@attempt
def test_p5_session_compaction_never_moves_a_1m_history_to_a_200k_fallback(tmp: Path) -> Verdict:
    """A session on a fallback chain (1M-token primary, 200k-token backup) holds ~500k tokens
    of tool output; at compaction the primary is overloaded. The summary request sized for the
    primary must never reach the 200k backup (the chain's compaction rule); the compaction
    fails with the primary's error instead and the conversation is unchanged."""
    verdict = Verdict(promise=5)

    async def main() -> None:
        big = WindowedModel(
            [[fail(OverloadedError("busy", provider="big", status=529))]], 1_000_000
        )
        small = WindowedModel(["small summary"], 200_000)
        chain = FallbackProvider([(big, "big-model"), (small, "small-model")])
        history: list[Message] = [UserMessage.of("scan")]
        for n in range(20):
            history += tool_pair(n, [TextPart(text="w" * 100_000)])
        history += RECENT
        store = SQLiteSessionStore(tmp / "sessions.db")
        stored = await store.create(SessionRecord(model="big-model", messages=tuple(history)))
        config = SessionConfig(
            provider=chain,
            model="big-model",
            workspace=tmp,
            default_tools=(),
            title=False,
            auto_compact=None,
            store=store,
        )
        async with await InteractiveSession.resume(config, stored.id) as session:
            try:
                await session.compact()
                verdict.fail(f"compacted on the backup with requests {small.sizes}")
            except RobotaError:
                pass
            if small.sizes:
                verdict.fail(f"the 200k backup got summary requests of {small.sizes} tokens")
            if len(big.sizes) != 1:
                verdict.fail(f"the primary got {len(big.sizes)} summary requests, not 1")
            if len(session.messages) != len(history):
                verdict.lost += len(history) - len(session.messages)
                verdict.fail("a failed compaction changed the conversation")
        await store.aclose()

    anyio.run(main)
    return verdict


# ---------------------------------------------------------------------------------------------
# one session, one writer (promise 6): real processes


def session_worker(mode: str, workdir: Path, *args: str) -> Any:
    return run(SESSION_WORKER, mode, str(workdir), *args)


@attempt
def test_p6_a_second_process_is_refused_before_anything_runs(tmp: Path) -> Verdict:
    """Process A holds a session (lease TTL 30 s) and stays alive. Process B resumes it: B is
    refused with ``SessionLeaseHeldError`` naming A's owner id and an expiry in the future,
    before any hook, model call or tool of B."""
    verdict = Verdict(promise=6)
    holder = spawn(SESSION_WORKER, "hold", str(tmp), "--tag", "a", "--ttl", "30")
    try:
        wait_for_file(tmp / "ready", holder)
        attempt_b = session_worker("attempt", tmp, "--tag", "b", "--ttl", "30")
        outcome = last_json(attempt_b.stdout)
        owner = (tmp / "owner.txt").read_text()
        if outcome["outcome"] != "refused":
            verdict.fail(f"B was not refused: {outcome}")
        elif outcome["holder"] != owner:
            verdict.fail(f"refusal names {outcome['holder']}, the holder is {owner}")
        else:
            expires = datetime.fromisoformat(outcome["expires_at"])
            if not 0 < (expires - datetime.now(UTC)).total_seconds() <= 31:
                verdict.fail(f"expiry {expires} is not within the TTL")
        ran = [p.name for p in tmp.glob("*_b.txt")]
        if ran:
            verdict.fail(f"B ran before it was refused: {ran}")
    finally:
        kill(holder)
    return verdict


@attempt
def test_p6_two_processes_racing_for_one_session_never_both_hold_it(tmp: Path) -> Verdict:
    """Three rounds: two processes wait on one barrier and resume the same session at the same
    instant; a winner runs its turn and keeps holding the session. Exactly one wins; the loser
    is refused before any hook or model call."""
    verdict = Verdict(promise=6)
    for round_ in range(3):
        workdir = private_dir(tmp / f"round{round_}")
        setup = session_worker("setup", workdir, "--tag", "s")
        assert setup.returncode == 0, setup.stderr
        barrier = workdir / "go"
        tags: tuple[str, str] = ("x", "y")
        racers = [
            spawn(
                SESSION_WORKER,
                *("attempt", str(workdir), "--tag", t, "--barrier", str(barrier), "--hold"),
            )
            for t in tags
        ]
        time.sleep(0.8)  # both are past their imports and polling the barrier
        barrier.touch()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            won = [t for t in tags if (workdir / f"won_{t}").exists()]
            ended = [t for t, r in zip(tags, racers, strict=True) if r.poll() is not None]
            if len(won) + len(ended) >= 2:
                break
            time.sleep(0.05)
        won = [t for t in tags if (workdir / f"won_{t}").exists()]
        outputs: dict[str, str] = {t: kill(r) for t, r in zip(tags, racers, strict=True)}
        if len(won) != 1:
            verdict.fail(f"round {round_}: {len(won)} processes hold the session at once")
            continue
        loser = next(t for t in tags if t not in won)
        if not outputs[loser].strip() or last_json(outputs[loser])["outcome"] != "refused":
            verdict.fail(f"round {round_}: the loser was not refused: {outputs[loser]!r}")
        ran = [f"{k}_{loser}.txt" for k in ("model_calls", "hooks")]
        if any((workdir / name).exists() for name in ran):
            verdict.fail(f"round {round_}: the refused process ran something")
    return verdict


SESSION_KILLS = ("commit:2", "commit:3", "commit:4", "tool", "saved")


@attempt
def test_p6_a_holder_killed_mid_turn_blocks_until_expiry_and_loses_nothing(tmp: Path) -> Verdict:
    """A host is SIGKILLed at five points of a turn (before its tool-call message is logged,
    before its tool result is logged, before its final answer is logged, inside the tool after
    its effect, right after the save). Another process is refused while the dead host's lease
    (4 s) lasts, then resumes: every message logged before the kill is there exactly once, the
    tool ran at most once, and the next request is well paired."""
    verdict = Verdict(promise=6)

    def one(point: str) -> tuple[str, Any, Any]:
        workdir = private_dir(tmp / point.replace(":", "-"))
        assert session_worker("setup", workdir, "--turns", "2", "--tag", "s").returncode == 0
        ttl = 4.0
        died = session_worker("die", workdir, "--kill-at", point, "--ttl", str(ttl), "--tag", "d")
        dead_at = time.monotonic()  # its lease was last renewed when its turn began
        assert died.returncode == KILLED, (point, died.stderr)
        early = last_json(session_worker("attempt", workdir, "--tag", "early").stdout)
        early["within_ttl"] = time.monotonic() - dead_at < ttl - 0.5
        time.sleep(max(0.0, dead_at + ttl + 0.4 - time.monotonic()))
        late = session_worker("attempt", workdir, "--tag", "late")
        return point, early, last_json(late.stdout) if late.stdout.strip() else late.stderr

    logged_before = {"commit:2": 1, "commit:3": 2, "commit:4": 3, "tool": 2, "saved": 4}
    for point, early, late in parallel(one, SESSION_KILLS):
        workdir = tmp / point.replace(":", "-")
        if early["within_ttl"] and early["outcome"] != "refused":
            verdict.fail(f"{point}: a process was let in while the dead host's lease lasted")
        if not isinstance(late, dict) or late.get("outcome") != "ok":
            verdict.fail(f"{point}: no takeover after expiry: {late}")
            continue
        texts = [m[1] for m in late["messages"]]
        expected = 4 + logged_before[point] + 2
        counted = Counter(tuple(m) for m in late["messages"])
        duplicates = sum(n - 1 for n in counted.values() if n > 1)
        if len(texts) < expected:
            verdict.lost += expected - len(texts)
            verdict.fail(f"{point}: {len(texts)} messages after takeover, expected {expected}")
        if duplicates:
            verdict.fail(f"{point}: {duplicates} message(s) stored twice")
        effects = lines_of(workdir / "effects.txt")
        verdict.repeated += max(0, effects["die"] - 1)
        if effects["die"] > 1 or not late["pairing_ok"]:
            verdict.fail(f"{point}: effect ran {effects['die']}x, paired {late['pairing_ok']}")
    return verdict


def truncate_log(workdir: Path, how: str) -> None:
    session_id = (workdir / "id.txt").read_text()
    log = workdir / "state" / "logs" / f"{session_id}.jsonl"
    if how == "zero bytes":
        log.write_bytes(b"")
    else:
        log.unlink()


@attempt
def test_p6_a_turn_killed_after_the_event_log_was_truncated_is_not_lost(tmp: Path) -> Verdict:
    """The session's JSONL log is lost (truncated to zero bytes, or deleted) while its snapshot
    survives. A host resumes, runs a turn and is SIGKILLed inside the tool, after the turn's
    user message and tool call were logged. The next host must get that turn back from the log,
    as it does when the log was intact."""
    verdict = Verdict(promise=6)

    def one(how: str) -> tuple[str, Any]:
        workdir = private_dir(tmp / how.replace(" ", "_"))
        assert session_worker("setup", workdir, "--turns", "2", "--tag", "s").returncode == 0
        if how != "intact":
            truncate_log(workdir, how)
        died = session_worker("die", workdir, "--kill-at", "tool", "--ttl", "1", "--tag", "d")
        assert died.returncode == KILLED, died.stderr
        time.sleep(1.3)
        return how, last_json(session_worker("attempt", workdir, "--tag", "late").stdout)

    for how, late in parallel(one, ("intact", "zero bytes", "deleted")):
        if late["outcome"] != "ok":
            verdict.fail(f"{how}: {late}")
            continue
        texts = [m[1] for m in late["messages"]]
        missing = [t for t in ("note and die", "d1") if t not in texts]
        if missing:
            verdict.lost += len(missing)
            verdict.fail(
                f"log {how}: the killed turn's {missing} are gone after resume "
                f"(recovered_from={late['recovered_from']})"
            )
    return verdict


# ---------------------------------------------------------------------------------------------
# one writer and recovery, in process (promises 6, 7)


class Events:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)


def hook_settings(markers: Path) -> Settings:
    hooks = {
        event: (
            HookEntry(
                id=event, type="command", command=f"printf '%s\\n' {event} >> {markers / event}"
            ),
        )
        for event in ("UserPromptSubmit", "PreCompact", "SessionStart")
    }
    return Settings(permissions=PermissionSettings(allow=("note",)), hooks=hooks)


@tool
def note(x: str) -> str:
    """Write a note."""
    effects_log.append(x)
    return f"noted {x}"


def session_config(
    base: Path,
    provider: ScriptedProvider,
    *,
    store: SQLiteSessionStore | None = None,
    ttl: float = 30.0,
    sinks: Sequence[Any] = (),
    markers: Path | None = None,
) -> SessionConfig:
    return SessionConfig(
        provider=provider,
        model="scripted-model",
        workspace=base,
        default_tools=(),
        additional_tools=(note,),
        title=False,
        auto_compact=None,
        settings=hook_settings(markers or base),
        store=store or SQLiteSessionStore(base / "state" / "sessions.db"),
        event_log=EventLog(base / "state" / "logs"),
        lease_ttl=ttl,
        sinks=list(sinks),
    )


def texts_of(messages: Sequence[Message]) -> list[str]:
    out: list[str] = []
    for m in messages:
        if isinstance(m, AssistantMessage):
            out.append(m.text or ",".join(c.id for c in m.tool_calls))
        elif isinstance(m, ToolResultMessage):
            out.append("result " + ",".join(r.call_id for r in m.results))
        elif isinstance(m, UserMessage):
            out.append("".join(p.text for p in m.parts if isinstance(p, TextPart)))
    return out


def exactly_once(verdict: Verdict, stored: list[str], expected: list[str], case: str) -> None:
    missing = sum((Counter(expected) - Counter(stored)).values())
    extra = sum((Counter(stored) - Counter(expected)).values())
    verdict.lost += missing
    if missing or extra:
        verdict.fail(f"{case}: {missing} message(s) lost, {extra} stored twice ({stored})")


@attempt
def test_p6_a_stale_session_object_is_refused_before_hooks_model_or_tools(tmp: Path) -> Verdict:
    """Host A's session went idle past its 0.3 s lease; host B resumed it and holds it. A's
    ``submit``, ``compact`` and ``fork`` are each refused with ``SessionLeaseHeldError`` naming
    B, before A's ``UserPromptSubmit`` / ``PreCompact`` hooks, model or tools run."""
    verdict = Verdict(promise=6)

    async def main() -> None:
        markers_a = private_dir(tmp / "markers_a")
        provider_a = ScriptedProvider(["a1", "a2", "a3", "summary"])
        a = await InteractiveSession.start(
            session_config(tmp, provider_a, ttl=0.3, markers=markers_a)
        )
        await a.submit("first")
        await a.submit("second")
        await a.submit("third")
        await anyio.sleep(0.5)
        b = await InteractiveSession.resume(session_config(tmp, ScriptedProvider(["b"])), a.id)
        hooks_before = sorted(p.name for p in markers_a.iterdir())
        counts_before = {p.name: p.read_text() for p in markers_a.iterdir()}
        calls_before = len(provider_a.requests)
        actions: list[tuple[str, Callable[[], Any]]] = [
            ("submit", lambda: a.submit("stale")),
            ("compact", lambda: a.compact(keep_last_turns=1)),
            ("fork", a.fork),
        ]
        for label, action in actions:
            try:
                await action()
                verdict.fail(f"{label}: ran on the stale session")
            except SessionLeaseHeldError as refused:
                if refused.holder != b.lease_owner:
                    verdict.fail(f"{label}: refusal names {refused.holder}")
        counts_after = {p.name: p.read_text() for p in markers_a.iterdir()}
        if counts_after != counts_before or sorted(counts_after) != hooks_before:
            verdict.fail(f"hooks ran before the refusal: {counts_before} -> {counts_after}")
        if len(provider_a.requests) != calls_before or effects_log:
            verdict.fail("A's model or tools ran before the refusal")
        await b.shutdown()
        await a.shutdown()

    effects_log.clear()
    anyio.run(main)
    return verdict


@attempt
def test_p6_an_idle_session_taken_over_reloads_and_loses_nothing(tmp: Path) -> Verdict:
    """A idles past its lease; B resumes, runs a turn and shuts down; A's next turn takes the
    lease back, reloads B's turn and appends its own: every turn stored exactly once."""
    verdict = Verdict(promise=6)

    async def main() -> None:
        a = await InteractiveSession.start(
            session_config(tmp, ScriptedProvider(["a1", "a2"]), ttl=0.3)
        )
        await a.submit("from A 1")
        await anyio.sleep(0.5)
        async with await InteractiveSession.resume(
            session_config(tmp, ScriptedProvider(["b1"])), a.id
        ) as b:
            await b.submit("from B")
        await a.submit("from A 2")
        await a.shutdown()
        async with SQLiteSessionStore(tmp / "state" / "sessions.db") as store:
            stored = texts_of((await store.get(a.id)).messages)
        exactly_once(
            verdict, stored, ["from A 1", "a1", "from B", "b1", "from A 2", "a2"], "takeover"
        )

    anyio.run(main)
    return verdict


@attempt
def test_p6_clock_skew_that_lets_a_second_host_in_mid_turn_stores_every_message_once(
    tmp: Path,
) -> Verdict:
    """Host B's wall clock runs 10 minutes ahead of host A's (or A stalls: the same thing to
    the lease). A is in the middle of a turn (tool call made, result logged, waiting for the
    model) when B resumes — B sees A's lease as expired, takes it, recovers A's logged messages,
    runs its own turn and saves. A then finishes and saves: the save conflicts and is merged.
    No turn may be lost, and no message may be stored twice (a tool call twice is a request the
    provider rejects)."""
    verdict = Verdict(promise=6)

    async def main() -> None:
        go, at = anyio.Event(), anyio.Event()
        provider_a = ScriptedProvider(
            ["a1", [tool_call("c2", "note", {"x": "two"})], [reached(at), wait_for(go), text("a2")]]
        )
        a = await InteractiveSession.start(session_config(tmp, provider_a, ttl=60))
        await a.submit("from A 1")
        skewed = SQLiteSessionStore(tmp / "state" / "sessions.db", clock=lambda: time.time() + 600)
        async with anyio.create_task_group() as group:
            group.start_soon(a.submit, "from A 2")
            with anyio.fail_after(10):
                await at.wait()
            b = await InteractiveSession.resume(
                session_config(tmp, ScriptedProvider(["b"]), store=skewed), a.id
            )
            await b.submit("from B")
            await b.shutdown()
            go.set()
        await a.shutdown()
        async with SQLiteSessionStore(tmp / "state" / "sessions.db") as store:
            stored = texts_of((await store.get(a.id)).messages)
        expected = ["from A 1", "a1", "from A 2", "c2", "result c2", "from B", "b", "a2"]
        exactly_once(verdict, stored, expected, "skewed takeover")
        verdict.repeated += max(0, effects_log.count("two") - 1)

    effects_log.clear()
    anyio.run(main)
    return verdict


@attempt
def test_p6_a_snapshot_naming_another_session_never_writes_into_it(tmp: Path) -> Verdict:
    """Session A's stored snapshot is damaged so that its ``id`` field names session B, which
    host 2 holds and is using. Host 1 resumes A and runs a turn. Nothing may be written into B
    (B's lease is host 2's) and B's messages may not be lost."""
    verdict = Verdict(promise=6)

    async def main() -> None:
        a = await InteractiveSession.start(session_config(tmp, ScriptedProvider(["a1"])))
        await a.submit("A's question")
        await a.shutdown()
        b = await InteractiveSession.start(session_config(tmp, ScriptedProvider(["b1"])))
        await b.submit("B's question")  # host 2 keeps holding B
        log = EventLog(tmp / "state" / "logs")
        log_before = len(log.read(b.id))
        database = tmp / "state" / "sessions.db"
        connection = sqlite3.connect(database)
        body = json.loads(
            connection.execute("SELECT body FROM sessions WHERE id=?", (a.id,)).fetchone()[0]
        )
        body["id"] = b.id
        connection.execute("UPDATE sessions SET body=? WHERE id=?", (json.dumps(body), a.id))
        connection.commit()
        connection.close()
        host1: InteractiveSession | None = None
        try:
            host1 = await InteractiveSession.resume(
                session_config(tmp, ScriptedProvider(["intruder answer"])), a.id
            )
            await host1.submit("intruder question")
        except RobotaError:
            pass
        finally:
            if host1 is not None:
                await host1.shutdown()
        async with SQLiteSessionStore(database) as store:
            stored_b = texts_of((await store.get(b.id)).messages)
        lost = [t for t in ("B's question", "b1") if t not in stored_b]
        foreign = [t for t in stored_b if t not in ("B's question", "b1")]
        verdict.lost += len(lost)
        if lost or foreign:
            verdict.fail(
                f"B (held by host 2) was written by host 1: stored {stored_b}; lost {lost}"
            )
        if len(log.read(b.id)) != log_before:
            verdict.fail(f"host 1 appended {len(log.read(b.id)) - log_before} entries to B's log")
        await b.shutdown()

    anyio.run(main)
    return verdict


async def two_turn_session(base: Path) -> str:
    async with await InteractiveSession.start(
        session_config(base, ScriptedProvider(["one", "two"]))
    ) as session:
        await session.submit("first")
        await session.submit("second")
        return session.id


BASE_TEXTS = ["first", "one", "second", "two"]


def snapshot_body(base: Path, session_id: str) -> dict[str, Any]:
    connection = sqlite3.connect(base / "state" / "sessions.db")
    try:
        row = connection.execute("SELECT body FROM sessions WHERE id=?", (session_id,)).fetchone()
        return json.loads(row[0])
    finally:
        connection.close()


def set_snapshot(base: Path, session_id: str, body: str | None) -> None:
    connection = sqlite3.connect(base / "state" / "sessions.db")
    try:
        if body is None:
            connection.execute("DELETE FROM sessions WHERE id=?", (session_id,))
        else:
            connection.execute("UPDATE sessions SET body=? WHERE id=?", (body, session_id))
        connection.commit()
    finally:
        connection.close()


def log_path(base: Path, session_id: str) -> Path:
    return base / "state" / "logs" / f"{session_id}.jsonl"


async def resume_and_ask(base: Path, session_id: str) -> dict[str, Any]:
    """Resume, run one turn, shut down; what happened (stage reached, error, recovery)."""
    provider = ScriptedProvider(["answer"])
    sink = Events()
    out: dict[str, Any] = {"stage": "resume"}
    try:
        session = await InteractiveSession.resume(
            session_config(base, provider, sinks=[sink]), session_id
        )
        out.update(stage="submit", recovered_from=session.recovered_from)
        try:
            await session.submit("again")
            out["stage"] = "done"
            out["messages"] = texts_of(session.messages)
        finally:
            await session.shutdown()
    except Exception as error:
        out.update(
            error=type(error).__name__, typed=isinstance(error, RobotaError), text=str(error)
        )
    out["model_calls"] = len(provider.requests)
    out["recovered"] = [e for e in sink.events if isinstance(e, SessionRecovered)]
    async with SQLiteSessionStore(base / "state" / "sessions.db") as store:
        try:
            out["stored"] = texts_of((await store.get(session_id)).messages)
        except RobotaError as error:
            out["stored_error"] = type(error).__name__
    return out


def damage_cases(
    tmp: Path, cases: Sequence[str], damage: Callable[[Path, str, str], None]
) -> list[tuple[str, dict[str, Any]]]:
    """For each case: a fresh two-turn session in its own folder, damaged, then resumed."""

    async def main() -> list[tuple[str, dict[str, Any]]]:
        out: list[tuple[str, dict[str, Any]]] = []
        for case in cases:
            base = private_dir(tmp / case.replace(" ", "_").replace("/", "_"))
            session_id = await two_turn_session(base)
            damage(base, session_id, case)
            out.append((case, await resume_and_ask(base, session_id)))
        return out

    return anyio.run(main)


def damage_snapshot(base: Path, session_id: str, case: str) -> None:
    body = snapshot_body(base, session_id)
    text_body = json.dumps(body)
    bodies: dict[str, str | None] = {
        "row deleted": None,
        "zero-length body": "",
        "half a body": text_body[: len(text_body) // 2],
        "garbage": "\x00\x01 not json at all",
        "valid JSON list": "[]",
        "unknown version": json.dumps({**body, "version": 99}),
        "messages a string": json.dumps({**body, "messages": "oops"}),
        "unknown message kind": json.dumps(
            {**body, "messages": [{**body["messages"][0], "kind": "bogus"}]}
        ),
    }
    set_snapshot(base, session_id, bodies[case])


@attempt
def test_p7_a_missing_or_unreadable_snapshot_is_rebuilt_from_the_log_and_says_so(
    tmp: Path,
) -> Verdict:
    """The snapshot row is deleted, emptied, cut in half, replaced by garbage, by valid JSON of
    the wrong shape or version, or holds an unknown message kind. Resume rebuilds the session
    from its log (``recovered_from == "event_log"``, a ``session.recovered`` warning naming the
    problem) with every message, and the next turn is saved."""
    verdict = Verdict(promise=7)
    cases = (
        "row deleted",
        "zero-length body",
        "half a body",
        "garbage",
        "valid JSON list",
        "unknown version",
        "messages a string",
        "unknown message kind",
    )
    for case, out in damage_cases(tmp, cases, damage_snapshot):
        if out.get("stage") != "done":
            verdict.fail(
                f"{case}: {out.get('error')} at {out['stage']}: {out.get('text', '')[:120]}"
            )
            continue
        if out["recovered_from"] != "event_log" or not out["recovered"]:
            verdict.fail(f"{case}: recovered_from={out['recovered_from']}, no warning")
        exactly_once(verdict, out.get("stored", []), [*BASE_TEXTS, "again", "answer"], case)
    return verdict


def damage_fields(base: Path, session_id: str, case: str) -> None:
    body = snapshot_body(base, session_id)
    if case == "usage counts are strings":
        body["usage"] = {"input_tokens": "many", "output_tokens": "few"}
    elif case == "title is a list":
        body["title"] = ["not", "a", "title"]
    elif case == "revision disagrees with the store":
        body["revision"] = 77
    elif case == "id names another session":
        body["id"] = "ses_00000000000000000000"
    set_snapshot(base, session_id, json.dumps(body))


@attempt
def test_p7_a_snapshot_with_fields_of_the_wrong_type_is_unreadable_not_fatal(tmp: Path) -> Verdict:
    """The snapshot is valid JSON of the right version whose fields are damaged: usage counts
    are strings, the title is a list, the revision disagrees with the store's row, the id names
    another session. Such a snapshot is unreadable: it is rebuilt from the log (or refused with
    a typed error before anything runs). It must not be taken as readable, run the user's turn
    (a billed model call) and then fail to save it."""
    verdict = Verdict(promise=7)
    cases = (
        "usage counts are strings",
        "title is a list",
        "revision disagrees with the store",
        "id names another session",
    )
    for case, out in damage_cases(tmp, cases, damage_fields):
        if out.get("stage") == "done" and out.get("stored", [])[-2:] == ["again", "answer"]:
            continue
        if out.get("typed") and out["model_calls"] == 0:
            continue
        verdict.lost += 2 if out["model_calls"] else 0
        verdict.fail(
            f"{case}: accepted as readable, ran the turn ({out['model_calls']} model call) "
            f"then failed with {out.get('error')} at {out['stage']}; stored {out.get('stored')}"
        )
    return verdict


def damage_log(base: Path, session_id: str, case: str) -> None:
    path = log_path(base, session_id)
    lines = path.read_bytes().split(b"\n")[:-1]
    created = json.loads(lines[0])
    end = b"\n"
    if case == "garbage middle line":
        lines.insert(2, b"this is not json")
    elif case == "invalid UTF-8 middle line":
        lines.insert(2, b"\xff\xfe\x00\x80garbage")
    elif case == "invalid UTF-8 torn last line":
        lines.append(b'{"seq": 99, "ts": "\xff\xfe')
        end = b""
    elif case == "created data a list":
        lines[0] = json.dumps({**created, "data": ["x"]}).encode()
    elif case == "title entry data a string":
        entry = {"seq": len(lines) + 1, "ts": created["ts"], "type": "session.title_assigned"}
        lines.append(json.dumps({**entry, "data": "oops"}).encode())
    elif case == "torn last line":
        lines.append(lines[-1][: len(lines[-1]) // 2])
        end = b""
    elif case == "half a line mid-file":
        lines.insert(len(lines) - 1, lines[-1][:15])
    elif case == "no session.created":
        lines = lines[1:]
    elif case == "zero bytes":
        lines, end = [], b""
    path.write_bytes(b"\n".join(lines) + end)


LOG_CASES = (
    "garbage middle line",
    "invalid UTF-8 middle line",
    "invalid UTF-8 torn last line",
    "created data a list",
    "title entry data a string",
    "torn last line",
    "half a line mid-file",
    "no session.created",
    "zero bytes",
)


@attempt
def test_p7_a_damaged_log_never_blocks_resume_from_a_good_snapshot(tmp: Path) -> Verdict:
    """The snapshot is intact; the log is damaged in every way (garbage, invalid UTF-8,
    valid JSON of the wrong shape, torn lines, a missing ``session.created``, zero bytes).
    Resume uses the snapshot and the turn runs and is saved."""
    verdict = Verdict(promise=7)
    for case, out in damage_cases(tmp, LOG_CASES, damage_log):
        if out.get("stage") != "done":
            verdict.fail(
                f"{case}: resume failed with {out.get('error')}: {out.get('text', '')[:100]}"
            )
            continue
        exactly_once(verdict, out.get("stored", []), [*BASE_TEXTS, "again", "answer"], case)
    return verdict


def damage_both(base: Path, session_id: str, case: str) -> None:
    if case == "store file garbage":
        (base / "state" / "sessions.db").write_bytes(b"\x00garbage" * 512)
        return
    if case == "snapshot unreadable, log missing":
        set_snapshot(base, session_id, "{")
        log_path(base, session_id).unlink()
        return
    set_snapshot(base, session_id, None)
    damage_log(base, session_id, case)


@attempt
def test_p7_no_usable_snapshot_and_a_damaged_log_is_a_typed_error_or_a_rebuild(
    tmp: Path,
) -> Verdict:
    """The snapshot is gone and the log is damaged (the same damage as above), or the snapshot
    is unreadable and the log is gone, or the store file is garbage. Resume rebuilds when only
    a torn last line is damaged (it is skipped); otherwise it raises a typed error
    (``SessionUnrecoverableError`` naming both problems, or the store's own error for a garbage
    store file) — before any hook, model call or tool."""
    verdict = Verdict(promise=7)
    cases = (*LOG_CASES, "snapshot unreadable, log missing", "store file garbage")
    for case, out in damage_cases(tmp, cases, damage_both):
        if case == "torn last line":  # skipped: the session is rebuilt
            if out.get("stage") != "done" or out.get("recovered_from") != "event_log":
                verdict.fail(
                    f"{case}: not rebuilt ({out.get('error')}: {out.get('text', '')[:90]})"
                )
            continue
        if case == "invalid UTF-8 torn last line" and out.get("recovered_from") == "event_log":
            continue  # skipped like a torn line: fine too
        if out.get("stage") == "done":
            verdict.fail(f"{case}: resumed with {out.get('messages')}")
        elif not out.get("typed"):
            verdict.fail(f"{case}: untyped {out.get('error')}: {out.get('text', '')[:90]}")
        elif (
            case != "store file garbage" and out.get("error") != SessionUnrecoverableError.__name__
        ):
            verdict.fail(f"{case}: {out.get('error')} instead of SessionUnrecoverableError")
        if out["model_calls"]:
            verdict.fail(f"{case}: a model call before the refusal")
    return verdict


def append_raw(path: Path, entries: Sequence[dict[str, Any]]) -> None:
    with path.open("ab") as handle:
        for entry in entries:
            handle.write(json.dumps(entry).encode() + b"\n")


def committed(seq: int, message: Message) -> dict[str, Any]:
    body = json.loads(dump_messages([message]))["messages"][0]
    return {
        "seq": seq,
        "ts": "2025-01-01T00:00:00+00:00",
        "type": "message.committed",
        "data": {"message": body},
    }


def unsaved_turn(base: Path, session_id: str, case: str) -> None:
    """Log a turn after the snapshot (a process killed before its save), with damaged seqs."""
    path = log_path(base, session_id)
    count = len(path.read_bytes().splitlines())
    seqs = {"seq numbers repeat": (1, 2), "seq numbers jump": (count + 100, count + 101)}[case]
    append_raw(
        path,
        [
            committed(seqs[0], UserMessage.of("unsaved question")),
            committed(seqs[1], AssistantMessage(parts=(TextPart(text="unsaved answer"),))),
        ],
    )


@attempt
def test_p7_a_log_whose_seq_numbers_repeat_or_jump_loses_no_unsaved_turn(tmp: Path) -> Verdict:
    """A turn was logged after the last save and its process died. The log lines of that turn
    carry ``seq`` numbers that repeat earlier ones (a log that restarted, two appenders) or
    jump ahead. Resume must add the turn (or refuse with a typed error) — never drop it
    silently."""
    verdict = Verdict(promise=7)
    cases = ("seq numbers repeat", "seq numbers jump")
    for case, out in damage_cases(tmp, cases, unsaved_turn):
        if out.get("stage") != "done":
            if not out.get("typed"):
                verdict.fail(f"{case}: untyped {out.get('error')}")
            continue
        stored = out.get("stored", [])
        missing = [t for t in ("unsaved question", "unsaved answer") if t not in stored]
        if missing:
            verdict.lost += len(missing)
            verdict.fail(f"{case}: the unsaved turn was dropped silently ({stored})")
    return verdict


def foreign_line(base: Path, session_id: str, case: str) -> None:
    path = log_path(base, session_id)
    count = len(path.read_bytes().splitlines())
    intruder = json.loads(dump_messages([UserMessage.of("from another session")]))["messages"]
    append_raw(
        path,
        [
            {
                "seq": count + 1,
                "ts": "2025-01-01T00:00:00+00:00",
                "type": "history.replaced",
                "session_id": "ses_ffffffffffffffffffff",
                "data": {"messages": intruder},
            }
        ],
    )


@attempt
def test_p7_a_log_line_naming_another_session_is_not_adopted(tmp: Path) -> Verdict:
    """A line naming another session (``"session_id": "ses_fff..."``) — a misdirected write or
    a pasted line — is appended to the log after the snapshot: a ``history.replaced`` entry
    carrying that session's conversation. Resume must not adopt it: the session's own stored
    messages stay (or a typed refusal)."""
    verdict = Verdict(promise=7)
    for case, out in damage_cases(tmp, ("history.replaced naming another session",), foreign_line):
        if out.get("stage") != "done":
            if not out.get("typed"):
                verdict.fail(f"{case}: untyped {out.get('error')}")
            continue
        stored = out.get("stored", [])
        lost = [t for t in BASE_TEXTS if t not in stored]
        verdict.lost += len(lost)
        if lost or "from another session" in stored:
            verdict.fail(
                f"adopted: recovered_from={out['recovered_from']}, stored {stored}; the session's "
                f"own {lost} were overwritten in the snapshot"
            )
    return verdict


# ---------------------------------------------------------------------------------------------
# the fallback chain belongs to the session (promise 8)


def busy() -> Turn:
    return [fail(OverloadedError("busy", provider="big", status=529))]


def chain_config(base: Path, chain: FallbackProvider, **more: Any) -> SessionConfig:
    return SessionConfig(
        provider=chain,
        model="big-model",
        workspace=base,
        default_tools=(),
        additional_tools=(note,),
        title=False,
        auto_compact=None,
        settings=Settings(permissions=PermissionSettings(allow=("note",))),
        **more,
    )


@attempt
def test_p8_a_streamed_turn_stays_on_the_backup_and_the_next_starts_on_the_primary(
    tmp: Path,
) -> Verdict:
    """Turns run through ``session.stream``: the primary is overloaded, the backup answers
    with a tool call; the turn's second round stays on the backup; the next streamed turn starts
    on the primary; usage is charged to each model."""
    verdict = Verdict(promise=8)

    async def main() -> None:
        big = ScriptedProvider([busy(), [text("primary again"), usage(input_tokens=5)]], name="big")
        small = ScriptedProvider(
            [
                [tool_call("c1", "note", {"x": "1"}), usage(input_tokens=7)],
                [text("backup done"), usage(input_tokens=9)],
            ],
            name="small",
        )
        chain = FallbackProvider([(big, "big-model"), (small, "small-model")])
        async with await InteractiveSession.start(chain_config(tmp, chain)) as session:
            async with session.stream("one") as events:
                async for _ in events:
                    pass
            after_first = (len(big.requests), len(small.requests))
            async with session.stream("two") as events:
                async for _ in events:
                    pass
            if after_first != (1, 2) or (len(big.requests), len(small.requests)) != (2, 2):
                verdict.fail(
                    f"requests (primary, backup) after turn 1 {after_first}, after turn 2 "
                    f"{(len(big.requests), len(small.requests))}; expected (1, 2) then (2, 2)"
                )
            charged = {m: u.input_tokens for m, u in session.usage_by_model.items()}
            if charged != {"small-model": 16, "big-model": 5}:
                verdict.fail(f"usage per model {charged}")
            answered = [m.model for m in session.messages if isinstance(m, AssistantMessage)]
            if answered != ["small-model", "small-model", "big-model"]:
                verdict.fail(f"stored answers name {answered}")

    anyio.run(main)
    return verdict


@attempt
def test_p8_two_sessions_sharing_one_chain_keep_separate_turn_scopes(tmp: Path) -> Verdict:
    """Two sessions of one host share one chain. Session 1's turn fell back and is still running
    on the backup when session 2 starts a turn: session 2 starts on the primary."""
    verdict = Verdict(promise=8)

    async def main() -> None:
        gate, at = anyio.Event(), anyio.Event()
        big = ScriptedProvider([busy(), "session 2 on the primary"], name="big")
        small = ScriptedProvider(
            [[tool_call("c1", "note", {"x": "1"})], [reached(at), wait_for(gate), text("s1 done")]],
            name="small",
        )
        chain = FallbackProvider([(big, "big-model"), (small, "small-model")])
        one = await InteractiveSession.start(chain_config(tmp, chain))
        two = await InteractiveSession.start(chain_config(tmp, chain))
        answers: dict[str, str] = {}

        async def first() -> None:
            answers["one"] = (await one.submit("a")).text

        async with anyio.create_task_group() as group:
            group.start_soon(first)
            with anyio.fail_after(10):
                await at.wait()
            answers["two"] = (await two.submit("b")).text
            gate.set()
        await one.shutdown()
        await two.shutdown()
        if answers != {"one": "s1 done", "two": "session 2 on the primary"}:
            verdict.fail(f"answers {answers}")

    anyio.run(main)
    return verdict


@attempt
def test_p8_after_a_turn_that_failed_on_the_backup_the_next_starts_on_the_primary(
    tmp: Path,
) -> Verdict:
    """The primary is overloaded, the backup answers round 1 and is overloaded in round 2: the
    turn fails (the chain is exhausted). The next turn starts on the primary again, and the
    failed turn's messages are saved."""
    verdict = Verdict(promise=8)

    async def main() -> None:
        big = ScriptedProvider([busy(), "primary again"], name="big")
        small = ScriptedProvider([[tool_call("c1", "note", {"x": "1"})], busy()], name="small")
        chain = FallbackProvider([(big, "big-model"), (small, "small-model")])
        store = SQLiteSessionStore(tmp / "sessions.db")
        async with await InteractiveSession.start(chain_config(tmp, chain, store=store)) as session:
            try:
                await session.submit("x")
                verdict.fail("the exhausted chain did not fail the turn")
            except ProviderError:
                pass
            answer = (await session.submit("y")).text
            if answer != "primary again" or len(big.requests) != 2:
                verdict.fail(f"next turn: {answer!r}, primary requests {len(big.requests)}")
            stored = texts_of((await store.get(session.id)).messages)
            for expected in ("x", "c1", "y", "primary again"):
                if expected not in stored:
                    verdict.lost += 1
                    verdict.fail(f"{expected!r} missing from the stored session {stored}")
        await store.aclose()

    anyio.run(main)
    return verdict


@attempt
def test_p8_a_resumed_session_starts_on_the_primary_and_keeps_usage_per_model(
    tmp: Path,
) -> Verdict:
    """Turn 1 fell back to the backup and the host shut down. A new host resumes with a fresh
    chain: the next turn starts on the primary and ``usage_by_model`` still charges turn 1 to
    the backup."""
    verdict = Verdict(promise=8)

    async def main() -> None:
        big = ScriptedProvider([busy()], name="big")
        small = ScriptedProvider([[text("backup"), usage(input_tokens=11)]], name="small")
        chain = FallbackProvider([(big, "big-model"), (small, "small-model")])
        store = SQLiteSessionStore(tmp / "sessions.db")
        async with await InteractiveSession.start(chain_config(tmp, chain, store=store)) as s:
            await s.submit("one")
            session_id = s.id
        big2 = ScriptedProvider([[text("primary"), usage(input_tokens=3)]], name="big")
        small2 = ScriptedProvider([], name="small")
        chain2 = FallbackProvider([(big2, "big-model"), (small2, "small-model")])
        async with await InteractiveSession.resume(
            chain_config(tmp, chain2, store=store), session_id
        ) as s:
            answer = (await s.submit("two")).text
            charged = {m: u.input_tokens for m, u in s.usage_by_model.items()}
        await store.aclose()
        if answer != "primary" or small2.requests:
            verdict.fail(
                f"resumed turn answered {answer!r} (backup requests {len(small2.requests)})"
            )
        if charged != {"small-model": 11, "big-model": 3}:
            verdict.fail(f"usage per model after resume {charged}")

    anyio.run(main)
    return verdict


# ---------------------------------------------------------------------------------------------
# figures


def test_outsider_figures(tmp_path: Path) -> None:
    """Print the figures line; attempts not run in this session (``-k``) are run here."""
    for name, fn in ATTEMPTS.items():
        if name in LEDGER.verdicts:
            continue
        try:
            LEDGER.record(name, fn(private_dir(tmp_path / name)))
        except Exception as error:  # the attempt's own test shows the failure
            LEDGER.record(name, Verdict(promise=0, held=False, detail=f"{type(error).__name__}"))
    print(LEDGER.line())
    for name, verdict in LEDGER.verdicts.items():
        if not verdict.held:
            print(f"  BROKEN {name}: {verdict.message()}")
