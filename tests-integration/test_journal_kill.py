"""Kill test of the execution journal (seed 000, "Execution Journal and Continuation"): a real
process running a journaled agent SIGKILLs itself at every journal boundary, a new process
continues the run, and neither an effect nor a model call is repeated, and no message is lost or
duplicated in the saved session.

The agent script is ``journal_kill/kill_agent.py``; see its docstring for the scripted run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

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
from robota.session import SQLiteSessionStore

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


def run_script(
    workdir: Path, *args: str, kill_at: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ROBOTA_KILL_AT"}
    if kill_at is not None:
        env["ROBOTA_KILL_AT"] = kill_at
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(workdir), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def session_messages(workdir: Path) -> tuple[Message, ...]:
    async def read() -> tuple[Message, ...]:
        async with SQLiteSessionStore(workdir / "sessions.db") as store:
            return (await store.get("ses_kill")).messages

    return anyio.run(read)


def expected_with_interruptions(
    reference: tuple[Message, ...], actual: tuple[Message, ...]
) -> tuple[Message, ...]:
    """The reference conversation with the results the continuation reported interrupted put in
    place of the real ones (the only allowed difference)."""
    assert len(actual) == len(reference), "a message was lost or duplicated"
    out: list[Message] = []
    for ref, act in zip(reference, actual, strict=True):
        if isinstance(ref, ToolResultMessage) and isinstance(act, ToolResultMessage):
            results: list[ToolResultPart] = []
            for r, a in zip(ref.results, act.results, strict=True):
                if text_of(a.content) == INTERRUPTED_EFFECT_TEXT:
                    r = replace(r, content=(TextPart(text=INTERRUPTED_EFFECT_TEXT),), is_error=True)
                results.append(r)
            ref = ToolResultMessage(results=tuple(results))
        out.append(ref)
    return tuple(out)


def test_no_effect_or_message_is_repeated_or_lost_after_a_kill_at_any_boundary(
    tmp_path: Path,
) -> None:
    reference_dir = tmp_path / "reference"
    reference_dir.mkdir(mode=0o700)
    done = run_script(reference_dir)
    assert done.returncode == 0, done.stderr
    reference = session_messages(reference_dir)
    assert (reference_dir / "effects.txt").read_text().split() == list(LINES)
    assert len(reference) == 6  # prompt, 3 assistant messages, 2 tool result messages

    runs = effects_checked = messages_checked = 0
    interrupted_seen = 0
    for boundary in BOUNDARIES:
        for occurrence in OCCURRENCES:
            workdir = tmp_path / f"{boundary}-{occurrence}"
            workdir.mkdir(mode=0o700)
            crashed = run_script(workdir, kill_at=f"{boundary}:{occurrence}")
            assert crashed.returncode == -signal.SIGKILL, (boundary, occurrence, crashed.stderr)
            resumed = run_script(workdir, "--continue")
            assert resumed.returncode == 0, (boundary, occurrence, resumed.stderr)
            runs += 2
            report = json.loads(resumed.stdout.strip().splitlines()[-1])
            results: list[str] = report["results"]
            assert report["text"] == "all three lines written"
            assert len(results) == 3

            # effects: each line at most once; exactly once unless reported interrupted
            effects = Counter((workdir / "effects.txt").read_text().split())
            assert set(effects) <= set(LINES)
            for line, result in zip(LINES, results, strict=True):
                assert effects[line] <= 1, (boundary, occurrence, line, effects)
                if result != INTERRUPTED_EFFECT_TEXT:
                    assert result == f"appended {line}"
                    assert effects[line] == 1, (boundary, occurrence, line)
                else:
                    interrupted_seen += 1
                effects_checked += 1

            # model calls: a recorded response is never requested again; only a response lost
            # before its record was written is requested a second time
            calls = Counter((workdir / "model_calls.txt").read_text().split())
            repeated = {occurrence: 2} if boundary == "response_before" else {}
            assert calls == Counter({str(s): repeated.get(s, 1) for s in range(3)}), (
                boundary,
                occurrence,
                calls,
            )

            # session: nothing lost or duplicated, identical modulo interrupted results
            actual = session_messages(workdir)
            expected = expected_with_interruptions(reference, actual)
            assert dump_messages(actual) == dump_messages(expected), (boundary, occurrence)
            messages_checked += len(actual)

    # the boundaries between effect start and result record must have produced interruptions
    assert interrupted_seen >= len(OCCURRENCES) * 2
    print(
        f"kill test: boundaries={len(BOUNDARIES)} runs={runs} "
        f"effects_checked={effects_checked} messages_checked={messages_checked} "
        f"interrupted={interrupted_seen}"
    )


@pytest.mark.parametrize("boundary", ["response_after", "tool_result_before"])
def test_a_second_continue_of_a_finished_run_is_refused(tmp_path: Path, boundary: str) -> None:
    assert run_script(tmp_path, kill_at=f"{boundary}:0").returncode == -signal.SIGKILL
    assert run_script(tmp_path, "--continue").returncode == 0
    again = run_script(tmp_path, "--continue")
    assert again.returncode != 0
    assert "ContinuationError" in again.stderr
    assert Counter((tmp_path / "effects.txt").read_text().split())["a"] <= 1
