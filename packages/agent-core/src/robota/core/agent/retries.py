"""The agent's default retries: every model call goes through
:class:`~robota.core.retry.RetryingProvider` unless the host turned retries off or its provider
already retries (issue #14: a library user gets retries without knowing to ask for them).

Only recoverable provider failures are retried, and never after the first streamed event
reached the loop (the rule of :class:`~robota.core.retry.RetryingProvider`).
"""

from __future__ import annotations

from robota.core.provider import Provider
from robota.core.retry import RetryingProvider, RetryPolicy

__all__ = ["DEFAULT_RETRY_POLICY", "already_retries", "with_retries"]

DEFAULT_RETRY_POLICY = RetryPolicy()
"""What ``Agent(retry=...)`` defaults to: 4 attempts, 0.5 s backoff base with full jitter,
30 s cap per wait, 60 s of waiting in total per call (see :class:`~robota.core.retry.RetryPolicy`)."""

_MAX_CHAIN = 32


def already_retries(provider: Provider) -> bool:
    """True when ``provider`` is a :class:`~robota.core.retry.RetryingProvider` or wraps one
    through a chain of ``inner`` attributes (the convention of Robota's provider decorators:
    ``OverflowRecoveringProvider``, ``DBOSProvider``, ``BudgetedProvider``), so wrapping it
    again would multiply the attempts."""
    current: object = provider
    for _ in range(_MAX_CHAIN):
        if isinstance(current, RetryingProvider):
            return True
        current = getattr(current, "inner", None)
        if not isinstance(current, Provider):
            return False
    return False


def with_retries(provider: Provider, policy: RetryPolicy | None) -> Provider:
    """The provider the loop calls: ``provider`` itself when ``policy`` is None or it already
    retries, else ``RetryingProvider(provider, policy)``."""
    if policy is None or already_retries(provider):
        return provider
    return RetryingProvider(provider, policy)
