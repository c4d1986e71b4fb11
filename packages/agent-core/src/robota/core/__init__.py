"""Robota agent-core: provider-neutral contracts and the agent execution loop.

The names most programs need are re-exported here::

    from robota.core import Agent, tool, ModelSettings, UserMessage

Subpackages: :mod:`robota.core.agent` (the loop and its events), :mod:`robota.core.tools`,
:mod:`robota.core.schema`, :mod:`robota.core.permissions`, :mod:`robota.core.hooks`,
:mod:`robota.core.journal`, :mod:`robota.core.host` (OS-touching guards; imported only on
demand) and :mod:`robota.core.testing` (test support; never imported by runtime code).
"""

from robota.core.agent import Agent, AgentStream, AgentTexts, RunResult
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
    ToolReturn,
    tool,
)
from robota.core.usage import Usage

__all__ = [
    "Agent",
    "AgentStream",
    "AgentTexts",
    "Allow",
    "ArgumentKind",
    "AssistantMessage",
    "CancelToken",
    "ConfigurationError",
    "ContentFilterError",
    "ContextWindowExceededError",
    "Deny",
    "ErrorCategory",
    "Event",
    "EventSink",
    "FinishReason",
    "FunctionTool",
    "HostedTool",
    "IncompleteToolCallError",
    "MalformedResponseError",
    "MediaPart",
    "Message",
    "MissingExtraError",
    "ModelCapabilities",
    "ModelInfo",
    "ModelRegistry",
    "ModelRequest",
    "ModelResponse",
    "ModelSettings",
    "OwnerPath",
    "PermissionArgument",
    "Provider",
    "ProviderError",
    "RepeatedToolInputError",
    "RetryPolicy",
    "RetryingProvider",
    "RiskClass",
    "RobotaError",
    "RunCancelledError",
    "RunResult",
    "StreamEvent",
    "StructuredOutputError",
    "StructuredOutputTransport",
    "Substitute",
    "SystemMessage",
    "TextPart",
    "ThinkingPart",
    "Tool",
    "ToolCallPart",
    "ToolCallRequest",
    "ToolContext",
    "ToolGate",
    "ToolResultMessage",
    "ToolResultPart",
    "ToolReturn",
    "TruncatedResponseError",
    "Usage",
    "UserMessage",
    "dump_messages",
    "is_abort",
    "load_messages",
    "merge_settings",
    "tool",
]


def __getattr__(name: str) -> str:
    """``__version__``: this distribution's installed version, read from its metadata on demand."""
    if name == "__version__":
        from importlib.metadata import version

        return version("robota-agent-core")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
