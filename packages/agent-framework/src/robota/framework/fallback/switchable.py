"""Which provider failures move a request to the next model of a fallback chain (seed 003,
"A model fallback chain moves a request only where another model could serve it").

The decision is by error type (and, for a bare :class:`~robota.core.errors.ProviderError`, by
HTTP status), never by message text (CONVENTIONS, "Errors").

Switchable — another model or vendor could serve the same request:

* :class:`~robota.core.errors.OverloadedError` (529/503), :class:`~robota.core.errors.RateLimitError`
  (429), :class:`~robota.core.errors.QuotaExhaustedError` (the account behind *this* entry is out
  of credit; the next entry usually bills elsewhere), :class:`~robota.core.errors.InternalServerError`
  (5xx), :class:`~robota.core.errors.ProviderTimeoutError` (408 / client timeout),
  :class:`~robota.core.errors.ProviderConnectionError`, :class:`~robota.core.errors.NotFoundError`
  (404: the model does not exist at this endpoint).

Not switchable — the request itself or the caller's setup is wrong, so another model would fail
the same way or the caller must act: :class:`~robota.core.errors.AuthenticationError`,
:class:`~robota.core.errors.PermissionDeniedError`, :class:`~robota.core.errors.BadRequestError`,
:class:`~robota.core.errors.ContentFilterError`, :class:`~robota.core.errors.MalformedResponseError`,
:class:`~robota.core.errors.TruncatedResponseError`,
:class:`~robota.core.errors.IncompleteToolCallError`, and a context-window failure (which is a
:class:`~robota.core.errors.ContextWindowExceededError`, not a provider error, and is never
switched: the next model's window is not known to be larger).

Any other :class:`~robota.core.errors.ProviderError` (a bare one, or a subclass not listed) is
switchable only for status 404, 408, 429 or
5xx. Anything else — including a ProviderError with no status — is unclassifiable and is NOT
switchable: a fallback chain must not hide a failure it does not understand.
"""

from __future__ import annotations

from robota.core.errors import (
    AuthenticationError,
    BadRequestError,
    ContentFilterError,
    IncompleteToolCallError,
    InternalServerError,
    MalformedResponseError,
    NotFoundError,
    OverloadedError,
    PermissionDeniedError,
    ProviderConnectionError,
    ProviderError,
    ProviderTimeoutError,
    QuotaExhaustedError,
    RateLimitError,
    TruncatedResponseError,
)

__all__ = ["is_switchable"]

_SWITCHABLE: tuple[type[ProviderError], ...] = (
    OverloadedError,
    RateLimitError,
    QuotaExhaustedError,
    InternalServerError,
    ProviderTimeoutError,
    ProviderConnectionError,
    NotFoundError,
)
_NOT_SWITCHABLE: tuple[type[ProviderError], ...] = (
    AuthenticationError,
    PermissionDeniedError,
    BadRequestError,
    ContentFilterError,
    MalformedResponseError,
    TruncatedResponseError,
    IncompleteToolCallError,
)
_SWITCHABLE_STATUS = frozenset({404, 408, 429})


def is_switchable(error: BaseException) -> bool:
    """Return True when ``error`` lets a fallback chain try its next model.

    Args:
        error: Any exception raised by a provider's stream.

    Returns:
        True for the switchable provider failures listed in the module docstring; False for
        every other exception (non-provider errors included).

    Example:
        >>> from robota.core.errors import AuthenticationError, OverloadedError
        >>> is_switchable(OverloadedError("busy", provider="p", status=529))
        True
        >>> is_switchable(AuthenticationError("bad key", provider="p", status=401))
        False
    """
    if not isinstance(error, ProviderError):
        return False
    if isinstance(error, _NOT_SWITCHABLE):
        return False
    if isinstance(error, _SWITCHABLE):
        return True
    status = error.status
    if status is None:
        return False
    return status in _SWITCHABLE_STATUS or 500 <= status <= 599
