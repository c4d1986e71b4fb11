"""One provider round of a run: build the provider-facing request (history processors,
pairing repair, structured-output instruction), run the pre-send context guard, stream the
response into a draft, commit it through the single begin/commit path, and check its finish
category before the run uses it (seed 000, "Execution Loop and Error Handling", "Context Window
Tracking", "Cancellation Contract"; seed 002, "Model contract"; :mod:`robota.core.agent.outcome`).

A round that does not succeed still commits what it has: the partial text (marked interrupted,
with the last usage the vendor reported), or the complete response when the cancellation came
after it — then every tool call it keeps gets an interrupted result at once, so history never
holds a call without a result. Usage the vendor reported counts toward the run either way.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, cast

import anyio
import anyio.lowlevel
from robota.core.agent.events import (
    ContextGuardTripped,
    HistoryRepaired,
    HostedToolCalled,
    ModelResponded,
    ModelTextDelta,
    ModelThinkingDelta,
    ModelToolCallDelta,
    PartialOutput,
    RoundCompleted,
    RoundKind,
    RoundOutcome,
    RoundStarted,
)
from robota.core.agent.history import AssistantDraft
from robota.core.agent.outcome import answer_calls, refusal
from robota.core.agent.output.context import OutputContext
from robota.core.agent.output.partial import NOTHING, PartialJson, extends
from robota.core.agent.pairing import PairingRepair, repair_pairing
from robota.core.agent.spec import RunSpec
from robota.core.capabilities import HostedTool
from robota.core.errors import (
    ContextWindowExceededError,
    MalformedResponseError,
    ToolChoiceViolationError,
)
from robota.core.events import OwnerPath, stream_backpressure
from robota.core.journal.port import Journal
from robota.core.messages import AssistantMessage, Message, ToolCallPart, UserMessage
from robota.core.provider import (
    ModelRequest,
    ResponseCompleted,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolDefinition,
    UsageReported,
)
from robota.core.tools.base import Tool
from robota.core.usage import Usage

__all__ = ["ProviderRounds"]


class ProviderRounds:
    """The provider-round half of a run (mixed into the run object, which owns the state)."""

    spec: RunSpec
    owner: OwnerPath
    rounds: int
    usage: Usage
    repairs: list[PairingRepair]
    draft: AssistantDraft | None
    journal: Journal | None
    last_response: AssistantMessage | None
    run_id: str
    attempts: int

    def _request(
        self, kind: RoundKind, instruction: str | None, tools: tuple[ToolDefinition, ...]
    ) -> ModelRequest:
        spec = self.spec
        settings = spec.settings
        suffix: str | None = None
        output = None
        if spec.output is not None:
            transport = spec.output.transport(spec.provider.capabilities(spec.model))
            output = spec.output.request_output(transport)
            if output is None or output.transport != "native":
                suffix = spec.texts.output_instruction.format(schema=spec.output.schema_text)
        messages: tuple[Message, ...] = spec.history.for_request(
            spec.texts.interrupted_annotation, system_suffix=suffix
        )
        for processor in spec.history_processors:
            messages = tuple(processor(messages))
        messages = repair_pairing(messages, on_repair=self.repairs.append)
        if kind != "normal":
            settings = replace(settings, tool_choice="none")
            if instruction:
                messages = (*messages, UserMessage.of(instruction))
        # checked once, before the prompt was committed (RunLoop._check_settings): the model
        # and the set do not change within a run
        hosted = spec.hosted_tools if kind == "normal" else frozenset[HostedTool]()
        return ModelRequest(
            model=spec.model,
            messages=messages,
            tools=tools,
            settings=settings,
            output=output,
            hosted_tools=hosted,
            on_payload=spec.on_payload,
        )

    def _guard(self, request: ModelRequest) -> None:
        spec = self.spec
        info = spec.provider.model_info(spec.model)
        window = info.context_window if info is not None else None
        if not window:
            return
        estimate = spec.tracker.estimate(request.messages, request.tools, spec.history.body)
        if estimate > spec.context_threshold * window:
            spec.emit(
                ContextGuardTripped(
                    owner=self.owner,
                    stage="pre_send",
                    estimated_tokens=estimate,
                    context_window=window,
                    threshold=spec.context_threshold,
                )
            )
            raise ContextWindowExceededError(
                f"the request was not sent: its estimated size of {estimate} tokens exceeds "
                f"{spec.context_threshold:.0%} of the {window}-token context window of "
                f"{spec.model!r}; start a new conversation or compact the history",
                estimated_tokens=estimate,
                context_window=window,
            )

    async def _round(
        self, kind: RoundKind, instruction: str | None, *, offered: Mapping[str, Tool] = {}
    ) -> AssistantMessage:
        """Make one provider call and commit its response (complete, or what streamed before a
        cancellation or failure) through the one commit path.

        Raises:
            MalformedResponseError: the stream ended without a final response.
            ToolChoiceViolationError: tool calls under ``tool_choice="none"``.
            TruncatedResponseError, IncompleteToolCallError, ContentFilterError: the finish
                category refuses the response (:func:`~robota.core.agent.outcome.refusal`).
        """
        spec = self.spec
        tool_choice_none = spec.settings.tool_choice == "none"
        dispatch = kind == "normal" and not tool_choice_none
        tools: tuple[ToolDefinition, ...] = ()
        if dispatch:
            tools = tuple(t.definition() for t in offered.values())
        request = self._request(kind, instruction, tools)
        self._guard(request)
        self.rounds += 1
        owner = self.owner.child("round", str(self.rounds))
        started = time.time()
        spec.emit(RoundStarted(owner=owner, round=self.rounds, kind=kind, started_at=started))
        for repair in self.repairs:
            spec.emit(
                HistoryRepaired(
                    owner=owner,
                    kind=repair.kind,
                    call_id=repair.call_id,
                    name=repair.name,
                    round=self.rounds,
                )
            )
        self.repairs.clear()
        draft = AssistantDraft(model=spec.model, provider=spec.provider.name)
        self.draft = draft
        partial = _PartialOutputs(self, owner) if spec.output is not None else None
        # a stream consumer reads the run: its buffer bounds the deltas not yet delivered
        flow = stream_backpressure.get() if spec.control.streaming else None
        nudge = flow is not None  # the round's first text delta reaches the consumer at once
        body_length = len(spec.history.body)
        outcome: RoundOutcome = "failure"
        violation: tuple[str, ...] = ()
        try:
            # a journaled run joins provider settlement: a late response may carry usage or
            # tool intents that must be recorded (seed 000, "Cancellation Contract")
            with anyio.CancelScope(shield=self.journal is not None):
                stream = spec.provider.stream(request)
                try:
                    async for event in stream:
                        self._on_stream_event(event, draft, owner)
                        if partial is not None and isinstance(event, TextDelta):
                            await partial.feed(event.text)  # after the raw delta
                        if flow is None:
                            continue
                        # no task switch per delta: the consumer takes what is queued whenever
                        # the stream waits for the network (every socket read), and the round
                        # waits only when the consumer's buffer is full
                        if flow.full:
                            await flow.wait_room()
                        elif nudge and isinstance(event, TextDelta):
                            nudge = False
                            await anyio.lowlevel.checkpoint()
                finally:
                    aclose = getattr(stream, "aclose", None)
                    if aclose is not None:
                        await aclose()
            final = draft.final
            if final is None:
                raise MalformedResponseError(
                    "provider stream ended without a final response",
                    provider=spec.provider.name,
                    missing="final response event",
                )
            if final.tool_calls and kind == "normal" and tool_choice_none:
                violation = tuple(c.name for c in final.tool_calls)
            outcome = "success"
        except anyio.get_cancelled_exc_class():
            outcome = "interrupted"
            raise
        finally:
            self.draft = None
            message = self._commit_draft(draft, dispatch=dispatch, outcome=outcome, owner=owner)
            usage = message.usage or Usage()
            if outcome == "success" or message.usage is not None:
                # a cancelled round still counts what the vendor reported (it was billed)
                self.usage = self.usage + usage
                spec.tracker.record(usage.input_tokens, body_length)
            if outcome == "success":
                spec.emit(
                    ModelResponded(
                        owner=owner, message=message, usage=usage, model=message.model or spec.model
                    )
                )
                for part in message.parts:
                    if isinstance(part, ToolCallPart) and part.hosted:
                        spec.emit(
                            HostedToolCalled(
                                owner=owner, round=self.rounds, call_id=part.id, name=part.name
                            )
                        )
            spec.emit(
                RoundCompleted(
                    owner=owner,
                    round=self.rounds,
                    kind=kind,
                    outcome=outcome,
                    started_at=started,
                    ended_at=time.time(),
                    model=message.model or spec.model,
                )
            )
        if violation:
            raise ToolChoiceViolationError(
                f"the provider returned tool calls ({', '.join(violation)}) "
                'although the run set tool_choice="none"; no tool was run'
            )
        answered_by = message.provider or spec.provider.name
        refused = refusal(message, provider=answered_by, accept_truncated=spec.accept_truncated)
        if refused is not None:
            text = spec.texts.refused_tool_result.format(finish_reason=message.finish_reason)
            answer_calls(
                message.tool_calls,
                text,
                "refused_response",
                owner=owner,
                append=spec.history.append,
                emit=spec.emit,
            )
            raise refused
        return message

    def _commit_draft(
        self, draft: AssistantDraft, *, dispatch: bool, outcome: RoundOutcome, owner: OwnerPath
    ) -> AssistantMessage:
        """The one commit path of a round's response. Tool calls of a round that may not
        dispatch them (forced summary, final call, ``tool_choice="none"``) are dropped; a
        complete response whose round did not succeed (cancelled or failed after the final
        event) gets an interrupted result for every call it keeps, so no call is left without
        a result."""
        spec = self.spec
        final = draft.final
        if final is not None and final.tool_calls and not dispatch:
            draft.final = without_tool_calls(final)  # never dispatched
        message = spec.history.commit(draft)
        if final is not None:
            self.last_response = message
        if outcome != "success":
            answer_calls(
                message.tool_calls,
                spec.texts.interrupted_tool_result,
                "interrupted",
                owner=owner,
                append=spec.history.append,
                emit=spec.emit,
            )
        return message

    def _on_stream_event(self, event: object, draft: AssistantDraft, owner: OwnerPath) -> None:
        emit = self.spec.emit
        if isinstance(event, TextDelta):
            draft.text += event.text
            emit(ModelTextDelta(owner=owner, text=event.text))
        elif isinstance(event, ThinkingDelta):
            draft.thinking += event.text
            emit(ModelThinkingDelta(owner=owner, text=event.text))
        elif isinstance(event, ToolCallDelta):
            emit(
                ModelToolCallDelta(
                    owner=owner,
                    index=event.index,
                    id=event.id,
                    name=event.name,
                    arguments_delta=event.arguments_delta,
                )
            )
        elif isinstance(event, UsageReported):
            draft.usage = event.usage
        elif isinstance(event, ResponseCompleted):
            response = event.response
            message = response.message
            usage = message.usage or response.usage
            reported = draft.usage
            if usage.total_tokens == 0 and reported is not None and reported.total_tokens:
                # the final event repeated no counts: the last report holds
                usage = replace(reported, requests=max(usage.requests, reported.requests))
            if usage.requests == 0:
                usage = replace(usage, requests=1)
            draft.final = replace(
                message,
                usage=usage,
                model=message.model or response.model or self.spec.model,
                provider=message.provider or self.spec.provider.name,
                finish_reason=message.finish_reason or response.finish_reason,
                raw_finish_reason=message.raw_finish_reason or response.raw_finish_reason,
            )

    # --- tool batches ---------------------------------------------------------------------


class _PartialOutputs:
    """Emits ``PartialOutput`` events for one round's streamed structured answer: repaired
    snapshots (:class:`~robota.core.agent.output.partial.PartialJson`), shown only when changed
    and monotonic (a regression is suppressed), each typed and passed through the output
    validators with ``ctx.partial`` True (a refusal suppresses the snapshot, never retries)."""

    def __init__(self, run: ProviderRounds, owner: OwnerPath) -> None:
        self.run = run
        self.owner = owner
        self.json = PartialJson()
        self.last: Any = NOTHING

    async def feed(self, delta: str) -> None:
        spec = self.run.spec
        output = spec.output
        assert output is not None
        snapshot = self.json.feed(delta)
        if snapshot is NOTHING:
            return
        if output.wrapped and isinstance(snapshot, dict):
            mapping = cast("dict[str, Any]", snapshot)
            if "result" not in mapping:
                if not mapping:
                    return  # the wrapper opened, nothing inside yet
            else:
                snapshot = mapping["result"]
        if self.last is not NOTHING and (snapshot == self.last or not extends(self.last, snapshot)):
            return
        ctx: OutputContext[Any] = OutputContext(
            run_id=self.run.run_id,
            deps=spec.deps,
            attempt=self.run.attempts + 1,
            partial=True,
            messages=spec.history.messages,
        )
        keep, value = await output.partial_value(snapshot, ctx)
        if not keep:
            return
        self.last = snapshot
        spec.emit(
            PartialOutput(owner=self.owner, round=self.run.rounds, snapshot=snapshot, value=value)
        )


def without_tool_calls(message: AssistantMessage) -> AssistantMessage:
    return replace(message, parts=tuple(p for p in message.parts if p not in message.tool_calls))
