"""How an interactive session assembles its agent (seed 003): the system prompt from the
instruction files, the permission context from settings (the ``max_mode`` ceiling outranks the
host, issue #13), the tool tiers (built-in toolset or the host's default tools, additional
tools, the ``agent`` tool for subagents) and the gates in their order (permissions → hooks →
host gates → checkpoints).

:class:`SessionAssembly` is a base of
:class:`~robota.framework.interactive.session.InteractiveSession`; it holds no state of its own
(the session sets the attributes declared here).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from robota.core.agent import Agent
from robota.core.events import Event, OwnerPath
from robota.core.gate import ToolGate
from robota.core.hooks import HookGate, HookRunner, hook_ask_approver
from robota.core.host.sandbox import Sandbox
from robota.core.messages import Message
from robota.core.permissions import (
    Approver,
    ConsentStore,
    PermissionCeiling,
    PermissionContext,
    PermissionGate,
    PermissionMode,
)
from robota.core.tools.base import RiskClass, Tool
from robota.framework.checkpoints import CheckpointGate, CheckpointStore
from robota.framework.context import assemble_system_prompt, discover_instructions
from robota.framework.interactive._wiring import Forwarder, LogSink, overflow_event
from robota.framework.interactive.chain import agent_retry
from robota.framework.interactive.compose import compose_tools
from robota.framework.interactive.config import SessionConfig
from robota.framework.interactive.transcripts import SubagentTranscripts
from robota.framework.settings import cap_mode
from robota.framework.subagents import SpawnAgentTool, load_agent_definitions
from robota.session import SessionRecord
from robota.session.compaction import OverflowRecoveringProvider
from robota.tools import BuiltinToolset, Workspace, builtin_toolset

__all__ = ["SessionAssembly"]


class SessionAssembly:
    """Builds the session's prompt, permission context, tools, gates and agent (see the
    module docstring)."""

    config: SessionConfig
    record: SessionRecord
    sandbox: Sandbox
    workspace: Workspace
    checkpoints: CheckpointStore
    permission_gate: PermissionGate
    dropped_tools: tuple[str, ...]
    _toolset: BuiltinToolset | None
    _hooks: HookRunner
    _approver: Approver
    _consent: ConsentStore
    _forwarder: Forwarder

    if TYPE_CHECKING:

        @property
        def id(self) -> str: ...

        @property
        def _owner(self) -> OwnerPath: ...

        def _forward(self, event: Event) -> None: ...

        def _mcp_tools(self) -> list[Tool]: ...

    @staticmethod
    def _assemble_prompt(config: SessionConfig) -> str | None:
        files = discover_instructions(config.user_instruction_roots, contained=False)
        if config.trusted:
            files += discover_instructions(config.instruction_roots)
        return assemble_system_prompt(config.system_prompt, files)

    def _permission_context(self, mode: PermissionMode | None) -> PermissionContext:
        perms = self.config.settings.permissions
        chosen = mode or (
            PermissionMode(perms.default_mode) if perms.default_mode else PermissionMode.DEFAULT
        )
        chosen = cap_mode(chosen, perms.max_mode)  # the ceiling outranks the host (issue #13)
        # `max_mode: plan` means no change runs at all: an inspect-only ceiling, which no allow
        # rule of a lower layer (nor the approver) can answer (seed 000, step 2 of the order).
        ceiling = (
            PermissionCeiling.of(risks=[RiskClass.INSPECT], name="max_mode plan ceiling")
            if perms.max_mode == "plan"
            else None
        )
        return PermissionContext.from_rules(
            self.config.workspace,
            allow=perms.allow,
            deny=perms.deny,
            ask=perms.ask,
            ceiling=ceiling,
            mode=chosen,
            approver=self._approver,
            consent=self._consent,
            session_id=self.record.id,
        )

    def _default_tier(self) -> Sequence[Tool]:
        if self.config.default_tools is not None:
            return self.config.default_tools
        if self._toolset is None:
            self._toolset = builtin_toolset(
                self.workspace,
                background_dir=self.config.background_dir,
                env=dict(self.config.settings.env) or None,
                sandbox=self.sandbox,
                allow_network=self.config.settings.sandbox.network is True,
            )
        return self._toolset.tools

    def _gates(self) -> list[ToolGate]:
        return [
            self.permission_gate,
            HookGate(
                self._hooks,
                session_id=self.record.id,
                cwd=str(self.config.workspace),
                approve=hook_ask_approver(
                    self._approver,
                    session_id=self.record.id,
                    mode=lambda: self.permission_gate.context.mode,
                ),
            ),
            *self.config.extra_gates,
            CheckpointGate(self.checkpoints, root=self.config.workspace),
        ]

    def _subagent_tools(self, tools: Sequence[Tool], gates: Sequence[ToolGate]) -> list[Tool]:
        if not self.config.subagents or self.config.default_tools is not None:
            return []  # the agent tool belongs to the default tier
        roots = list(self.config.agent_roots)
        if self.config.trusted:
            roots = [*self.config.project_agent_roots, *roots]
        roster = load_agent_definitions(roots)
        if not roster.definitions:
            return []
        log = self.config.event_log
        transcripts = [SubagentTranscripts(log, lambda: self.id)] if log is not None else []
        return [
            SpawnAgentTool(
                provider=self.config.provider,
                roster=roster,
                tools=tools,
                model=self.config.model,
                gates=gates,
                sinks=[self._forwarder, *transcripts],
                child_sinks=transcripts,
                settings=self.config.model_settings,
                hooks=self._hooks,
                hook_session_id=self.record.id,
                hook_cwd=str(self.config.workspace),
            )
        ]

    def _build_agent(self, history: Sequence[Message]) -> Agent:
        gates = self._gates()
        additional = [*self.config.additional_tools, *self._mcp_tools()]  # MCP: issue #18
        composed = compose_tools(self._default_tier(), additional)
        dropped = composed.dropped
        spawn = self._subagent_tools(composed.tools, gates)
        if spawn:
            composed = compose_tools(composed.tools, spawn)
        self.dropped_tools = (*dropped, *composed.dropped)
        provider = self.config.provider
        if self.config.overflow_recovery:
            provider = OverflowRecoveringProvider(
                provider, on_recover=lambda n: self._forward(overflow_event(self._owner, n))
            )
        return Agent(
            provider,
            model=self.config.model,
            system_prompt=self.record.system_prompt,
            tools=composed.tools,
            settings=self.config.model_settings,
            max_rounds=self.config.max_rounds,
            accept_truncated=self.config.accept_truncated,
            gates=gates,
            sinks=[self._forwarder, LogSink(self)],
            history=tuple(history),
            journal=self.config.journal,
            retry=agent_retry(self.config.provider),  # a fallback chain's rule wins (.chain)
            hosted_tools=self.config.hosted_tools,
        )
