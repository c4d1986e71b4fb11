"""The agent execution loop (seed 000, "Execution Loop and Error Handling")."""

from robota.core.agent.agent import Agent
from robota.core.agent.events import (
    ContextGuardTripped,
    HistoryCommitted,
    HistoryRepaired,
    ModelResponded,
    ModelTextDelta,
    ModelThinkingDelta,
    ModelToolCallDelta,
    OutputValidationFailed,
    RoundCompleted,
    RoundStarted,
    RunCompleted,
    RunFailed,
    RunStarted,
    ToolCallCompleted,
    ToolCallSkipped,
    ToolCallStarted,
    ToolProgress,
)
from robota.core.agent.pairing import (
    INTERRUPTED_RESULT_TEXT,
    HistoryProcessor,
    PairingRepair,
    repair_pairing,
)
from robota.core.agent.result import RunResult
from robota.core.agent.stream import AgentStream
from robota.core.agent.texts import AgentTexts

__all__ = [
    "INTERRUPTED_RESULT_TEXT",
    "Agent",
    "AgentStream",
    "AgentTexts",
    "ContextGuardTripped",
    "HistoryCommitted",
    "HistoryProcessor",
    "HistoryRepaired",
    "ModelResponded",
    "ModelTextDelta",
    "ModelThinkingDelta",
    "ModelToolCallDelta",
    "OutputValidationFailed",
    "PairingRepair",
    "RoundCompleted",
    "RoundStarted",
    "RunCompleted",
    "RunFailed",
    "RunResult",
    "RunStarted",
    "ToolCallCompleted",
    "ToolCallSkipped",
    "ToolCallStarted",
    "ToolProgress",
    "repair_pairing",
]
