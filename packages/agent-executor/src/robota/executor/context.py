"""The execution context that owns background tasks and subagents (issue: the product;
seed 004, background tasks, ``kill_background_task``, task reassignment).

An :class:`ExecutionContext` runs task bodies in its own anyio task group, at most
``max_concurrent`` at once (the rest wait ``queued``). It can list, kill and reassign them; each
exit becomes a :class:`TaskExit` notification queued for the owning run, which drains it on its
next turn. Wake tracking — who is waiting on a task — is cleared on every exit path: completion,
failure, kill, eviction and shutdown.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from types import TracebackType

import anyio
from anyio.abc import TaskGroup
from robota.core.errors import ErrorCategory, RobotaError
from robota.executor.lifecycle import TERMINAL_STATES, TaskKind, TaskState, check_transition

__all__ = [
    "ExecutionContext",
    "TaskBody",
    "TaskExit",
    "TaskHandle",
    "TaskNotFoundError",
    "TaskSnapshot",
]


class TaskNotFoundError(RobotaError):
    """No task with that id in this context."""

    code = "task_not_found"
    default_category = ErrorCategory.USER


@dataclass(frozen=True, kw_only=True, slots=True)
class TaskSnapshot:
    """What a context knows of one task.

    Attributes:
        id: Task id (``task_`` + 12 hex digits).
        kind: Background task or subagent.
        owner: The run/handle that owns it (receives its exit).
        description: Human description.
        state: Current :class:`~robota.executor.lifecycle.TaskState`.
        created_at / started_at / ended_at: Monotonic clock seconds, or None.
        result: The body's return text, when completed.
        error: ``ExceptionType: message`` when failed.
    """

    id: str
    kind: TaskKind
    owner: str
    description: str
    state: TaskState
    created_at: float
    started_at: float | None = None
    ended_at: float | None = None
    result: str | None = None
    error: str | None = None

    @property
    def duration(self) -> float | None:
        """Seconds from start to end, when both are known."""
        if self.started_at is None or self.ended_at is None:
            return None
        return self.ended_at - self.started_at


@dataclass(frozen=True, kw_only=True, slots=True)
class TaskExit:
    """A notification that a task reached a terminal state, for its owner's next run."""

    task: TaskSnapshot

    def render(self) -> str:
        """Neutral text block the owning run shows the model."""
        t = self.task
        lines = [f"<task-notification id={t.id!r} kind={t.kind.value!r} state={t.state.value!r}>"]
        lines.append(f"description: {t.description}")
        if t.result:
            lines.append(f"result: {t.result}")
        if t.error:
            lines.append(f"error: {t.error}")
        lines.append("</task-notification>")
        return "\n".join(lines)


class TaskHandle:
    """What a task body receives: its id and a cancellation check."""

    def __init__(self, task_id: str, scope: anyio.CancelScope) -> None:
        self.id = task_id
        self._scope = scope

    @property
    def cancelled(self) -> bool:
        """True once the task was asked to stop."""
        return self._scope.cancel_called


TaskBody = Callable[[TaskHandle], Awaitable[str | None]]
"""A task's work: returns a short result text (or None)."""


class ExecutionContext:
    """Owns background tasks and subagents; use as ``async with ExecutionContext() as ctx:``.

    Args:
        max_concurrent: Bodies running at once; later submissions wait ``queued``.
        clock: Monotonic seconds (injectable).
        on_change: Called with each new snapshot after every state change or reassignment.

    Example:
        >>> async def demo() -> str:
        ...     async with ExecutionContext() as ctx:
        ...         async def body(handle: TaskHandle) -> str:
        ...             return "done"
        ...         task_id = ctx.submit(body, owner="run-1", description="demo")
        ...         await ctx.wait(task_id)
        ...         return ctx.drain_exits("run-1")[0].task.state.value
        >>> anyio.run(demo)
        'completed'
    """

    def __init__(
        self,
        *,
        max_concurrent: int = 4,
        clock: Callable[[], float] = time.monotonic,
        on_change: Callable[[TaskSnapshot], None] | None = None,
    ) -> None:
        self._limiter = anyio.CapacityLimiter(max_concurrent)
        self._clock = clock
        self._on_change = on_change
        self._tasks: dict[str, TaskSnapshot] = {}
        self._scopes: dict[str, anyio.CancelScope] = {}
        self._done: dict[str, anyio.Event] = {}
        self._exits: dict[str, list[TaskExit]] = {}
        self._waiters: dict[str, int] = {}
        self._killed: set[str] = set()
        self._group: TaskGroup | None = None
        self._closing = False

    async def __aenter__(self) -> ExecutionContext:
        self._group = anyio.create_task_group()
        await self._group.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        await self.shutdown()
        assert self._group is not None
        return await self._group.__aexit__(exc_type, exc, tb)

    # -- queries ----------------------------------------------------------------------------

    def list(self, *, owner: str | None = None) -> list[TaskSnapshot]:
        """Snapshots of every known task (of ``owner`` if given), in submission order."""
        return [t for t in self._tasks.values() if owner is None or t.owner == owner]

    def get(self, task_id: str) -> TaskSnapshot:
        """The snapshot of one task.

        Raises:
            TaskNotFoundError: if unknown (or evicted).
        """
        try:
            return self._tasks[task_id]
        except KeyError:
            raise TaskNotFoundError(f"no task {task_id!r}") from None

    @property
    def wake_count(self) -> int:
        """How many waits are registered on unfinished tasks (0 once every task exited)."""
        return sum(self._waiters.values())

    def has_pending_exits(self, owner: str) -> bool:
        """True while at least one exit waits for ``owner``'s next run."""
        return bool(self._exits.get(owner))

    def drain_exits(self, owner: str) -> list[TaskExit]:
        """Take (and clear) the exit notifications queued for ``owner``."""
        return self._exits.pop(owner, [])

    # -- commands ---------------------------------------------------------------------------

    def submit(
        self,
        body: TaskBody,
        *,
        owner: str,
        description: str,
        kind: TaskKind = TaskKind.BACKGROUND_TASK,
    ) -> str:
        """Queue ``body``; returns the task id at once.

        Raises:
            RuntimeError: outside ``async with`` or after shutdown started.
        """
        if self._group is None or self._closing:
            raise RuntimeError("ExecutionContext is not running")
        task_id = "task_" + secrets.token_hex(6)
        self._tasks[task_id] = TaskSnapshot(
            id=task_id,
            kind=kind,
            owner=owner,
            description=description,
            state=TaskState.QUEUED,
            created_at=self._clock(),
        )
        scope = anyio.CancelScope()
        self._scopes[task_id] = scope
        self._done[task_id] = anyio.Event()
        self._group.start_soon(self._drive, task_id, body, scope)
        return task_id

    async def wait(self, task_id: str) -> TaskSnapshot:
        """Wait until the task is terminal; returns its final snapshot."""
        snapshot = self.get(task_id)
        if snapshot.state in TERMINAL_STATES:
            return snapshot
        self._waiters[task_id] = self._waiters.get(task_id, 0) + 1
        try:
            await self._done[task_id].wait()
        finally:
            self._release_wait(task_id)
        return self._tasks.get(task_id, snapshot)

    async def kill(self, task_id: str) -> TaskSnapshot:
        """Cancel a queued or running task and wait for it to settle as ``cancelled``.
        Killing a finished task returns its snapshot unchanged."""
        snapshot = self.get(task_id)
        if snapshot.state in TERMINAL_STATES:
            return snapshot
        self._killed.add(task_id)
        self._scopes[task_id].cancel()
        await self._done[task_id].wait()
        return self._tasks[task_id]

    def reassign(self, task_id: str, new_owner: str) -> TaskSnapshot:
        """Move a task (and its undelivered exit) to another owner."""
        snapshot = replace(self.get(task_id), owner=new_owner)
        old_owner = self._tasks[task_id].owner
        self._tasks[task_id] = snapshot
        pending = self._exits.get(old_owner, [])
        moved = [e for e in pending if e.task.id == task_id]
        if moved:
            self._exits[old_owner] = [e for e in pending if e.task.id != task_id]
            self._exits.setdefault(new_owner, []).extend(
                TaskExit(task=replace(e.task, owner=new_owner)) for e in moved
            )
        self._notify(snapshot)
        return snapshot

    def evict(self, task_id: str) -> None:
        """Forget a terminal task (its waits and undelivered exit included).

        Raises:
            RuntimeError: if the task is still queued or running.
        """
        snapshot = self.get(task_id)
        if snapshot.state not in TERMINAL_STATES:
            raise RuntimeError(f"task {task_id} is {snapshot.state}; kill it first")
        del self._tasks[task_id]
        self._scopes.pop(task_id, None)
        self._done.pop(task_id, None)
        self._waiters.pop(task_id, None)
        owner_exits = self._exits.get(snapshot.owner, [])
        self._exits[snapshot.owner] = [e for e in owner_exits if e.task.id != task_id]

    async def shutdown(self) -> None:
        """Interrupt every queued and running task and wait for them; idempotent."""
        self._closing = True
        for task_id, snapshot in list(self._tasks.items()):
            if snapshot.state not in TERMINAL_STATES:
                self._scopes[task_id].cancel()
        for task_id in list(self._tasks):
            done = self._done.get(task_id)
            if done is not None:
                await done.wait()
        self._waiters.clear()

    # -- internals --------------------------------------------------------------------------

    def _release_wait(self, task_id: str) -> None:
        count = self._waiters.get(task_id, 0) - 1
        if count > 0:
            self._waiters[task_id] = count
        else:
            self._waiters.pop(task_id, None)

    def _notify(self, snapshot: TaskSnapshot) -> None:
        if self._on_change is not None:
            self._on_change(snapshot)

    def _move(self, task_id: str, target: TaskState, **changes: object) -> None:
        current = self._tasks[task_id]
        check_transition(task_id, current.state, target)
        snapshot = replace(current, state=target, **changes)  # pyright: ignore[reportArgumentType]
        self._tasks[task_id] = snapshot
        self._notify(snapshot)
        if target in TERMINAL_STATES:
            self._exits.setdefault(snapshot.owner, []).append(TaskExit(task=snapshot))
            self._waiters.pop(task_id, None)
            self._done[task_id].set()

    def _stop_state(self, task_id: str) -> TaskState:
        return TaskState.CANCELLED if task_id in self._killed else TaskState.INTERRUPTED

    async def _drive(self, task_id: str, body: TaskBody, scope: anyio.CancelScope) -> None:
        with scope:
            async with self._limiter:
                self._move(task_id, TaskState.RUNNING, started_at=self._clock())
                try:
                    result = await body(TaskHandle(task_id, scope))
                except anyio.get_cancelled_exc_class():
                    self._move(task_id, self._stop_state(task_id), ended_at=self._clock())
                    raise
                except Exception as exc:
                    self._move(
                        task_id,
                        TaskState.FAILED,
                        ended_at=self._clock(),
                        error=f"{type(exc).__name__}: {exc}",
                    )
                    return
                self._move(task_id, TaskState.COMPLETED, ended_at=self._clock(), result=result)
        if (
            self._tasks.get(task_id) is not None
            and self._tasks[task_id].state not in TERMINAL_STATES
        ):
            # cancelled while still queued (the limiter was never acquired)
            self._move(task_id, self._stop_state(task_id), ended_at=self._clock())
