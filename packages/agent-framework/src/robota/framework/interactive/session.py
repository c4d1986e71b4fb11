"""The interactive session: where a host meets Robota (seed 003, "InteractiveSession is the
primary entry point").

An :class:`InteractiveSession` owns one conversation: the agent (core loop) with the assembled
tools and gates (permissions → hooks → host gates → checkpoints), the session record and its
explicit store, the JSONL event log, the background shells, the shell sandbox (probed once when
the session starts unless the host gives one; ``session.sandbox.guarantees`` says what it
enforces), and the session-level hooks
(SessionStart, UserPromptSubmit, Stop, SessionEnd, PreCompact). Turns are submitted with
:meth:`InteractiveSession.submit` (buffered) or :meth:`InteractiveSession.stream` (events as they
happen); :meth:`cancel` stops the running turn (the session stays usable); :meth:`steer` adds a
user message the running turn reads at its next round; :meth:`compact` summarizes older turns;
:meth:`fork` makes a new session with the same messages and assembled prompt. Every turn is
saved, whatever its outcome.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from dataclasses import replace
from secrets import token_hex
from typing import Any

import anyio
from robota.core.agent import Agent, RunResult
from robota.core.agent.events import ModelResponded
from robota.core.cancellation import CancelToken
from robota.core.errors import RobotaError
from robota.core.events import Event, EventSink, OwnerPath, emit_all
from robota.core.gate import ToolGate
from robota.core.hooks import (
    HookEventName,
    HookGate,
    HookRunner,
    PromptBlockedError,
    hook_ask_approver,
    hooked_approver,
)
from robota.core.hooks.events import (
    PreCompactInput,
    SessionEndInput,
    SessionStartInput,
    StopInput,
    UserPromptSubmitInput,
)
from robota.core.host.sandbox import NoSandbox, Sandbox
from robota.core.messages import Message, SystemMessage
from robota.core.permissions import (
    Approval,
    Approver,
    ConsentStore,
    PermissionCeiling,
    PermissionContext,
    PermissionGate,
    PermissionMode,
)
from robota.core.tools.base import RiskClass, Tool
from robota.core.usage import Usage
from robota.framework.checkpoints import CheckpointGate, CheckpointStore, RestoreReport
from robota.framework.context import assemble_system_prompt, discover_instructions
from robota.framework.interactive._wiring import Forwarder, LogSink, hooks_of, overflow_event
from robota.framework.interactive.breakdown import ContextBreakdown, context_breakdown
from robota.framework.interactive.compose import compose_tools
from robota.framework.interactive.config import SessionConfig
from robota.framework.interactive.events import (
    CompactionStarted,
    SessionCompacted,
    SessionSaved,
    TitleAssigned,
)
from robota.framework.prompts import PendingPrompt, PromptRegistry
from robota.framework.settings import cap_mode
from robota.framework.subagents import SpawnAgentTool, load_agent_definitions
from robota.session import SessionRecord
from robota.session.compaction import CompactionRecord, OverflowRecoveringProvider, compact
from robota.tools import BuiltinToolset, Workspace, builtin_toolset
from robota.tools.sandbox import detect_sandbox

__all__ = ["InteractiveSession", "hooks_of"]


class InteractiveSession:
    """One conversation with a host. Build it with :meth:`start`, :meth:`resume` or
    :meth:`fork_of`; close it with :meth:`shutdown` (or ``async with``).

    Example:
        >>> import anyio, tempfile
        >>> from pathlib import Path
        >>> from robota.core.testing.scripted import ScriptedProvider
        >>> from robota.framework.interactive import SessionConfig
        >>> async def demo() -> str:
        ...     config = SessionConfig(provider=ScriptedProvider(["Hello!"]), model="m",
        ...                            workspace=Path(tempfile.mkdtemp()), title=False)
        ...     async with await InteractiveSession.start(config) as session:
        ...         return (await session.submit("Hi")).text
        >>> anyio.run(demo)
        'Hello!'
    """

    def __init__(
        self,
        config: SessionConfig,
        record: SessionRecord,
        *,
        source: str,
        sandbox: Sandbox | None = None,
    ) -> None:
        self.config = config
        self.sandbox: Sandbox = (
            sandbox
            if sandbox is not None
            else config.sandbox or NoSandbox("no sandbox was probed for this session")
        )
        """Where the built-in ``shell`` runs commands; ``session.sandbox.guarantees`` says
        what it was verified to enforce (``NoSandbox``: nothing, and why)."""
        self._owns_sandbox = sandbox is not None and config.sandbox is None
        self.record = record
        self._source = source
        self._sinks: list[EventSink] = list(config.sinks)
        self._consent = ConsentStore()
        self._cancel: CancelToken | None = None
        self._busy = anyio.Lock()
        self._closed = False
        self._named = record.title is not None
        self._toolset: BuiltinToolset | None = None
        self.dropped_tools: tuple[str, ...] = ()
        self._turn_usage = Usage()
        self._last_input: int | None = None
        self._forwarder = Forwarder(self)
        self.prompts = PromptRegistry(sinks=[self._forwarder])
        """Open permission questions; attach a surface with ``session.prompts.attach(...)``."""
        if config.approver is not None:
            approver = config.approver

            async def host_surface(prompt: PendingPrompt) -> Approval:
                return await approver(prompt.request)

            self.prompts.attach(host_surface)
        self.workspace = Workspace.at(config.workspace)
        """The rooted workspace every built-in file tool and the checkpoint store go through."""
        self.checkpoints = CheckpointStore(config.checkpoint_dir, workspace=self.workspace)
        """Per-turn snapshots of every file a tool writes (see :meth:`rewind`)."""
        self.turns: list[str] = []
        self._hooks = HookRunner(hooks_of(config.settings), sinks=[self._forwarder])
        self._approver: Approver = hooked_approver(
            self._hooks,
            self.prompts.approver,
            session_id=record.id,
            cwd=str(config.workspace),
        )
        """Who answers an ask: ``PermissionRequest``/``Notification`` hooks first, then a
        person through :attr:`prompts` (a denial when no surface is attached)."""
        self.permission_gate = PermissionGate(self._permission_context(config.permission_mode))
        self.agent = self._build_agent(record.messages)

    # -- construction ------------------------------------------------------------------------

    @classmethod
    async def start(cls, config: SessionConfig) -> InteractiveSession:
        """A new session: assembles the system prompt once and stores the record (if a store
        is configured)."""
        record = SessionRecord(
            model=config.model,
            provider=config.provider.name,
            system_prompt=cls._assemble_prompt(config),
        )
        sandbox = await cls._sandbox_for(config)
        session = cls(config, record, source="startup", sandbox=sandbox)  # stored at first save
        session._log("session.created", record)
        await session._dispatch_start()
        return session

    @classmethod
    async def resume(cls, config: SessionConfig, session_id: str) -> InteractiveSession:
        """Continue a stored session under the same id; the system prompt is rebuilt from the
        current instruction files (a plain resume is not a copy).

        Raises:
            ConfigurationError: when no store is configured.
            SessionNotFoundError: when the id is unknown.
        """
        store = cls._require_store(config)
        record = await store.get(session_id)
        record = replace(record, system_prompt=cls._assemble_prompt(config), model=config.model)
        session = cls(config, record, source="resume", sandbox=await cls._sandbox_for(config))
        await session._dispatch_start()
        return session

    @classmethod
    async def fork_of(cls, config: SessionConfig, session_id: str) -> InteractiveSession:
        """A new session with a fresh id, the parent's messages and its assembled prompt
        verbatim; the parent's record is not touched."""
        store = cls._require_store(config)
        parent = await store.get(session_id)
        record = await store.create(parent.fork())
        session = cls(config, record, source="fork", sandbox=await cls._sandbox_for(config))
        session._log("session.created", record)
        await session._dispatch_start()
        return session

    @staticmethod
    async def _sandbox_for(config: SessionConfig) -> Sandbox:
        """The host's sandbox, or one probed now (issue 11: a probe, not an assumption)."""
        if config.sandbox is not None:
            return config.sandbox
        if config.default_tools is not None:
            return NoSandbox("the built-in tools were replaced (default_tools); none probed")
        return await detect_sandbox(hidden_paths=config.sandbox_hidden_paths)

    @staticmethod
    def _require_store(config: SessionConfig) -> Any:
        from robota.core.errors import ConfigurationError

        if config.store is None:
            raise ConfigurationError("resume and fork need a session store (persistence is off)")
        return config.store

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
        return [
            SpawnAgentTool(
                provider=self.config.provider,
                roster=roster,
                tools=tools,
                model=self.config.model,
                gates=gates,
                sinks=[self._forwarder],
                settings=self.config.model_settings,
                hooks=self._hooks,
                hook_session_id=self.record.id,
                hook_cwd=str(self.config.workspace),
            )
        ]

    def _build_agent(self, history: Sequence[Message]) -> Agent:
        gates = self._gates()
        composed = compose_tools(self._default_tier(), self.config.additional_tools)
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
            gates=gates,
            sinks=[self._forwarder, LogSink(self)],
            history=tuple(history),
            journal=self.config.journal,
        )

    # -- properties --------------------------------------------------------------------------

    @property
    def id(self) -> str:
        """The session id."""
        return self.record.id

    @property
    def _owner(self) -> OwnerPath:
        return OwnerPath().child("session", self.record.id)

    @property
    def messages(self) -> tuple[Message, ...]:
        """The conversation (without the system prompt)."""
        return tuple(m for m in self.agent.history if not isinstance(m, SystemMessage))

    @property
    def running(self) -> bool:
        """True while a turn runs."""
        return self._busy.locked()

    @property
    def tools(self) -> tuple[Tool, ...]:
        """The tools the agent has."""
        return tuple(self.agent.tools.values())

    def subscribe(self, sink: EventSink) -> None:
        """Deliver every event of this session to ``sink``."""
        self._sinks.append(sink)

    def set_permission_mode(self, mode: PermissionMode) -> None:
        """Switch the permission mode for later calls."""
        self.permission_gate.context = self._permission_context(mode)

    def _forward(self, event: Event) -> None:
        if isinstance(event, ModelResponded):
            self._turn_usage = self._turn_usage + event.usage
            self._last_input = event.usage.input_tokens
        emit_all(self._sinks, event)

    def _log(self, kind: str, record: SessionRecord) -> None:
        if self.config.event_log is not None:
            self.config.event_log.append(
                record.id,
                kind,
                {
                    "model": record.model,
                    "provider": record.provider,
                    "system_prompt": record.system_prompt,
                    "parent_id": record.parent_id,
                },
            )

    # -- turns -------------------------------------------------------------------------------

    async def submit(self, prompt: str) -> RunResult:
        """Run one turn and return its result; the record is saved whatever the outcome.

        Raises:
            RuntimeError: after :meth:`shutdown`.
            PromptBlockedError: a ``UserPromptSubmit`` hook refused the prompt (the model was
                not called, nothing was added; :meth:`stream` raises it on entry).
            RobotaError: what the turn failed with (after saving what was committed).
        """
        async with self._turn(prompt) as (token, text):
            return await self.agent.run(text, cancel=token)

    @contextlib.asynccontextmanager
    async def stream(self, prompt: str) -> AsyncGenerator[AsyncIterator[Event]]:
        """Run one turn, yielding its events as they happen::

            async with session.stream("hi") as events:
                async for event in events:
                    ...

        Leaving the block early cancels the turn (saved as interrupted).
        """
        async with (
            self._turn(prompt) as (token, text),
            self.agent.stream(text, cancel=token) as events,
        ):
            yield events

    @contextlib.asynccontextmanager
    async def _turn(self, prompt: str) -> AsyncGenerator[tuple[CancelToken, str]]:
        if self._closed:
            raise RuntimeError("session is shut down")
        async with self._busy:
            submitted = await self._hooks.dispatch(
                HookEventName.USER_PROMPT_SUBMIT,
                UserPromptSubmitInput(prompt=prompt, **self._hook_common()),
                emit=self._forward,
            )
            if submitted.blocked:  # refused before the model is called; nothing is recorded
                raise PromptBlockedError(submitted.reason or "blocked", outcome=submitted)
            token = CancelToken()
            self._cancel = token
            before = len(self.agent.history)
            turn_id = f"turn_{len(self.turns) + 1}_{token_hex(4)}"
            self.turns.append(turn_id)
            self.checkpoints.begin_turn(turn_id)
            notices = self._toolset.background.drain_exit_notifications() if self._toolset else []
            text = "\n\n".join([*notices, prompt]) if notices else prompt
            try:
                yield token, text
            finally:
                self._cancel = None
                with anyio.CancelScope(shield=True):
                    await self._after_turn(before)

    async def _after_turn(self, before: int) -> None:
        await self._save()
        await self._hooks.dispatch(
            HookEventName.STOP, StopInput(**self._hook_common()), emit=self._forward
        )
        if self.config.title and not self._named and len(self.agent.history) > before:
            await self._name()
        await self._maybe_auto_compact()

    def _context_window(self) -> int | None:
        info = self.config.provider.model_info(self.config.model)
        return info.context_window if info is not None else None

    async def _maybe_auto_compact(self) -> None:
        threshold = self.config.auto_compact
        window = self._context_window()
        if threshold is None or window is None or self._last_input is None:
            return
        if self._last_input <= threshold * window:
            return
        try:
            await self._compact(keep_last_turns=2, reason="auto")
        except RobotaError:
            return  # nothing older to compact, or the summary failed: the turn stays as is

    def context_breakdown(self) -> ContextBreakdown:
        """How the next request's estimated tokens divide (system prompt, tools,
        conversation) against the model's context window."""
        return context_breakdown(
            system_prompt=self.agent.system_prompt,
            tools=self.tools,
            messages=self.messages,
            context_window=self._context_window(),
            last_reported_input=self._last_input,
        )

    async def kill_background_task(self, task_id: str) -> bool:
        """Stop a background shell task (the model sees its exit as a notification on the next
        turn). Returns False when this session has no such task."""
        if self._toolset is None:
            return False
        try:
            await self._toolset.background.kill(task_id)
        except (KeyError, RobotaError):
            return False
        return True

    async def _name(self) -> None:
        from robota.framework.title import generate_title

        first_user = next((m for m in self.messages if m.kind == "user"), None)
        answer = next(
            (m for m in reversed(self.messages) if m.kind == "assistant" and m.text), None
        )
        if first_user is None or answer is None:
            return
        try:
            title = await generate_title(
                self.config.title_provider or self.config.provider,
                self.config.model,
                "".join(getattr(p, "text", "") for p in first_user.parts),
                answer.text,
            )
        except Exception:  # a failed title does not use up the naming
            return
        if not title:
            return
        self._named = True
        self.record = replace(self.record, title=title)
        await self._save()
        self._forward(TitleAssigned(owner=self._owner, title=title))

    def _hook_common(self) -> dict[str, Any]:
        mode = self.permission_gate.context.mode
        return {
            "session_id": self.id,
            "cwd": str(self.config.workspace),
            "permission_mode": mode.value,
        }

    async def _save(self) -> None:
        self.record = replace(
            self.record,
            messages=self.messages,
            usage=self.record.usage + self._turn_usage,
            system_prompt=self.agent.system_prompt,
        )
        self._turn_usage = Usage()
        if self.config.store is None:
            return
        if self.record.revision == 0:
            self.record = await self.config.store.create(self.record)
        else:
            self.record = await self.config.store.save(self.record)
        self._forward(
            SessionSaved(owner=self._owner, session_id=self.id, revision=self.record.revision)
        )

    def cancel(self) -> bool:
        """Cancel the running turn (not the session). Returns False when idle."""
        token = self._cancel
        if token is None:
            return False
        token.cancel("cancelled by the user")
        return True

    def steer(self, text: str) -> None:
        """Give the running turn an extra user message, read before its next model call.

        Raises:
            RuntimeError: when no turn is running.
        """
        if self._cancel is None:
            raise RuntimeError("no turn is running")
        self.agent.steer(text)

    def cancel_tool(self, call_id: str) -> bool:
        """Cancel one running tool call by Robota's call id; its result says it was
        cancelled and the turn goes on. Returns False when no such call is running."""
        return self.agent.cancel_tool(call_id)

    def rewind(self, turn_id: str | None = None) -> RestoreReport:
        """Restore every file tools wrote in ``turn_id`` (default: the last turn) and in any
        later turn to its state before that turn; files the turn created are deleted. The
        conversation is not changed.

        Raises:
            RuntimeError: while a turn runs, or when there is no turn yet.
            CheckpointNotFoundError: for an unknown turn id.
        """
        if self._busy.locked():
            raise RuntimeError("cannot rewind while a turn runs")
        target = turn_id or (self.turns[-1] if self.turns else None)
        if target is None:
            raise RuntimeError("no turn to rewind")
        return self.checkpoints.restore(target)

    # -- compaction / fork -------------------------------------------------------------------

    async def compact(
        self, *, keep_last_turns: int = 2, reason: str = "manual"
    ) -> CompactionRecord:
        """Summarize older turns now; the removed messages are kept in the record's metadata.

        Raises:
            RuntimeError: while a turn runs.
            CompactionError: when there is nothing to compact or the summary is empty.
        """
        if self._busy.locked():
            raise RuntimeError("cannot compact while a turn runs")
        async with self._busy:
            return await self._compact(keep_last_turns=keep_last_turns, reason=reason)

    async def _compact(self, *, keep_last_turns: int, reason: str) -> CompactionRecord:
        self._forward(CompactionStarted(owner=self._owner, reason=reason))
        await self._hooks.dispatch(
            HookEventName.PRE_COMPACT,
            PreCompactInput(trigger=reason, **self._hook_common()),
            emit=self._forward,
        )
        record = await compact(
            self.config.provider,
            self.config.model,
            self.messages,
            reason=reason,
            keep_last_turns=keep_last_turns,
            workspace=self.config.workspace,
        )
        self.agent = self._build_agent(record.messages)
        history = list(self.record.metadata.get("compactions", []))
        history.append(record.to_json())
        self.record = replace(
            self.record, metadata={**self.record.metadata, "compactions": history}
        )
        await self._save()
        self._forward(
            SessionCompacted(
                owner=self._owner, removed=len(record.removed), kept=len(record.messages)
            )
        )
        return record

    async def fork(self) -> InteractiveSession:
        """A new session with this one's messages and assembled prompt (needs a store)."""
        await self._save()
        return await InteractiveSession.fork_of(self.config, self.id)

    # -- lifecycle ---------------------------------------------------------------------------

    async def _dispatch_start(self) -> None:
        await self._hooks.dispatch(
            HookEventName.SESSION_START,
            SessionStartInput(source=self._source, **self._hook_common()),
            emit=self._forward,
        )

    async def shutdown(self) -> None:
        """Cancel a running turn, save, fire SessionEnd, stop background shells; idempotent."""
        if self._closed:
            return
        self._closed = True
        self.cancel()
        async with self._busy:
            await self.agent.aclose()
            await self._hooks.dispatch(
                HookEventName.SESSION_END,
                SessionEndInput(reason="other", **self._hook_common()),
                emit=self._forward,
            )
            if self._toolset is not None:
                await self._toolset.aclose()
            if self._owns_sandbox:
                await self.sandbox.aclose()
            self.workspace.close()

    async def __aenter__(self) -> InteractiveSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.shutdown()
