"""The pieces behind issue #18's chat fixes: lines read in the event loop (a Ctrl-C interrupts the
pending read and loses no later line), the "waiting for the model…" line, and the one-line
failure messages."""

from __future__ import annotations

import contextlib
import doctest
import importlib
import io
import os
from collections.abc import Iterator

import anyio
import pytest
from robota.cli.approve import TerminalApprover
from robota.cli.line_input import InputInterrupted, LineReader
from robota.cli.turn import describe_failure
from robota.cli.waiting import WaitingLine
from robota.core.agent.events import ModelTextDelta, RoundStarted
from robota.core.errors import ProviderConnectionError, ProviderTimeoutError
from robota.core.events import OwnerPath
from robota.core.permissions import (
    Behavior,
    DecisionStep,
    PermissionDecision,
    PermissionRequest,
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read, write = os.pipe()
    yield read, write
    for fd in (read, write):
        with contextlib.suppress(OSError):
            os.close(fd)


@pytest.mark.anyio
async def test_an_interrupted_read_loses_no_later_line(pipe: tuple[int, int]) -> None:
    read, write = pipe
    lines = LineReader(read)
    interrupted = False
    async with anyio.create_task_group() as group:

        async def wait_then_interrupt() -> None:
            await anyio.wait_all_tasks_blocked()
            assert lines.waiting
            assert lines.interrupt()

        group.start_soon(wait_then_interrupt)
        try:
            await lines.read_line()
        except InputInterrupted:
            interrupted = True
    assert interrupted
    os.write(write, b"first\nsecond\r\nthird")
    os.close(write)
    assert [await lines.read_line() for _ in range(4)] == ["first", "second", "third", None]


@pytest.mark.anyio
async def test_a_sticky_interrupt_reaches_the_next_read(pipe: tuple[int, int]) -> None:
    read, write = pipe
    lines = LineReader(read)
    assert not lines.interrupt()  # nothing pending, not sticky: no effect
    assert not lines.interrupt(sticky=True)
    os.write(write, b"kept\n")
    with pytest.raises(InputInterrupted):
        await lines.read_line()
    assert await lines.read_line() == "kept"


@pytest.mark.anyio
async def test_a_descriptor_the_loop_cannot_wait_on_is_read_directly() -> None:
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        assert await LineReader(null).read_line() is None
    finally:
        os.close(null)


@pytest.mark.anyio
async def test_a_permission_question_interrupted_by_ctrl_c_is_a_denial(
    pipe: tuple[int, int],
) -> None:
    lines = LineReader(pipe[0])
    err = io.StringIO()
    approver = TerminalApprover(lines=lines, err=err)
    decision = PermissionDecision(
        behavior=Behavior.ASK, step=DecisionStep.ASK_RULE, reason="asks", tool_name="shell"
    )
    request = PermissionRequest(
        tool_name="shell",
        argument="ls",
        arguments_text='{"command": "ls"}',
        reason="an ask rule matched",
        decision=decision,
    )
    answers: list[str] = []
    async with anyio.create_task_group() as group:

        async def interrupt() -> None:
            await anyio.wait_all_tasks_blocked()
            lines.interrupt()

        group.start_soon(interrupt)
        answers.append((await approver(request)).kind)
    assert answers == ["deny"]
    assert "shell wants to run: ls" in err.getvalue()


def test_the_waiting_line_counts_from_the_round_and_goes_at_the_first_output() -> None:
    now = [100.0]
    err = io.StringIO()
    waiting = WaitingLine(err, enabled=True, clock=lambda: now[0])
    owner = OwnerPath()
    waiting.emit(RoundStarted(owner=owner, round=1, kind="normal", started_at=0.0))
    now[0] += 0.5
    waiting.draw()
    assert err.getvalue() == ""  # under a second: nothing yet
    now[0] += 2.0
    waiting.draw()
    assert err.getvalue() == "\r\x1b[Kwaiting for the model… (2s)"
    waiting.emit(ModelTextDelta(owner=owner, text="Hi"))
    assert err.getvalue().endswith("\r\x1b[K")  # erased before the answer is printed
    assert waiting.waiting_since is None


def test_the_waiting_line_is_off_away_from_a_terminal() -> None:
    err = io.StringIO()
    waiting = WaitingLine(err, enabled=False, clock=lambda: 0.0)
    waiting.emit(RoundStarted(owner=OwnerPath(), round=1, kind="normal", started_at=0.0))
    waiting.draw()
    assert (waiting.waiting_since, err.getvalue()) == (None, "")


def test_connection_failures_and_timeouts_name_the_url_and_the_cause() -> None:
    refused = ProviderConnectionError("Connection error.", provider="llamacpp")
    refused.__cause__ = ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 9)")
    refused.add_note("robota: gave up after 3 retries")
    assert describe_failure(refused, url="http://127.0.0.1:9/v1", timeout=300.0) == (
        "ProviderConnectionError: cannot connect to http://127.0.0.1:9/v1: connection refused "
        "(gave up after 3 retries)"
    )
    vendor_504 = ProviderTimeoutError("upstream timed out", provider="anthropic", status=504)
    assert describe_failure(vendor_504, url="https://api.anthropic.com", timeout=5.0) == (
        "ProviderTimeoutError: upstream timed out"
    )


@pytest.mark.parametrize("module", ["robota.cli.line_input", "robota.cli.turn"])
def test_the_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), raise_on_error=False)
    assert (result.failed, result.attempted > 0) == (0, True)
