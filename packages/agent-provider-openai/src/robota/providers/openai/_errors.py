"""OpenAI SDK exceptions → Robota's error taxonomy (seed 000, "Error Taxonomy").

Classification uses the HTTP status and OpenAI's error ``type`` / ``code`` fields
(https://platform.openai.com/docs/guides/error-codes), never message text. The vendor facts
(status, type, ``x-request-id``, ``retry-after`` / ``retry-after-ms``) are kept on the error.

Example:
    >>> parse_retry_after({"retry-after-ms": "1500"}), parse_retry_after({"retry-after": "20"})
    (1.5, 20.0)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from robota.core.errors import (
    AuthenticationError,
    BadRequestError,
    ContextWindowExceededError,
    InternalServerError,
    NotFoundError,
    OverloadedError,
    PermissionDeniedError,
    ProviderConnectionError,
    ProviderError,
    ProviderTimeoutError,
    QuotaExhaustedError,
    RateLimitError,
    RobotaError,
)
from robota.core.retry import retry_after_seconds

import openai

__all__ = ["classify_error", "parse_retry_after"]

_QUOTA_CODES = frozenset({"insufficient_quota", "billing_hard_limit_reached"})
_CONTEXT_CODES = frozenset({"context_length_exceeded", "string_above_max_length"})


parse_retry_after = retry_after_seconds
"""See :func:`robota.core.retry.retry_after_seconds`."""


def _error_fields(body: object) -> tuple[str | None, str | None, Mapping[str, Any] | None]:
    """(type, code, body dict) from an OpenAI error body ``{"error": {...}}`` or a bare one."""
    if not isinstance(body, Mapping):
        return None, None, None
    document: Mapping[str, Any] = body
    inner = document.get("error", document)
    if not isinstance(inner, Mapping):
        return None, None, document
    fields: Mapping[str, Any] = inner
    vendor_type = fields.get("type")
    code = fields.get("code")
    return (
        str(vendor_type) if vendor_type is not None else None,
        str(code) if code is not None else None,
        document,
    )


def classify_error(error: Exception, *, provider: str) -> RobotaError:
    """Map an ``openai`` SDK exception to a Robota error.

    Status rules: 400/422 → BadRequestError (``context_length_exceeded`` →
    ContextWindowExceededError wrapping it), 401 → AuthenticationError, 403 →
    PermissionDeniedError, 404 → NotFoundError, 408 → ProviderTimeoutError, 409 →
    InternalServerError (recoverable conflict), 413 → ContextWindowExceededError, 429 →
    RateLimitError or QuotaExhaustedError (``insufficient_quota``), 503/529 → OverloadedError,
    other 5xx → InternalServerError; connection and timeout failures map to
    ProviderConnectionError / ProviderTimeoutError. Errors delivered inside a stream (no
    status) are classified by their ``type``/``code``.

    Returns:
        The Robota error to raise (``raise classify_error(e, ...) from e``).
    """
    if isinstance(error, openai.APITimeoutError):
        return ProviderTimeoutError(str(error), provider=provider)
    if isinstance(error, openai.APIConnectionError):
        return ProviderConnectionError(str(error), provider=provider)
    if isinstance(error, openai.APIStatusError):
        headers = {k.lower(): v for k, v in error.response.headers.items()}
        status: int | None = error.status_code
        request_id = error.request_id or headers.get("x-request-id")
        retry_after = parse_retry_after(headers)
        body: object = error.body
    elif isinstance(error, openai.APIError):
        status = None
        request_id = None
        retry_after = None
        body = error.body
    else:
        return ProviderError(f"{type(error).__name__}: {error}", provider=provider)
    vendor_type, code, document = _error_fields(body)
    if document is None and isinstance(error, openai.APIError):
        vendor_type = error.type
        code = error.code
    message = error.message if isinstance(error, openai.APIError) else str(error)
    kwargs: dict[str, Any] = {
        "provider": provider,
        "status": status,
        "vendor_type": vendor_type or code,
        "request_id": request_id,
        "retry_after": retry_after,
        "body": document,
    }
    if code in _CONTEXT_CODES or status == 413:
        inner = BadRequestError(message, **kwargs)
        return ContextWindowExceededError(message, provider_error=inner)
    if code in _QUOTA_CODES or vendor_type in _QUOTA_CODES:
        return QuotaExhaustedError(message, **kwargs)
    if status is None:
        return _classify_streamed(message, vendor_type, code, kwargs)
    return _classify_status(status, message, kwargs)


def _classify_status(status: int, message: str, kwargs: dict[str, Any]) -> ProviderError:
    if status in (400, 422):
        return BadRequestError(message, **kwargs)
    if status == 401:
        return AuthenticationError(message, **kwargs)
    if status == 403:
        return PermissionDeniedError(message, **kwargs)
    if status == 404:
        return NotFoundError(message, **kwargs)
    if status == 408:
        return ProviderTimeoutError(message, **kwargs)
    if status == 409:
        return InternalServerError(message, recoverable=True, **kwargs)
    if status == 429:
        return RateLimitError(message, **kwargs)
    if status in (503, 529):
        return OverloadedError(message, **kwargs)
    if status >= 500:
        return InternalServerError(message, **kwargs)
    return ProviderError(message, **kwargs)


def _classify_streamed(
    message: str, vendor_type: str | None, code: str | None, kwargs: dict[str, Any]
) -> ProviderError:
    marks = {vendor_type, code}
    if marks & {"rate_limit_exceeded", "rate_limit_error", "tokens", "requests"}:
        return RateLimitError(message, **kwargs)
    if marks & {"server_error", "internal_error"}:
        return InternalServerError(message, **kwargs)
    if marks & {"overloaded_error", "server_is_overloaded", "slow_down"}:
        return OverloadedError(message, **kwargs)
    if marks & {"invalid_request_error", "invalid_prompt"}:
        return BadRequestError(message, **kwargs)
    return ProviderError(message, **kwargs)
