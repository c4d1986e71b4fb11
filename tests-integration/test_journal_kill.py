"""Kill tests of the execution journal (seed 000, "Execution Journal and Continuation"): a real
process running a journaled agent SIGKILLs itself at a journal boundary (or is SIGKILLed while
it waits for an outside response), a fresh process continues the run, and no effect is repeated,
no model call is repeated without the host's explicit opt-in, no settled decision is asked
again, and no message is lost or duplicated in the saved session.

The agent script is ``journal_kill/kill_agent.py``; see its docstring for the scenarios.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import anyio
import pytest
from robota.core.journal import INTERRUPTED_EFFECT_TEXT
from robota.core.messages import (
    Message,
    TextPart,
    ToolResultMessage,
    ToolResultPart,
    dump_messages,
    text_of,
)
from robota.session import SQLiteJournal, SQLiteSessionStore

SCRIPT = Path(__file__).parent / "journal_kill" / "kill_agent.py"
BOUNDARIES = (
    "response_before",
    "response_after",
    "tool_start_before",
    "tool_start_after",
    "tool_result_before",
    "tool_result_after",
)
OCCURRENCES = (0, 1, 2)  # three responses, three tool calls: every occurrence of each boundary
LINES = ("a", "b", "c")
DENIED = "Permission denied"


def environment(kill_at: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "ROBOTA_KILL_AT"}
    if kill_at is not None:
        env["ROBOTA_KILL_AT"] = kill_at
    return env


def run_script(
    workdir: Path, *args: str, kill_at: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(workdir), *args],
        env=environment(kill_at),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def last_json(process: subprocess.CompletedProcess[str]) -> Any:
    return json.loads(process.stdout.strip().splitlines()[-1])


def session_messages(workdir: Path) -> tuple[Message, ...]:
    async def read() -> tuple[Message, ...]:
        async with SQLiteSessionStore(workdir / "sessions.db") as store:
            return (await store.get("ses_kill")).messages

    return anyio.run(read)


def lines_of(path: Path) -> Counter[str]:
    return Counter(path.read_text().split()) if path.exists() else Counter()


@dataclass(kw_only=True)
class Tally:
    """Figures of one kill test, printed as its ``kill test(<backend>)`` line."""

    backend: str
    boundaries: set[str]
    runs: int = 0
    effects_checked: int = 0
    reasked: int = 0
    lost: int = 0
    interrupted: int = 0
    refused: int = 0

    def line(self) -> str:
        return (
            f"kill test({self.backend}): boundaries={len(self.boundaries)} runs={self.runs} "
            f"effects_checked={self.effects_checked} reasked={self.reasked} lost={self.lost} "
            f"interrupted={self.interrupted} refused={self.refused}"
        )


def same_modulo(
    reference: tuple[Message, ...], actual: tuple[Message, ...], tally: Tally
) -> tuple[Message, ...]:
    """The reference conversation with the results the continuation reported interrupted (or
    denied, under a now-denying approver) put in place of the real ones — the only allowed
    difference; a message lost or duplicated is counted in ``tally.lost``."""
    tally.lost += abs(len(actual) - len(reference))
    assert len(actual) == len(reference), "a message was lost or duplicated"
    out: list[Message] = []
    for ref, act in zip(reference, actual, strict=True):
        if isinstance(ref, ToolResultMessage) and isinstance(act, ToolResultMessage):
            results: list[ToolResultPart] = []
            for r, a in zip(ref.results, act.results, strict=True):
                said = text_of(a.content)
                if said == INTERRUPTED_EFFECT_TEXT or said.startswith(DENIED):
                    r = replace(r, content=(TextPart(text=said),), is_error=True)
                results.append(r)
            ref = ToolResultMessage(results=tuple(results))
        out.append(ref)
    return tuple(out)


def reference(tmp_path: Path, scenario: str) -> tuple[Message, ...]:
    workdir = tmp_path / f"reference-{scenario}"
    workdir.mkdir(mode=0o700)
    done = run_script(workdir, "--scenario", scenario)
    assert done.returncode == 0, done.stderr
    return session_messages(workdir)


def crash_and_continue(
    workdir: Path, scenario: str, kill_at: str, tally: Tally, *more: str
) -> subprocess.CompletedProcess[str]:
    """Run until the kill, then continue in a fresh process; a continuation refused because a
    model call was sent without a recorded response is checked to have changed nothing, then
    repeated with the explicit opt-in."""
    workdir.mkdir(mode=0o700)
    crashed = run_script(workdir, "--scenario", scenario, kill_at=kill_at)
    assert crashed.returncode == -signal.SIGKILL, (kill_at, crashed.stderr)
    effects_before = lines_of(workdir / "effects.txt")
    calls_before = lines_of(workdir / "model_calls.txt")
    resumed = run_script(workdir, "--scenario", scenario, "--continue", *more)
    tally.runs += 2
    if resumed.returncode != 0:
        assert "ReconciliationError" in resumed.stderr, (kill_at, resumed.stderr)
        assert "unrecorded_model_call" in resumed.stderr or "was never recorded" in resumed.stderr
        assert kill_at.startswith("response_before"), kill_at
        assert lines_of(workdir / "effects.txt") == effects_before  # refused: nothing happened
        assert lines_of(workdir / "model_calls.txt") == calls_before
        tally.refused += 1
        resumed = run_script(workdir, "--scenario", scenario, "--continue", "--resend", *more)
        tally.runs += 1
    assert resumed.returncode == 0, (kill_at, resumed.stderr)
    return resumed


def check_model_calls(workdir: Path, kill_at: str, steps: int) -> None:
    """A recorded response is never requested again; only a response lost before its record was
    written is requested a second time, and only after the host opted in."""
    boundary, _, occurrence = kill_at.partition(":")
    calls = Counter((workdir / "model_calls.txt").read_text().split())
    repeated = {int(occurrence): 2} if boundary == "response_before" else {}
    assert calls == Counter({str(s): repeated.get(s, 1) for s in range(steps)}), (kill_at, calls)


def test_no_effect_or_message_is_repeated_or_lost_after_a_kill_at_any_boundary(
    tmp_path: Path,
) -> None:
    ref = reference(tmp_path, "lines")
    assert (tmp_path / "reference-lines" / "effects.txt").read_text().split() == list(LINES)
    assert len(ref) == 6  # prompt, 3 assistant messages, 2 tool result messages

    tally = Tally(backend="sqlite", boundaries=set(BOUNDARIES))
    messages_checked = 0
    for boundary in BOUNDARIES:
        for occurrence in OCCURRENCES:
            kill_at = f"{boundary}:{occurrence}"
            workdir = tmp_path / f"{boundary}-{occurrence}"
            report = last_json(crash_and_continue(workdir, "lines", kill_at, tally))
            results: list[str] = report["results"]
            assert report["text"] == "all three lines written"
            assert len(results) == 3

            # effects: each line at most once; exactly once unless reported interrupted
            effects = lines_of(workdir / "effects.txt")
            assert set(effects) <= set(LINES)
            for line, result in zip(LINES, results, strict=True):
                assert effects[line] <= 1, (kill_at, line, effects)
                if result != INTERRUPTED_EFFECT_TEXT:
                    assert result == f"appended {line}"
                    assert effects[line] == 1, (kill_at, line)
                else:
                    tally.interrupted += 1
                tally.effects_checked += 1
            check_model_calls(workdir, kill_at, 3)

            # session: nothing lost or duplicated, identical modulo interrupted results
            actual = session_messages(workdir)
            assert dump_messages(actual) == dump_messages(same_modulo(ref, actual, tally))
            messages_checked += len(actual)

    # the boundaries between effect start and result record must have produced interruptions
    assert tally.interrupted >= len(OCCURRENCES) * 2
    assert tally.refused == len(OCCURRENCES)  # every response_before kill needed the opt-in
    assert messages_checked == len(BOUNDARIES) * len(OCCURRENCES) * 6
    print(tally.line())


def test_a_settled_decision_is_never_asked_again_when_the_approver_would_now_say_no(
    tmp_path: Path,
) -> None:
    """The first process's approver allows; the continuing process's approver denies. A call
    whose start was journaled before the kill is never asked about again and keeps its recorded
    result (or is reported interrupted); only calls not admitted before the kill are decided
    now — and denied."""
    ref = reference(tmp_path, "approver")
    boundaries = ("tool_start_after", "tool_result_before", "tool_result_after")
    tally = Tally(backend="sqlite approver", boundaries=set(boundaries))
    for boundary in boundaries:
        for occurrence in OCCURRENCES:
            kill_at = f"{boundary}:{occurrence}"
            workdir = tmp_path / f"approver-{boundary}-{occurrence}"
            report = last_json(
                crash_and_continue(workdir, "approver", kill_at, tally, "--approver", "deny")
            )
            asked = lines_of(workdir / "asked.txt")
            effects = lines_of(workdir / "effects.txt")
            for index, (line, result) in enumerate(zip(LINES, report["results"], strict=True)):
                first, again = asked[f"allow:{line}"], asked[f"deny:{line}"]
                tally.reasked += max(0, first + again - 1)
                assert first + again == 1, (kill_at, line, asked)
                if index <= occurrence:  # admitted (start journaled) before the kill
                    assert first == 1, (kill_at, line)
                    assert not result.startswith(DENIED), (kill_at, line, result)
                    if result == INTERRUPTED_EFFECT_TEXT:
                        tally.interrupted += 1
                        assert effects[line] <= 1
                    else:
                        assert result == f"appended {line}"
                        assert effects[line] == 1
                else:  # decided now, by the approver that now says no
                    assert result.startswith(DENIED), (kill_at, line, result)
                    assert effects[line] == 0
                tally.effects_checked += 1
            check_model_calls(workdir, kill_at, 3)
            actual = session_messages(workdir)
            assert dump_messages(actual) == dump_messages(same_modulo(ref, actual, tally))
    assert tally.reasked == 0
    assert tally.interrupted >= len(OCCURRENCES) * 2
    print(tally.line())


def test_a_tool_loaded_through_tool_search_is_dispatched_after_a_kill(tmp_path: Path) -> None:
    """``tool_search`` loads the deferred ``deploy`` in round 1; round 2 calls it. After a kill
    at any boundary the continued run offers ``deploy`` again and its call is answered or run
    normally — never an unknown-tool skip."""
    ref = reference(tmp_path, "residency")
    tally = Tally(backend="sqlite residency", boundaries=set(BOUNDARIES))
    for boundary in BOUNDARIES:
        occurrences = (0, 1, 2) if boundary.startswith("response") else (0, 1)
        for occurrence in occurrences:
            kill_at = f"{boundary}:{occurrence}"
            workdir = tmp_path / f"residency-{boundary}-{occurrence}"
            report = last_json(crash_and_continue(workdir, "residency", kill_at, tally))
            search, deploy = report["results"]
            assert search.startswith("Loaded 1 tool(s)"), (kill_at, search)
            effects = lines_of(workdir / "effects.txt")
            if deploy == INTERRUPTED_EFFECT_TEXT:
                tally.interrupted += 1
                assert effects["a"] <= 1
            else:
                assert deploy == "appended a", (kill_at, deploy)
                assert effects["a"] == 1
            tally.effects_checked += 1
            check_model_calls(workdir, kill_at, 3)
            actual = session_messages(workdir)
            assert dump_messages(actual) == dump_messages(same_modulo(ref, actual, tally))
            tally.reasked += _paused_again(report)
    assert tally.interrupted >= 1
    print(tally.line())


def _paused_again(report: Any) -> int:
    return 1 if "paused" in report else 0


def saved_waits(workdir: Path) -> dict[str, Any]:
    async def read() -> dict[str, Any]:
        journal = SQLiteJournal(workdir / "journal.db")
        try:
            run = await journal.load_run("run_kill")
            assert run is not None
            return {k: (w.request, w.response) for k, w in run.waits.items()}
        finally:
            await journal.aclose()

    return anyio.run(read)


def test_a_durable_wait_survives_a_kill_and_answers_only_its_own_request(
    tmp_path: Path,
) -> None:
    """``release`` needs a person's approval: the request is saved before the run suspends, the
    process is killed while it waits (or right after saving the request, or right after the
    response was saved), and a fresh process finishes with the saved response: the effect once,
    no model call repeated, the conversation equal to an uninterrupted one."""
    ref_dir = tmp_path / "reference-wait"
    ref_dir.mkdir(mode=0o700)
    assert last_json(run_script(ref_dir, "--scenario", "wait")) == {"paused": ["1:0"]}
    done = run_script(ref_dir, "--scenario", "wait", "--continue", "--answer", "approve")
    assert done.returncode == 0, done.stderr
    ref = session_messages(ref_dir)
    tally = Tally(
        backend="sqlite wait",
        boundaries={"waiting", "wait_request_after", "wait_response_after"},
    )

    def finish(workdir: Path, *args: str) -> None:
        resumed = run_script(workdir, "--scenario", "wait", "--continue", *args)
        tally.runs += 1
        assert resumed.returncode == 0, resumed.stderr
        report = last_json(resumed)
        tally.reasked += _paused_again(report)
        assert report == {"text": "released", "results": ["appended a"]}, report
        assert lines_of(workdir / "effects.txt") == Counter({"a": 1})
        tally.effects_checked += 1
        assert lines_of(workdir / "model_calls.txt") == Counter({"0": 1, "1": 1})
        actual = session_messages(workdir)
        assert dump_messages(actual) == dump_messages(same_modulo(ref, actual, tally))

    # 1. killed while it waits for the response
    waiting = tmp_path / "killed-waiting"
    waiting.mkdir(mode=0o700)
    process = subprocess.Popen(
        [sys.executable, str(SCRIPT), str(waiting), "--scenario", "wait", "--wait"],
        env=environment(None),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not (waiting / "waiting").exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=30)
    assert process.returncode == -signal.SIGKILL
    tally.runs += 1
    [(request, response)] = saved_waits(waiting).values()
    assert (request["name"], request["execution"], response) == ("release", "approval", None)
    refused = run_script(waiting, "--scenario", "wait", "--answer", "wrong-id")
    assert last_json(refused) == {"refused": "unknown_request"}  # answers only its own request
    tally.runs += 1
    finish(waiting, "--answer", "approve")

    # 2. killed right after the request was saved, before the run suspended
    saved = tmp_path / "killed-after-request"
    saved.mkdir(mode=0o700)
    crashed = run_script(saved, "--scenario", "wait", kill_at="wait_request_after:0")
    assert crashed.returncode == -signal.SIGKILL
    again = run_script(saved, "--scenario", "wait", "--continue")  # suspends again
    assert last_json(again) == {"paused": ["1:0"]}
    assert list(saved_waits(saved)) == ["1:0"]  # nothing saved twice
    tally.runs += 2
    finish(saved, "--answer", "approve")

    # 3. killed right after the response was saved, before the approved call ran
    answered = tmp_path / "killed-after-response"
    answered.mkdir(mode=0o700)
    assert last_json(run_script(answered, "--scenario", "wait")) == {"paused": ["1:0"]}
    crashed = run_script(
        answered,
        "--scenario",
        "wait",
        "--continue",
        "--answer",
        "approve",
        kill_at="wait_response_after:0",
    )
    assert crashed.returncode == -signal.SIGKILL
    assert lines_of(answered / "effects.txt") == Counter()
    tally.runs += 2
    finish(answered)  # no answer given again: the saved response is used, not asked for
    assert tally.reasked == 0
    print(tally.line())


@pytest.mark.parametrize("boundary", ["response_after", "tool_result_before"])
def test_a_second_continue_of_a_finished_run_is_refused(tmp_path: Path, boundary: str) -> None:
    assert run_script(tmp_path, kill_at=f"{boundary}:0").returncode == -signal.SIGKILL
    assert run_script(tmp_path, "--continue").returncode == 0
    again = run_script(tmp_path, "--continue")
    assert again.returncode != 0
    assert "ContinuationError" in again.stderr
    assert Counter((tmp_path / "effects.txt").read_text().split())["a"] <= 1
