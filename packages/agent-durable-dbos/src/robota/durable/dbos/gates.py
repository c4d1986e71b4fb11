"""The agent's gates decided once per tool call, durably (seed 000, "Execution Journal and
Continuation": continuation reuses every durable settlement; the admission that let a call run
is journaled with its start).

:class:`DBOSGates` wraps the host's gates (permissions, hooks, ...) into one gate whose decision
is the DBOS step ``robota.tool_admission`` and whose after-tool pass is the step
``robota.tool_after``. When a workflow is recovered, a call whose admission step completed gets
the checkpointed verdict: no approver, permission gate or ``PreToolUse`` hook is asked again, so
a different answer now cannot replace what already ran; a completed after-step likewise keeps
``PostToolUse`` hooks from firing again. The wrapped chain keeps the loop's semantics: gates in
order, the first deny ends it, a failing gate fails closed, the first substitute wins, the first
effective risk wins, argument changes carry on.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from robota.core.gate import Allow, Deny, GateVerdict, Substitute, ToolCallRequest, ToolGate
from robota.core.journal import decode_result, encode_result, gate_fingerprints
from robota.core.messages import JsonValue, TextPart, ToolResultPart
from robota.core.tools.base import RiskClass, Tool

from dbos import DBOS

__all__ = ["TOOL_ADMISSION_STEP", "TOOL_AFTER_STEP", "DBOSGates"]

TOOL_ADMISSION_STEP = "robota.tool_admission"
"""DBOS step name of a call's admission (every gate's ``before_tool``)."""

TOOL_AFTER_STEP = "robota.tool_after"
"""DBOS step name of the after-tool pass (every gate's ``after_tool``)."""


class DBOSGates(ToolGate):
    """The host's gates as one durable gate.

    Args:
        gates: The gates, in order (permissions first, then hooks).
    """

    def __init__(self, gates: Sequence[ToolGate]) -> None:
        self.gates = tuple(gates)

    def offers(self, tool: Tool) -> bool:
        return all(g.offers(tool) for g in self.gates)

    def journal_state(self) -> JsonValue:
        return gate_fingerprints(self.gates)

    async def before_tool(self, request: ToolCallRequest) -> GateVerdict:
        """The checkpointed admission of the call (decided once, by the wrapped gates)."""
        recorded: Any = await DBOS.run_step_async(
            {"name": TOOL_ADMISSION_STEP}, self._admit, request
        )
        verdict = recorded["verdict"]
        if verdict == "deny":
            return Deny(message=recorded["message"])
        if verdict == "substitute":
            return Substitute(result=decode_result(recorded["result"]))
        risk = recorded["effective_risk"]
        return Allow(
            arguments=recorded["arguments"],
            effective_risk=RiskClass(risk) if risk is not None else None,
        )

    async def _admit(self, request: ToolCallRequest) -> JsonValue:
        arguments: dict[str, Any] = dict(request.arguments)
        changed = False
        substitute: ToolResultPart | None = None
        risk: RiskClass | None = None
        for gate in self.gates:
            try:
                verdict = await gate.before_tool(request)
            except Exception as exc:  # a failing gate fails closed
                return {"verdict": "deny", "message": f"{type(exc).__name__}: {exc}"}
            if isinstance(verdict, Deny):
                return {"verdict": "deny", "message": verdict.message}
            if isinstance(verdict, Substitute):
                if substitute is None:
                    substitute = verdict.result
                continue
            if risk is None:
                risk = verdict.effective_risk
            if verdict.arguments is not None:
                arguments = dict(verdict.arguments)
                changed = True
                request = replace(request, arguments=arguments)
        if substitute is not None:
            return {"verdict": "substitute", "result": encode_result(substitute)}
        document: Any = {
            "verdict": "allow",
            "arguments": arguments if changed else None,
            "effective_risk": str(risk) if risk is not None else None,
        }
        return document

    async def after_tool(self, request: ToolCallRequest, result: ToolResultPart) -> ToolResultPart:
        """The checkpointed result of every wrapped gate's ``after_tool``."""
        recorded: Any = await DBOS.run_step_async(
            {"name": TOOL_AFTER_STEP}, self._after, request, result
        )
        return decode_result(recorded)

    async def _after(self, request: ToolCallRequest, result: ToolResultPart) -> JsonValue:
        for gate in self.gates:
            try:
                result = await gate.after_tool(request, result)
            except Exception as exc:
                result = ToolResultPart(
                    call_id=result.call_id,
                    name=result.name,
                    content=(TextPart(text=f"{type(exc).__name__}: {exc}"),),
                    is_error=True,
                )
        return encode_result(result)

    async def aclose(self) -> None:
        for gate in self.gates:
            # best-effort, like Agent.aclose: one failing gate does not keep the others open
            with contextlib.suppress(Exception):
                await gate.aclose()
