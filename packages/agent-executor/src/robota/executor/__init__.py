"""Background task and subagent lifecycle for Robota: state machine and execution context."""

from typing import TYPE_CHECKING

from robota.executor.context import (
    ExecutionContext,
    TaskBody,
    TaskExit,
    TaskHandle,
    TaskNotFoundError,
    TaskSnapshot,
)
from robota.executor.lifecycle import (
    TERMINAL_STATES,
    TRANSITIONS,
    InvalidTransitionError,
    TaskKind,
    TaskState,
    check_transition,
)

__all__ = [
    "TERMINAL_STATES",
    "TRANSITIONS",
    "ExecutionContext",
    "InvalidTransitionError",
    "TaskBody",
    "TaskExit",
    "TaskHandle",
    "TaskKind",
    "TaskNotFoundError",
    "TaskSnapshot",
    "TaskState",
    "check_transition",
]


if TYPE_CHECKING:
    __version__: str
    """This distribution's installed version, read from its metadata on first access (a
    name only a type checker sees declared here: at run time the module ``__getattr__``
    below answers it, so a misspelled import is still reported)."""
else:

    def __getattr__(name: str) -> str:
        """``__version__``: this distribution's installed version, read from its metadata on demand."""
        if name == "__version__":
            from importlib.metadata import version

            return version("robota-agent-executor")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
