"""Journaling and replay wrappers: the provider decorator and the tool gate that make a run
recoverable (seed 000, "Execution Journal and Continuation").

:class:`JournaledProvider` records each model call's response before the loop uses it and, on
continuation, answers already-settled calls from the journal without calling the provider; a call
with no recorded response is issued again. :class:`JournalGate` (always the last gate, so it sees
the arguments the body actually runs with) records a tool call before its effect starts and its
result afterwards; on continuation a settled call answers from the journal, and a call whose
effect started without a recorded result is reported interrupted — never re-run, unless the tool
declared itself ``idempotent``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

import anyio
from robota.core.capabilities import ModelCapabilities, ModelInfo
from robota.core.errors import JournalError
from robota.core.gate import Allow, GateVerdict, Substitute, ToolCallRequest, ToolGate
from robota.core.journal.codec import decode_response, decode_result, encode_response, encode_result
from robota.core.journal.port import Journal, ToolRecord
from robota.core.messages import JsonValue, TextPart, ToolResultPart
from robota.core.provider import (
    ModelRequest,
    Provider,
    ResponseCompleted,
    StreamEvent,
)

__all__ = ["INTERRUPTED_EFFECT_TEXT", "JournalGate", "JournaledProvider", "journal_write"]

INTERRUPTED_EFFECT_TEXT = (
    "interrupted: this tool call started before a crash and its result was not recorded; "
    "it was not run again"
)
"""Neutral result text for an effect that started but has no recorded result."""


async def journal_write(what: str, coro: Any) -> None:
    """Await one journal write, shielded from cancellation (a persistence failure stays a
    failure even when cancellation races it, seed 000 "Cancellation Contract").

    Raises:
        JournalError: the write failed (any other exception is wrapped, with ``what`` named).
    """
    with anyio.CancelScope(shield=True):
        try:
            await coro
        except JournalError:
            raise
        except Exception as exc:
            raise JournalError(
                f"journal write failed ({what}): {type(exc).__name__}: {exc}"
            ) from exc


class JournaledProvider(Provider):
    """Wraps a provider so every response is journaled before use and replayed on continuation.

    Args:
        inner: The real provider.
        journal: Where responses are recorded.
        run_id: The run being journaled.
        recorded: Responses already recorded for this run (continuation), by step.
    """

    def __init__(
        self,
        inner: Provider,
        journal: Journal,
        run_id: str,
        recorded: Mapping[int, JsonValue] | None = None,
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.default_model = inner.default_model
        self._journal = journal
        self._run_id = run_id
        self._recorded = dict(recorded or {})
        self._step = 0
        self.replayed = 0
        """How many model calls were answered from the journal."""

    def model_info(self, model: str) -> ModelInfo | None:
        return self.inner.model_info(model)

    def capabilities(self, model: str) -> ModelCapabilities:
        return self.inner.capabilities(model)

    async def count_tokens(self, request: ModelRequest) -> int | None:
        return await self.inner.count_tokens(request)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        step = self._step
        self._step += 1
        if step in self._recorded:
            try:
                response = decode_response(self._recorded[step])
            except ValueError as exc:
                raise JournalError(
                    f"run {self._run_id}: recorded response {step} is corrupt"
                ) from exc
            self.replayed += 1
            yield ResponseCompleted(response=response)
            return
        async for event in self.inner.stream(request):
            if isinstance(event, ResponseCompleted):
                await journal_write(
                    f"response {step}",
                    self._journal.record_response(
                        self._run_id, step, encode_response(event.response)
                    ),
                )
            yield event


class JournalGate(ToolGate):
    """Records tool effects; answers settled calls from the journal on continuation.

    Must be the last gate of the chain.

    Args:
        journal: Where tool calls are recorded.
        run_id: The run being journaled.
        recorded: Tool records already in the journal for this run (continuation).
    """

    def __init__(
        self, journal: Journal, run_id: str, recorded: Mapping[str, ToolRecord] | None = None
    ) -> None:
        self._journal = journal
        self._run_id = run_id
        self._recorded = dict(recorded or {})
        self._started: set[str] = set()
        self.replayed = 0
        """Calls answered from the journal."""
        self.interrupted = 0
        """Calls reported interrupted because their effect started without a recorded result."""

    @staticmethod
    def key(request: ToolCallRequest) -> str:
        """The call's stable key within the run."""
        return f"{request.round}:{request.index}"

    async def before_tool(self, request: ToolCallRequest) -> GateVerdict:
        key = self.key(request)
        record = self._recorded.get(key)
        if record is not None:
            if record.result is not None:
                self.replayed += 1
                try:
                    return Substitute(result=decode_result(record.result))
                except ValueError as exc:
                    raise JournalError(f"run {self._run_id}: tool result {key} is corrupt") from exc
            if not request.tool.idempotent:
                self.interrupted += 1
                return Substitute(
                    result=ToolResultPart(
                        call_id=request.call.id,
                        name=request.call.name,
                        content=(TextPart(text=INTERRUPTED_EFFECT_TEXT),),
                        is_error=True,
                    )
                )
        arguments: Any = dict(request.arguments)
        await journal_write(
            f"tool start {key}",
            self._journal.record_tool_start(self._run_id, key, request.tool.name, arguments),
        )
        self._started.add(key)
        return Allow()

    async def after_tool(self, request: ToolCallRequest, result: ToolResultPart) -> ToolResultPart:
        key = self.key(request)
        if key in self._started:
            self._started.discard(key)
            await journal_write(
                f"tool result {key}",
                self._journal.record_tool_result(self._run_id, key, encode_result(result)),
            )
        return result
