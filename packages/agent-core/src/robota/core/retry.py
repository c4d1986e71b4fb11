"""Retrying recoverable provider failures: :class:`RetryPolicy` and :class:`RetryingProvider`.

Provider packages set their vendor SDK's own retries to zero; a host wraps a provider with
:class:`RetryingProvider` to get one retry policy for every vendor. Only a
:class:`~robota.core.errors.ProviderError` with ``recoverable=True`` (rate limit, overloaded, 5xx,
timeout, connection) is retried, with exponential backoff and full jitter ("Exponential Backoff
And Jitter", AWS Architecture Blog, 2015): ``delay = random() * min(max_delay, base_delay *
2**retry)`` for the 0-based retry number. A vendor's ``retry_after`` (the ``Retry-After`` header,
RFC 9110 §10.2.3) is a floor: the wait is at least that long, and when it exceeds the remaining
delay budget the error is raised at once rather than waited out. Nothing is retried once any
content event (text, thinking, a tool call; a ``UsageReported`` does not count) reached the
caller: a retry would repeat text the caller has already seen.
"""

from __future__ import annotations

import email.utils
import math
import random as _random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import anyio
from robota.core.errors import ConfigurationError, ProviderError
from robota.core.provider import (
    DelegatingProvider,
    ModelRequest,
    Provider,
    StreamEvent,
    UsageReported,
)

__all__ = ["RetryPolicy", "RetryingProvider", "retry_after_seconds"]


@dataclass(frozen=True, kw_only=True, slots=True)
class RetryPolicy:
    """How often and how long to retry.

    Attributes:
        max_attempts: Most calls in total, the first one included (1 disables retrying).
        base_delay: Backoff base in seconds (the cap for the first retry's jittered delay).
        max_delay: Cap of one backoff delay in seconds (``retry_after`` may exceed it).
        total_budget: Most seconds spent waiting between attempts, summed over the call.

    Raises:
        ConfigurationError: when ``max_attempts < 1`` or a delay is negative.
    """

    max_attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 30.0
    total_budget: float = 60.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ConfigurationError("RetryPolicy.max_attempts must be at least 1")
        if min(self.base_delay, self.max_delay, self.total_budget) < 0:
            raise ConfigurationError("RetryPolicy delays must not be negative")

    def backoff(self, retry: int, jitter: float) -> float:
        """The jittered delay in seconds before 0-based retry number ``retry``.

        Args:
            retry: 0 for the first retry.
            jitter: A number in ``[0, 1)`` (``random.random()``).
        """
        return jitter * min(self.max_delay, self.base_delay * 2**retry)


class RetryingProvider(DelegatingProvider):
    """A :class:`~robota.core.provider.Provider` that retries another one's recoverable failures.

    Delegates ``name``, ``default_model``, :attr:`endpoint`, :meth:`model_info`,
    :meth:`capabilities`, :meth:`models`, :meth:`count_tokens` and :meth:`aclose` to ``inner``.

    ``Agent`` wraps its provider in one by default (``Agent(retry=RetryPolicy())``; a provider
    that already is one is used as is).

    Args:
        inner: The provider to call.
        policy: The retry policy (defaults: 4 attempts, 0.5 s base, 30 s cap, 60 s budget).
        sleep: Awaitable sleep in seconds (injected in tests).
        random: Returns a float in ``[0, 1)`` (injected in tests).

    Example:
        >>> from robota.core.retry import RetryPolicy, RetryingProvider
        >>> # provider = RetryingProvider(AnthropicProvider(...), RetryPolicy(max_attempts=3))
    """

    def __init__(
        self,
        inner: Provider,
        policy: RetryPolicy | None = None,
        *,
        sleep: Callable[[float], Awaitable[Any]] = anyio.sleep,
        random: Callable[[], float] = _random.random,
    ) -> None:
        super().__init__(inner)
        self.policy = policy if policy is not None else RetryPolicy()
        self._sleep = sleep
        self._random = random

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Stream ``request`` from the inner provider, retrying before the first event.

        Raises:
            ProviderError: the last failure when it is not recoverable, when an event was
                already yielded, when attempts run out, or when the next wait would exceed the
                delay budget. A note on the error says how many retries were made.
        """
        waited = 0.0
        retry = 0
        while True:
            delivered = False
            events = self.inner.stream(request)
            try:
                async for event in events:
                    # usage is bookkeeping, not content the caller has seen: a failure after
                    # it (an error event right after message_start) may still be retried
                    delivered = delivered or not isinstance(event, UsageReported)
                    yield event
                return
            except ProviderError as error:
                delay = self._next_delay(error, retry, waited, delivered)
                if delay is None:
                    if retry:
                        error.add_note(f"robota: gave up after {retry} retries")
                    raise
            finally:
                aclose = getattr(events, "aclose", None)
                if aclose is not None:
                    await aclose()
            await self._sleep(delay)
            waited += delay
            retry += 1

    def _next_delay(
        self, error: ProviderError, retry: int, waited: float, delivered: bool
    ) -> float | None:
        if delivered or not error.recoverable or retry + 1 >= self.policy.max_attempts:
            return None
        remaining = self.policy.total_budget - waited
        delay = min(self.policy.backoff(retry, self._random()), remaining)
        if error.retry_after is not None:
            if error.retry_after > remaining:
                return None
            delay = max(delay, error.retry_after)
        return max(delay, 0.0)


def _finite(text: str) -> float | None:
    """``float(text)`` when it is a finite number (``nan`` and ``inf`` are not waits)."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def retry_after_seconds(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """The wait a server asked for, in seconds, or None when absent or unreadable.

    Reads ``retry-after-ms`` (milliseconds; OpenAI and Anthropic send it), then ``Retry-After``
    as delta-seconds or an HTTP-date (RFC 9110 §10.2.3); a date in the past gives 0. Header
    names are matched case-insensitively. Every provider package uses this one reader.

    Example:
        >>> retry_after_seconds({"retry-after-ms": "1500"}), retry_after_seconds({"Retry-After": "20"})
        (1.5, 20.0)
    """
    lowered = {k.lower(): v for k, v in headers.items()}
    raw_ms = lowered.get("retry-after-ms")
    if raw_ms is not None:
        seconds = _finite(raw_ms)
        if seconds is not None:
            return max(seconds / 1000.0, 0.0)
    raw = lowered.get("retry-after")
    if raw is None:
        return None
    seconds = _finite(raw)
    if seconds is not None:
        return max(seconds, 0.0)
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    current = time.time() if now is None else now
    return max(when.timestamp() - current, 0.0)
