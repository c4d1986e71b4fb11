"""Cost of a Gemini response from the ``genai-prices`` price table (seed 000, "Usage-Triple
SSOT").

Prices are USD; the table's Google entries price cache reads and (for 2.5 Pro) long-context tiers.
Output tokens include reasoning (thoughts), which Google bills as output.
"""

from __future__ import annotations

from decimal import Decimal

from genai_prices import Usage as PriceUsage
from genai_prices import calc_price
from robota.core.provider import ModelResponse

__all__ = ["estimate_cost"]


def estimate_cost(response: ModelResponse) -> Decimal | None:
    """USD cost of ``response``, or None when ``genai-prices`` does not know the model.

    Example:
        >>> from robota.core.messages import AssistantMessage
        >>> from robota.core.usage import Usage
        >>> r = ModelResponse(message=AssistantMessage(), model="no-such-model",
        ...                   usage=Usage(input_tokens=10))
        >>> estimate_cost(r) is None
        True
    """
    usage = response.usage
    model = response.model or response.message.model or ""
    if not model:
        return None
    try:
        price = calc_price(
            PriceUsage(
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                cache_read_tokens=usage.cache_read_tokens or None,
            ),
            model,
            provider_id="google",
        )
    except LookupError:
        return None
    return price.total_price
