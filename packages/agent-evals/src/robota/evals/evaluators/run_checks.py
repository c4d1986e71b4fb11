"""Built-in evaluators of how a case ran (seed 002, "Evaluations": tool-called with arguments,
max cost / tokens / duration), read from the run's messages, usage and timing.

Frozen dataclasses with JSON-compatible fields (a dataset file names them as
``{ClassName: {field: value}}``), each with the keyword ``evaluation_name`` of
:class:`~robota.evals.evaluators._named.NamedEvaluator`. Verdicts are assertions; every one
carries a reason, pass or fail.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from robota.core.messages import ToolCallPart
from robota.evals.evaluators._named import NamedEvaluator
from robota.evals.evaluators._values import brief, is_subset
from robota.evals.evaluators.base import EvaluationReason, EvaluatorContext

__all__ = ["MaxCost", "MaxDuration", "MaxTokens", "ToolCalled", "ToolNotCalled"]

PARTIAL_NOTE = " (usage is partial: the provider did not attest complete counts)"
"""Appended to a reason computed from usage marked ``partial``."""


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"


def _calls_text(calls: list[ToolCallPart]) -> str:
    return brief([c.arguments if c.arguments is not None else c.raw_arguments for c in calls])


@dataclass(frozen=True, slots=True)
class ToolCalled(NamedEvaluator):
    """The model called tool ``tool`` (hosted tools included), optionally with ``arguments``
    and an exact number of ``times``.

    Attributes:
        tool: The tool name as the model sent it.
        arguments: Arguments the call must carry: a subset match on the parsed arguments
            (nested objects match as subsets too; lists must be equal). A call whose arguments
            did not parse never matches. None: any arguments.
        times: Exactly how many matching calls (None: at least one).

    Raises:
        ValueError: ``times`` below 0.

    Example:
        >>> import anyio
        >>> from robota.core.messages import AssistantMessage, ToolCallPart
        >>> from robota.evals import Case, EvaluatorContext
        >>> from robota.evals.evaluators.base import run_evaluator
        >>> call = ToolCallPart(id="c1", name="search", arguments={"q": "paris", "limit": 5})
        >>> ctx = EvaluatorContext(case=Case(name="t", inputs="?"), case_index=0, repetition=0,
        ...     output="ok", duration=0.1, messages=(AssistantMessage(parts=(call,)),))
        >>> anyio.run(run_evaluator, ToolCalled("search", {"q": "paris"}), ctx)
        EvaluationReason(value=True, reason='\\'search\\' with arguments {"q": "paris"} was called once')
    """

    tool: str
    arguments: dict[str, Any] | None = None
    times: int | None = None

    def __post_init__(self) -> None:
        if self.times is not None and self.times < 0:
            raise ValueError(f"ToolCalled: times must be 0 or more, not {self.times}")

    def evaluate(self, ctx: EvaluatorContext[Any, Any]) -> EvaluationReason:
        """Count the matching calls in ``ctx.tool_calls``."""
        calls = [c for c in ctx.tool_calls if c.name == self.tool]
        matching = [
            c
            for c in calls
            if self.arguments is None
            or (c.arguments is not None and is_subset(self.arguments, c.arguments))
        ]
        count = len(matching)
        passed = count >= 1 if self.times is None else count == self.times
        what = repr(self.tool)
        if self.arguments is not None:
            what += f" with arguments {brief(self.arguments)}"
        reason = f"{what} was called {_times(count)}"
        if self.times is not None and not passed:
            reason += f", expected {_times(self.times)}"
        if not passed and self.arguments is not None and calls:
            reason += f"; its calls had arguments {_calls_text(calls)}"
        elif not passed and not calls:
            names = sorted({c.name for c in ctx.tool_calls})
            reason += f"; tools called: {brief(names) if names else 'none'}"
        return EvaluationReason(value=passed, reason=reason)


@dataclass(frozen=True, slots=True)
class ToolNotCalled(NamedEvaluator):
    """The model never called tool ``tool`` (hosted tools included).

    Attributes:
        tool: The tool name as the model would send it.

    Example:
        >>> import anyio
        >>> from robota.core.messages import AssistantMessage, ToolCallPart
        >>> from robota.evals import Case, EvaluatorContext
        >>> from robota.evals.evaluators.base import run_evaluator
        >>> call = ToolCallPart(id="c1", name="shell", arguments={"cmd": "rm -rf /"})
        >>> ctx = EvaluatorContext(case=Case(name="t", inputs="?"), case_index=0, repetition=0,
        ...     output="ok", duration=0.1, messages=(AssistantMessage(parts=(call,)),))
        >>> anyio.run(run_evaluator, ToolNotCalled("shell"), ctx).reason
        '\\'shell\\' was called once with arguments [{"cmd": "rm -rf /"}]'
    """

    tool: str

    def evaluate(self, ctx: EvaluatorContext[Any, Any]) -> EvaluationReason:
        """Look for calls of :attr:`tool` in ``ctx.tool_calls``."""
        calls = [c for c in ctx.tool_calls if c.name == self.tool]
        if not calls:
            return EvaluationReason(value=True, reason=f"{self.tool!r} was not called")
        return EvaluationReason(
            value=False,
            reason=f"{self.tool!r} was called {_times(len(calls))} with arguments "
            f"{_calls_text(calls)}",
        )


def _check_bound(owner: str, label: str, bound: float | None) -> None:
    if bound is None:
        return
    if isinstance(bound, bool) or not math.isfinite(bound) or bound < 0:
        raise ValueError(f"{owner}: {label} must be a finite number of 0 or more, not {bound!r}")


@dataclass(frozen=True, slots=True)
class MaxTokens(NamedEvaluator):
    """The run's token usage stays within bounds (``<=``). Usage marked ``partial`` still gets
    a verdict; the reason says the counts are partial.

    Attributes:
        total: Most input plus output tokens (None: no bound).
        input: Most input tokens, cache reads and writes included (None: no bound).
        output: Most output tokens, reasoning included (None: no bound).

    Raises:
        ValueError: no bound, or a negative one.

    Example:
        >>> import anyio
        >>> from robota.core.usage import Usage
        >>> from robota.evals import Case, EvaluatorContext
        >>> from robota.evals.evaluators.base import run_evaluator
        >>> ctx = EvaluatorContext(case=Case(name="t", inputs="?"), case_index=0, repetition=0,
        ...     output="ok", duration=0.1, usage=Usage(input_tokens=900, output_tokens=200))
        >>> anyio.run(run_evaluator, MaxTokens(total=1000, output=500), ctx)
        EvaluationReason(value=False, reason='total 1100 > 1000 tokens, output 200 <= 500 tokens')
    """

    total: int | None = None
    input: int | None = None
    output: int | None = None

    def __post_init__(self) -> None:
        if self.total is None and self.input is None and self.output is None:
            raise ValueError("MaxTokens needs at least one bound: total, input or output")
        for label in ("total", "input", "output"):
            _check_bound("MaxTokens", label, getattr(self, label))

    def evaluate(self, ctx: EvaluatorContext[Any, Any]) -> EvaluationReason:
        """Compare ``ctx.usage`` with the bounds."""
        usage = ctx.usage
        measured = (
            ("total", usage.total_tokens, self.total),
            ("input", usage.input_tokens, self.input),
            ("output", usage.output_tokens, self.output),
        )
        passed = True
        parts: list[str] = []
        for label, used, bound in measured:
            if bound is None:
                continue
            within = used <= bound
            passed = passed and within
            parts.append(f"{label} {used} {'<=' if within else '>'} {bound} tokens")
        reason = ", ".join(parts) + (PARTIAL_NOTE if usage.partial else "")
        return EvaluationReason(value=passed, reason=reason)


@dataclass(frozen=True, slots=True)
class MaxDuration(NamedEvaluator):
    """The successful task attempt took at most ``seconds``.

    Attributes:
        seconds: The bound, in seconds.

    Raises:
        ValueError: a negative or non-finite bound.

    Example:
        >>> import anyio
        >>> from robota.evals import Case, EvaluatorContext
        >>> from robota.evals.evaluators.base import run_evaluator
        >>> ctx = EvaluatorContext(case=Case(name="t", inputs="?"), case_index=0, repetition=0,
        ...     output="ok", duration=2.5)
        >>> anyio.run(run_evaluator, MaxDuration(2), ctx).reason
        'took 2.500 s > 2 s'
    """

    seconds: float

    def __post_init__(self) -> None:
        _check_bound("MaxDuration", "seconds", self.seconds)

    def evaluate(self, ctx: EvaluatorContext[Any, Any]) -> EvaluationReason:
        """Compare ``ctx.duration`` with :attr:`seconds`."""
        within = ctx.duration <= self.seconds
        return EvaluationReason(
            value=within,
            reason=f"took {ctx.duration:.3f} s {'<=' if within else '>'} {self.seconds:g} s",
        )


@dataclass(frozen=True, slots=True)
class MaxCost(NamedEvaluator):
    """The run cost at most ``usd``, priced from the ``genai-prices`` table
    (:func:`robota.plugins.pricing.genai_price`, which needs ``robota-agent-plugin[prices]``).

    The run's usage is priced at the rates of the model that answered last
    (``ctx.model``): a run answered by several models is priced at that one's rates. A model
    the table does not price, or a run that names no model, fails (fail closed).

    Attributes:
        usd: The bound, in US dollars.
        provider_id: The ``genai-prices`` provider id (``"openai"``, ``"anthropic"``,
            ``"google"``, ...); None lets the table match the model name.

    Raises:
        ValueError: a negative or non-finite bound (at construction).
        MissingExtraError: ``genai-prices`` is not installed (when evaluating; the report
            records it as the evaluator's error).

    Example:
        >>> import anyio
        >>> from robota.core.messages import AssistantMessage
        >>> from robota.core.usage import Usage
        >>> from robota.evals import Case, EvaluatorContext
        >>> from robota.evals.evaluators.base import run_evaluator
        >>> ctx = EvaluatorContext(case=Case(name="t", inputs="?"), case_index=0, repetition=0,
        ...     output="ok", duration=0.1, usage=Usage(input_tokens=100_000),
        ...     messages=(AssistantMessage(model="claude-sonnet-4-5"),))
        >>> anyio.run(run_evaluator, MaxCost(0.25, provider_id="anthropic"), ctx).reason
        'cost $0.30 > $0.25 (model claude-sonnet-4-5)'
    """

    usd: float
    provider_id: str | None = None

    def __post_init__(self) -> None:
        _check_bound("MaxCost", "usd", self.usd)

    def evaluate(self, ctx: EvaluatorContext[Any, Any]) -> EvaluationReason:
        """Price ``ctx.usage`` at ``ctx.model``'s rates and compare with :attr:`usd`."""
        from robota.plugins.pricing import genai_price

        model = ctx.model
        at = f" at provider {self.provider_id!r}" if self.provider_id else ""
        if model is None:
            return EvaluationReason(
                value=False, reason=f"no price for model None: the run names no model{at}"
            )
        cost = genai_price(self.provider_id)(model, ctx.usage)
        if cost is None:
            return EvaluationReason(value=False, reason=f"no price for model {model!r}{at}")
        bound = Decimal(str(self.usd))
        within = cost <= bound
        reason = f"cost ${cost} {'<=' if within else '>'} ${bound} (model {model})"
        return EvaluationReason(
            value=within, reason=reason + (PARTIAL_NOTE if ctx.usage.partial else "")
        )
