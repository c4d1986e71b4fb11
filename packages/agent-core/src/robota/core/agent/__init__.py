"""The agent execution loop (seed 000, "Execution Loop and Error Handling")."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from robota.core.agent._typing import HostedToolLike, OutputTypeSpec, hosted_tool_set
    from robota.core.agent.agent import Agent
    from robota.core.agent.events import (
        ContextGuardTripped,
        FinalResult,
        HistoryCommitted,
        HistoryRepaired,
        HostedToolCalled,
        ModelResponded,
        ModelTextDelta,
        ModelThinkingDelta,
        ModelToolCallDelta,
        OutputValidationFailed,
        PartialOutput,
        RoundCompleted,
        RoundStarted,
        RunCompleted,
        RunFailed,
        RunResumed,
        RunStarted,
        RunSuspended,
        ToolCallCompleted,
        ToolCallSkipped,
        ToolCallStarted,
        ToolProgress,
    )
    from robota.core.agent.output import OutputContext, OutputValidator, StructuredDict
    from robota.core.agent.pairing import (
        INTERRUPTED_RESULT_TEXT,
        HistoryProcessor,
        PairingRepair,
        repair_pairing,
    )
    from robota.core.agent.pause import (
        Approve,
        Decision,
        DecisionError,
        Deny,
        ExternalResult,
        PauseRequiredError,
        PauseState,
        PauseStateError,
        PendingCall,
        RunPaused,
        dump_decisions,
        load_decisions,
    )
    from robota.core.agent.result import RunResult
    from robota.core.agent.stream import AgentStream
    from robota.core.agent.texts import AgentTexts

__all__ = [
    "INTERRUPTED_RESULT_TEXT",
    "Agent",
    "AgentStream",
    "AgentTexts",
    "Approve",
    "ContextGuardTripped",
    "Decision",
    "DecisionError",
    "Deny",
    "ExternalResult",
    "FinalResult",
    "HistoryCommitted",
    "HistoryProcessor",
    "HistoryRepaired",
    "HostedToolCalled",
    "HostedToolLike",
    "ModelResponded",
    "ModelTextDelta",
    "ModelThinkingDelta",
    "ModelToolCallDelta",
    "OutputContext",
    "OutputTypeSpec",
    "OutputValidationFailed",
    "OutputValidator",
    "PairingRepair",
    "PartialOutput",
    "PauseRequiredError",
    "PauseState",
    "PauseStateError",
    "PendingCall",
    "RoundCompleted",
    "RoundStarted",
    "RunCompleted",
    "RunFailed",
    "RunPaused",
    "RunResult",
    "RunResumed",
    "RunStarted",
    "RunSuspended",
    "StructuredDict",
    "ToolCallCompleted",
    "ToolCallSkipped",
    "ToolCallStarted",
    "ToolProgress",
    "dump_decisions",
    "hosted_tool_set",
    "load_decisions",
    "repair_pairing",
]

_EXPORTS = {
    "robota.core.agent._typing": ("HostedToolLike", "OutputTypeSpec", "hosted_tool_set"),
    "robota.core.agent.agent": ("Agent",),
    "robota.core.agent.events": (
        "ContextGuardTripped",
        "FinalResult",
        "HistoryCommitted",
        "HistoryRepaired",
        "HostedToolCalled",
        "ModelResponded",
        "ModelTextDelta",
        "ModelThinkingDelta",
        "ModelToolCallDelta",
        "OutputValidationFailed",
        "PartialOutput",
        "RoundCompleted",
        "RoundStarted",
        "RunCompleted",
        "RunFailed",
        "RunResumed",
        "RunStarted",
        "RunSuspended",
        "ToolCallCompleted",
        "ToolCallSkipped",
        "ToolCallStarted",
        "ToolProgress",
    ),
    "robota.core.agent.output": ("OutputContext", "OutputValidator", "StructuredDict"),
    "robota.core.agent.pairing": (
        "INTERRUPTED_RESULT_TEXT",
        "HistoryProcessor",
        "PairingRepair",
        "repair_pairing",
    ),
    "robota.core.agent.pause": (
        "Approve",
        "Decision",
        "DecisionError",
        "Deny",
        "ExternalResult",
        "PauseRequiredError",
        "PauseState",
        "PauseStateError",
        "PendingCall",
        "RunPaused",
        "dump_decisions",
        "load_decisions",
    ),
    "robota.core.agent.result": ("RunResult",),
    "robota.core.agent.stream": ("AgentStream",),
    "robota.core.agent.texts": ("AgentTexts",),
}
"""Submodule → the names it gives this package, imported on first use (see
:mod:`robota.core._lazy`)."""

if not TYPE_CHECKING:
    from robota.core._lazy import lazy_exports

    __getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
