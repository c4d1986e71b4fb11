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

With a store, one session has one writer (issue #15, :mod:`.lease`): the session takes the
store's lease when it starts, resumes or forks, checks it at the start of every turn (a second
host is refused with :class:`~robota.session.SessionLeaseHeldError` before anything runs) and
renews it while the turn runs; :meth:`shutdown` releases it. A save that conflicts anyway is
merged, not dropped, and resume falls back to the JSONL event log (:mod:`.recovery`); the
lease and save logic lives in :mod:`.persistence`, the assembly of the agent (prompt, permission
context, tools, gates) in :mod:`._assembly`, and compaction in :mod:`._compaction`.

A :class:`~robota.framework.fallback.FallbackProvider` as the provider makes the chain the
session's (seed 003; :mod:`.chain`): each turn runs in the chain's run scope, compaction follows
the chain's compaction rule, the agent leaves retrying to the chain, and
:attr:`InteractiveSession.usage_by_model` charges each model for its own calls (:mod:`.usage`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from dataclasses import replace
from secrets import token_hex
from typing import Any

import anyio
from robota.core.agent import RunResult
from robota.core.agent.events import ModelResponded
from robota.core.cancellation import CancelToken
from robota.core.errors import RobotaError
from robota.core.events import Event, EventSink, OwnerPath, emit_all
from robota.core.hooks import HookEventName, HookRunner, PromptBlockedError, hooked_approver
from robota.core.hooks.events import (
    SessionEndInput,
    SessionStartInput,
    StopInput,
    UserPromptSubmitInput,
)
from robota.core.host.sandbox import NoSandbox, Sandbox
from robota.core.messages import MediaPart, Message, SystemMessage, TextPart, UserMessage
from robota.core.permissions import Approval, Approver, ConsentStore, PermissionGate, PermissionMode
from robota.core.tools.base import Tool
from robota.core.usage import Usage
from robota.framework.checkpoints import CheckpointStore, RestoreReport
from robota.framework.interactive._assembly import SessionAssembly
from robota.framework.interactive._compaction import SessionCompaction
from robota.framework.interactive._hosted import SessionHostedTools
from robota.framework.interactive._mcp import SessionMcp
from robota.framework.interactive._prompt import UserPrompt, prompt_text, turn_prompt
from robota.framework.interactive._wiring import Forwarder, hooks_of
from robota.framework.interactive.breakdown import ContextBreakdown, context_breakdown
from robota.framework.interactive.chain import turn_scope
from robota.framework.interactive.config import SessionConfig
from robota.framework.interactive.events import TitleAssigned
from robota.framework.interactive.lease import SessionLease, released_on_error, take_lease
from robota.framework.interactive.recovery import load_for_resume, log_created, recovered_event
from robota.framework.interactive.usage import ModelUsage
from robota.framework.prompts import PendingPrompt, PromptRegistry
from robota.session import LoadedSession, SessionRecord, load_session
from robota.tools import BuiltinToolset, Workspace
from robota.tools.sandbox import detect_sandbox

__all__ = ["InteractiveSession", "hooks_of"]


class InteractiveSession(SessionAssembly, SessionCompaction, SessionHostedTools, SessionMcp):
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
        lease: SessionLease | None = None,
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
        self._saved = record.messages
        self._lease = lease
        if lease is None and config.store is not None:  # taken at the first turn
            self._lease = SessionLease(config.store, record.id, ttl=config.lease_ttl)
        self.recovery = None
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
        self._model_usage = ModelUsage()
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
        self._mcp = self._mcp_hub()  # MCP servers from settings (._mcp; issue #18)
        self.agent = self._build_agent(record.messages)

    # -- construction ------------------------------------------------------------------------

    @classmethod
    async def start(cls, config: SessionConfig) -> InteractiveSession:
        """A new session: assembles the system prompt once, takes the session's lease and
        stores the record at the first save (if a store is configured)."""
        record = SessionRecord(
            model=config.model,
            provider=config.provider.name,
            system_prompt=cls._assemble_prompt(config),
        )
        lease = await take_lease(config.store, record.id, ttl=config.lease_ttl)
        return await cls._open(config, record, source="startup", lease=lease, created=True)

    @classmethod
    async def resume(cls, config: SessionConfig, session_id: str) -> InteractiveSession:
        """Continue a stored session under the same id; the system prompt is rebuilt from the
        current instruction files (a plain resume is not a copy).

        The session's lease is taken first, so nothing is loaded or run while another host
        holds it. A missing or unreadable snapshot is rebuilt from the event log, and messages
        the log has beyond the snapshot (a turn whose process died before saving) are added;
        either way the store is updated, :attr:`recovered_from` says so and a
        :class:`~robota.framework.interactive.events.SessionRecovered` warning is emitted.

        Raises:
            ConfigurationError: when no store is configured.
            SessionLeaseHeldError: another host holds the session's lease (names the holder
                and when its lease runs out).
            SessionNotFoundError: neither a snapshot nor an event log of that id.
            SessionUnrecoverableError: the snapshot is missing or unreadable and the event log
                cannot rebuild it (names both problems).
        """
        store = cls._require_store(config)
        lease = await take_lease(store, session_id, ttl=config.lease_ttl)  # before anything
        async with released_on_error(lease):
            loaded = await load_for_resume(store, config.event_log, session_id)
        record = replace(
            loaded.record, system_prompt=cls._assemble_prompt(config), model=config.model
        )
        return await cls._open(config, record, source="resume", lease=lease, loaded=loaded)

    @classmethod
    async def fork_of(cls, config: SessionConfig, session_id: str) -> InteractiveSession:
        """A new session with a fresh id, the parent's messages and its assembled prompt
        verbatim; the parent's record is not touched (a parent whose snapshot is missing or
        unreadable is read from its event log)."""
        store = cls._require_store(config)
        child = (await load_session(store, config.event_log, session_id)).record.fork()
        lease = await take_lease(store, child.id, ttl=config.lease_ttl)
        async with released_on_error(lease):
            record = await store.create(child)
        return await cls._open(config, record, source="fork", lease=lease, created=True)

    @classmethod
    async def _open(
        cls,
        config: SessionConfig,
        record: SessionRecord,
        *,
        source: str,
        lease: SessionLease | None,
        created: bool = False,
        loaded: LoadedSession | None = None,
    ) -> InteractiveSession:
        """Build the session and fire SessionStart; the lease is released if that fails."""
        async with released_on_error(lease):
            sandbox = await cls._sandbox_for(config)
            session = cls(config, record, source=source, sandbox=sandbox, lease=lease)
            if created:
                log_created(config.event_log, record)
            session.recovery = loaded
            notice = recovered_event(session._owner, loaded) if loaded is not None else None
            if notice is not None:
                session._forward(notice)
            await session._dispatch_start()
            await session._mcp_open()  # asks about new project MCP servers; starts nothing
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

    def set_model(self, model: str) -> None:
        """Use ``model`` from the next turn on: its model calls, compaction summaries, the
        title, and subagents whose definition names no model. The stored record's ``model``
        follows at the next save. The provider stays the same (its catalog and context window
        are asked about the new id); nothing is checked until the next call, which fails like
        any call to an unknown model (e.g. ``NotFoundError``).

        Raises:
            ConfigurationError: ``model`` is empty, or the provider is a fallback chain (each
                of its entries names its own model).
            RuntimeError: while a turn runs.
        """
        from robota.core.errors import ConfigurationError
        from robota.framework.interactive.chain import chain_of
        from robota.framework.subagents import SpawnAgentTool

        if not model.strip():
            raise ConfigurationError("the model id is empty")
        if chain_of(self.config.provider) is not None:
            raise ConfigurationError(
                "the provider is a fallback chain, whose entries name their own models; "
                "build the session with another chain instead"
            )
        if self.running:
            raise RuntimeError("the model cannot change while a turn runs")
        self.config = replace(self.config, model=model)
        self.record = replace(self.record, model=model)
        self.agent.model = model
        for tool in self.agent.tools.values():
            if isinstance(tool, SpawnAgentTool):
                tool.model = model

    def _forward(self, event: Event) -> None:
        if isinstance(event, ModelResponded):
            self._turn_usage = self._turn_usage + event.usage
            self._model_usage.add(event.model, event.usage)
            self._last_input = event.usage.input_tokens
        emit_all(self._sinks, event)

    # -- turns -------------------------------------------------------------------------------

    async def submit(self, prompt: str | Sequence[TextPart | MediaPart]) -> RunResult:
        """Run one turn and return its result; the record is saved whatever the outcome.

        ``prompt`` is text, or the user message's parts (``TextPart``/``MediaPart``), sent
        unchanged so an image reaches the provider as an image; hooks see the text form
        (media as ``[image: name]``; :mod:`._prompt`).

        Raises:
            ValueError: an empty sequence of parts; TypeError: a part of another kind
                (both before anything runs).
            RuntimeError: after :meth:`shutdown`.
            SessionLeaseHeldError: another host holds the session's lease (nothing ran: no
                hook, no model call, no tool).
            PromptBlockedError: a ``UserPromptSubmit`` hook refused the prompt (the model was
                not called, nothing was added; :meth:`stream` raises it on entry).
            RobotaError: what the turn failed with (after saving what was committed).
        """
        async with self._turn(prompt) as (token, message):
            return await self.agent.run(message, cancel=token)

    @contextlib.asynccontextmanager
    async def stream(
        self, prompt: str | Sequence[TextPart | MediaPart]
    ) -> AsyncGenerator[AsyncIterator[Event]]:
        """Run one turn (``prompt`` as for :meth:`submit`), yielding its events as they happen::

            async with session.stream("hi") as events:
                async for event in events:
                    ...

        Leaving the block early cancels the turn (saved as interrupted).
        """
        async with (
            self._turn(prompt) as (token, message),
            self.agent.stream(message, cancel=token) as events,
        ):
            yield events

    @contextlib.asynccontextmanager
    async def _turn(
        self, prompt: UserPrompt
    ) -> AsyncGenerator[tuple[CancelToken, str | UserMessage]]:
        text = prompt_text(prompt)  # a malformed prompt of parts is refused before anything
        if self._closed:
            raise RuntimeError("session is shut down")
        async with self._busy:
            await self._claim_lease()  # a second host is refused here, before anything runs
            async with self._renewing():
                await self._mcp_before_turn()  # first turn: connect MCP servers (._mcp)
                submitted = await self._hooks.dispatch(
                    HookEventName.USER_PROMPT_SUBMIT,
                    UserPromptSubmitInput(prompt=text, **self._hook_common()),
                    emit=self._forward,
                )
                if submitted.blocked:  # refused before the model is called; nothing recorded
                    raise PromptBlockedError(submitted.reason or "blocked", outcome=submitted)
                token = CancelToken()
                self._cancel = token
                before = len(self.agent.history)
                turn_id = f"turn_{len(self.turns) + 1}_{token_hex(4)}"
                self.turns.append(turn_id)
                self.checkpoints.begin_turn(turn_id)
                background = self._toolset.background if self._toolset else None
                notices = background.drain_exit_notifications() if background else []
                try:
                    with turn_scope(self.config.provider):  # a fallback chain's run (.chain)
                        yield token, turn_prompt(prompt, notices)
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

    @property
    def usage_by_model(self) -> dict[str, Usage]:
        """The session's usage per answering model id (input/output/cache tokens, requests):
        every model response of its turns and every compaction summary call, charged to the
        model that answered it — with a fallback chain, a turn that ran on two models is
        charged to each for its own calls (seed 003). Includes what the stored record had
        (resume and fork go on from it). Title calls are not counted. A copy; the README's
        "Model fallback" section has an example.
        """
        return self._model_usage.report(self.record.metadata)

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
                "\n\n".join(getattr(p, "text", "") for p in first_user.parts),
                answer.text,
            )
        except Exception:  # a failed title does not use up the naming
            return
        if not title:
            return
        self._named = True
        self.record = replace(self.record, title=title)
        if self.config.event_log is not None:
            self.config.event_log.append(self.id, "session.title_assigned", {"title": title})
        await self._save()
        self._forward(TitleAssigned(owner=self._owner, title=title))

    def _hook_common(self) -> dict[str, Any]:
        mode = self.permission_gate.context.mode
        return {
            "session_id": self.id,
            "cwd": str(self.config.workspace),
            "permission_mode": mode.value,
        }

    def cancel(self) -> bool:
        """Cancel the running turn (not the session). Returns False when idle."""
        token = self._cancel
        if token is None:
            return False
        token.cancel("cancelled by the user")
        return True

    def steer(self, text: str) -> bool:
        """Give the running turn an extra user message, read before its next model call
        (seed 004, steer).

        Returns:
            True when the running turn will read ``text``. False, keeping nothing, when no
            turn is running, the turn was cancelled, it is ending (its loop ended or it makes
            its forced last call), or it has not reached its model loop yet (its
            ``UserPromptSubmit`` hooks still run): a steer never revives a finished turn nor
            leaks into the next one. Send the text as a new turn instead.
        """
        if self._cancel is None:
            return False
        return self.agent.steer(text)

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

    # -- fork --------------------------------------------------------------------------------

    async def fork(self) -> InteractiveSession:
        """A new session with this one's messages and assembled prompt (needs a store).

        Raises:
            SessionLeaseHeldError: another host holds this session's lease.
        """
        await self._claim_lease()
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
        """Cancel a running turn, save, fire SessionEnd, stop background shells, release the
        session's lease; idempotent."""
        if self._closed:
            return
        self._closed = True
        self.cancel()
        async with self._busy:
            try:
                await self.agent.aclose()
                await self._mcp_close()
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
            finally:
                if self._lease is not None:
                    with anyio.CancelScope(shield=True):
                        await self._lease.release()

    async def __aenter__(self) -> InteractiveSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.shutdown()
