"""Per-tool call limits per run: :class:`ToolCallBudget` (seed 004, ``behavior.toolBudgets``
in ``block`` mode: a call past the limit is refused outright, and a ``tool_budget.exceeded``
event is emitted so a host can show it).

Limits are keyed by the tool's canonical name (:attr:`robota.core.tools.base.Tool.canonical_name`,
the name permission rules match, never a model-facing alias); ``"*"`` is the limit of every tool
without an entry of its own (it is per tool, not a shared total). A tool with no entry and no
``"*"`` is unlimited. The count is per run and counts the calls this gate let through; denied
calls are not counted.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from robota.core.agent.events import RunCompleted, RunFailed
from robota.core.errors import ConfigurationError
from robota.core.events import Event
from robota.core.gate import Allow, Deny, GateVerdict, ToolCallRequest, ToolGate
from robota.plugins.failures import GuardedSink

__all__ = ["MAX_TRACKED_RUNS", "ToolBudgetExceeded", "ToolCallBudget"]

MAX_TRACKED_RUNS = 64
"""Runs whose counts are kept at once; the oldest is forgotten first. Registering the budget as
a sink too forgets a run as soon as it ends."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolBudgetExceeded(Event):
    """A tool call was refused because its tool reached its per-run limit.

    Attributes:
        tool: The tool's canonical name.
        limit: The limit that applied (calls per run).
        count: Calls of the tool this run had already made.
        call_id: Robota's id of the refused call.
    """

    type: ClassVar[str] = "tool_budget.exceeded"
    tool: str
    limit: int
    count: int
    call_id: str


class ToolCallBudget(GuardedSink, ToolGate):
    """A tool gate allowing each tool at most its limit of calls per run.

    Args:
        limits: Calls per run by canonical tool name; ``"*"`` for every other tool.

    Raises:
        ConfigurationError: when a limit is negative.

    Example:
        >>> budget = ToolCallBudget({"web_fetch": 5, "*": 50})
        >>> budget.limit_for("web_fetch"), budget.limit_for("read_file")
        (5, 50)
    """

    def __init__(self, limits: Mapping[str, int]) -> None:
        super().__init__()
        for name, limit in limits.items():
            if limit < 0:
                raise ConfigurationError(f"ToolCallBudget limit of {name!r} must not be negative")
        self.limits: dict[str, int] = dict(limits)
        self._counts: OrderedDict[str, dict[str, int]] = OrderedDict()

    def limit_for(self, tool: str) -> int | None:
        """The per-run limit of ``tool`` (None: unlimited)."""
        return self.limits.get(tool, self.limits.get("*"))

    def count(self, run_id: str, tool: str) -> int:
        """Calls of ``tool`` this gate let through in run ``run_id``."""
        return self._counts.get(run_id, {}).get(tool, 0)

    async def before_tool(self, request: ToolCallRequest) -> GateVerdict:
        """Allow and count the call, or deny it once its tool reached its limit in this run."""
        name = request.tool.canonical_name
        limit = self.limit_for(name)
        if limit is None:
            return Allow()
        counts = self._run_counts(request.run_id)
        used = counts.get(name, 0)
        if used >= limit:
            request.emit(
                ToolBudgetExceeded(
                    owner=request.owner, tool=name, limit=limit, count=used, call_id=request.call_id
                )
            )
            return Deny(
                message=(
                    f"Blocked: {name} may be called at most {limit} times per run and this run "
                    f"has used all {limit}. Continue without calling {name} again."
                )
            )
        counts[name] = used + 1
        return Allow()

    def handle(self, event: Event) -> None:
        """Forget a run's counts when it ends (as an event sink)."""
        if isinstance(event, RunCompleted | RunFailed):
            self._counts.pop(event.run_id, None)

    def _run_counts(self, run_id: str) -> dict[str, int]:
        counts = self._counts.get(run_id)
        if counts is None:
            counts = self._counts[run_id] = {}
            while len(self._counts) > MAX_TRACKED_RUNS:
                self._counts.popitem(last=False)
        return counts
