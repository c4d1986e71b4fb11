"""A token and cost budget over model calls: :class:`UsageBudget` and
:class:`BudgetedProvider` (seed 004, "the maxCostUsd/maxTotalTokens budget breaker", which
"throws AgentBudgetExceededError").

A :class:`UsageBudget` counts the usage of every ``model.response`` event it receives as an
:class:`~robota.core.events.EventSink` (input, output and total tokens as
:class:`~robota.core.usage.Usage` defines them, cache reads and writes counted inside input) and,
when given a ``price`` function, the USD cost. Once any limit is reached it is *exhausted*:

* as a :class:`~robota.core.gate.ToolGate` it denies every further tool call with a message
  telling the model to stop calling tools and answer, so the run wraps up on its own;
* a :class:`BudgetedProvider` around the agent's provider refuses model calls with
  :class:`BudgetExceededError` before any network I/O (after an allowance of wrap-up calls).

The budget counts across every run it observes until :meth:`UsageBudget.reset`. Wire one
object in all three places::

    budget = UsageBudget(max_total_tokens=200_000)
    agent = Agent(BudgetedProvider(provider, budget), gates=[budget], sinks=[budget])

Once spent, the gate denies the model's tool calls and :class:`BudgetedProvider` lets
``wrap_up_calls`` (default 1) more model calls through so the model can answer; after that
every call is refused.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import ClassVar, Literal

from robota.core.agent.events import ModelResponded
from robota.core.errors import ConfigurationError, ErrorCategory, RobotaError
from robota.core.events import Event
from robota.core.gate import Allow, Deny, GateVerdict, ToolCallRequest, ToolGate
from robota.core.provider import DelegatingProvider, ModelRequest, Provider, StreamEvent
from robota.core.usage import Usage
from robota.plugins.failures import GuardedSink

__all__ = [
    "BudgetExceededError",
    "BudgetLimit",
    "BudgetRemaining",
    "BudgetedProvider",
    "PriceFunction",
    "UsageBudget",
]

PriceFunction = Callable[[str, Usage], Decimal | None]
"""``price(model, usage)``: USD cost of one response, or None when the model's price is unknown
(e.g. :func:`robota.plugins.pricing.genai_price`, or a provider package's ``estimate_cost``)."""

BudgetLimit = Literal["input_tokens", "output_tokens", "total_tokens", "cost_usd"]
"""The name of a limit of :class:`UsageBudget`."""


class BudgetExceededError(RobotaError):
    """A model call was refused because the usage budget is spent (raised by
    :class:`BudgetedProvider` before any network I/O).

    Attributes:
        limits: The limits that were reached, e.g. ``("total_tokens",)``.
        used: The usage counted when the call was refused.
        cost_usd: The USD cost counted (zero without a price function).
    """

    code: ClassVar[str] = "budget_exceeded"
    default_category: ClassVar[ErrorCategory] = ErrorCategory.USER
    default_recoverable: ClassVar[bool] = False

    def __init__(
        self, message: str, *, limits: tuple[BudgetLimit, ...], used: Usage, cost_usd: Decimal
    ) -> None:
        super().__init__(message)
        self.limits = limits
        self.used = used
        self.cost_usd = cost_usd


@dataclass(frozen=True, kw_only=True, slots=True)
class BudgetRemaining:
    """What is left of each limit; ``None`` means the limit is not set. Never negative.

    Attributes:
        input_tokens: Input tokens left.
        output_tokens: Output tokens left.
        total_tokens: Input plus output tokens left.
        cost_usd: USD left.
    """

    input_tokens: int | None
    output_tokens: int | None
    total_tokens: int | None
    cost_usd: Decimal | None


def _decimal(value: Decimal | int | float | str | None) -> Decimal | None:
    if value is None:
        return None
    return value if isinstance(value, Decimal) else Decimal(str(value))


class UsageBudget(GuardedSink, ToolGate):
    """Token and cost limits over the model calls it observes; an event sink and a tool gate.

    A limit is *reached* when the counted value is at or above it. :attr:`exceeded` is True once
    any limit is reached. A response the price function cannot price (it returns None or raises)
    adds no cost and is counted in :attr:`unpriced_requests`.

    Args:
        max_input_tokens: Most input tokens (cache reads and writes included).
        max_output_tokens: Most output tokens (reasoning included).
        max_total_tokens: Most input plus output tokens.
        max_cost_usd: Most USD; needs ``price``.
        price: ``price(model, usage) -> Decimal | None`` in USD for one response.

    Raises:
        ConfigurationError: when a limit is negative, or ``max_cost_usd`` is set without
            ``price``.

    Example:
        >>> budget = UsageBudget(max_total_tokens=100)
        >>> budget.record("m", Usage(input_tokens=60, output_tokens=40, requests=1))
        >>> budget.exceeded, budget.exceeded_limits, budget.remaining.total_tokens
        (True, ('total_tokens',), 0)
    """

    def __init__(
        self,
        *,
        max_input_tokens: int | None = None,
        max_output_tokens: int | None = None,
        max_total_tokens: int | None = None,
        max_cost_usd: Decimal | int | float | str | None = None,
        price: PriceFunction | None = None,
    ) -> None:
        super().__init__()
        cost = _decimal(max_cost_usd)
        for name, limit in (
            ("max_input_tokens", max_input_tokens),
            ("max_output_tokens", max_output_tokens),
            ("max_total_tokens", max_total_tokens),
            ("max_cost_usd", cost),
        ):
            if limit is not None and limit < 0:
                raise ConfigurationError(f"UsageBudget.{name} must not be negative")
        if cost is not None and price is None:
            raise ConfigurationError("UsageBudget.max_cost_usd needs a price function")
        self.max_input_tokens = max_input_tokens
        self.max_output_tokens = max_output_tokens
        self.max_total_tokens = max_total_tokens
        self.max_cost_usd = cost
        self.price = price
        self._used = Usage()
        self._cost = Decimal(0)
        self._unpriced = 0

    # --- counting ---------------------------------------------------------------------------

    def handle(self, event: Event) -> None:
        """Count the usage of a :class:`~robota.core.agent.events.ModelResponded` event."""
        if isinstance(event, ModelResponded):
            self.record(event.model, event.usage)

    def record(self, model: str, usage: Usage) -> None:
        """Count one response's ``usage`` on ``model`` (what :meth:`emit` does per response).

        A failing price function is recorded in :attr:`failures`, never raised.
        """
        self._used = self._used + usage
        if self.price is None:
            return
        try:
            cost = self.price(model, usage)
        except Exception as error:
            self.record_failure("price", error)
            cost = None
        if cost is None:
            self._unpriced += 1
        else:
            self._cost += cost

    def reset(self) -> None:
        """Forget everything counted (the limits stay)."""
        self._used = Usage()
        self._cost = Decimal(0)
        self._unpriced = 0

    # --- reading ----------------------------------------------------------------------------

    @property
    def used(self) -> Usage:
        """The usage counted so far (summed over responses)."""
        return self._used

    @property
    def cost_usd(self) -> Decimal:
        """The USD cost counted so far (zero without a price function)."""
        return self._cost

    @property
    def unpriced_requests(self) -> int:
        """Responses the price function could not price (their cost is not in
        :attr:`cost_usd`)."""
        return self._unpriced

    @property
    def exceeded_limits(self) -> tuple[BudgetLimit, ...]:
        """The limits reached, in the order input, output, total, cost."""
        used = self._used
        reached: list[BudgetLimit] = []
        if self.max_input_tokens is not None and used.input_tokens >= self.max_input_tokens:
            reached.append("input_tokens")
        if self.max_output_tokens is not None and used.output_tokens >= self.max_output_tokens:
            reached.append("output_tokens")
        if self.max_total_tokens is not None and used.total_tokens >= self.max_total_tokens:
            reached.append("total_tokens")
        if self.max_cost_usd is not None and self._cost >= self.max_cost_usd:
            reached.append("cost_usd")
        return tuple(reached)

    @property
    def exceeded(self) -> bool:
        """True once any limit is reached."""
        return bool(self.exceeded_limits)

    @property
    def remaining(self) -> BudgetRemaining:
        """What is left of each limit (zero once reached; None when unset)."""
        used = self._used

        def left(limit: int | None, value: int) -> int | None:
            return None if limit is None else max(limit - value, 0)

        cost = (
            None if self.max_cost_usd is None else max(self.max_cost_usd - self._cost, Decimal(0))
        )
        return BudgetRemaining(
            input_tokens=left(self.max_input_tokens, used.input_tokens),
            output_tokens=left(self.max_output_tokens, used.output_tokens),
            total_tokens=left(self.max_total_tokens, used.total_tokens),
            cost_usd=cost,
        )

    def describe(self) -> str:
        """The reached limits in words, e.g. ``"total tokens 1200 of 1000"`` ('' when none)."""
        used = self._used
        words: list[str] = []
        for limit in self.exceeded_limits:
            if limit == "input_tokens":
                words.append(f"input tokens {used.input_tokens} of {self.max_input_tokens}")
            elif limit == "output_tokens":
                words.append(f"output tokens {used.output_tokens} of {self.max_output_tokens}")
            elif limit == "total_tokens":
                words.append(f"total tokens {used.total_tokens} of {self.max_total_tokens}")
            else:
                words.append(f"cost {self._cost} USD of {self.max_cost_usd} USD")
        return ", ".join(words)

    # --- gate -------------------------------------------------------------------------------

    async def before_tool(self, request: ToolCallRequest) -> GateVerdict:
        """Deny the call once the budget is exhausted, asking the model to answer now."""
        if not self.exceeded:
            return Allow()
        return Deny(
            message=(
                f"The usage budget of this agent is spent ({self.describe()}); the tool "
                f"{request.tool.name} was not run. Do not call any more tools: give your final "
                "answer now with what you already have."
            )
        )

    def check(self) -> None:
        """Raise when the budget is exhausted (what :class:`BudgetedProvider` calls).

        Raises:
            BudgetExceededError: once any limit is reached.
        """
        limits = self.exceeded_limits
        if limits:
            raise BudgetExceededError(
                f"usage budget spent: {self.describe()}",
                limits=limits,
                used=self._used,
                cost_usd=self._cost,
            )


class BudgetedProvider(DelegatingProvider):
    """A :class:`~robota.core.provider.Provider` that refuses new calls once ``budget`` is spent.

    It only checks; the budget counts what it receives as an event sink, so pass the same
    budget in the agent's ``sinks``. Once the budget is spent, ``wrap_up_calls`` more calls are
    let through (counted from the first call that found it spent, until
    :meth:`UsageBudget.reset`), so the model can still answer after the budget's gate denied its
    tool calls; every call after those is refused. Delegates ``name``, ``default_model``,
    :meth:`model_info`, :meth:`capabilities`, :meth:`models`, :meth:`count_tokens` and
    :meth:`aclose` to ``inner``.

    Args:
        inner: The provider to call.
        budget: The budget to check before each call.
        wrap_up_calls: Calls allowed after the budget is spent (0: refuse at once).

    Raises:
        ConfigurationError: when ``wrap_up_calls`` is negative.
    """

    def __init__(self, inner: Provider, budget: UsageBudget, *, wrap_up_calls: int = 1) -> None:
        if wrap_up_calls < 0:
            raise ConfigurationError("BudgetedProvider.wrap_up_calls must not be negative")
        super().__init__(inner)
        self.budget = budget
        self.wrap_up_calls = wrap_up_calls
        self._wrap_ups_used = 0

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Stream ``request`` from the inner provider unless the budget is spent.

        Raises:
            BudgetExceededError: before calling the inner provider, once any limit is reached
                and the wrap-up calls are used up.
            ProviderError: whatever the inner provider raises.
        """
        self._admit()
        events = self.inner.stream(request)
        try:
            async for event in events:
                yield event
        finally:
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                await aclose()

    def _admit(self) -> None:
        if not self.budget.exceeded:
            self._wrap_ups_used = 0  # the budget was reset
            return
        if self._wrap_ups_used >= self.wrap_up_calls:
            self.budget.check()
        self._wrap_ups_used += 1
