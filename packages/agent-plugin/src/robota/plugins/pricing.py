"""A price function from the ``genai-prices`` table (https://github.com/pydantic/genai-prices),
for :class:`~robota.plugins.budget.UsageBudget` and :class:`~robota.plugins.usage_report.UsageReport`.

``genai-prices`` counts ``input_tokens`` including cache reads and writes, like Robota's
:class:`~robota.core.usage.Usage`, so the neutral counts are passed through unchanged.
"""

from __future__ import annotations

from decimal import Decimal

from robota.core.extras import raise_missing_extra

try:
    from genai_prices import Usage as PriceUsage
    from genai_prices import calc_price
except ImportError as error:
    raise_missing_extra(
        error, module="genai_prices", distribution="robota-agent-plugin", extra="prices"
    )

from robota.core.usage import Usage
from robota.plugins.budget import PriceFunction

__all__ = ["genai_price"]


def genai_price(provider_id: str | None = None) -> PriceFunction:
    """A ``price(model, usage) -> Decimal | None`` in USD from ``genai-prices``.

    Args:
        provider_id: The ``genai-prices`` provider id (``"anthropic"``, ``"openai"``,
            ``"google"``, ...); None lets the library match the model name.

    Returns:
        A function giving None for a model (or provider) the table does not know.

    Example:
        >>> price = genai_price("anthropic")
        >>> price("claude-sonnet-4-5", Usage(input_tokens=100_000))
        Decimal('0.30')
        >>> price("no-such-model", Usage(input_tokens=1)) is None
        True
    """

    def price(model: str, usage: Usage) -> Decimal | None:
        if not model:
            return None
        try:
            result = calc_price(
                PriceUsage(
                    input_tokens=usage.input_tokens,
                    output_tokens=usage.output_tokens,
                    cache_read_tokens=usage.cache_read_tokens,
                    cache_write_tokens=usage.cache_write_tokens,
                ),
                model_ref=model,
                provider_id=provider_id,
            )
        except LookupError:
            return None
        return result.total_price

    return price
