"""The resume, continue and respond entry points of :class:`~robota.core.agent.agent.Agent`
(seed 002, "Deferred tool execution"; seed 000, "Execution Journal and Continuation").

:class:`ResumeEntryPoints` is a base of the agent; it holds no state of its own (the agent sets
the attributes declared here). A paused run goes on with :meth:`ResumeEntryPoints.resume`; a
journaled run that crashed goes on with :meth:`ResumeEntryPoints.continue_run` (or
:meth:`ResumeEntryPoints.continue_until_pause`); a saved wait is answered with
:meth:`ResumeEntryPoints.respond`. The checks they make before anything runs live in
:mod:`robota.core.agent._continuation`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Generic, overload

from robota.core.agent._typing import DepsT, OutputT, OutputTypeSpec, RunOutputT
from robota.core.agent.result import RunResult
from robota.core.cancellation import CancelToken
from robota.core.errors import AgentClosedError

# Resuming, continuing and responding are rare: their machinery (pause, journal, continuation
# checks, the run loop) is imported by the methods that use it, not with the agent.
if TYPE_CHECKING:
    import anyio
    from robota.core.agent.history import History
    from robota.core.agent.output import OutputSpec
    from robota.core.agent.pause import Decision, PauseState, RunPaused
    from robota.core.agent.spec import RunSpec
    from robota.core.capabilities import HostedTool
    from robota.core.gate import ToolGate
    from robota.core.journal.port import Journal, JournalRun
    from robota.core.journal.reconcile import RuntimeState
    from robota.core.residency import ToolCatalog
    from robota.core.settings import ModelSettings
    from robota.core.tools.base import Tool

__all__ = ["ResumeEntryPoints"]


class ResumeEntryPoints(Generic[DepsT, OutputT]):
    """Resume, continue and respond (see the module docstring). Typed like ``run``: with
    ``output_type`` omitted a resumed or continued run's result is ``RunResult[OutputT]`` (a
    run whose saved schema is the agent's output type's is validated by the agent's type and
    validators); ``output_type=T`` gives ``RunResult[T]``, a raw JSON Schema dict
    ``RunResult[Any]``; ``deps`` is the agent's ``DepsT``."""

    name: str
    gates: tuple[ToolGate, ...]
    journal: Journal | None
    _tools: dict[str, Tool]
    _catalog: ToolCatalog
    _history: History
    _closed: bool

    if TYPE_CHECKING:

        def _slot(self) -> anyio.Lock: ...

        def _refuse_if(self, cancel: CancelToken) -> None: ...

        def _runtime_state(self, loaded: tuple[str, ...]) -> RuntimeState: ...

        def _output_spec(self, output_type: Any) -> OutputSpec | None: ...

        def _spec(
            self,
            *,
            output: OutputSpec | None,
            settings: ModelSettings,
            max_rounds: int,
            deps: Any,
            run_id: str | None,
            recorded: JournalRun | None = None,
            accept_truncated: bool | None = None,
            resend_unrecorded_model_call: bool = False,
            accept_state_drift: bool = False,
            hosted_tools: frozenset[HostedTool] | None = None,
        ) -> RunSpec: ...

    @overload
    async def resume(
        self,
        state: PauseState,
        decisions: Mapping[str, Decision],
        *,
        output_type: None = None,
        deps: DepsT | None = None,
        cancel: CancelToken | None = None,
        resend_unrecorded_model_call: bool = False,
        accept_state_drift: bool = False,
    ) -> RunResult[OutputT] | RunPaused: ...

    @overload
    async def resume(
        self,
        state: PauseState,
        decisions: Mapping[str, Decision],
        *,
        output_type: Mapping[str, Any],
        deps: DepsT | None = None,
        cancel: CancelToken | None = None,
        resend_unrecorded_model_call: bool = False,
        accept_state_drift: bool = False,
    ) -> RunResult[Any] | RunPaused: ...

    @overload
    async def resume(
        self,
        state: PauseState,
        decisions: Mapping[str, Decision],
        *,
        output_type: OutputTypeSpec[RunOutputT],
        deps: DepsT | None = None,
        cancel: CancelToken | None = None,
        resend_unrecorded_model_call: bool = False,
        accept_state_drift: bool = False,
    ) -> RunResult[RunOutputT] | RunPaused: ...

    async def resume(
        self,
        state: PauseState,
        decisions: Mapping[str, Decision],
        *,
        output_type: Any = None,
        deps: DepsT | None = None,
        cancel: CancelToken | None = None,
        resend_unrecorded_model_call: bool = False,
        accept_state_drift: bool = False,
    ) -> RunResult[Any] | RunPaused:
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
            output_type: The run's output type (any ``output_type=`` of :meth:`run`; its
                schema must equal the saved one; it types the result); None uses the agent's
                own when its schema is the saved one, else the saved schema as a dict schema.
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
            WaitResponseError: (journaled agent) a pending call of ``state`` is not a request
                the run saved, or a decision differs from the response saved before.
            ContinuationError, ReconciliationError: (journaled agent) as for
                :meth:`continue_run`.
            AgentClosedError, RunCancelledError: as for :meth:`run`.

        On a journaled agent every decision is first saved as the response to its request
        (responses saved before — by :meth:`respond` or an earlier resume that crashed — are
        used for calls ``decisions`` leaves out), then the run goes on under the journal: calls
        it settled after the pause are answered from it, as in :meth:`continue_run`. An
        ``Approve`` never admits a call by itself: the gates still decide.
        """
        from robota.core.agent._continuation import journaled_decisions
        from robota.core.agent.output import OutputSpec
        from robota.core.agent.pause import PauseStateError, settle_decisions
        from robota.core.agent.run import Resumption, resume_run

        if self._closed:
            raise AgentClosedError(f"agent {self.name!r} is closed; it accepts no new runs")
        recorded: JournalRun | None = None
        if self.journal is not None:
            recorded, decisions = await journaled_decisions(
                self.journal,
                state,
                decisions,
                tools=self._tools.keys(),
                runtime=self._runtime_state,
                resend_unrecorded_model_call=resend_unrecorded_model_call,
                accept_state_drift=accept_state_drift,
            )
        settled = settle_decisions(state, decisions)
        given = OutputSpec.of(output_type) if output_type is not None else None
        if given is not None and dict(given.schema) != dict(state.output_schema or {}):
            raise PauseStateError(
                "the output type's schema differs from the paused run's", reason="incompatible"
            )
        output = given or self._saved_output(state.output_schema)
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
            self._catalog.restore(state.loaded)
            spec = self._spec(
                output=output,
                settings=state.settings,
                max_rounds=state.max_rounds,
                deps=deps,
                run_id=state.run_id,
                recorded=recorded,
                resend_unrecorded_model_call=resend_unrecorded_model_call,
                accept_state_drift=accept_state_drift,
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
            resumed: RunResult[Any] | RunPaused = await resume_run(spec, resumption, token)
            return resumed

    @overload
    async def continue_run(
        self,
        run_id: str,
        *,
        output_type: None = None,
        deps: DepsT | None = None,
        cancel: CancelToken | None = None,
        resend_unrecorded_model_call: bool = False,
        accept_state_drift: bool = False,
    ) -> RunResult[OutputT]: ...

    @overload
    async def continue_run(
        self,
        run_id: str,
        *,
        output_type: Mapping[str, Any],
        deps: DepsT | None = None,
        cancel: CancelToken | None = None,
        resend_unrecorded_model_call: bool = False,
        accept_state_drift: bool = False,
    ) -> RunResult[Any]: ...

    @overload
    async def continue_run(
        self,
        run_id: str,
        *,
        output_type: OutputTypeSpec[RunOutputT],
        deps: DepsT | None = None,
        cancel: CancelToken | None = None,
        resend_unrecorded_model_call: bool = False,
        accept_state_drift: bool = False,
    ) -> RunResult[RunOutputT]: ...

    async def continue_run(
        self,
        run_id: str,
        *,
        output_type: Any = None,
        deps: DepsT | None = None,
        cancel: CancelToken | None = None,
        resend_unrecorded_model_call: bool = False,
        accept_state_drift: bool = False,
    ) -> RunResult[Any]:
        """Continue journaled run ``run_id`` after a crash, without new input (seed 000,
        "Execution Journal and Continuation").

        Restores the history (when the agent's history is empty) and the tool residency from
        the run's checkpoint and runs the same prompt again under the same run id with the round
        budget and settings the run started with. Every durable settlement is reused, never
        decided again: a model call with a recorded response is answered from the journal (not
        sent); a tool call with a recorded start and result gets that result before any gate
        runs (no approver, permission gate or hook is consulted again) and the residency it
        left is restored, so a tool loaded through ``tool_search`` is offered again; a denial
        recorded with its start stays a denial; a saved wait whose requests all have saved
        responses uses them. A tool call whose effect started without a recorded result is
        reported with :data:`~robota.core.journal.INTERRUPTED_EFFECT_TEXT` and never run again
        — unless the tool is ``idempotent``, when it runs again under the admission journaled
        with its start. The result holds the same messages an uncrashed run would have (modulo
        those results). The restored history stays with the agent.

        Args:
            run_id: The run to continue.
            output_type: The run's output type (any ``output_type=`` of :meth:`run`; its
                schema must equal the saved one; it types the result); None uses the agent's
                own when its schema is the saved one, else the saved schema as a dict schema.
            deps: Dependencies for tool bodies (None: the agent's).
            cancel: The continuation's cancellation signal.
            resend_unrecorded_model_call: Send again a model call the journal shows as sent
                without a recorded response (it may have been billed and may have asked for
                tools); refused by default.
            accept_state_drift: Continue although the runtime state differs from the saved one
                (model id, system prompt, offered tools, deferred tools, the agent's settings,
                gate fingerprints such as the permission mode, a replayed call's request);
                refused by default.

        Raises:
            ContinuationError: no journal, unknown run, finished run, unreadable checkpoint, an
                agent that cannot run it (a tool of the run not registered, another output
                schema), or a non-empty live history that differs from the checkpoint's (never
                overwritten).
            ReconciliationError: (a ``ContinuationError``) an unrecorded model call or state
                drift, saying exactly what differs; raised before anything is sent, run or
                restored — or, for a replayed call whose request differs, during the replay
                (the run stays unfinished).
            PauseRequiredError: the run reached a saved wait not answered yet (its requests are
                saved; use :meth:`continue_until_pause` to get the pause as a value).
            JournalError: the journal could not be read or a write failed.
            AgentClosedError, RunCancelledError: as for :meth:`run`.
        """
        result = await self._continue(
            run_id,
            output_type,
            deps,
            cancel,
            pausable=False,
            resend_unrecorded_model_call=resend_unrecorded_model_call,
            accept_state_drift=accept_state_drift,
        )
        assert isinstance(result, RunResult)
        return result

    @overload
    async def continue_until_pause(
        self,
        run_id: str,
        *,
        output_type: None = None,
        deps: DepsT | None = None,
        cancel: CancelToken | None = None,
        resend_unrecorded_model_call: bool = False,
        accept_state_drift: bool = False,
    ) -> RunResult[OutputT] | RunPaused: ...

    @overload
    async def continue_until_pause(
        self,
        run_id: str,
        *,
        output_type: Mapping[str, Any],
        deps: DepsT | None = None,
        cancel: CancelToken | None = None,
        resend_unrecorded_model_call: bool = False,
        accept_state_drift: bool = False,
    ) -> RunResult[Any] | RunPaused: ...

    @overload
    async def continue_until_pause(
        self,
        run_id: str,
        *,
        output_type: OutputTypeSpec[RunOutputT],
        deps: DepsT | None = None,
        cancel: CancelToken | None = None,
        resend_unrecorded_model_call: bool = False,
        accept_state_drift: bool = False,
    ) -> RunResult[RunOutputT] | RunPaused: ...

    async def continue_until_pause(
        self,
        run_id: str,
        *,
        output_type: Any = None,
        deps: DepsT | None = None,
        cancel: CancelToken | None = None,
        resend_unrecorded_model_call: bool = False,
        accept_state_drift: bool = False,
    ) -> RunResult[Any] | RunPaused:
        """Like :meth:`continue_run`, but a saved wait that is not answered yet ends the
        continuation with :class:`RunPaused` (nothing is saved twice); answer it with
        :meth:`resume`, or with :meth:`respond` and another continuation."""
        return await self._continue(
            run_id,
            output_type,
            deps,
            cancel,
            pausable=True,
            resend_unrecorded_model_call=resend_unrecorded_model_call,
            accept_state_drift=accept_state_drift,
        )

    async def respond(self, run_id: str, request_id: str, decision: Decision) -> bool:
        """Save ``decision`` as the response to the saved wait ``request_id`` of journaled run
        ``run_id`` (seed 000: a response is saved before it is used and answers only its own
        request). Nothing runs now; the next :meth:`continue_run` / :meth:`continue_until_pause`
        uses it, and an ``Approve`` still goes through every gate then.

        Returns:
            True when saved now, False when the same response was saved before.

        Raises:
            ContinuationError: the agent has no journal, or the run is not in it.
            WaitResponseError: the run finished, saved no request ``request_id`` (a response
                for another request is refused), the decision's kind does not fit the request,
                or a different response was saved before.
            JournalError: the journal could not be read or written.
        """
        from robota.core.agent._continuation import load_run
        from robota.core.agent._waits import respond
        from robota.core.journal.checkpoint import ContinuationError

        if self.journal is None:
            raise ContinuationError(
                "this agent has no journal to answer a wait in", reason="no_journal", run_id=run_id
            )
        run = await load_run(self.journal, run_id)
        return await respond(self.journal, run, run_id, request_id, decision)

    def _saved_output(self, schema: Mapping[str, Any] | None) -> OutputSpec | None:
        """The output spec of a resumed run whose caller gave no output type: the agent's own
        when its schema is the saved one (the output is then typed), else the saved schema as a
        dict schema; None when the run had none."""
        from robota.core.agent.output import OutputSpec

        if schema is None:
            return None
        own = self._output_spec(None)
        if own is not None and dict(own.schema) == dict(schema):
            return own
        return OutputSpec.of(dict(schema))

    async def _continue(
        self,
        run_id: str,
        output_type: Any,
        deps: Any,
        cancel: CancelToken | None,
        *,
        pausable: bool,
        resend_unrecorded_model_call: bool,
        accept_state_drift: bool,
    ) -> RunResult[Any] | RunPaused:
        from robota.core.agent._continuation import checked_checkpoint, load_run
        from robota.core.agent.output import OutputSpec
        from robota.core.agent.run import execute_run, execute_until_pause
        from robota.core.journal.checkpoint import ContinuationError

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
            run = await load_run(journal, run_id)
            given = OutputSpec.of(output_type) if output_type is not None else None
            checkpoint = checked_checkpoint(
                run,
                run_id=run_id,
                tools=self._tools.keys(),
                output_schema=given.schema if given is not None else None,
                live_history=self._history.body,
                runtime=self._runtime_state,
                resend_unrecorded_model_call=resend_unrecorded_model_call,
                accept_state_drift=accept_state_drift,
            )
            if not self._history.body:
                self._history.restore(checkpoint.history)
            self._catalog.restore(checkpoint.loaded)
            output = given or self._saved_output(checkpoint.output_schema)
            spec = self._spec(
                output=output,
                settings=checkpoint.settings,
                max_rounds=checkpoint.max_rounds,
                deps=deps,
                run_id=run_id,
                recorded=run,
                resend_unrecorded_model_call=resend_unrecorded_model_call,
                accept_state_drift=accept_state_drift,
            )
            outcome: RunResult[Any] | RunPaused
            if pausable:
                outcome = await execute_until_pause(spec, checkpoint.prompt, token)
            else:
                outcome = await execute_run(spec, checkpoint.prompt, token)
            return outcome
