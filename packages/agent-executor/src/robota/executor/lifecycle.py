"""Lifecycle state machine of background tasks and subagents (issue: the product; seed 004,
background tasks and subagents).

States: ``queued → running → completed | failed | cancelled | interrupted``; a queued task may
also go straight to ``cancelled`` (killed before it started) or ``interrupted`` (its context shut
down first). Terminal states never change again. Every other move raises
:class:`InvalidTransitionError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from robota.core.errors import RobotaError

__all__ = [
    "TERMINAL_STATES",
    "TRANSITIONS",
    "InvalidTransitionError",
    "TaskKind",
    "TaskState",
    "check_transition",
]


class TaskKind(StrEnum):
    """What an execution is."""

    BACKGROUND_TASK = "background_task"
    SUBAGENT = "subagent"


class TaskState(StrEnum):
    """Where an execution is in its life."""

    QUEUED = "queued"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"


TERMINAL_STATES = frozenset(
    {TaskState.COMPLETED, TaskState.FAILED, TaskState.CANCELLED, TaskState.INTERRUPTED}
)
"""States an execution never leaves."""

TRANSITIONS: Mapping[TaskState, frozenset[TaskState]] = {
    TaskState.QUEUED: frozenset({TaskState.RUNNING, TaskState.CANCELLED, TaskState.INTERRUPTED}),
    TaskState.RUNNING: TERMINAL_STATES,
    TaskState.COMPLETED: frozenset(),
    TaskState.FAILED: frozenset(),
    TaskState.CANCELLED: frozenset(),
    TaskState.INTERRUPTED: frozenset(),
}
"""Allowed moves from each state."""


class InvalidTransitionError(RobotaError):
    """A move the lifecycle does not allow (e.g. ``completed → running``)."""

    code = "invalid_transition"

    def __init__(self, task_id: str, source: TaskState, target: TaskState) -> None:
        super().__init__(f"task {task_id}: {source} → {target} is not allowed")
        self.task_id = task_id
        self.source = source
        self.target = target


def check_transition(task_id: str, source: TaskState, target: TaskState) -> None:
    """Raise :class:`InvalidTransitionError` unless ``source → target`` is allowed."""
    if target not in TRANSITIONS[source]:
        raise InvalidTransitionError(task_id, source, target)
