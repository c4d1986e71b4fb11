"""Usage and cost per model and per run: :class:`UsageReport` (ARCHITECTURE.md, "plugin":
usage/cost reporting; token fields as :class:`~robota.core.usage.Usage` defines them — cache
reads and writes are part of input, reasoning part of output).

The report counts every ``model.response`` it observes (one request each) and, with a price
function, the USD cost; responses the function cannot price are counted as unpriced. Runs are
keyed by run id and get their status from ``run.completed`` / ``run.failed``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

from robota.core.agent.events import ModelResponded, RunCompleted, RunFailed
from robota.core.events import Event
from robota.core.messages import JsonValue
from robota.core.usage import Usage
from robota.plugins.budget import PriceFunction
from robota.plugins.failures import GuardedSink

__all__ = ["RunStatus", "UsageReport", "UsageTally"]

RunStatus = Literal["running", "completed", "interrupted", "failed"]


@dataclass(kw_only=True, slots=True)
class UsageTally:
    """Counts of one model, one run, or everything.

    Attributes:
        usage: Token counts summed over the responses.
        requests: Responses counted.
        cost_usd: USD of the priced responses.
        unpriced_requests: Responses the price function could not price.
    """

    usage: Usage = field(default_factory=Usage)
    requests: int = 0
    cost_usd: Decimal = Decimal(0)
    unpriced_requests: int = 0

    def add(self, usage: Usage, cost: Decimal | None, priced: bool) -> None:
        """Count one response (``cost`` None with ``priced`` True means unpriced)."""
        self.usage = self.usage + usage
        self.requests += 1
        if priced:
            if cost is None:
                self.unpriced_requests += 1
            else:
                self.cost_usd += cost

    def to_dict(self, *, priced: bool) -> dict[str, JsonValue]:
        """JSON shape: token counts, ``requests`` and, when priced, ``cost_usd`` as a decimal
        string (exact) and ``unpriced_requests``."""
        usage = self.usage
        out: dict[str, JsonValue] = {
            "requests": self.requests,
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "total_tokens": usage.total_tokens,
            "cache_read_tokens": usage.cache_read_tokens,
            "cache_write_tokens": usage.cache_write_tokens,
            "reasoning_tokens": usage.reasoning_tokens,
        }
        if priced:
            out["cost_usd"] = str(self.cost_usd)
            out["unpriced_requests"] = self.unpriced_requests
        return out

    def line(self, *, priced: bool) -> str:
        """One line of text, e.g. ``"2 requests, 1,200 in (800 cached), 40 out, 1,240 total"``."""
        usage = self.usage
        requests = f"{self.requests} request{'s' if self.requests != 1 else ''}"
        text = f"{requests}, {usage.input_tokens:,} in"
        if usage.cache_read_tokens:
            text += f" ({usage.cache_read_tokens:,} cached)"
        text += f", {usage.output_tokens:,} out, {usage.total_tokens:,} total"
        if priced:
            text += f", ${self.cost_usd}"
            if self.unpriced_requests:
                text += f" (+{self.unpriced_requests} unpriced)"
        return text


class UsageReport(GuardedSink):
    """An event sink tallying usage per model and per run.

    Args:
        price: ``price(model, usage) -> Decimal | None`` in USD; None leaves cost out.

    Example:
        >>> report = UsageReport()
        >>> # Agent(provider, sinks=[report]).run_sync("hi"); print(report.render())
        >>> report.render()
        'Usage: 0 requests, 0 in, 0 out, 0 total'
    """

    def __init__(self, price: PriceFunction | None = None) -> None:
        super().__init__()
        self.price = price
        self.total = UsageTally()
        self.models: dict[str, UsageTally] = {}
        self.runs: dict[str, UsageTally] = {}
        self.run_status: dict[str, RunStatus] = {}

    def handle(self, event: Event) -> None:
        """Count a response; note how a run ended."""
        if isinstance(event, ModelResponded):
            cost: Decimal | None = None
            if self.price is not None:
                try:
                    cost = self.price(event.model, event.usage)
                except Exception as error:
                    self.record_failure("price", error)
            priced = self.price is not None
            self.total.add(event.usage, cost, priced)
            self.models.setdefault(event.model, UsageTally()).add(event.usage, cost, priced)
            run_id = event.owner.find("run")
            if run_id is not None:
                self.runs.setdefault(run_id, UsageTally()).add(event.usage, cost, priced)
                self.run_status.setdefault(run_id, "running")
        elif isinstance(event, RunCompleted):
            self.runs.setdefault(event.run_id, UsageTally())
            self.run_status[event.run_id] = "interrupted" if event.interrupted else "completed"
        elif isinstance(event, RunFailed):
            self.runs.setdefault(event.run_id, UsageTally())
            self.run_status[event.run_id] = "failed"

    def to_dict(self) -> dict[str, JsonValue]:
        """The report as JSON: ``{"total": {...}, "models": {model: {...}}, "runs": {run_id:
        {..., "status": ...}}}`` (see :meth:`UsageTally.to_dict`)."""
        priced = self.price is not None
        runs: dict[str, JsonValue] = {}
        for run_id, tally in self.runs.items():
            entry = tally.to_dict(priced=priced)
            entry["status"] = self.run_status.get(run_id, "running")
            runs[run_id] = entry
        return {
            "total": self.total.to_dict(priced=priced),
            "models": {m: t.to_dict(priced=priced) for m, t in self.models.items()},
            "runs": runs,
        }

    def render(self) -> str:
        """A short text report: a total line, then one line per model and per run."""
        priced = self.price is not None
        lines = [f"Usage: {self.total.line(priced=priced)}"]
        if self.models:
            lines.append("By model:")
            lines += [f"  {m}: {t.line(priced=priced)}" for m, t in sorted(self.models.items())]
        if self.runs:
            lines.append("By run:")
            lines += [
                f"  {r} ({self.run_status.get(r, 'running')}): {t.line(priced=priced)}"
                for r, t in self.runs.items()
            ]
        return "\n".join(lines)

    def reset(self) -> None:
        """Forget everything counted."""
        self.total = UsageTally()
        self.models.clear()
        self.runs.clear()
        self.run_status.clear()
