"""Agent runs as DBOS workflows: model calls and tool effects are DBOS steps with the execution
journal's semantics (seed 000, "Execution Journal and Continuation")."""

from robota.durable.dbos.agent import DBOSAgent, DurableRunResult
from robota.durable.dbos.provider import MODEL_CALL_STEP, DBOSProvider
from robota.durable.dbos.tool import TOOL_EFFECT_STEP, TOOL_START_STEP, DBOSTool

__all__ = [
    "MODEL_CALL_STEP",
    "TOOL_EFFECT_STEP",
    "TOOL_START_STEP",
    "DBOSAgent",
    "DBOSProvider",
    "DBOSTool",
    "DurableRunResult",
]
