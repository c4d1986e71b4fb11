"""Tool execution: one call through validation, gates and the body, and one batch of calls
(seed 000, "Unavailable Tool-Call Handling", "Run Concurrency Contract", "Canonical Direct
Runtime Tool Invocation"; the gate seam in ``robota.core.gate``).

Every call of a response runs: consecutive calls run concurrently (bounded by a
``CapacityLimiter``), a ``sequential`` tool runs alone, and results stay in call order. An
unknown tool name is a labelled skip, never executed. A failing body, a timeout, a deny and
invalid arguments all become error results the model can see; only cancellation, a
:class:`~robota.core.errors.JournalError` and a refused continuation
(:class:`~robota.core.journal.ContinuationError`) propagate. A journal failure stops further
dispatch in the batch while the bodies already running settle (seed 000, "Execution Journal and
Continuation": a rejected write fails the run, never a tool failure the model may retry).

In a journaled run the :class:`~robota.core.journal.ToolJournal` is consulted before anything
else: a call the journal settled is answered from it (no unknown-tool check, gate, approver or
hook runs again), a call whose effect started without a recorded result is reported with an
unknown outcome (or run again under its journaled admission when the tool is ``idempotent``),
and a new call's admission is journaled with its start before the body runs.

Retry budget (a tool's ``max_retries``, spent by invalid arguments and ``ModelRetry``): one
batch is one attempt. The first failing call of a tool in a batch counts one retry and decides
the advice ("call again (N left)" or "stop calling it"); every other failing call of that tool
in the same batch repeats that advice without counting again, so the one tool-result message
the model reads never says both. A direct invocation (no batch) counts per call.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import anyio
from robota.core.agent.events import (
    ToolCallCompleted,
    ToolCallSkipped,
    ToolCallStarted,
    ToolProgress,
)
from robota.core.agent.texts import AgentTexts
from robota.core.agent.validation import validate_against
from robota.core.errors import JournalError, ModelRetry
from robota.core.events import Event, OwnerPath
from robota.core.gate import Deny, Substitute, ToolCallRequest, ToolGate
from robota.core.journal.checkpoint import ContinuationError
from robota.core.journal.port import ToolRecord
from robota.core.journal.replay import Admission, ToolJournal, decision_fields
from robota.core.messages import TextPart, ToolCallPart, ToolResultPart
from robota.core.schema.projection import drop_strict_nulls
from robota.core.tools.base import RiskClass, Tool, ToolContext, ToolOutput, ToolReturn

__all__ = ["ToolRunner", "canonical_input", "error_result"]


def error_result(call: ToolCallPart, text: str) -> ToolResultPart:
    """An ``is_error`` result answering ``call`` with ``text``."""
    return ToolResultPart(
        call_id=call.id, name=call.name, content=(TextPart(text=text),), is_error=True
    )


def canonical_input(call: ToolCallPart) -> str:
    """The identity of a call's input for the identical-input guard: the tool name plus the
    canonical JSON (sorted keys, no whitespace) of its arguments, or the raw string when the
    arguments did not parse."""
    if call.arguments is not None:
        args = json.dumps(call.arguments, sort_keys=True, separators=(",", ":"), default=str)
    else:
        args = call.raw_arguments
    return f"{call.name}\x00{args}"


@dataclass(kw_only=True, slots=True)
class ToolRunner:
    """Runs tool calls for one run (or one direct invocation).

    Attributes:
        texts: Model-facing texts.
        gates: Gates consulted in order before and after every body.
        deps: Dependencies handed to tool bodies.
        run_id: The run's id.
        emit: Delivers events to the run's observers.
        is_cancelled: True once the run's cancellation was requested.
        max_parallel: Bound on concurrently running bodies (>= 1).
        identical_limit: Byte-identical invocations of one tool allowed per run (None: no limit).
        retry_counts: Retries (invalid arguments or ``ModelRetry``) per tool name in this run.
        identical_counts: Invocations per canonical input in this run.
        journal: The run's tool journal (a journaled run), consulted before any gate.
        batch_advice: While a batch runs, the retry advice already given per tool name in it
            (None outside a batch).
    """

    texts: AgentTexts
    gates: Sequence[ToolGate]
    deps: Any
    run_id: str
    emit: Callable[[Event], None]
    is_cancelled: Callable[[], bool]
    max_parallel: int = 8
    identical_limit: int | None = None
    retry_counts: dict[str, int] = field(default_factory=dict[str, int])
    identical_counts: dict[str, int] = field(default_factory=dict[str, int])
    scopes: dict[str, anyio.CancelScope] = field(default_factory=dict[str, anyio.CancelScope])
    journal: ToolJournal | None = None
    batch_advice: dict[str, str] | None = None

    def cancel_call(self, call_id: str) -> bool:
        """Cancel one running tool body by Robota's call id; its result says it was cancelled
        and the run goes on. Returns False when no such body is running."""
        scope = self.scopes.get(call_id)
        if scope is None:
            return False
        scope.cancel()
        return True

    def over_identical_limit(self, calls: Sequence[ToolCallPart]) -> tuple[str, int] | None:
        """Count the batch's inputs; return ``(tool name, count)`` of the first input seen more
        than ``identical_limit`` times in this run, else None."""
        tripped: tuple[str, int] | None = None
        for call in calls:
            key = canonical_input(call)
            count = self.identical_counts.get(key, 0) + 1
            self.identical_counts[key] = count
            if self.identical_limit and count > self.identical_limit and tripped is None:
                tripped = (call.name, count)
        return tripped

    def skip_unknown(
        self, call: ToolCallPart, available: Sequence[str], owner: OwnerPath
    ) -> ToolResultPart:
        """The labelled skip for a call naming no available tool (never executed)."""
        names = ", ".join(available) if available else "(none)"
        text = self.texts.unknown_tool.format(name=call.name, available=names)
        self.emit(
            ToolCallSkipped(
                owner=owner,
                call=call,
                reason="unknown_tool",
                message=text,
                available=tuple(available),
            )
        )
        return error_result(call, text)

    async def run_batch(
        self,
        calls: Sequence[ToolCallPart],
        available: Mapping[str, Tool],
        results: list[ToolResultPart | None],
        *,
        owner: OwnerPath,
        round: int,
        skip: Collection[int] = frozenset(),
    ) -> None:
        """Run ``calls`` and store each result at its call's index in ``results``.

        ``skip`` holds the indices whose results the caller already put in ``results`` (the
        decisions of a resumed pause: denials and external results); those calls do not run.

        On cancellation the running bodies are cancelled and the exception propagates; entries
        still None are the calls that never finished (the caller records them as interrupted).

        Raises:
            JournalError: a journal write failed; calls not yet started were not started, calls
                already running were allowed to finish (their entries are filled).
            ReconciliationError: a journal record under a call's key answers a different call.
        """
        self.batch_advice = {}
        try:
            await self._run_batch(calls, available, results, owner=owner, round=round, skip=skip)
        finally:
            self.batch_advice = None

    async def _run_batch(
        self,
        calls: Sequence[ToolCallPart],
        available: Mapping[str, Tool],
        results: list[ToolResultPart | None],
        *,
        owner: OwnerPath,
        round: int,
        skip: Collection[int],
    ) -> None:
        limiter = anyio.CapacityLimiter(max(1, self.max_parallel))
        names = sorted(available)
        pending: list[int] = []
        failures: list[JournalError | ContinuationError] = []

        async def one(index: int) -> None:
            async with limiter:
                if failures:
                    return  # dispatch stopped: never started
                call = calls[index]
                try:
                    results[index] = await self.execute(
                        call, available[call.name], owner=owner, round=round, index=index
                    )
                except (JournalError, ContinuationError) as exc:
                    failures.append(exc)

        async def flush() -> None:
            if not pending:
                return
            async with anyio.create_task_group() as tg:
                for index in pending:
                    tg.start_soon(one, index)
            pending.clear()

        for index, call in enumerate(calls):
            if failures:
                break
            if index in skip:
                continue
            if self.journal is not None:
                answered = self.journal.answer(round, index, call)
                if answered is not None:  # settled before: nothing is decided or run again
                    results[index] = answered
                    self.emit(
                        ToolCallSkipped(
                            owner=owner, call=call, reason="journal", message=answered.text
                        )
                    )
                    continue
            tool = available.get(call.name)
            if tool is None:
                results[index] = self.skip_unknown(call, names, owner)
            elif tool.sequential:
                await flush()
                await one(index)
            else:
                pending.append(index)
        await flush()
        if failures:
            raise failures[0]

    async def execute(
        self,
        call: ToolCallPart,
        tool: Tool,
        *,
        owner: OwnerPath,
        round: int,
        index: int = 0,
        direct: bool = False,
    ) -> ToolResultPart:
        """Run one call: validate, gate (before), body (with timeout), gate (after).

        Args:
            call: The model's call.
            tool: The tool it names.
            owner: The round's owner path.
            round: 1-based round (0: direct invocation), passed to gates and the tool context.
            index: 0-based position of the call in its response's batch (the journal keys
                on ``round:index``).
            direct: True for direct invocation.

        Returns the result the model sees.

        Raises:
            JournalError: a journal write failed (never turned into an error result).
            ReconciliationError: the journal record under the call's key answers a different
                call.
        """
        call_id = f"call_{uuid.uuid4().hex[:16]}"
        call_owner = owner.child("tool_call", call_id)
        given = _given_arguments(call, tool)
        issues = _argument_issues(call, tool, given)
        if issues:
            return self._invalid(call, tool, issues, call_owner)
        arguments: dict[str, Any] = dict(given or {})
        self.emit(
            ToolCallStarted(
                owner=call_owner, call=call, call_id=call_id, arguments=arguments, direct=direct
            )
        )
        request = ToolCallRequest(
            call=call,
            tool=tool,
            arguments=arguments,
            run_id=self.run_id,
            call_id=call_id,
            owner=call_owner,
            direct=direct,
            emit=self.emit,
            round=round,
            index=index,
        )
        journal = self.journal if not direct else None
        if journal is not None:
            started = journal.started(round, index, call)
            if started is not None:
                return await self._continue_started(request, started, journal)
        admission, request = await self._admit(request)
        if journal is not None:
            await journal.record_start(round, index, call, tool.canonical_name, admission)
        if admission.verdict == "deny":
            result = error_result(call, admission.message or "denied")
            if journal is not None:
                await journal.record_result(round, index, result)
            return self._done(call_id, call_owner, result, False)
        return await self._run_admitted(request, admission, journal)

    async def _admit(self, request: ToolCallRequest) -> tuple[Admission, ToolCallRequest]:
        """Ask every gate in order (the first deny ends it; a failing gate fails closed) and
        collect the decisions they emitted for the call."""
        decisions: list[Mapping[str, Any]] = []
        emit = request.emit

        def capture(event: Event) -> None:
            fields = decision_fields(event)
            if fields is not None:
                decisions.append(fields)
            emit(event)

        request = _with(request, emit=capture)
        arguments: dict[str, Any] = dict(request.arguments)
        substitute: ToolResultPart | None = None
        effective_risk: RiskClass | None = None
        denial: str | None = None
        for gate in self.gates:
            try:
                verdict = await gate.before_tool(request)
            except (JournalError, ContinuationError):
                raise
            except Exception as exc:  # a failing gate fails closed
                denial = _describe(exc)
                break
            if isinstance(verdict, Deny):
                denial = verdict.message
                break
            if isinstance(verdict, Substitute):
                if substitute is None:
                    substitute = verdict.result
            else:
                if effective_risk is None:
                    effective_risk = verdict.effective_risk
                if verdict.arguments is not None:
                    arguments = dict(verdict.arguments)
                    request = _with(request, arguments=arguments)
        request = _with(request, emit=emit)
        recorded = tuple(decisions)
        if denial is not None:
            admission = Admission(
                verdict="deny", arguments=arguments, message=denial, decisions=recorded
            )
        elif substitute is not None:
            admission = Admission(
                verdict="substitute",
                arguments=arguments,
                effective_risk=effective_risk,
                result=substitute,
                decisions=recorded,
            )
        else:
            admission = Admission(
                verdict="allow",
                arguments=arguments,
                effective_risk=effective_risk,
                decisions=recorded,
            )
        return admission, request

    async def _run_admitted(
        self, request: ToolCallRequest, admission: Admission, journal: ToolJournal | None
    ) -> ToolResultPart:
        """The body (or the substitute) of an admitted call, the after-gates, and the result
        journaled."""
        call = request.call
        executed = False
        if admission.verdict == "substitute" and admission.result is not None:
            result = ToolResultPart(
                call_id=call.id,
                name=call.name,
                content=admission.result.content,
                is_error=admission.result.is_error,
            )
        else:
            result, executed = await self._body(
                call,
                request.tool,
                dict(admission.arguments),
                request.call_id,
                request.owner,
                request.round,
                admission.effective_risk,
            )
        for gate in self.gates:
            try:
                result = await gate.after_tool(request, result)
            except (JournalError, ContinuationError):
                raise
            except Exception as exc:
                result = error_result(call, _describe(exc))
        if journal is not None:
            await journal.record_result(request.round, request.index, result)
        return self._done(request.call_id, request.owner, result, executed)

    async def _continue_started(
        self, request: ToolCallRequest, record: ToolRecord, journal: ToolJournal
    ) -> ToolResultPart:
        """A call whose effect started before a crash without a recorded result: an
        ``idempotent`` tool runs again under the admission journaled with its start (no gate is
        asked again); any other is reported with an unknown outcome and never run again."""
        call = request.call
        if request.tool.idempotent:
            saved = Admission.from_record(record)
            arguments: Any = record.arguments if isinstance(record.arguments, dict) else {}
            admission = Admission(
                verdict="allow",
                arguments=arguments,
                effective_risk=saved.effective_risk if saved is not None else None,
            )
            return await self._run_admitted(
                _with(request, arguments=dict(arguments)), admission, journal
            )
        result = journal.unknown_outcome(call)
        self.emit(
            ToolCallSkipped(
                owner=request.owner, call=call, reason="unknown_outcome", message=result.text
            )
        )
        return self._done(request.call_id, request.owner, result, False)

    async def _body(
        self,
        call: ToolCallPart,
        tool: Tool,
        arguments: dict[str, Any],
        call_id: str,
        owner: OwnerPath,
        round: int,
        effective_risk: RiskClass | None = None,
    ) -> tuple[ToolResultPart, bool]:
        ctx: ToolContext[Any] = ToolContext(
            run_id=self.run_id,
            call_id=call_id,
            tool_call_id=call.id,
            tool_name=tool.name,
            deps=self.deps,
            round=round,
            effective_risk=effective_risk,
            is_cancelled=self.is_cancelled,
            emit_progress=lambda text: self.emit(
                ToolProgress(owner=owner, call_id=call_id, text=text)
            ),
        )
        scope = anyio.CancelScope()
        self.scopes[call_id] = scope
        output: ToolOutput = ""
        try:
            with scope:
                if tool.timeout is not None:
                    with anyio.fail_after(tool.timeout):
                        output = await tool.call(arguments, ctx)
                else:
                    output = await tool.call(arguments, ctx)
            if scope.cancelled_caught:
                return error_result(call, self.texts.cancelled_tool_result), True
        except TimeoutError:
            return error_result(
                call, f"TimeoutError: tool '{tool.name}' did not finish within {tool.timeout} s"
            ), False
        except ModelRetry as retry:
            text = self.texts.tool_retry.format(name=tool.name, message=retry.message)
            return error_result(call, self._retry_advice(tool, text)), True
        except Exception as exc:
            return error_result(call, _describe(exc)), False
        finally:
            self.scopes.pop(call_id, None)
        if isinstance(output, ToolReturn):
            return ToolResultPart(
                call_id=call.id, name=call.name, content=output.content, is_error=output.is_error
            ), True
        return ToolResultPart(
            call_id=call.id, name=call.name, content=(TextPart(text=str(output)),)
        ), True

    def _invalid(
        self, call: ToolCallPart, tool: Tool, issues: list[str], owner: OwnerPath
    ) -> ToolResultPart:
        text = self.texts.invalid_arguments.format(
            name=tool.name, issues="\n".join(f"- {issue}" for issue in issues)
        )
        text = self._retry_advice(tool, text)
        self.emit(ToolCallSkipped(owner=owner, call=call, reason="invalid_arguments", message=text))
        return error_result(call, text)

    def _retry_advice(self, tool: Tool, text: str) -> str:
        """Count one retry of ``tool`` (invalid arguments or ``ModelRetry``) and append the one
        consistent advice: call again with the retries left, or stop once they are spent.
        Within a batch only the tool's first failure counts; the others repeat its advice."""
        given = self.batch_advice.get(tool.name) if self.batch_advice is not None else None
        if given is not None:
            return text + given
        count = self.retry_counts.get(tool.name, 0) + 1
        self.retry_counts[tool.name] = count
        remaining = tool.max_retries - count + 1
        if remaining <= 0:
            advice = self.texts.stop_retrying.format(name=tool.name)
        else:
            advice = self.texts.retry_allowed.format(name=tool.name, remaining=remaining)
        if self.batch_advice is not None:
            self.batch_advice[tool.name] = advice
        return text + advice

    def _done(
        self, call_id: str, owner: OwnerPath, result: ToolResultPart, executed: bool
    ) -> ToolResultPart:
        self.emit(ToolCallCompleted(owner=owner, call_id=call_id, result=result, executed=executed))
        return result


def _given_arguments(call: ToolCallPart, tool: Tool) -> dict[str, Any] | None:
    """The call's arguments as the tool's own schema reads them. A tool offered ``strict`` had
    its optional fields projected as nullable-and-required (seed 000, "Tool Schema
    Projection"), so the model sends ``null`` for a field it leaves out: such nulls are
    dropped where the original schema does not itself accept null. Validation still checks the
    original schema, so the projection never widens what a call may contain."""
    if call.arguments is None or not tool.strict:
        return call.arguments
    cleaned: Any = drop_strict_nulls(tool.parameters, call.arguments)
    return cast("dict[str, Any]", cleaned)


def _argument_issues(
    call: ToolCallPart, tool: Tool, arguments: Mapping[str, Any] | None
) -> list[str]:
    if arguments is None:
        return [f"$: the arguments are not a JSON object: {call.raw_arguments!r}"]
    return validate_against(tool.parameters, arguments)


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _with(request: ToolCallRequest, **changes: Any) -> ToolCallRequest:
    from dataclasses import replace

    return replace(request, **changes)
