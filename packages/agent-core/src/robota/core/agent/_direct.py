"""Direct tool invocation: running a registered tool of an
:class:`~robota.core.agent.agent.Agent` without a model turn (seed 000, "Canonical Direct Runtime
Tool Invocation").

:class:`DirectToolCalls` is a base of the agent; it holds no state of its own (the agent sets the
attributes declared here).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Generic

import anyio
from robota.core.agent._typing import DepsT
from robota.core.cancellation import CancelToken
from robota.core.errors import AgentClosedError, ConfigurationError
from robota.core.messages import ToolCallPart

# The tool runner and the events are imported by the methods (direct calls are rare; a run
# imports them with the run loop).
if TYPE_CHECKING:
    from robota.core.agent.texts import AgentTexts
    from robota.core.events import Event, OwnerPath
    from robota.core.gate import ToolGate
    from robota.core.messages import JsonValue, ToolResultPart
    from robota.core.tools.base import Tool

__all__ = ["DirectToolCalls"]


class DirectToolCalls(Generic[DepsT]):
    """Runs one tool call outside any run (see the module docstring)."""

    name: str
    gates: tuple[ToolGate, ...]
    deps: DepsT | None
    texts: AgentTexts
    _tools: dict[str, Tool]
    _owner: OwnerPath
    _closed: bool

    if TYPE_CHECKING:

        def _emit(self, event: Event) -> None: ...

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, JsonValue] | None,
        *,
        deps: DepsT | None = None,
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
        from robota.core.agent.batch import ToolRunner, error_result

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
        from robota.core.agent.batch import error_result
        from robota.core.agent.events import ToolCallSkipped

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
