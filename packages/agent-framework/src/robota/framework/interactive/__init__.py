"""The interactive session, one-shot queries and the multi-session runtime."""

from robota.framework.interactive.compose import ComposedTools, compose_tools
from robota.framework.interactive.config import SessionConfig
from robota.framework.interactive.events import (
    BackgroundNotice,
    SessionCompacted,
    SessionLeaseLost,
    SessionMerged,
    SessionRecovered,
    SessionReloaded,
    SessionSaved,
    TitleAssigned,
)
from robota.framework.interactive.query import create_query
from robota.framework.interactive.runtime import AgentRuntime, create_agent_runtime
from robota.framework.interactive.session import InteractiveSession, hooks_of

__all__ = [
    "AgentRuntime",
    "BackgroundNotice",
    "ComposedTools",
    "InteractiveSession",
    "SessionCompacted",
    "SessionConfig",
    "SessionLeaseLost",
    "SessionMerged",
    "SessionRecovered",
    "SessionReloaded",
    "SessionSaved",
    "TitleAssigned",
    "compose_tools",
    "create_agent_runtime",
    "create_query",
    "hooks_of",
]
