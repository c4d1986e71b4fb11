"""Robota agent-framework: assembly of core, session, tools and executor into a product SDK.

The entry points are :class:`InteractiveSession` (a conversation with persistence, permissions,
hooks, checkpoints, subagents, compaction), :func:`create_query` (one-shot prompts) and
:func:`create_agent_runtime` (a headless multi-session host). The provider instance always comes
from the caller; the framework never imports a provider package.
"""

from typing import TYPE_CHECKING

from robota.framework.checkpoints import CheckpointGate, CheckpointStore, RestoreReport
from robota.framework.context import assemble_system_prompt, discover_instructions
from robota.framework.fallback import FallbackProvider, is_switchable
from robota.framework.interactive import (
    AgentRuntime,
    InteractiveSession,
    SessionConfig,
    compose_tools,
    create_agent_runtime,
    create_query,
)
from robota.framework.prompts import PendingPrompt, PromptRegistry
from robota.framework.settings import (
    ProviderResolutionError,
    ResolvedProvider,
    Settings,
    SettingsFileError,
    load_settings,
    merge_layers,
    resolve_provider,
)
from robota.framework.subagents import AgentDefinition, SpawnAgentTool, load_agent_definitions
from robota.framework.title import TitlePolicy, generate_title
from robota.framework.trust import TrustStore

__all__ = [
    "AgentDefinition",
    "AgentRuntime",
    "CheckpointGate",
    "CheckpointStore",
    "FallbackProvider",
    "InteractiveSession",
    "PendingPrompt",
    "PromptRegistry",
    "ProviderResolutionError",
    "ResolvedProvider",
    "RestoreReport",
    "SessionConfig",
    "Settings",
    "SettingsFileError",
    "SpawnAgentTool",
    "TitlePolicy",
    "TrustStore",
    "assemble_system_prompt",
    "compose_tools",
    "create_agent_runtime",
    "create_query",
    "discover_instructions",
    "generate_title",
    "is_switchable",
    "load_agent_definitions",
    "load_settings",
    "merge_layers",
    "resolve_provider",
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

            return version("robota-agent-framework")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
