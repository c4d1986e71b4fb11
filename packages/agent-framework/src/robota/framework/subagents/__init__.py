"""Subagents: definitions from disk, the composition root and built-ins in that precedence; the
fixed child tool filter; the in-process runner (seed 003, "subagent assembly")."""

from robota.framework.subagents.definition import (
    AgentDefinition,
    AgentDefinitionError,
    DefinitionTier,
    parse_agent_definition,
)
from robota.framework.subagents.filtering import (
    HandoffWrapper,
    filter_child_tools,
    spawns_agents,
    unwrap_handoff,
)
from robota.framework.subagents.loader import (
    BUILTIN_AGENTS,
    AgentRoster,
    DefinitionIssue,
    load_agent_definitions,
)
from robota.framework.subagents.spawn import SpawnAgentTool, SubagentFinished, SubagentStarted

__all__ = [
    "BUILTIN_AGENTS",
    "AgentDefinition",
    "AgentDefinitionError",
    "AgentRoster",
    "DefinitionIssue",
    "DefinitionTier",
    "HandoffWrapper",
    "SpawnAgentTool",
    "SubagentFinished",
    "SubagentStarted",
    "filter_child_tools",
    "load_agent_definitions",
    "parse_agent_definition",
    "spawns_agents",
    "unwrap_handoff",
]
