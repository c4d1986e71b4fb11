"""Execution context: lifecycle on every exit path, notifications, kill, reassign, wake tracking."""

from __future__ import annotations

import anyio
import pytest
from robota.executor import (
    ExecutionContext,
    InvalidTransitionError,
    TaskHandle,
    TaskKind,
    TaskNotFoundError,
    TaskSnapshot,
    TaskState,
    check_transition,
)

pytestmark = pytest.mark.anyio


async def test_completion_is_delivered_once_to_the_owner() -> None:
    seen: list[TaskState] = []
    async with ExecutionContext(on_change=lambda s: seen.append(s.state)) as ctx:

        async def body(handle: TaskHandle) -> str:
            return "42 files"

        task_id = ctx.submit(body, owner="run-1", description="count files")
        final = await ctx.wait(task_id)
        assert final.state is TaskState.COMPLETED
        assert final.result == "42 files"
        assert ctx.has_pending_exits("run-1")
        assert not ctx.has_pending_exits("run-2")
        exits = ctx.drain_exits("run-1")
        assert [e.task.id for e in exits] == [task_id]
        assert "state='completed'" in exits[0].render()
        assert ctx.drain_exits("run-1") == []
        assert ctx.wake_count == 0
    assert seen == [TaskState.RUNNING, TaskState.COMPLETED]


async def test_failure_keeps_the_error() -> None:
    async with ExecutionContext() as ctx:

        async def body(handle: TaskHandle) -> str:
            raise ValueError("disk full")

        final = await ctx.wait(ctx.submit(body, owner="r", description="x"))
        assert final.state is TaskState.FAILED
        assert final.error == "ValueError: disk full"


async def test_kill_running_task_is_cancelled_and_wake_cleared() -> None:
    started = anyio.Event()
    async with ExecutionContext() as ctx:

        async def body(handle: TaskHandle) -> str:
            started.set()
            await anyio.sleep_forever()
            return "never"

        task_id = ctx.submit(body, owner="r", description="long")
        await started.wait()
        waited: list[TaskSnapshot] = []
        killed: TaskSnapshot | None = None

        async def waiter() -> None:
            waited.append(await ctx.wait(task_id))

        async with anyio.create_task_group() as tg:
            tg.start_soon(waiter)
            await anyio.wait_all_tasks_blocked()
            assert ctx.wake_count == 1
            killed = await ctx.kill(task_id)
        assert killed is not None
        assert killed.state is TaskState.CANCELLED
        assert waited[0].state is TaskState.CANCELLED
        assert ctx.wake_count == 0
        assert ctx.drain_exits("r")[0].task.state is TaskState.CANCELLED


async def test_queued_task_killed_before_start_never_runs() -> None:
    gate = anyio.Event()
    ran: list[str] = []
    async with ExecutionContext(max_concurrent=1) as ctx:

        async def blocker(handle: TaskHandle) -> str:
            await gate.wait()
            return "ok"

        async def second(handle: TaskHandle) -> str:
            ran.append("second")
            return "ok"

        first_id = ctx.submit(blocker, owner="r", description="first")
        second_id = ctx.submit(second, owner="r", description="second")
        await anyio.wait_all_tasks_blocked()
        assert ctx.get(second_id).state is TaskState.QUEUED
        assert (await ctx.kill(second_id)).state is TaskState.CANCELLED
        gate.set()
        assert (await ctx.wait(first_id)).state is TaskState.COMPLETED
    assert ran == []


async def test_shutdown_interrupts_running_and_queued_and_clears_wakes() -> None:
    async with ExecutionContext(max_concurrent=1) as ctx:

        async def forever(handle: TaskHandle) -> str:
            await anyio.sleep_forever()
            return "x"

        running = ctx.submit(forever, owner="r", description="a", kind=TaskKind.SUBAGENT)
        queued = ctx.submit(forever, owner="r", description="b")
        await anyio.wait_all_tasks_blocked()
        await ctx.shutdown()
        assert ctx.get(running).state is TaskState.INTERRUPTED
        assert ctx.get(queued).state is TaskState.INTERRUPTED
        assert ctx.wake_count == 0
        with pytest.raises(RuntimeError):
            ctx.submit(forever, owner="r", description="late")


async def test_reassign_moves_task_and_pending_exit() -> None:
    async with ExecutionContext() as ctx:

        async def body(handle: TaskHandle) -> str:
            return "ok"

        task_id = ctx.submit(body, owner="child", description="x")
        await ctx.wait(task_id)
        ctx.reassign(task_id, "parent")
        assert ctx.drain_exits("child") == []
        assert [e.task.owner for e in ctx.drain_exits("parent")] == ["parent"]
        assert [t.id for t in ctx.list(owner="parent")] == [task_id]


async def test_evict_forgets_a_finished_task() -> None:
    async with ExecutionContext() as ctx:

        async def body(handle: TaskHandle) -> str:
            return "ok"

        task_id = ctx.submit(body, owner="r", description="x")
        await ctx.wait(task_id)
        ctx.evict(task_id)
        assert not ctx.has_pending_exits("r")
        with pytest.raises(TaskNotFoundError):
            ctx.get(task_id)


def test_terminal_states_never_move() -> None:
    with pytest.raises(InvalidTransitionError):
        check_transition("t", TaskState.COMPLETED, TaskState.RUNNING)
    with pytest.raises(InvalidTransitionError):
        check_transition("t", TaskState.QUEUED, TaskState.COMPLETED)
    check_transition("t", TaskState.QUEUED, TaskState.RUNNING)
