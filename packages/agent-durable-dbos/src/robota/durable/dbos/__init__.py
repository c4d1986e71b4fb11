"""Agent runs as DBOS workflows: model calls and tool effects are DBOS steps with the execution
journal's semantics (seed 000, "Execution Journal and Continuation")."""

from typing import TYPE_CHECKING

from robota.durable.dbos.agent import (
    ANSWERED_EVENT_PREFIX,
    RUNTIME_STATE_STEP,
    WAIT_PREFIX,
    DBOSAgent,
    DurableRunResult,
)
from robota.durable.dbos.gates import TOOL_ADMISSION_STEP, TOOL_AFTER_STEP, DBOSGates
from robota.durable.dbos.provider import MODEL_CALL_STEP, MODEL_START_STEP, DBOSProvider
from robota.durable.dbos.tool import TOOL_EFFECT_STEP, TOOL_START_STEP, DBOSTool

__all__ = [
    "ANSWERED_EVENT_PREFIX",
    "MODEL_CALL_STEP",
    "MODEL_START_STEP",
    "RUNTIME_STATE_STEP",
    "TOOL_ADMISSION_STEP",
    "TOOL_AFTER_STEP",
    "TOOL_EFFECT_STEP",
    "TOOL_START_STEP",
    "WAIT_PREFIX",
    "DBOSAgent",
    "DBOSGates",
    "DBOSProvider",
    "DBOSTool",
    "DurableRunResult",
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

            return version("robota-agent-durable-dbos")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
