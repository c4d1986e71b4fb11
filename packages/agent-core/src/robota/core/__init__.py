"""Robota agent-core: provider-neutral contracts and the agent execution loop.

The names most programs need are re-exported here::

    from robota.core import Agent, tool, ModelSettings, UserMessage

Pause and resume (``Agent.run_until_pause``/``Agent.resume``) use :class:`RunPaused`,
:class:`PauseState`, :class:`PendingCall` and the decisions :class:`Approve`,
:class:`ExternalResult` and ``DenyCall`` (``robota.core.agent.pause.Deny``: here ``Deny`` is the
tool gate's answer, :class:`robota.core.gate.Deny`), of type :data:`Decision`.

Subpackages: :mod:`robota.core.agent` (the loop and its events), :mod:`robota.core.tools`,
:mod:`robota.core.schema`, :mod:`robota.core.permissions`, :mod:`robota.core.hooks`,
:mod:`robota.core.journal`, :mod:`robota.core.host` (OS-touching guards; imported only on
demand) and :mod:`robota.core.testing` (test support; never imported by runtime code).
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from robota.core.agent import (
        Agent,
        AgentStream,
        AgentTexts,
        ContextGuardTripped,
        FinalResult,
        HistoryCommitted,
        HistoryRepaired,
        HostedToolCalled,
        ModelResponded,
        ModelTextDelta,
        ModelThinkingDelta,
        ModelToolCallDelta,
        OutputContext,
        OutputTypeSpec,
        OutputValidationFailed,
        OutputValidator,
        PartialOutput,
        RoundCompleted,
        RoundStarted,
        RunCompleted,
        RunFailed,
        RunResult,
        RunResumed,
        RunStarted,
        RunSuspended,
        StructuredDict,
        ToolCallCompleted,
        ToolCallSkipped,
        ToolCallStarted,
        ToolProgress,
    )
    from robota.core.agent.pause import (
        Approve,
        Decision,
        ExternalResult,
        PauseState,
        PendingCall,
        RunPaused,
    )
    from robota.core.agent.pause import Deny as DenyCall
    from robota.core.cancellation import CancelToken
    from robota.core.capabilities import (
        HostedTool,
        ModelCapabilities,
        ModelInfo,
        ModelRegistry,
        StructuredOutputTransport,
    )
    from robota.core.errors import (
        ConfigurationError,
        ContentFilterError,
        ContextWindowExceededError,
        ErrorCategory,
        IncompleteToolCallError,
        MalformedResponseError,
        MissingExtraError,
        ModelRetry,
        OutputUnavailableError,
        ProviderError,
        RepeatedToolInputError,
        RobotaError,
        RunCancelledError,
        StructuredOutputError,
        TruncatedResponseError,
        is_abort,
    )
    from robota.core.events import Event, EventSink, OwnerPath
    from robota.core.gate import Allow, Deny, Substitute, ToolCallRequest, ToolGate
    from robota.core.messages import (
        AssistantMessage,
        FinishReason,
        MediaPart,
        Message,
        SystemMessage,
        TextPart,
        ThinkingPart,
        ToolCallPart,
        ToolResultMessage,
        ToolResultPart,
        UserMessage,
        dump_messages,
        load_messages,
    )
    from robota.core.provider import ModelRequest, ModelResponse, Provider, StreamEvent
    from robota.core.retry import RetryingProvider, RetryPolicy
    from robota.core.settings import ModelSettings, merge_settings
    from robota.core.tools import (
        ArgumentKind,
        FunctionTool,
        PermissionArgument,
        RiskClass,
        Tool,
        ToolContext,
        ToolLike,
        ToolReturn,
        Toolset,
        tool,
    )
    from robota.core.usage import Usage

__all__ = [
    "Agent",
    "AgentStream",
    "AgentTexts",
    "Allow",
    "Approve",
    "ArgumentKind",
    "AssistantMessage",
    "CancelToken",
    "ConfigurationError",
    "ContentFilterError",
    "ContextGuardTripped",
    "ContextWindowExceededError",
    "Decision",
    "Deny",
    "DenyCall",
    "ErrorCategory",
    "Event",
    "EventSink",
    "ExternalResult",
    "FinalResult",
    "FinishReason",
    "FunctionTool",
    "HistoryCommitted",
    "HistoryRepaired",
    "HostedTool",
    "HostedToolCalled",
    "IncompleteToolCallError",
    "MalformedResponseError",
    "MediaPart",
    "Message",
    "MissingExtraError",
    "ModelCapabilities",
    "ModelInfo",
    "ModelRegistry",
    "ModelRequest",
    "ModelResponded",
    "ModelResponse",
    "ModelRetry",
    "ModelSettings",
    "ModelTextDelta",
    "ModelThinkingDelta",
    "ModelToolCallDelta",
    "OutputContext",
    "OutputTypeSpec",
    "OutputUnavailableError",
    "OutputValidationFailed",
    "OutputValidator",
    "OwnerPath",
    "PartialOutput",
    "PauseState",
    "PendingCall",
    "PermissionArgument",
    "Provider",
    "ProviderError",
    "RepeatedToolInputError",
    "RetryPolicy",
    "RetryingProvider",
    "RiskClass",
    "RobotaError",
    "RoundCompleted",
    "RoundStarted",
    "RunCancelledError",
    "RunCompleted",
    "RunFailed",
    "RunPaused",
    "RunResult",
    "RunResumed",
    "RunStarted",
    "RunSuspended",
    "StreamEvent",
    "StructuredDict",
    "StructuredOutputError",
    "StructuredOutputTransport",
    "Substitute",
    "SystemMessage",
    "TextPart",
    "ThinkingPart",
    "Tool",
    "ToolCallCompleted",
    "ToolCallPart",
    "ToolCallRequest",
    "ToolCallSkipped",
    "ToolCallStarted",
    "ToolContext",
    "ToolGate",
    "ToolLike",
    "ToolProgress",
    "ToolResultMessage",
    "ToolResultPart",
    "ToolReturn",
    "Toolset",
    "TruncatedResponseError",
    "Usage",
    "UserMessage",
    "dump_messages",
    "is_abort",
    "load_messages",
    "merge_settings",
    "tool",
]

_EXPORTS = {
    "robota.core.agent": (
        "Agent",
        "AgentStream",
        "AgentTexts",
        "ContextGuardTripped",
        "FinalResult",
        "HistoryCommitted",
        "HistoryRepaired",
        "HostedToolCalled",
        "ModelResponded",
        "ModelTextDelta",
        "ModelThinkingDelta",
        "ModelToolCallDelta",
        "OutputContext",
        "OutputTypeSpec",
        "OutputValidationFailed",
        "OutputValidator",
        "PartialOutput",
        "RoundCompleted",
        "RoundStarted",
        "RunCompleted",
        "RunFailed",
        "RunResult",
        "RunResumed",
        "RunStarted",
        "RunSuspended",
        "StructuredDict",
        "ToolCallCompleted",
        "ToolCallSkipped",
        "ToolCallStarted",
        "ToolProgress",
    ),
    "robota.core.agent.pause": (
        "Approve",
        "Decision",
        "ExternalResult",
        "PauseState",
        "PendingCall",
        "RunPaused",
    ),
    "robota.core.cancellation": ("CancelToken",),
    "robota.core.capabilities": (
        "HostedTool",
        "ModelCapabilities",
        "ModelInfo",
        "ModelRegistry",
        "StructuredOutputTransport",
    ),
    "robota.core.errors": (
        "ConfigurationError",
        "ContentFilterError",
        "ContextWindowExceededError",
        "ErrorCategory",
        "IncompleteToolCallError",
        "MalformedResponseError",
        "MissingExtraError",
        "ModelRetry",
        "OutputUnavailableError",
        "ProviderError",
        "RepeatedToolInputError",
        "RobotaError",
        "RunCancelledError",
        "StructuredOutputError",
        "TruncatedResponseError",
        "is_abort",
    ),
    "robota.core.events": ("Event", "EventSink", "OwnerPath"),
    "robota.core.gate": ("Allow", "Deny", "Substitute", "ToolCallRequest", "ToolGate"),
    "robota.core.messages": (
        "AssistantMessage",
        "FinishReason",
        "MediaPart",
        "Message",
        "SystemMessage",
        "TextPart",
        "ThinkingPart",
        "ToolCallPart",
        "ToolResultMessage",
        "ToolResultPart",
        "UserMessage",
        "dump_messages",
        "load_messages",
    ),
    "robota.core.provider": ("ModelRequest", "ModelResponse", "Provider", "StreamEvent"),
    "robota.core.retry": ("RetryingProvider", "RetryPolicy"),
    "robota.core.settings": ("ModelSettings", "merge_settings"),
    "robota.core.tools": (
        "ArgumentKind",
        "FunctionTool",
        "PermissionArgument",
        "RiskClass",
        "Tool",
        "ToolContext",
        "ToolLike",
        "ToolReturn",
        "Toolset",
        "tool",
    ),
    "robota.core.usage": ("Usage",),
}
"""Submodule → the names it gives this package, imported on first use (see
:mod:`robota.core._lazy`)."""
_RENAMED = {"DenyCall": ("robota.core.agent.pause", "Deny")}


if TYPE_CHECKING:
    __version__: str
    """This distribution's installed version, read from its metadata on first access (a
    name only a type checker sees declared here: at run time the module ``__getattr__``
    below answers it, so a misspelled import is still reported)."""
else:
    from robota.core._lazy import lazy_exports

    _export, __dir__ = lazy_exports(__name__, globals(), _EXPORTS, renamed=_RENAMED)

    def __getattr__(name: str) -> object:
        """``__version__``: this distribution's installed version, read from its metadata on
        demand; any other name: a lazy re-export or submodule (see :mod:`robota.core._lazy`)."""
        if name == "__version__":
            from importlib.metadata import version

            return version("robota-agent-core")
        return _export(name)
