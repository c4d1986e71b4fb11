"""A tool whose effect runs as DBOS steps with the journal's at-most-once rule (seed 000,
"Execution Journal and Continuation": a tool effect that started without a recorded result is
reported interrupted, never repeated, unless the tool is idempotent).

DBOS re-executes an unfinished step on recovery, which would repeat an effect. So each call is
two steps:

1. ``robota.tool_start`` records the arguments the body runs with and the *execution nonce* of
   the workflow execution that reached it first (a fresh random value per execution of the
   workflow function). On recovery the step is not re-run: it returns the nonce recorded by the
   earlier execution.
2. ``robota.tool_effect`` runs the body — unless the nonce returned by step 1 belongs to an
   earlier execution, which means the effect may have started before the crash: the step then
   returns the interrupted result instead (an ``idempotent`` tool runs again). When step 2 had
   completed before the crash, DBOS returns its checkpointed result and nothing runs.

Calls run one at a time (``sequential``) so DBOS sees the same step order on every execution.
"""

from __future__ import annotations

from typing import Any

from robota.core.journal import INTERRUPTED_EFFECT_TEXT, decode_result, encode_result
from robota.core.messages import JsonValue, TextPart, ToolResultPart
from robota.core.tools.base import Tool, ToolContext, ToolOutput, ToolReturn

from dbos import DBOS

__all__ = ["TOOL_EFFECT_STEP", "TOOL_START_STEP", "DBOSTool"]

TOOL_START_STEP = "robota.tool_start"
"""DBOS step name of the "effect started" marker."""

TOOL_EFFECT_STEP = "robota.tool_effect"
"""DBOS step name of the effect itself."""


class DBOSTool(Tool):
    """Wraps ``inner`` so its effect runs at most once across crashes of a DBOS workflow.

    Copies the inner tool's name, description, schema, risk, permission argument, timeout,
    retries, residency, idempotence, strictness and execution kind; ``sequential`` is always
    True.

    Args:
        inner: The real tool.
        nonce: The current workflow execution's nonce (fresh per execution).
    """

    def __init__(self, inner: Tool, nonce: str) -> None:
        self.inner = inner
        self.nonce = nonce
        self.name = inner.name
        self.description = inner.description
        self.parameters = inner.parameters
        self.risk = inner.risk
        self.permission_argument = inner.permission_argument
        self.sequential = True
        self.timeout = inner.timeout
        self.max_retries = inner.max_retries
        self.residency = inner.residency
        self.idempotent = inner.idempotent
        self.strict = inner.strict
        self.execution = inner.execution

    @property
    def canonical_name(self) -> str:
        return self.inner.canonical_name

    async def _start(self, arguments: dict[str, Any]) -> JsonValue:
        return {"nonce": self.nonce, "tool": self.inner.canonical_name, "arguments": arguments}

    async def _effect(
        self, started_earlier: bool, arguments: dict[str, Any], ctx: ToolContext[Any]
    ) -> JsonValue:
        if started_earlier and not self.inner.idempotent:
            return encode_result(_result(ctx, INTERRUPTED_EFFECT_TEXT, is_error=True))
        try:
            output = await self.inner.call(arguments, ctx)
        except Exception as exc:  # the loop's own wording for a failing body
            return encode_result(_result(ctx, f"{type(exc).__name__}: {exc}", is_error=True))
        if isinstance(output, ToolReturn):
            return encode_result(
                ToolResultPart(
                    call_id=ctx.tool_call_id,
                    name=self.name,
                    content=output.content,
                    is_error=output.is_error,
                )
            )
        return encode_result(_result(ctx, str(output), is_error=False))

    async def call(self, arguments: dict[str, Any], ctx: ToolContext[Any]) -> ToolOutput:
        """Run the two steps; returns the body's result, the checkpointed one, or the
        interrupted result (:data:`~robota.core.journal.INTERRUPTED_EFFECT_TEXT`)."""
        marker: Any = await DBOS.run_step_async(
            {"name": TOOL_START_STEP}, self._start, dict(arguments)
        )
        started_earlier = marker["nonce"] != self.nonce
        recorded: Any = await DBOS.run_step_async(
            {"name": TOOL_EFFECT_STEP}, self._effect, started_earlier, dict(arguments), ctx
        )
        result = decode_result(recorded)
        return ToolReturn(content=result.content, is_error=result.is_error)


def _result(ctx: ToolContext[Any], text: str, *, is_error: bool) -> ToolResultPart:
    return ToolResultPart(
        call_id=ctx.tool_call_id,
        name=ctx.tool_name,
        content=(TextPart(text=text),),
        is_error=is_error,
    )
