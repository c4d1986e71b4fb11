"""Cost of a response from ``genai-prices`` (https://github.com/pydantic/genai-prices).

``genai-prices`` counts ``input_tokens`` including cache reads and writes, like Robota's
:class:`~robota.core.usage.Usage`, so the neutral counts are passed through unchanged.
"""

from __future__ import annotations

from decimal import Decimal

from genai_prices import Usage as PriceUsage
from genai_prices import calc_price
from robota.core.usage import Usage

__all__ = ["estimate_cost"]


def estimate_cost(model: str, usage: Usage) -> Decimal | None:
    """USD cost of ``usage`` on ``model`` (Anthropic prices), or None when the model (or its
    price) is unknown to ``genai-prices``.

    Example:
        >>> estimate_cost("claude-sonnet-4-5", Usage(input_tokens=100_000))
        Decimal('0.30')
    """
    if not model:
        return None
    try:
        price = calc_price(
            PriceUsage(
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                cache_read_tokens=usage.cache_read_tokens,
                cache_write_tokens=usage.cache_write_tokens,
            ),
            model_ref=model,
            provider_id="anthropic",
        )
    except LookupError:
        return None
    return price.total_price
