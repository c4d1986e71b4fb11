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

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from robota.core.provider import ModelResponse
from robota.core.usage import Usage

__all__ = ["chat_usage", "estimate_cost", "responses_usage"]

_NAMED = frozenset({"cached_tokens", "reasoning_tokens"})


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _details(prefix: str, block: object, into: dict[str, int]) -> None:
    if not isinstance(block, Mapping):
        return
    fields: Mapping[str, Any] = block
    for key, value in fields.items():
        if key not in _NAMED and isinstance(value, int) and not isinstance(value, bool) and value:
            into[f"{prefix}.{key}"] = value


def chat_usage(raw: object) -> Usage:
    """Decode a Chat Completions ``usage`` object (None or missing → zero counts, partial).

    Example:
        >>> chat_usage({"prompt_tokens": 10, "completion_tokens": 4,
        ...             "prompt_tokens_details": {"cached_tokens": 6}}).cache_read_tokens
        6
    """
    if not isinstance(raw, Mapping):
        return Usage(requests=1, partial=True)
    usage: Mapping[str, Any] = raw
    prompt: Mapping[str, Any] = usage.get("prompt_tokens_details") or {}
    completion: Mapping[str, Any] = usage.get("completion_tokens_details") or {}
    details: dict[str, int] = {}
    _details("prompt_tokens_details", prompt, details)
    _details("completion_tokens_details", completion, details)
    return Usage(
        input_tokens=_int(usage.get("prompt_tokens")),
        output_tokens=_int(usage.get("completion_tokens")),
        cache_read_tokens=_int(prompt.get("cached_tokens")),
        reasoning_tokens=_int(completion.get("reasoning_tokens")),
        requests=1,
        details=details,
    )


def responses_usage(raw: object) -> Usage:
    """Decode a Responses API ``usage`` object (None or missing → zero counts, partial).

    Example:
        >>> responses_usage({"input_tokens": 9, "output_tokens": 30,
        ...                  "output_tokens_details": {"reasoning_tokens": 20}}).reasoning_tokens
        20
    """
    if not isinstance(raw, Mapping):
        return Usage(requests=1, partial=True)
    usage: Mapping[str, Any] = raw
    inputs: Mapping[str, Any] = usage.get("input_tokens_details") or {}
    outputs: Mapping[str, Any] = usage.get("output_tokens_details") or {}
    details: dict[str, int] = {}
    _details("input_tokens_details", inputs, details)
    _details("output_tokens_details", outputs, details)
    return Usage(
        input_tokens=_int(usage.get("input_tokens")),
        output_tokens=_int(usage.get("output_tokens")),
        cache_read_tokens=_int(inputs.get("cached_tokens")),
        reasoning_tokens=_int(outputs.get("reasoning_tokens")),
        requests=1,
        details=details,
    )


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
