"""Anthropic failures → Robota's error taxonomy (seed 000, "Error Taxonomy").

Classification uses the vendor's ``error.type`` first (https://docs.anthropic.com/en/api/errors:
``invalid_request_error`` 400, ``authentication_error`` 401, ``billing_error`` 402,
``permission_error`` 403, ``not_found_error`` 404, ``request_too_large`` 413,
``rate_limit_error`` 429, ``api_error`` 500, ``timeout_error`` 504, ``overloaded_error`` 529),
then the HTTP status (only an error status, 4xx/5xx, says anything). The request id comes from
the ``request-id`` header; the wait from ``retry-after-ms`` (milliseconds) or ``retry-after``
(seconds or an HTTP-date, RFC 9110 §10.2.3).

An error body is classified the same wherever it arrives: as an HTTP error, as the JSON body of a
``200`` (some gateways and overloaded front ends answer so), or as an ``event: error`` inside a
stream; in the last two cases the error's ``status`` is None (the HTTP status said "OK" and
describes nothing). A type nobody documented, with no error status beside it, is a plain
:class:`ProviderError` (not recoverable: seed 000, "Error Taxonomy" — a failure that cannot be
placed is not worth switching models for).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx
import httpx2
from robota.core.errors import (
    AuthenticationError,
    BadRequestError,
    ContextWindowExceededError,
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
    RobotaError,
)
from robota.core.retry import retry_after_seconds as core_retry_after_seconds
from robota.core.wire import is_context_overflow

import anthropic

__all__ = [
    "classify_error_body",
    "classify_sdk_error",
    "error_in_body",
    "retry_after_seconds",
    "undecodable_body",
]

_BY_TYPE: Mapping[str, type[ProviderError]] = {
    "invalid_request_error": BadRequestError,
    "request_too_large": BadRequestError,
    "authentication_error": AuthenticationError,
    "billing_error": QuotaExhaustedError,
    "permission_error": PermissionDeniedError,
    "not_found_error": NotFoundError,
    "rate_limit_error": RateLimitError,
    "api_error": InternalServerError,
    "timeout_error": ProviderTimeoutError,
    "overloaded_error": OverloadedError,
}

_BY_STATUS: Mapping[int, type[ProviderError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    402: QuotaExhaustedError,
    403: PermissionDeniedError,
    404: NotFoundError,
    408: ProviderTimeoutError,
    413: BadRequestError,
    422: BadRequestError,
    429: RateLimitError,
    500: InternalServerError,
    502: InternalServerError,
    503: OverloadedError,
    504: ProviderTimeoutError,
    529: OverloadedError,
}

_CONTEXT_CODES = frozenset({"prompt_too_long", "context_window_exceeded"})


retry_after_seconds = core_retry_after_seconds
"""See :func:`robota.core.retry.retry_after_seconds`."""


def _is_context_overflow(error: Mapping[str, Any]) -> bool:
    details = error.get("details")
    if isinstance(details, Mapping):
        code = details.get("error_code")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if isinstance(code, str) and code in _CONTEXT_CODES:
            return True
    # Anthropic reports an over-long prompt only as invalid_request_error with the message
    # "prompt is too long: N tokens > M maximum" — no type or code names it — so this one
    # case reads the message (seed 000 allows text only where the vendor offers nothing else),
    # with the wording of compatible servers and gateways shared by every adapter.
    return is_context_overflow(error.get("message"))


def classify_error_body(
    body: Any,
    *,
    provider: str,
    status: int | None,
    request_id: str | None = None,
    retry_after: float | None = None,
) -> RobotaError:
    """Classify a decoded Anthropic error body (``{"type": "error", "error": {...}}``).

    Used for HTTP errors, for error bodies of a 2xx response and for ``error`` events inside a
    stream (``status`` None for the last two).

    Returns:
        A :class:`ProviderError` subclass, or :class:`ContextWindowExceededError` (with the
        provider error attached) for an over-long prompt.
    """
    error: Mapping[str, Any] = {}
    if isinstance(body, Mapping):
        inner = body.get("error")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if isinstance(inner, Mapping):
            error = {str(k): v for k, v in inner.items()}  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    vendor_type = error.get("type") if isinstance(error.get("type"), str) else None
    message = error.get("message") if isinstance(error.get("message"), str) else None
    cls: type[ProviderError] | None = _BY_TYPE.get(vendor_type) if vendor_type else None
    if cls is None and status is not None and status >= 400:
        cls = _BY_STATUS.get(status)
        if cls is None:
            cls = InternalServerError if status >= 500 else BadRequestError
    if cls is None:
        cls = ProviderError
    where = f"HTTP {status}" if status is not None else "error body"
    text = f"{provider} {where} {vendor_type or 'error'}: {message or 'no message'}"
    provider_error = cls(
        text,
        provider=provider,
        status=status,
        vendor_type=vendor_type,
        request_id=request_id,
        retry_after=retry_after,
        body=body if isinstance(body, Mapping) else None,  # pyright: ignore[reportUnknownArgumentType]
    )
    if cls is BadRequestError and _is_context_overflow(error):
        return ContextWindowExceededError(text, provider_error=provider_error)
    return provider_error


def error_in_body(
    body: Mapping[str, Any], *, provider: str, request_id: str | None = None
) -> RobotaError | None:
    """The typed error a 2xx JSON body or a stream event carries, or None when it is no error.

    An error body is ``{"type": "error", "error": {...}}`` (Anthropic), or an object without a
    ``type`` whose ``error`` is an object (gateways that drop the envelope's type).

    Example:
        >>> body = {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}
        >>> type(error_in_body(body, provider="anthropic")).__name__
        'OverloadedError'
        >>> error_in_body({"type": "message", "content": []}, provider="anthropic") is None
        True
    """
    kind = body.get("type")
    if kind == "error" or (kind is None and isinstance(body.get("error"), Mapping)):
        return classify_error_body(body, provider=provider, status=None, request_id=request_id)
    return None


def undecodable_body(
    exc: BaseException, *, provider: str, api: str, request_id: str | None = None
) -> MalformedResponseError | None:
    """:class:`MalformedResponseError` when ``exc`` is (or was caused by) an ``httpx`` /
    ``httpx2`` ``DecodingError`` — a body its ``content-encoding`` cannot undo is a malformed
    body, not a broken connection; else None.

    Example:
        >>> import httpx
        >>> wrapped = RuntimeError("Connection error.")
        >>> wrapped.__cause__ = httpx.DecodingError("invalid gzip")
        >>> undecodable_body(wrapped, provider="anthropic", api="messages").missing
        'a decodable body'
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, httpx.DecodingError | httpx2.DecodingError):
            return MalformedResponseError(
                f"{provider} {api}: the response body cannot be decoded ({current})",
                provider=provider,
                api=api,
                missing="a decodable body",
                request_id=request_id,
            )
        current = current.__cause__ or current.__context__
    return None


def classify_sdk_error(exc: anthropic.AnthropicError, *, provider: str) -> RobotaError:
    """Translate an exception raised by the ``anthropic`` SDK (never let it escape); a body
    that cannot be decoded (see :func:`undecodable_body`) is malformed, even where the SDK
    calls it a connection error."""
    if isinstance(exc, anthropic.APIStatusError):
        headers = {k: v for k, v in exc.response.headers.items()}
        return classify_error_body(
            exc.body,
            provider=provider,
            status=exc.status_code,
            request_id=exc.request_id,
            retry_after=retry_after_seconds(headers),
        )
    if isinstance(exc, anthropic.APITimeoutError):
        return ProviderTimeoutError(f"anthropic request timed out: {exc}", provider=provider)
    if isinstance(exc, anthropic.APIConnectionError):
        undecodable = undecodable_body(exc, provider=provider, api="messages")
        if undecodable is not None:
            return undecodable
        return ProviderConnectionError(f"anthropic connection failed: {exc}", provider=provider)
    return ProviderError(f"anthropic client error: {exc}", provider=provider)
