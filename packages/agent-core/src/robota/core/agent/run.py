"""One run's rounds (seed 000, "Execution Loop and Error Handling", "Cancellation Contract",
"Structured Output Contract", "Unavailable Tool-Call Handling").

A run commits its prompt, then loops: build the request (fresh offered tools, the system head,
annotated history), check the context guard, stream one provider call, commit the assistant
message through the one begin/commit path, run its tool calls as one batch and commit their
results as one message. It ends on a final text (validated when an output type was asked), on
the forced summary after the round budget, on the final no-tools call after the unknown-tool
loop guard, on an error, or on cancellation (then it resolves as ``interrupted``).

Each request is built from the canonical history, passed through the host's history processors
and then through the pairing repair (the canonical history is never rewritten). A journaled run
(``RunSpec.journal``) records its checkpoint before the first model call, every model call before
it is sent and its response before it is used, every tool call's admission with its start and
its result after the effect, the residency a call changed, the requests of a wait before it
suspends, and its outcome (seed 000, "Execution Journal and Continuation"); a continuation
(``RunSpec.recorded``) answers settled steps from the journal before anything is decided again.

A response calling an ``approval`` or ``external`` tool pauses the run before any of its calls
executes (seed 002, "Deferred tool execution", :mod:`robota.core.agent.pause`):
:func:`execute_until_pause` returns the pause, :func:`execute_run` raises
:class:`~robota.core.agent.pause.PauseRequiredError`, and :func:`resume_run` runs the paused
batch with the host's decisions and goes on with the next model call. In a journaled run the
pause is a durable wait (:mod:`robota.core.agent._waits`): its requests are saved before it
suspends, and a continuation that finds every request answered uses the saved responses.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import anyio
from robota.core.agent._waits import JournaledWaits
from robota.core.agent.batch import ToolRunner, error_result
from robota.core.agent.events import (
    ContextGuardTripped,
    FinalResult,
    OutputValidationFailed,
    RunCompleted,
    RunFailed,
    RunResumed,
    RunStarted,
    RunSuspended,
    ToolCallSkipped,
)
from robota.core.agent.history import AssistantDraft
from robota.core.agent.output.context import OutputContext
from robota.core.agent.output.spec import OutputCheck
from robota.core.agent.pairing import PairingRepair
from robota.core.agent.pause import PauseRequiredError, PauseState, RunPaused, pending_calls
from robota.core.agent.result import NO_OUTPUT, RunResult
from robota.core.agent.round import ProviderRounds
from robota.core.agent.spec import RunControl, RunSpec
from robota.core.cancellation import CancelToken
from robota.core.capabilities import check_hosted_tools
from robota.core.errors import (
    JournalError,
    RepeatedToolInputError,
    StructuredOutputError,
    UnsupportedSettingError,
)
from robota.core.events import OwnerPath
from robota.core.journal.checkpoint import ContinuationError
from robota.core.journal.replay import JournaledProvider, ToolJournal, journal_write
from robota.core.messages import (
    AssistantMessage,
    ToolCallPart,
    ToolResultMessage,
    ToolResultPart,
    UserMessage,
)
from robota.core.tools.base import Tool
from robota.core.usage import Usage

__all__ = [
    "Resumption",
    "RunControl",
    "RunSpec",
    "execute_run",
    "execute_until_pause",
    "resume_run",
]


async def execute_run(spec: RunSpec, prompt: UserMessage, cancel: CancelToken) -> RunResult:
    """Run one prompt to its end. The caller holds the agent's FIFO slot.

    Raises:
        UnsupportedSettingError: a merged setting the model does not accept (before any
            request).
        ProviderError: a provider call failed (the run fails with it).
        ContextWindowExceededError: the pre-send guard refused a request.
        ToolChoiceViolationError: a tool call arrived under ``tool_choice="none"``.
        RepeatedToolInputError: the identical-input guard tripped.
        StructuredOutputError: the output did not validate within the retry budget.
        JournalError: a journal write failed (checkpoint, response, tool start or result,
            outcome); it wins over cancellation and over the run's own failure.
        PauseRequiredError: a response called an ``approval`` or ``external`` tool (the run
            refuses to discard the pause; the error carries it).
    """
    result = await _Run(spec, prompt, cancel).execute()
    assert isinstance(result, RunResult)  # a run that cannot pause raises instead
    return result


async def execute_until_pause(
    spec: RunSpec, prompt: UserMessage, cancel: CancelToken
) -> RunResult | RunPaused:
    """Like :func:`execute_run`, but a response calling an ``approval`` or ``external`` tool
    ends the run with :class:`~robota.core.agent.pause.RunPaused` before any of its calls
    executes (seed 002, "Deferred tool execution")."""
    return await _Run(spec, prompt, cancel, pausable=True).execute()


@dataclass(frozen=True, kw_only=True, slots=True)
class Resumption:
    """A paused run ready to continue (built by ``Agent.resume`` after checking decisions).

    Attributes:
        state: The pause state (its history is already the agent's).
        settled: Results the decisions settle without running (denials and external results)
            by call index, with the skip reason to report.
        offered: The tools the paused batch may run, by name.
        decisions: ``(decision key, kind)`` per pending call, in call order (for the event).
    """

    state: PauseState
    settled: Mapping[int, tuple[ToolResultPart, Literal["denied", "external_result"]]]
    offered: Mapping[str, Tool]
    decisions: tuple[tuple[str, str], ...]


async def resume_run(
    spec: RunSpec, resumption: Resumption, cancel: CancelToken
) -> RunResult | RunPaused:
    """Run the paused batch (approved and immediate calls run; settled results are used as
    given), commit one tool-result message, and continue the loop with the next model call.
    The run's counters (rounds, usage, retries, guards) continue from the state.

    Raises:
        The errors of :func:`execute_run` except ``PauseRequiredError`` (a later response
        calling a gated tool pauses again).
    """
    return await _Run(spec, None, cancel, pausable=True, resumption=resumption).execute()


class _Run(ProviderRounds):
    def __init__(
        self,
        spec: RunSpec,
        prompt: UserMessage | None,
        cancel: CancelToken,
        *,
        pausable: bool = False,
        resumption: Resumption | None = None,
    ) -> None:
        self.prompt = prompt
        self.cancel = cancel
        self.pausable = pausable
        self.resumption = resumption
        state = resumption.state if resumption is not None else None
        self.run_id = state.run_id if state else spec.run_id or f"run_{uuid.uuid4().hex[:16]}"
        self.journal = spec.journal
        self.tool_journal: ToolJournal | None = None
        self.waits: JournaledWaits | None = None
        if spec.journal is not None:
            recorded = spec.recorded
            provider = JournaledProvider(
                spec.provider,
                spec.journal,
                self.run_id,
                recorded,
                first_step=state.rounds if state else 0,
                resend_unrecorded=spec.resend_unrecorded_model_call,
                check_requests=not spec.accept_state_drift,
            )
            self.tool_journal = ToolJournal(spec.journal, self.run_id, recorded, spec.residency)
            self.waits = JournaledWaits(spec.journal, self.run_id, recorded)
            spec = replace(spec, provider=provider)
        self.spec = spec
        self.repairs: list[PairingRepair] = []
        self.owner = spec.owner.child("run", self.run_id)
        self.usage = state.usage if state else Usage()
        self.rounds = state.rounds if state else 0
        self.attempts = state.output_attempts if state else 0
        self.unknown_streak = state.unknown_tool_streak if state else 0
        self.never_executed: list[str] = list(state.never_executed) if state else []
        self.start_index = len(spec.history)
        self.draft: AssistantDraft | None = None
        self.last_response: AssistantMessage | None = None
        self.batch: tuple[Sequence[ToolCallPart], list[ToolResultPart | None], OwnerPath] | None
        self.batch = None
        self.tools = ToolRunner(
            texts=spec.texts,
            gates=spec.gates,
            deps=spec.deps,
            run_id=self.run_id,
            emit=spec.emit,
            is_cancelled=lambda: cancel.cancelled,
            max_parallel=spec.max_parallel_tools,
            identical_limit=spec.identical_limit,
            journal=self.tool_journal,
        )
        if state is not None:
            self.tools.retry_counts.update(state.tool_retry_counts)
            self.tools.identical_counts.update(state.identical_input_counts)

    # --- lifecycle ------------------------------------------------------------------------

    async def execute(self) -> RunResult | RunPaused:
        control = self.spec.control
        control.open(self.tools, self.cancel)
        try:
            return await self._execute()
        finally:
            control.close()

    async def _execute(self) -> RunResult | RunPaused:
        spec = self.spec
        self._check_settings()
        if self.resumption is not None:
            decisions = self.resumption.decisions
            spec.emit(RunResumed(owner=self.owner, run_id=self.run_id, decisions=decisions))
        else:
            assert self.prompt is not None
            spec.emit(RunStarted(owner=self.owner, run_id=self.run_id, prompt=self.prompt))
            if self.journal is not None and spec.recorded is None:
                assert spec.checkpoint is not None
                try:
                    await journal_write(
                        "run start", self.journal.start_run(self.run_id, spec.checkpoint.to_json())
                    )
                except JournalError as exc:
                    spec.emit(RunFailed(owner=self.owner, run_id=self.run_id, error=exc))
                    raise
            spec.history.append(self.prompt)
        scope = anyio.CancelScope()
        remove = self.cancel.on_cancel(scope.cancel)
        outcome: tuple[str, Any] | RunPaused | None = None
        try:
            with scope:
                try:
                    outcome = await self._loop()
                finally:
                    spec.control.stop_steering()  # ending: a steer now returns False
        except anyio.get_cancelled_exc_class():
            self._settle()
            raise
        except PauseRequiredError as exc:
            # suspension is control flow, neither completion nor failure (seed 000): a
            # journaled run saved the wait's requests and stays unfinished
            self._settle()
            keys = tuple(p.key for p in exc.paused.pending)
            spec.emit(
                RunSuspended(owner=self.owner, run_id=self.run_id, pending=keys, usage=self.usage)
            )
            raise
        except Exception as exc:
            self._settle()
            spec.emit(RunFailed(owner=self.owner, run_id=self.run_id, error=exc))
            if not isinstance(exc, JournalError | ContinuationError):
                # a JournalError leaves the run unfinished in the journal: continuable once the
                # journal works again; so does a refusal to guess (reconciliation)
                await self._record_outcome("failed")
            raise
        finally:
            remove()
        if outcome is None:  # our own scope caught the cancellation
            self._settle()
            await self._record_outcome("interrupted")
            return self._finish(self._last_text(), None, interrupted=True)
        if isinstance(outcome, RunPaused):
            keys = tuple(p.key for p in outcome.pending)
            spec.emit(
                RunSuspended(owner=self.owner, run_id=self.run_id, pending=keys, usage=self.usage)
            )
            return outcome
        await self._record_outcome("completed")
        return self._finish(outcome[0], outcome[1], interrupted=False)

    async def _record_outcome(self, outcome: Literal["completed", "failed", "interrupted"]) -> None:
        if self.journal is None:
            return
        try:
            await journal_write("run outcome", self.journal.finish_run(self.run_id, outcome))
        except JournalError as exc:
            if outcome != "failed":
                self.spec.emit(RunFailed(owner=self.owner, run_id=self.run_id, error=exc))
            raise

    def _finish(self, text: str, output: Any, *, interrupted: bool) -> RunResult[Any]:
        """The run's result: ``output`` is the validated value; a run without an output type
        has its text as output, an interrupted structured run has none (``NO_OUTPUT``)."""
        if self.spec.output is None:
            output = text
        elif interrupted:
            output = NO_OUTPUT
        last = self.last_response
        reason = last.finish_reason if last is not None else None
        raw = last.raw_finish_reason if last is not None else None
        result = RunResult(
            run_id=self.run_id,
            text=text,
            value=output,
            new_messages=self.spec.history.messages[self.start_index :],
            usage=self.usage,
            interrupted=interrupted,
            rounds=self.rounds,
            finish_reason=reason,
            raw_finish_reason=raw,
        )
        self.spec.emit(
            RunCompleted(
                owner=self.owner,
                run_id=self.run_id,
                text=text,
                interrupted=interrupted,
                usage=self.usage,
                finish_reason=reason,
                raw_finish_reason=raw,
            )
        )
        return result

    def _settle(self) -> None:
        """Commit whatever is pending (interrupted draft, unfinished batch): one commit path."""
        if self.draft is not None:
            draft, self.draft = self.draft, None
            self._commit_draft(draft, dispatch=True, outcome="interrupted", owner=self.owner)
        if self.batch is not None:
            self._commit_batch()

    def _last_text(self) -> str:
        for message in reversed(self.spec.history.messages[self.start_index :]):
            if isinstance(message, AssistantMessage):
                return message.text
        return ""

    def _check_settings(self) -> None:
        """Refuse, before the prompt is committed, a setting or a hosted tool the model is
        stated not to support. Every run path (fresh, resumed, continued) passes here, so rounds
        do not check again."""
        spec = self.spec
        caps = spec.provider.capabilities(spec.model)
        for name in sorted(spec.settings.set_fields() & caps.unsupported_settings):
            raise UnsupportedSettingError(
                f"model {spec.model!r} does not support the setting {name!r}",
                setting=name,
                model=spec.model,
            )
        if spec.hosted_tools:
            check_hosted_tools(
                caps, spec.hosted_tools, provider=spec.provider.name, model=spec.model
            )

    # --- the loop -------------------------------------------------------------------------

    async def _loop(self) -> tuple[str, Any] | RunPaused:
        spec = self.spec
        while True:
            if self.resumption is not None:
                plan, self.resumption = self.resumption, None
                final = await self._after_calls(plan.state.calls, plan.offered, plan.settled)
                if final is not None:
                    return final
                continue
            self._steer()
            if spec.max_rounds and self.rounds >= spec.max_rounds:
                spec.control.stop_steering()  # the forced last call answers no later message
                message = await self._round("summary", spec.texts.summary_instruction)
                text = message.text or spec.texts.summary_fallback
                return text, await self._summary_output(text, self.attempts)
            offered = {t.name: t for t in spec.offered_tools()}
            message = await self._round("normal", None, offered=offered)
            calls = message.tool_calls
            if calls:
                paused = self._pause_for(calls, offered)
                if paused is not None:
                    if self.waits is not None:
                        answered = self.waits.answers(paused.state)
                        if answered is not None:  # every request has a saved response
                            final = await self._after_calls(calls, offered, answered)
                            if final is not None:
                                return final
                            continue
                        await self.waits.save_requests(paused.pending)  # before suspending
                    if not self.pausable:
                        raise PauseRequiredError(paused)
                    return paused
                final = await self._after_calls(calls, offered, {})
                if final is not None:
                    return final
                continue
            if spec.control.steering:
                continue  # the user added a message while the model answered: answer it too
            if spec.output is None:
                return message.text, None
            self.attempts += 1
            attempts = self.attempts
            check = await self._check_output(message.text)
            if check.ok:
                return message.text, check.value
            issues = check.issues
            retry = attempts <= spec.output_retries
            spec.emit(
                OutputValidationFailed(
                    owner=self.owner, attempt=attempts, issues=tuple(issues), will_retry=retry
                )
            )
            if not retry:
                raise StructuredOutputError(
                    f"the output did not validate after {attempts} attempt(s): {issues[0]}",
                    issues=issues,
                    attempts=attempts,
                )
            template = spec.texts.output_rejected if check.rejected else spec.texts.output_retry
            feedback = template.format(
                issues="\n".join(f"- {i}" for i in issues), schema=spec.output.schema_text
            )
            spec.history.append(UserMessage.of(feedback))

    async def _after_calls(
        self,
        calls: Sequence[ToolCallPart],
        offered: Mapping[str, Tool],
        settled: Mapping[int, tuple[ToolResultPart, Literal["denied", "external_result"]]],
    ) -> tuple[str, Any] | None:
        """Run one batch and apply the unknown-tool loop guard; returns the run's end when the
        guard's final no-tools call ended it, else None."""
        spec = self.spec
        unknown = [c for i, c in enumerate(calls) if c.name not in offered and i not in settled]
        await self._run_batch(calls, offered, settled)
        if unknown:
            self.unknown_streak += 1
            self.never_executed.extend(f"{c.name} (id {c.id})" for c in unknown)
        else:
            self.unknown_streak, self.never_executed = 0, []
        if spec.unknown_tool_rounds and self.unknown_streak >= spec.unknown_tool_rounds:
            instruction = spec.texts.unknown_tool_final.format(calls=", ".join(self.never_executed))
            self._steer()
            spec.control.stop_steering()  # the forced last call answers no later message
            final = await self._round("final", instruction)
            return final.text, await self._summary_output(final.text, self.attempts)
        return None

    def _pause_for(
        self, calls: Sequence[ToolCallPart], offered: Mapping[str, Tool]
    ) -> RunPaused | None:
        """The pause for a response calling ``approval``/``external`` tools, else None. Nothing
        of the batch has run or been counted yet (seed 002: the pause comes before any call of
        the response executes)."""
        gated: dict[int, Literal["approval", "external"]] = {}
        for index, call in enumerate(calls):
            tool = offered.get(call.name)
            if tool is not None and tool.execution != "immediate":
                gated[index] = tool.execution
        if not gated:
            return None
        spec = self.spec
        state = PauseState(
            run_id=self.run_id,
            history=spec.history.body,
            system_prompt=spec.history.system_prompt,
            model=spec.model,
            settings=spec.settings,
            max_rounds=spec.max_rounds,
            output_schema=spec.output.schema if spec.output is not None else None,
            rounds=self.rounds,
            usage=self.usage,
            output_attempts=self.attempts,
            unknown_tool_streak=self.unknown_streak,
            never_executed=tuple(self.never_executed),
            tool_retry_counts=dict(self.tools.retry_counts),
            identical_input_counts=dict(self.tools.identical_counts),
            offered_tools=tuple(sorted(offered)),
            pending=pending_calls(calls, gated, round=self.rounds),
            loaded=spec.residency.loaded if spec.residency is not None else (),
        )
        return RunPaused(
            run_id=self.run_id,
            state=state,
            pending=state.pending,
            new_messages=spec.history.messages[self.start_index :],
            usage=self.usage,
            rounds=self.rounds,
        )

    def _steer(self) -> None:
        """Commit queued steering texts as user messages before the next model call."""
        for text in self.spec.control.take_steering():
            self.spec.history.append(UserMessage.of(text))

    async def _summary_output(self, text: str, attempts: int) -> Any:
        """The output of a forced last call (no retry is left after it)."""
        if self.spec.output is None:
            return None
        self.attempts = attempts + 1
        check = await self._check_output(text)
        if not check.ok:
            raise StructuredOutputError(
                f"the final answer did not validate: {check.issues[0]}",
                issues=check.issues,
                attempts=attempts + 1,
            )
        return check.value

    async def _check_output(self, text: str) -> OutputCheck:
        """Validate a final answer (type, output function, validators); an accepted one is
        announced with the run's one ``FinalResult`` event. An application exception from the
        output function or a validator propagates (the run fails, no retry)."""
        spec = self.spec
        assert spec.output is not None
        ctx: OutputContext[Any] = OutputContext(
            run_id=self.run_id,
            deps=spec.deps,
            attempt=self.attempts,
            messages=spec.history.messages,
        )
        check = await spec.output.finalize(text, ctx)
        if check.ok:
            spec.emit(FinalResult(owner=self.owner, output=check.value))
        return check

    async def _run_batch(
        self,
        calls: Sequence[ToolCallPart],
        offered: Mapping[str, Tool],
        settled: Mapping[int, tuple[ToolResultPart, Literal["denied", "external_result"]]],
    ) -> None:
        owner = self.owner.child("round", str(self.rounds))
        results: list[ToolResultPart | None] = [None] * len(calls)
        self.batch = (calls, results, owner)
        tripped = self.tools.over_identical_limit(calls)
        if tripped is not None:
            name, count = tripped
            text = self.spec.texts.identical_input.format(name=name, count=count)
            for i, call in enumerate(calls):
                results[i] = error_result(call, text)
                self.spec.emit(
                    ToolCallSkipped(owner=owner, call=call, reason="identical_input", message=text)
                )
            self._commit_batch()
            raise RepeatedToolInputError(
                f"tool {name!r} was called {count} times with identical input in one run",
                tool_name=name,
                count=count,
            )
        for index, (result, reason) in settled.items():
            results[index] = result
            self.spec.emit(
                ToolCallSkipped(owner=owner, call=calls[index], reason=reason, message=result.text)
            )
        await self.tools.run_batch(
            calls, offered, results, owner=owner, round=self.rounds, skip=frozenset(settled)
        )
        self._commit_batch()

    def _commit_batch(self) -> None:
        assert self.batch is not None
        calls, results, owner = self.batch
        self.batch = None
        spec = self.spec
        final: list[ToolResultPart] = []
        for call, result in zip(calls, results, strict=True):
            if result is None:
                text = spec.texts.interrupted_tool_result
                spec.emit(
                    ToolCallSkipped(owner=owner, call=call, reason="interrupted", message=text)
                )
                result = error_result(call, text)
            final.append(result)
        spec.history.append(ToolResultMessage(results=tuple(self._budget(final, owner))))

    def _budget(self, results: list[ToolResultPart], owner: OwnerPath) -> list[ToolResultPart]:
        """Replace results from the first one that crosses the tool-result context budget."""
        spec = self.spec
        info = spec.provider.model_info(spec.model)
        window = info.context_window if info is not None else None
        if not window:
            return results
        limit = spec.tool_result_threshold * window
        messages = spec.history.for_request(spec.texts.interrupted_annotation)
        tools = tuple(t.definition() for t in spec.offered_tools())
        for i in range(len(results)):
            extra = [ToolResultMessage(results=tuple(results[: i + 1]))]
            estimate = spec.tracker.estimate(messages, tools, spec.history.body, extra)
            if estimate > limit:
                spec.emit(
                    ContextGuardTripped(
                        owner=owner,
                        stage="tool_result_budget",
                        estimated_tokens=estimate,
                        context_window=window,
                        threshold=spec.tool_result_threshold,
                    )
                )
                notice = spec.texts.tool_result_budget
                return [*results[:i], *(_replace_content(r, notice) for r in results[i:])]
        return results


def _replace_content(result: ToolResultPart, text: str) -> ToolResultPart:
    return error_result(ToolCallPart(id=result.call_id, name=result.name, arguments={}), text)
