"""The in-process subagent runner exposed to the model as a tool (seed 003, "subagent
assembly"; "In-process subagents share the decorated provider and so the chain"; "subagents
cannot spawn subagents").

:class:`SpawnAgentTool` runs a child :class:`~robota.core.agent.Agent` on the parent's provider
with the definition's system prompt and the parent's tools after
:func:`~robota.framework.subagents.filtering.filter_child_tools`, and returns the child's final
text. Every child's usage is metered from its ``ModelResponded`` events (so a failed or
cancelled child is charged for the calls it made), kept per child in
:attr:`SpawnAgentTool.usage_by_child`, summed in :attr:`SpawnAgentTool.charged_usage` for the
parent's session to charge to its turn, and reported in one :class:`SubagentFinished` event per
child. With an :class:`~robota.executor.ExecutionContext` the child is registered as a
``subagent`` task and goes through its lifecycle (queued → running → completed | failed |
cancelled).

With ``hooks`` the ``SubagentStart`` hook fires before the child runs and ``SubagentStop`` after
it ended (whatever its outcome); both are observational (their posture: an answer or an error
changes nothing about the child).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal

import anyio
from robota.core.agent import Agent, ModelResponded
from robota.core.errors import ConfigurationError
from robota.core.events import Event, EventSink, OwnerPath, emit_all
from robota.core.gate import ToolGate
from robota.core.hooks import HookEventName, HookRunner, SubagentStartInput, SubagentStopInput
from robota.core.messages import JsonValue
from robota.core.provider import Provider
from robota.core.settings import ModelSettings
from robota.core.tools.base import (
    ArgumentKind,
    PermissionArgument,
    RiskClass,
    Tool,
    ToolContext,
    ToolOutput,
    ToolReturn,
)
from robota.core.usage import Usage
from robota.executor import ExecutionContext, TaskHandle, TaskKind, TaskState
from robota.framework.subagents.filtering import filter_child_tools
from robota.framework.subagents.loader import AgentRoster

__all__ = ["SpawnAgentTool", "SubagentFinished", "SubagentStarted"]

ChildState = Literal["completed", "failed", "cancelled"]


@dataclass(frozen=True, kw_only=True, slots=True)
class SubagentStarted(Event):
    """A child agent was started.

    Attributes:
        child_id: ``sub_`` + 12 hex digits.
        agent: The definition's name.
        model: The child's model.
        tools: Names of the tools the child got.
        task_id: The execution-context task id, when one was used.
    """

    type: ClassVar[str] = "subagent.started"
    child_id: str
    agent: str
    model: str
    tools: tuple[str, ...] = ()
    task_id: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class SubagentFinished(Event):
    """A child agent ended; its usage is charged to the parent.

    Attributes:
        child_id: The child's id.
        agent: The definition's name.
        state: ``completed``, ``failed`` or ``cancelled``.
        usage: Tokens the child's provider calls used (summed over its rounds).
        error: ``ExceptionType: message`` when failed.
        task_id: The execution-context task id, when one was used.
    """

    type: ClassVar[str] = "subagent.finished"
    child_id: str
    agent: str
    state: ChildState
    usage: Usage
    error: str | None = None
    task_id: str | None = None


class _UsageMeter:
    """An event sink summing the usage of every ``agent.model_responded`` event."""

    def __init__(self) -> None:
        self.usage = Usage()

    def emit(self, event: Event) -> None:
        if isinstance(event, ModelResponded):
            self.usage = self.usage + event.usage


class SpawnAgentTool(Tool):
    """Lets the model start a subagent from the roster (EXECUTE risk: a child can run tools).

    Args:
        provider: The parent's provider (a fallback chain is shared as is).
        roster: The resolved agent definitions.
        tools: The parent's tools, or a callable returning them at spawn time (so tools added
            mid-session reach later children). Filtered per definition; this tool itself is
            always removed.
        model: The parent's model (used when a definition names none; default: the provider's
            default model).
        gates: Gates the child's tool calls go through (normally the parent's permission and
            hook gates). The child never closes them.
        sinks: Receive :class:`SubagentStarted` / :class:`SubagentFinished`.
        child_sinks: Receive the child agent's own events (transcript logs).
        execution: Registers each child as a ``subagent`` task when given.
        settings: Settings for child runs.
        max_rounds: Round budget of a child run.
        name: Model-facing name (``"agent"``; some hosts use ``"task"``).
        hooks: Fires ``SubagentStart`` / ``SubagentStop`` around every child, when given.
        hook_session_id: ``session_id`` of those hook inputs (the parent's session).
        hook_cwd: ``cwd`` of those hook inputs (the parent's workspace).

    Raises:
        ConfigurationError: the roster is empty (there would be nothing to spawn).

    Attributes:
        usage_by_child: Usage per child id, in spawn order.
    """

    risk = RiskClass.EXECUTE
    permission_argument = PermissionArgument(key="subagent_type", kind=ArgumentKind.TEXT)
    spawns_agents: ClassVar[bool] = True

    def __init__(
        self,
        *,
        provider: Provider,
        roster: AgentRoster,
        tools: Sequence[Tool] | Callable[[], Sequence[Tool]] = (),
        model: str | None = None,
        gates: Sequence[ToolGate] = (),
        sinks: Sequence[EventSink] = (),
        child_sinks: Sequence[EventSink] = (),
        execution: ExecutionContext | None = None,
        settings: ModelSettings | None = None,
        max_rounds: int = 25,
        name: str = "agent",
        hooks: HookRunner | None = None,
        hook_session_id: str = "",
        hook_cwd: str = "",
    ) -> None:
        if not roster.definitions:
            raise ConfigurationError("SpawnAgentTool needs at least one agent definition")
        self.name = name
        self.provider = provider
        self.roster = roster
        self._tools = tools
        self.model = model
        self.gates = tuple(gates)
        self.sinks = tuple(sinks)
        self.child_sinks = tuple(child_sinks)
        self.execution_context = execution
        self.settings = settings
        self.max_rounds = max_rounds
        self.hooks = hooks
        self._hook_common: dict[str, Any] = {"session_id": hook_session_id, "cwd": hook_cwd}
        self.usage_by_child: dict[str, Usage] = {}
        roster_text = "\n".join(f"- {d.name}: {d.description}" for d in roster.definitions)
        self.description = (
            "Start a subagent that works on one task on its own and returns its final report. "
            "Give it a complete, self-contained prompt: it does not see this conversation.\n"
            f"Available agents:\n{roster_text}"
        )
        self.parameters = {
            "type": "object",
            "properties": {
                "subagent_type": {
                    "type": "string",
                    "enum": list(roster.names),
                    "description": "Which agent to start.",
                },
                "description": {
                    "type": "string",
                    "description": "A short (3-5 word) label for the task.",
                },
                "prompt": {"type": "string", "description": "The task for the agent."},
            },
            "required": ["subagent_type", "prompt"],
            "additionalProperties": False,
        }

    @property
    def charged_usage(self) -> Usage:
        """Usage of every child so far, summed (what the parent is charged)."""
        total = Usage()
        for usage in self.usage_by_child.values():
            total = total + usage
        return total

    def _parent_tools(self) -> Sequence[Tool]:
        return self._tools() if callable(self._tools) else self._tools

    async def call(self, arguments: dict[str, Any], ctx: ToolContext[Any]) -> ToolOutput:
        """Run the child to its end and return its final text.

        Returns an error result (``is_error``) for an unknown agent name, a failed child or a
        cancelled child task. Cancellation of the parent call cancels the child.
        """
        agent_name = str(arguments.get("subagent_type", ""))
        definition = self.roster.get(agent_name)
        if definition is None:
            return ToolReturn.text(
                f"Unknown agent {agent_name!r}; available: {', '.join(self.roster.names)}",
                is_error=True,
            )
        prompt = str(arguments.get("prompt", ""))
        label = str(arguments.get("description") or agent_name)
        child_id = f"sub_{uuid.uuid4().hex[:12]}"
        owner = (
            OwnerPath()
            .child("run", ctx.run_id)
            .child("tool_call", ctx.call_id)
            .child("subagent", child_id)
        )
        tools = filter_child_tools(self._parent_tools(), definition)
        model = definition.model or self.model or self.provider.default_model
        meter = _UsageMeter()
        child = Agent(
            self.provider,
            model=model,
            system_prompt=definition.prompt or None,
            tools=tools,
            settings=self.settings,
            max_rounds=self.max_rounds,
            gates=self.gates,
            sinks=(meter, *self.child_sinks),
            deps=ctx.deps,
            name=child_id,
        )
        self.usage_by_child[child_id] = Usage()

        async def body(_handle: TaskHandle | None = None) -> str:
            await self._fire_start(child_id, definition.name)
            try:
                result = await child.run(prompt)
            finally:
                self.usage_by_child[child_id] = meter.usage
                with anyio.CancelScope(shield=True):
                    await self._fire_stop(child_id, definition.name)
            return result.text

        started = SubagentStarted(
            owner=owner,
            child_id=child_id,
            agent=definition.name,
            model=child.model,
            tools=tuple(t.name for t in tools),
        )
        if self.execution_context is None:
            emit_all(self.sinks, started)
            return await self._run_inline(body, owner, child_id, definition.name, meter)
        task_id = self.execution_context.submit(
            body, owner=ctx.run_id, description=label, kind=TaskKind.SUBAGENT
        )
        emit_all(self.sinks, replace(started, task_id=task_id))
        return await self._run_task(task_id, owner, child_id, definition.name, meter)

    async def _fire_start(self, child_id: str, agent: str) -> None:
        if self.hooks is not None and self.hooks.has_hooks(HookEventName.SUBAGENT_START):
            await self.hooks.dispatch(
                HookEventName.SUBAGENT_START,
                SubagentStartInput(agent_id=child_id, agent_type=agent, **self._hook_common),
            )

    async def _fire_stop(self, child_id: str, agent: str) -> None:
        if self.hooks is not None and self.hooks.has_hooks(HookEventName.SUBAGENT_STOP):
            await self.hooks.dispatch(
                HookEventName.SUBAGENT_STOP,
                SubagentStopInput(agent_id=child_id, agent_type=agent, **self._hook_common),
            )

    async def _run_inline(
        self,
        body: Callable[[], Any],
        owner: OwnerPath,
        child_id: str,
        agent: str,
        meter: _UsageMeter,
    ) -> ToolOutput:
        try:
            text = await body()
        except anyio.get_cancelled_exc_class():
            self._finish(owner, child_id, agent, "cancelled", meter, None, None)
            raise
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
            self._finish(owner, child_id, agent, "failed", meter, error, None)
            return self._result(f"Subagent {agent} failed: {error}", child_id, agent, meter, True)
        self._finish(owner, child_id, agent, "completed", meter, None, None)
        return self._result(str(text), child_id, agent, meter, False)

    async def _run_task(
        self, task_id: str, owner: OwnerPath, child_id: str, agent: str, meter: _UsageMeter
    ) -> ToolOutput:
        assert self.execution_context is not None
        try:
            snapshot = await self.execution_context.wait(task_id)
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                await self.execution_context.kill(task_id)
            self._finish(owner, child_id, agent, "cancelled", meter, None, task_id)
            raise
        if snapshot.state is TaskState.COMPLETED:
            self._finish(owner, child_id, agent, "completed", meter, None, task_id)
            return self._result(snapshot.result or "", child_id, agent, meter, False)
        if snapshot.state is TaskState.FAILED:
            self._finish(owner, child_id, agent, "failed", meter, snapshot.error, task_id)
            text = f"Subagent {agent} failed: {snapshot.error}"
            return self._result(text, child_id, agent, meter, True)
        self._finish(owner, child_id, agent, "cancelled", meter, None, task_id)
        text = f"Subagent {agent} was stopped ({snapshot.state.value}) before it finished."
        return self._result(text, child_id, agent, meter, True)

    def _finish(
        self,
        owner: OwnerPath,
        child_id: str,
        agent: str,
        state: ChildState,
        meter: _UsageMeter,
        error: str | None,
        task_id: str | None,
    ) -> None:
        self.usage_by_child[child_id] = meter.usage
        emit_all(
            self.sinks,
            SubagentFinished(
                owner=owner,
                child_id=child_id,
                agent=agent,
                state=state,
                usage=meter.usage,
                error=error,
                task_id=task_id,
            ),
        )

    def _result(
        self, text: str, child_id: str, agent: str, meter: _UsageMeter, is_error: bool
    ) -> ToolReturn:
        usage = meter.usage
        metadata: Mapping[str, JsonValue] = {
            "child_id": child_id,
            "agent": agent,
            "usage": {
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "requests": usage.requests,
            },
        }
        base = ToolReturn.text(text, is_error=is_error)
        return ToolReturn(content=base.content, is_error=is_error, metadata=metadata)
