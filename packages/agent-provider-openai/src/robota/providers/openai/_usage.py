"""OpenAI usage objects → :class:`~robota.core.usage.Usage`, and cost (seed 000, "Usage-Triple
SSOT").

Chat Completions: ``prompt_tokens`` (cached tokens ``prompt_tokens_details.cached_tokens`` are
already inside it), ``completion_tokens`` (``completion_tokens_details.reasoning_tokens`` inside
it). Responses: ``input_tokens`` / ``input_tokens_details.cached_tokens`` and ``output_tokens`` /
``output_tokens_details.reasoning_tokens``. Source:
https://platform.openai.com/docs/api-reference/chat/object#chat/object-usage and
https://platform.openai.com/docs/api-reference/responses/object#responses/object-usage.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, cast

from robota.core.provider import ModelResponse
from robota.core.usage import Usage
from robota.providers.openai._common import as_mapping

__all__ = ["chat_usage", "estimate_cost", "responses_usage"]

_NAMED = frozenset({"cached_tokens", "reasoning_tokens"})


class _Counts:
    """Reads token counts, noting any that could not be read (the usage is then partial)."""

    def __init__(self) -> None:
        self.partial = False

    def count(self, value: object, *, required: bool) -> int:
        """``value`` as a token count: a non-negative integer (an integral float such as
        ``9.0`` too). Anything else — negative, a string, a fraction, NaN, infinity, a boolean
        — is unknown: 0, and the usage is marked partial; so is a missing ``required`` count."""
        if value is None:
            self.partial = self.partial or required
            return 0
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
        if isinstance(value, float) and math.isfinite(value) and value.is_integer() and value >= 0:
            return int(value)
        self.partial = True
        return 0

    def details(self, prefix: str, block: Mapping[str, Any], into: dict[str, int]) -> None:
        for key, value in block.items():
            if key in _NAMED or value is None or isinstance(value, Mapping | list):
                continue
            tokens = self.count(value, required=False)
            if tokens:
                into[f"{prefix}.{key}"] = tokens


def _usage(
    raw: Mapping[str, Any], names: tuple[str, str], blocks: tuple[str, str], tokens: _Counts
) -> Usage:
    inputs = as_mapping(raw.get(blocks[0]))
    outputs = as_mapping(raw.get(blocks[1]))
    details: dict[str, int] = {}
    tokens.details(blocks[0], inputs, details)
    tokens.details(blocks[1], outputs, details)
    input_tokens = tokens.count(raw.get(names[0]), required=True)
    output_tokens = tokens.count(raw.get(names[1]), required=True)
    return Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_read_tokens=tokens.count(inputs.get("cached_tokens"), required=False),
        reasoning_tokens=tokens.count(outputs.get("reasoning_tokens"), required=False),
        requests=1,
        details=details,
        partial=tokens.partial,
    )


def chat_usage(raw: object) -> Usage:
    """Decode a Chat Completions ``usage`` object (None or missing → zero counts, partial).

    A count that is missing (``prompt_tokens``, ``completion_tokens``) or cannot be a token
    count (negative, a string, a fraction, NaN) is read as 0 and the usage is marked
    ``partial``: unknown, never attested as a consistent total.

    Example:
        >>> chat_usage({"prompt_tokens": 10, "completion_tokens": 4,
        ...             "prompt_tokens_details": {"cached_tokens": 6}}).cache_read_tokens
        6
        >>> usage = chat_usage({"prompt_tokens": -9, "completion_tokens": "3"})
        >>> usage.input_tokens, usage.output_tokens, usage.partial
        (0, 0, True)
    """
    if not isinstance(raw, Mapping):
        return Usage(requests=1, partial=True)
    names = ("prompt_tokens", "completion_tokens")
    blocks = ("prompt_tokens_details", "completion_tokens_details")
    return _usage(cast(Mapping[str, Any], raw), names, blocks, _Counts())


def responses_usage(raw: object) -> Usage:
    """Decode a Responses API ``usage`` object (None or missing → zero counts, partial; counts
    that are missing or unreadable as in :func:`chat_usage`).

    Example:
        >>> responses_usage({"input_tokens": 9, "output_tokens": 30,
        ...                  "output_tokens_details": {"reasoning_tokens": 20}}).reasoning_tokens
        20
        >>> responses_usage({"input_tokens": float("nan"), "output_tokens": 3}).partial
        True
    """
    if not isinstance(raw, Mapping):
        return Usage(requests=1, partial=True)
    names = ("input_tokens", "output_tokens")
    blocks = ("input_tokens_details", "output_tokens_details")
    return _usage(cast(Mapping[str, Any], raw), names, blocks, _Counts())


def estimate_cost(response: ModelResponse, *, provider_id: str = "openai") -> Decimal | None:
    """Price of one response in USD from ``genai-prices``, or None when the model is not in its
    table (never a guess).

    Args:
        response: A response from an OpenAI provider.
        provider_id: genai-prices provider id (``openai``, ``groq``, ``deepseek``, ...).

    Example:
        >>> from robota.core.messages import AssistantMessage
        >>> r = ModelResponse(message=AssistantMessage(), model="gpt-4o-mini",
        ...                   usage=Usage(input_tokens=1000, output_tokens=100))
        >>> estimate_cost(r)
        Decimal('0.00021')
    """
    from genai_prices import Usage as PriceUsage
    from genai_prices import calc_price

    usage = response.usage
    priced = PriceUsage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cache_read_tokens or None,
    )
    try:
        result = calc_price(priced, response.model, provider_id=provider_id)
    except LookupError:
        return None
    return result.total_price
