"""The :class:`Agent` (seed 000, "Run Concurrency Contract", "System Prompt", "Disposal
Contract", "Canonical Direct Runtime Tool Invocation").

An agent owns one conversation history and runs prompts against it one at a time (a FIFO slot:
``anyio.Lock`` is fair); separate agents run concurrently. The loop itself lives in
:mod:`robota.core.agent.run`; this class holds configuration, history and the slot.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import anyio
import anyio.lowlevel
from robota.core.agent._continuation import checked_checkpoint
from robota.core.agent.batch import ToolRunner, error_result
from robota.core.agent.context import ContextTracker
from robota.core.agent.events import HistoryCommitted, ToolCallSkipped
from robota.core.agent.history import History
from robota.core.agent.output import OutputSpec
from robota.core.agent.pairing import HistoryProcessor
from robota.core.agent.pause import (
    Decision,
    PauseState,
    PauseStateError,
    RunPaused,
    settle_decisions,
)
from robota.core.agent.result import RunResult
from robota.core.agent.run import (
    Resumption,
    RunControl,
    RunSpec,
    execute_run,
    execute_until_pause,
    resume_run,
)
from robota.core.agent.stream import AgentStream
from robota.core.agent.texts import AgentTexts
from robota.core.cancellation import CancelToken
from robota.core.errors import (
    AgentClosedError,
    ConfigurationError,
    JournalError,
    RunCancelledError,
)
from robota.core.events import Event, EventSink, OwnerPath, emit_all
from robota.core.gate import ToolGate
from robota.core.journal.checkpoint import Checkpoint, ContinuationError
from robota.core.journal.port import Journal, JournalRun
from robota.core.messages import JsonValue, Message, ToolCallPart, ToolResultPart, UserMessage
from robota.core.provider import PayloadCallback, Provider
from robota.core.residency import ToolCatalog
from robota.core.settings import ModelSettings, merge_settings
from robota.core.tools.base import Tool

__all__ = ["Agent"]

Prompt = str | UserMessage


class Agent:
    """A model, tools and a conversation history, run one prompt at a time.

    Args:
        provider: The provider to call.
        model: Model id (defaults to ``provider.default_model``).
        system_prompt: The head system message (None: none). Replace it live through
            :attr:`system_prompt`.
        tools: Registered tools (names must be unique).
        settings: Agent-level settings (merged under each run's settings).
        output_type: Default structured output type (pydantic model class or JSON Schema dict).
        max_rounds: Round budget per run (0: no cap). Default 25.
        gates: Tool gates, consulted in order.
        sinks: Event sinks.
        deps: Dependencies handed to tool bodies (a run may override).
        name: The agent's id in event owner paths.
        history: Earlier messages to continue from (system messages in it are replaced by
            ``system_prompt``).
        max_parallel_tools: Bound on concurrently running tool bodies in a batch. Default 8.
        output_retries: Validation retries of a structured answer after the first attempt.
        max_identical_tool_calls: Byte-identical invocations of one tool allowed per run before
            :class:`~robota.core.errors.RepeatedToolInputError` (0: no limit). Default 5.
        unknown_tool_rounds: Consecutive rounds with unknown tool calls that trip the loop guard
            (0: off). Default 3.
        context_threshold: Fraction of the context window above which a request is refused.
        tool_result_threshold: Fraction above which later tool results of a batch are replaced.
        texts: Model-facing texts (neutral defaults).
        journal: An execution journal the host owns exclusively (seed 000, "Execution Journal
            and Continuation"). Each run then records its checkpoint before the first model
            call, every response before use, every tool effect (start with the arguments it
            runs with, then its result) and its outcome; a failed write fails the run with
            :class:`~robota.core.errors.JournalError`. See :meth:`continue_run`.
        history_processors: Pure functions ``(messages) -> tuple[Message, ...]`` applied in
            order to the provider-facing view of every request (never to the history itself);
            the pairing repair always runs after them.
        on_payload: Native request/response payload callback put on every
            :class:`~robota.core.provider.ModelRequest` (replay capture).

    Raises:
        ConfigurationError: no model given and the provider has no default; duplicate tool
            names.

    Example:
        >>> from robota.core.testing.scripted import ScriptedProvider
        >>> agent = Agent(ScriptedProvider(["Hello!"]), system_prompt="Be brief.")
        >>> agent.run_sync("Hi").text
        'Hello!'
    """

    def __init__(
        self,
        provider: Provider,
        *,
        model: str | None = None,
        system_prompt: str | None = None,
        tools: Sequence[Tool] = (),
        settings: ModelSettings | None = None,
        output_type: Any = None,
        max_rounds: int = 25,
        gates: Sequence[ToolGate] = (),
        sinks: Sequence[EventSink] = (),
        deps: Any = None,
        name: str = "agent",
        history: Sequence[Message] = (),
        max_parallel_tools: int = 8,
        output_retries: int = 2,
        max_identical_tool_calls: int = 5,
        unknown_tool_rounds: int = 3,
        context_threshold: float = 0.95,
        tool_result_threshold: float = 0.9,
        texts: AgentTexts | None = None,
        journal: Journal | None = None,
        history_processors: Sequence[HistoryProcessor] = (),
        on_payload: PayloadCallback | None = None,
        defer_tools: bool | None = None,
    ) -> None:
        resolved = model or provider.default_model
        if not resolved:
            raise ConfigurationError("no model given and the provider has no default model")
        self.provider = provider
        self.model: str = resolved
        self.settings = settings or ModelSettings()
        self.output_type = output_type
        if max_rounds < 0:
            raise ConfigurationError(f"max_rounds must be >= 0 (0: no cap), got {max_rounds}")
        self.max_rounds = max_rounds
        self.gates = tuple(gates)
        self.sinks = tuple(sinks)
        self.deps = deps
        self.name = name
        self.max_parallel_tools = max_parallel_tools
        self.output_retries = output_retries
        self.max_identical_tool_calls = max_identical_tool_calls
        self.unknown_tool_rounds = unknown_tool_rounds
        self.context_threshold = context_threshold
        self.tool_result_threshold = tool_result_threshold
        self.texts = texts or AgentTexts()
        self.journal = journal
        self.history_processors = tuple(history_processors)
        self.on_payload = on_payload
        names: set[str] = set()
        for tool in tools:
            if tool.name in names:
                raise ConfigurationError(f"two tools are named {tool.name!r}")
            names.add(tool.name)
        info = provider.model_info(resolved)
        self._catalog = ToolCatalog(
            tools,
            defer=defer_tools,
            context_window=info.context_window if info is not None else None,
        )
        self._tools: dict[str, Tool] = self._catalog.all()
        self._control = RunControl()
        self._owner = OwnerPath().child("agent", name)
        self._history = History(system_prompt, history, on_commit=self._on_commit)
        self._tracker = ContextTracker()
        self._lock: anyio.Lock | None = None
        self._lock_loop: object = None
        self._closed = False
        self._close_errors: list[BaseException] = []
        self._closing: anyio.Event | None = None
        self._stream_sink: list[Any] = []

    # --- state ----------------------------------------------------------------------------

    @property
    def system_prompt(self) -> str | None:
        """The system prompt; setting it replaces the history's head message, so the next
        request carries it."""
        return self._history.system_prompt

    @system_prompt.setter
    def system_prompt(self, value: str | None) -> None:
        self._history.system_prompt = value

    @property
    def history(self) -> tuple[Message, ...]:
        """The conversation (system head first), a read-only snapshot."""
        return self._history.messages

    @property
    def tools(self) -> Mapping[str, Tool]:
        """Registered tools by name (deferred ones included)."""
        return dict(self._tools)

    @property
    def closed(self) -> bool:
        """True once :meth:`aclose` started."""
        return self._closed

    @property
    def catalog(self) -> ToolCatalog:
        """The tool catalog (residency: resident, deferred and loaded tools)."""
        return self._catalog

    def _offered_tools(self) -> Sequence[Tool]:
        """The tools offered to the model this round: the catalog's offer (resident, loaded,
        and ``tool_search`` while anything is withheld) that every gate offers. Read fresh every
        round, so a tool loaded by ``tool_search`` in round N is callable in round N+1."""
        return [tool for tool in self._catalog.offered() if all(g.offers(tool) for g in self.gates)]

    def steer(self, text: str) -> None:
        """Queue a user message for the running run; it is committed before the next model
        call (and keeps a run going that would otherwise have ended on that answer).

        Raises:
            RuntimeError: when no run is in flight.
        """
        if self._control.runner is None:
            raise RuntimeError("no run is in flight to steer")
        self._control.steering.append(text)

    def cancel_tool(self, call_id: str) -> bool:
        """Cancel one running tool call by Robota's call id (see ``tool.call_started``
        events); its result says it was cancelled and the run goes on. Returns False when no
        such call is running."""
        runner = self._control.runner
        return runner.cancel_call(call_id) if runner is not None else False

    def _on_commit(self, message: Message, index: int) -> None:
        owner = self._owner
        self._emit(HistoryCommitted(owner=owner, message=message, index=index))

    def _emit(self, event: Event) -> None:
        emit_all(self.sinks, event)
        for send in tuple(self._stream_sink):
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                send(event)

    def _slot(self) -> anyio.Lock:
        loop = anyio.lowlevel.current_token().native_token
        if self._lock is None or self._lock_loop is not loop:
            self._lock = anyio.Lock()
            self._lock_loop = loop
        return self._lock

    # --- runs -----------------------------------------------------------------------------

    async def run(
        self,
        prompt: Prompt,
        *,
        output_type: Any = None,
        settings: ModelSettings | None = None,
        max_rounds: int | None = None,
        deps: Any = None,
        cancel: CancelToken | None = None,
        run_id: str | None = None,
    ) -> RunResult:
        """Run ``prompt`` to its end and return the :class:`RunResult`.

        Waits for earlier runs on this agent (FIFO). Cancelling ``cancel`` while the run is in
        flight resolves it as ``interrupted``.

        Args:
            prompt: Text or a :class:`~robota.core.messages.UserMessage`.
            output_type: Structured output type for this run (overrides the agent's).
            settings: Run settings, merged over the agent's.
            max_rounds: Round budget for this run (0: no cap; None: the agent's).
            deps: Dependencies for tool bodies (None: the agent's).
            cancel: The run's cancellation signal.
            run_id: The run's id (None: a fresh ``run_<hex>`` id); a host names it to find the
                run in its journal later.

        Raises:
            AgentClosedError: the agent was closed.
            RunCancelledError: ``cancel`` was already cancelled when the run's turn came (no
                provider call, no history change).
            RobotaError: see :func:`robota.core.agent.run.execute_run`.
        """
        result = await self._run(
            prompt, output_type, settings, max_rounds, deps, cancel or CancelToken(), None, run_id
        )
        assert isinstance(result, RunResult)
        return result

    async def run_until_pause(
        self,
        prompt: Prompt,
        *,
        output_type: Any = None,
        settings: ModelSettings | None = None,
        max_rounds: int | None = None,
        deps: Any = None,
        cancel: CancelToken | None = None,
        run_id: str | None = None,
    ) -> RunResult | RunPaused:
        """Like :meth:`run`, but a model response calling a tool whose ``execution`` is
        ``approval`` or ``external`` ends the run with :class:`RunPaused` before any call of
        that response executes (seed 002, "Deferred tool execution").

        The history then ends with the assistant message holding the calls (no results yet).
        Continue with :meth:`resume` on this agent or on a fresh one built with the same
        provider and tools (``RunPaused.state`` round-trips through JSON).

        Example:
            >>> from robota.core.agent.pause import Approve
            >>> from robota.core.testing.scripted import ScriptedProvider, tool_call
            >>> from robota.core.tools.function import tool
            >>> @tool
            ... async def delete(path: str) -> str:
            ...     \"\"\"Delete a file.\"\"\"
            ...     return f"deleted {path}"
            >>> delete.execution = "approval"
            >>> provider = ScriptedProvider([[tool_call("c1", "delete", {"path": "a"})], "Done."])
            >>> agent = Agent(provider, tools=[delete])
            >>> paused = anyio.run(agent.run_until_pause, "Delete a")
            >>> [(p.key, p.name) for p in paused.pending]
            [('c1', 'delete')]
            >>> anyio.run(agent.resume, paused.state, {"c1": Approve()}).text
            'Done.'

        Raises:
            ConfigurationError: the agent has a journal (pauses are not journaled yet).
            The errors of :meth:`run` except ``PauseRequiredError``.
        """
        self._refuse_journal()
        return await self._run(
            prompt,
            output_type,
            settings,
            max_rounds,
            deps,
            cancel or CancelToken(),
            None,
            run_id,
            pausable=True,
        )

    async def resume(
        self,
        state: PauseState,
        decisions: Mapping[str, Decision],
        *,
        output_type: Any = None,
        deps: Any = None,
        cancel: CancelToken | None = None,
    ) -> RunResult | RunPaused:
        """Continue a paused run with one decision per pending call (seed 002, "Deferred tool
        execution").

        The decisions are checked before anything runs. The agent's history must be empty (a
        fresh agent: it is filled from ``state.history``) or equal to ``state.history`` (the
        agent that paused); the system prompt becomes ``state.system_prompt``. Then the paused
        batch runs once: ``Approve`` runs the call through validation, gates and body;
        ``Deny(message)`` gives an error result with the message; ``ExternalResult`` is used as
        given without running application code; the immediate calls of the same response run
        now. One tool-result message (call order) is committed and the loop continues with the
        next model call: the original request is never sent again. Settings, round budget,
        usage and retry counters continue from the state (``result.usage``/``rounds`` cover the
        whole run; ``new_messages`` only what this call appended). Tools are this agent's
        tools named in ``state.offered_tools`` that its gates offer; a call naming a tool no
        longer registered gets the unknown-tool result.

        Args:
            state: ``RunPaused.state`` (or ``PauseState.from_json`` of it).
            decisions: Decision per ``PendingCall.key``.
            output_type: The run's output type when it was a pydantic model (its schema must
                equal the saved one); None uses the saved schema as a dict schema.
            deps: Dependencies for tool bodies (None: the agent's).
            cancel: The resumed invocation's cancellation signal.

        Returns:
            The run's result, or another :class:`RunPaused` when a later response calls a
            gated tool.

        Raises:
            DecisionError: a pending call without a decision, a decision for no pending call,
                or ``Approve``/``ExternalResult`` given to the other execution kind.
            PauseStateError: an inconsistent state (``corrupt``), a live history that is
                neither empty nor the state's (``conflicting_history``), or an output type
                whose schema differs (``incompatible``).
            ConfigurationError: the agent has a journal.
            AgentClosedError, RunCancelledError: as for :meth:`run`.
        """
        if self._closed:
            raise AgentClosedError(f"agent {self.name!r} is closed; it accepts no new runs")
        self._refuse_journal()
        settled = settle_decisions(state, decisions)
        given = OutputSpec.of(output_type) if output_type is not None else None
        if given is not None and dict(given.schema) != dict(state.output_schema or {}):
            raise PauseStateError(
                "the output type's schema differs from the paused run's", reason="incompatible"
            )
        output = given
        if output is None and state.output_schema is not None:
            output = OutputSpec.of(dict(state.output_schema))
        token = cancel or CancelToken()
        async with self._slot():
            self._refuse_if(token)
            if not self._history.body:
                self._history.restore(state.history)
            elif self._history.body != state.history:
                raise PauseStateError(
                    "the agent's history is neither empty nor the paused run's history",
                    reason="conflicting_history",
                )
            self._history.system_prompt = state.system_prompt
            spec = self._spec(
                output=output,
                settings=state.settings,
                max_rounds=state.max_rounds,
                deps=deps,
                run_id=state.run_id,
            )
            offered: dict[str, Tool] = {}
            for name in state.offered_tools:
                tool = self._tools.get(name)
                if tool is not None and all(g.offers(tool) for g in self.gates):
                    offered[name] = tool
            resumption = Resumption(
                state=state,
                settled=settled,
                offered=offered,
                decisions=tuple((p.key, decisions[p.key].kind) for p in state.pending),
            )
            return await resume_run(spec, resumption, token)

    def _refuse_journal(self) -> None:
        if self.journal is not None:
            raise ConfigurationError(
                "run_until_pause/resume are not available on a journaled agent: a pause is not "
                "recorded in the execution journal"
            )

    def stream(
        self,
        prompt: Prompt,
        *,
        output_type: Any = None,
        settings: ModelSettings | None = None,
        max_rounds: int | None = None,
        deps: Any = None,
        cancel: CancelToken | None = None,
        run_id: str | None = None,
    ) -> AgentStream:
        """Like :meth:`run`, streaming events: ``async with agent.stream(p) as s: async for e
        in s: ...`` then ``s.result``. The run takes its FIFO slot when iteration starts.

        Raises:
            AgentClosedError: the agent was closed (raised when iteration starts).
        """
        own = CancelToken()
        if cancel is not None:
            cancel.on_cancel(lambda: own.cancel(cancel.reason))

        async def start(send: Any, token: CancelToken) -> RunResult:
            result = await self._run(
                prompt, output_type, settings, max_rounds, deps, token, send, run_id
            )
            assert isinstance(result, RunResult)
            return result

        return AgentStream(start, own)

    def run_sync(
        self,
        prompt: Prompt,
        *,
        output_type: Any = None,
        settings: ModelSettings | None = None,
        max_rounds: int | None = None,
        deps: Any = None,
        run_id: str | None = None,
    ) -> RunResult:
        """Run :meth:`run` in a new event loop (``anyio.run``).

        Raises:
            RuntimeError: when called from a running event loop (use ``await agent.run``).
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise RuntimeError(
                "Agent.run_sync cannot be called from a running event loop; "
                "use `await agent.run(...)` instead"
            )
        call = functools.partial(
            self.run,
            prompt,
            output_type=output_type,
            settings=settings,
            max_rounds=max_rounds,
            deps=deps,
            run_id=run_id,
        )
        return anyio.run(call)

    def _spec(
        self,
        *,
        output: OutputSpec | None,
        settings: ModelSettings,
        max_rounds: int,
        deps: Any,
        run_id: str | None,
        recorded: JournalRun | None = None,
    ) -> RunSpec:
        return RunSpec(
            provider=self.provider,
            model=self.model,
            history=self._history,
            tracker=self._tracker,
            offered_tools=self._offered_tools,
            gates=self.gates,
            texts=self.texts,
            emit=self._emit,
            owner=self._owner,
            settings=settings,
            output=output,
            output_retries=self.output_retries,
            max_rounds=max_rounds,
            deps=self.deps if deps is None else deps,
            max_parallel_tools=self.max_parallel_tools,
            identical_limit=self.max_identical_tool_calls or None,
            unknown_tool_rounds=self.unknown_tool_rounds,
            context_threshold=self.context_threshold,
            tool_result_threshold=self.tool_result_threshold,
            run_id=run_id,
            journal=self.journal,
            recorded=recorded,
            history_processors=self.history_processors,
            on_payload=self.on_payload,
            control=self._control,
        )

    def _refuse_if(self, cancel: CancelToken) -> None:
        if cancel.cancelled:
            reason = cancel.reason
            if isinstance(reason, RunCancelledError):
                raise reason
            raise RunCancelledError("the run was cancelled before it started", reason=reason)

    async def _run(
        self,
        prompt: Prompt,
        output_type: Any,
        settings: ModelSettings | None,
        max_rounds: int | None,
        deps: Any,
        cancel: CancelToken,
        send: Any,
        run_id: str | None = None,
        pausable: bool = False,
    ) -> RunResult | RunPaused:
        if self._closed:
            raise AgentClosedError(f"agent {self.name!r} is closed; it accepts no new runs")
        kind = output_type if output_type is not None else self.output_type
        spec = self._spec(
            output=OutputSpec.of(kind) if kind is not None else None,
            settings=merge_settings(self.settings, settings),
            max_rounds=self.max_rounds if max_rounds is None else max_rounds,
            deps=deps,
            run_id=run_id,
        )
        message = prompt if isinstance(prompt, UserMessage) else UserMessage.of(prompt)
        async with self._slot():
            self._refuse_if(cancel)
            if self.journal is not None:
                spec.run_id = spec.run_id or f"run_{uuid.uuid4().hex[:16]}"
                spec.checkpoint = Checkpoint(
                    history=self._history.body,
                    system_prompt=self._history.system_prompt,
                    prompt=message,
                    model=self.model,
                    max_rounds=spec.max_rounds,
                    settings=spec.settings,
                    output_schema=spec.output.schema if spec.output is not None else None,
                    tools=tuple(sorted(t.name for t in self._offered_tools())),
                )
            if send is not None:
                self._stream_sink.append(send)
                self._control.streaming = True
            try:
                if pausable:
                    return await execute_until_pause(spec, message, cancel)
                return await execute_run(spec, message, cancel)
            finally:
                if send is not None:
                    self._stream_sink.remove(send)
                    self._control.streaming = False

    async def continue_run(
        self,
        run_id: str,
        *,
        output_type: Any = None,
        deps: Any = None,
        cancel: CancelToken | None = None,
    ) -> RunResult:
        """Continue journaled run ``run_id`` after a crash, without new input (seed 000,
        "Execution Journal and Continuation").

        Restores the history from the run's checkpoint (when the agent's history is empty) and
        runs the same prompt again under the same run id with the round budget and settings the
        run started with: model calls with a recorded response are answered from the journal
        (not sent), tool calls with a recorded result get that result (the body does not run),
        a model call without a recorded response is sent again, and a tool call whose effect
        started without a recorded result is reported interrupted
        (:data:`~robota.core.journal.INTERRUPTED_EFFECT_TEXT`) — or run again when the tool is
        ``idempotent``. The result holds the same messages an uncrashed run would have (modulo
        interrupted results). The restored history stays with the agent.

        Args:
            run_id: The run to continue.
            output_type: The run's structured output type when it was a pydantic model (its
                schema must equal the saved one); None uses the saved schema as a dict schema.
            deps: Dependencies for tool bodies (None: the agent's).
            cancel: The continuation's cancellation signal.

        Raises:
            ContinuationError: no journal, unknown run, finished run, unreadable checkpoint, an
                incompatible agent (model, system prompt, tools, output schema), or a non-empty
                live history that differs from the checkpoint's (never overwritten).
            JournalError: the journal could not be read or a write failed.
            AgentClosedError, RunCancelledError: as for :meth:`run`.
        """
        if self._closed:
            raise AgentClosedError(f"agent {self.name!r} is closed; it accepts no new runs")
        journal = self.journal
        if journal is None:
            raise ContinuationError(
                "this agent has no journal to continue from", reason="no_journal", run_id=run_id
            )
        token = cancel or CancelToken()
        async with self._slot():
            self._refuse_if(token)
            try:
                run = await journal.load_run(run_id)
            except JournalError:
                raise
            except Exception as exc:
                raise JournalError(f"journal read failed for run {run_id}: {exc}") from exc
            given = OutputSpec.of(output_type) if output_type is not None else None
            checkpoint = checked_checkpoint(
                run,
                run_id=run_id,
                model=self.model,
                system_prompt=self._history.system_prompt,
                tools=self._tools.keys(),
                output_schema=given.schema if given is not None else None,
                live_history=self._history.body,
            )
            if not self._history.body:
                self._history.restore(checkpoint.history)
            output = given
            if output is None and checkpoint.output_schema is not None:
                output = OutputSpec.of(dict(checkpoint.output_schema))
            spec = self._spec(
                output=output,
                settings=checkpoint.settings,
                max_rounds=checkpoint.max_rounds,
                deps=deps,
                run_id=run_id,
                recorded=run,
            )
            return await execute_run(spec, checkpoint.prompt, token)

    # --- direct tool invocation -----------------------------------------------------------

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, JsonValue] | None,
        *,
        deps: Any = None,
        cancel: CancelToken | None = None,
    ) -> ToolResultPart:
        """Run a registered tool (deferred ones included) without a model turn, through the
        same validation, gates and events as a model's call (``ToolCallRequest.direct=True``).

        Does not take the run slot and does not touch history. Direct invocation never
        bypasses a tool allowlist (seed 000, "Canonical Direct Runtime Tool Invocation"): a
        tool a gate withholds from the model (``gate.offers(tool)`` is False, e.g. a deny rule
        naming the whole tool) is refused without running anything — a denial result, with a
        ``tool.call_skipped`` event (reason ``denied``), like any other deny. Deferred tools
        are not withheld (residency is not an allowlist) and stay callable.

        Returns:
            The tool result (``is_error`` for a withheld tool, invalid arguments, a deny, a
            failure, or cancellation).

        Raises:
            AgentClosedError: the agent was closed.
            ConfigurationError: no tool named ``name`` is registered.
        """
        if self._closed:
            raise AgentClosedError(f"agent {self.name!r} is closed")
        tool = self._tools.get(name)
        if tool is None:
            raise ConfigurationError(
                f"no tool named {name!r} is registered; registered: {sorted(self._tools)}"
            )
        token = cancel or CancelToken()
        run_id = f"direct_{uuid.uuid4().hex[:16]}"
        args = dict(arguments) if arguments is not None else None
        call = ToolCallPart(
            id=run_id,
            name=name,
            arguments=args,
            raw_arguments=json.dumps(args) if args is not None else "",
        )
        withheld = [gate for gate in self.gates if not gate.offers(tool)]
        if withheld:
            return self._refuse_withheld(call, withheld[0], run_id)
        runner = ToolRunner(
            texts=self.texts,
            gates=self.gates,
            deps=self.deps if deps is None else deps,
            run_id=run_id,
            emit=self._emit,
            is_cancelled=lambda: token.cancelled,
        )
        result: ToolResultPart | None = None
        with anyio.CancelScope() as scope:
            remove = token.on_cancel(scope.cancel)
            try:
                result = await runner.execute(
                    call, tool, owner=self._owner.child("run", run_id), round=0, direct=True
                )
            finally:
                remove()
        if result is None:
            return error_result(call, self.texts.interrupted_tool_result)
        return result

    def _refuse_withheld(self, call: ToolCallPart, gate: ToolGate, run_id: str) -> ToolResultPart:
        """The denial result of a direct call to a tool ``gate`` withholds (nothing runs)."""
        text = (
            f"Permission denied: tool {call.name!r} is withheld by {type(gate).__name__} "
            "(direct invocation does not bypass a tool allowlist)"
        )
        self._emit(
            ToolCallSkipped(
                owner=self._owner.child("run", run_id), call=call, reason="denied", message=text
            )
        )
        return error_result(call, text)

    # --- disposal -------------------------------------------------------------------------

    async def aclose(self) -> list[BaseException]:
        """Close the agent: refuse new runs, wait for running and queued runs, close gates.

        Idempotent and never raises for a cleanup failure: returns the exceptions the gates
        raised while closing (empty on success; the same list on later calls). The provider is
        not closed (the agent does not own it).
        """
        if self._closing is not None:
            await self._closing.wait()
            return list(self._close_errors)
        self._closed = True
        self._closing = anyio.Event()
        errors: list[BaseException] = []
        try:
            async with self._slot():
                pass
            for gate in self.gates:
                try:
                    await gate.aclose()
                except Exception as exc:
                    errors.append(exc)
        finally:
            self._close_errors = errors
            self._closing.set()
        return list(errors)

    async def __aenter__(self) -> Agent:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
