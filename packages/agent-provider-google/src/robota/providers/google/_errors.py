"""Classify google-genai / httpx failures into Robota errors (seed 000, "Error Taxonomy").

Gemini errors carry an HTTP status and a ``google.rpc`` status string
(https://ai.google.dev/gemini-api/docs/troubleshooting, https://cloud.google.com/apis/design/errors,
read 2026-11-30). Classification uses those two and the structured ``details``:

==========================================  ===============================================
status / status string                      Robota error
==========================================  ===============================================
400 ``INVALID_ARGUMENT``/``FAILED_PRECOND.``  :class:`BadRequestError` (see context note)
401 ``UNAUTHENTICATED``                      :class:`AuthenticationError`
403 ``PERMISSION_DENIED``                    :class:`PermissionDeniedError`
404 ``NOT_FOUND``                            :class:`NotFoundError`
408, 504 ``DEADLINE_EXCEEDED``               :class:`ProviderTimeoutError`
409 ``ABORTED``                              :class:`ProviderError` (recoverable)
413, 422, other 4xx                          :class:`BadRequestError`
429 ``RESOURCE_EXHAUSTED``                   :class:`RateLimitError`; :class:`QuotaExhaustedError`
                                            when a ``QuotaFailure`` names a per-day quota
500, 502, other 5xx                          :class:`InternalServerError`
503 ``UNAVAILABLE``, 529                     :class:`OverloadedError`
==========================================  ===============================================

Context length: Gemini reports a too-long prompt as a plain 400 ``INVALID_ARGUMENT`` with no
structured reason ("The input token count (N) exceeds the maximum number of tokens allowed (M)"),
so — the vendor offering nothing else — the message is matched with the shared
:func:`robota.core.wire.is_context_overflow` wording (plus Vertex's variant without the count,
"The input token count exceeds the maximum number of tokens allowed M."); the result is a
:class:`ContextWindowExceededError` whose ``provider_error`` keeps the vendor facts.

A body that says ``error`` is classified by the same table whatever the HTTP status it came
with: a 200 ``generateContent`` body ``{"error": {"code": 429, "status": "RESOURCE_EXHAUSTED"}}``
or such a chunk inside a 200 stream is a :class:`RateLimitError` (``status`` = the code the body
names). A response the SDK could not decode (an HTML page, a chunk that is not JSON, an error
chunk without a numeric code) is a :class:`MalformedResponseError`
(:func:`classify_read_error`), never a ``JSONDecodeError`` or ``TypeError``.

``retry_after`` comes from a ``google.rpc.RetryInfo`` detail (``retryDelay: "13s"``), else the
``retry-after-ms`` or ``Retry-After`` (seconds or HTTP-date, RFC 9110 §10.2.3) headers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import httpx
import pydantic
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
from robota.core.retry import retry_after_seconds
from robota.core.wire import describe_body, is_context_overflow
from robota.providers.google._request import PROVIDER_NAME

from google.genai import errors as genai_errors

__all__ = [
    "classify_api_error",
    "classify_error",
    "classify_error_body",
    "classify_read_error",
    "parse_duration",
    "retry_after_from",
]

_REQUEST_ID_HEADERS = ("x-request-id", "x-goog-request-id", "x-cloud-trace-context")


def parse_duration(value: str) -> float | None:
    """Parse a protobuf Duration JSON string (``"13s"``, ``"1.5s"``) into seconds."""
    text = value.strip()
    if not text.endswith("s"):
        return None
    try:
        seconds = float(text[:-1])
    except ValueError:
        return None
    return seconds if seconds >= 0 else None


def _error_object(body: Any) -> Mapping[str, Any]:
    if isinstance(body, Mapping):
        inner = body.get("error")
        if isinstance(inner, Mapping):
            return inner
        return body
    return {}


def _details(body: Any) -> list[Mapping[str, Any]]:
    raw = _error_object(body).get("details")
    if not isinstance(raw, list):
        return []
    return [d for d in raw if isinstance(d, Mapping)]


def retry_after_from(body: Any, headers: Mapping[str, str]) -> float | None:
    """Seconds to wait: ``RetryInfo.retryDelay`` first, then the HTTP headers."""
    for detail in _details(body):
        if str(detail.get("@type", "")).endswith("google.rpc.RetryInfo"):
            delay = detail.get("retryDelay")
            if isinstance(delay, str):
                parsed = parse_duration(delay)
                if parsed is not None:
                    return parsed
    return retry_after_seconds(headers)


def _per_day_quota(body: Any) -> bool:
    for detail in _details(body):
        if not str(detail.get("@type", "")).endswith("google.rpc.QuotaFailure"):
            continue
        for violation in detail.get("violations") or []:
            if isinstance(violation, Mapping) and "PerDay" in str(violation.get("quotaId", "")):
                return True
    return False


_GEMINI_OVERFLOW = "exceeds the maximum number of tokens"
"""Vertex also words it without the count: "The input token count exceeds the maximum number of
tokens allowed 1048576." (the shared pattern expects "count (N) exceeds")."""


def _is_overflow(message: str) -> bool:
    # Gemini gives no structured reason for an over-long prompt (a bare INVALID_ARGUMENT);
    # the message text is the only signal the vendor offers.
    return is_context_overflow(message) or _GEMINI_OVERFLOW in message.lower()


def _headers_of(exc: genai_errors.APIError) -> dict[str, str]:
    response = exc.response
    headers = getattr(response, "headers", None)
    if headers is None:
        return {}
    try:
        return {str(k).lower(): str(v) for k, v in dict(headers).items()}
    except (TypeError, ValueError):
        return {}


def classify_api_error(exc: genai_errors.APIError) -> RobotaError:
    """Map a google-genai ``APIError`` to a Robota error (see the module table)."""
    status = int(exc.code) if isinstance(exc.code, int) and exc.code else None
    return _classify(
        status=status,
        vendor=str(exc.status) if exc.status else None,
        message=str(exc.message or exc),
        body=exc.details,
        headers=_headers_of(exc),
    )


def classify_error_body(body: Mapping[str, Any], headers: Mapping[str, str]) -> RobotaError:
    """Classify a response body that carries ``error`` (e.g. a 200 ``generateContent`` body of a
    gateway), by the code and status string it names (see the module table)."""
    error = _error_object(body)
    code = error.get("code")
    status = code if isinstance(code, int) and not isinstance(code, bool) else None
    if isinstance(code, str) and code.isdigit():
        status = int(code)
    vendor = error.get("status")
    message = error.get("message")
    return _classify(
        status=status,
        vendor=vendor if isinstance(vendor, str) and vendor else None,
        message=message if isinstance(message, str) and message else describe_body(str(body)),
        body=body,
        headers={str(k).lower(): str(v) for k, v in headers.items()},
    )


def _classify(
    *,
    status: int | None,
    vendor: str | None,
    message: str,
    body: Any,
    headers: Mapping[str, str],
) -> RobotaError:
    request_id = next((headers[h] for h in _REQUEST_ID_HEADERS if h in headers), None)
    kwargs: dict[str, Any] = {
        "provider": PROVIDER_NAME,
        "status": status,
        "vendor_type": vendor,
        "request_id": request_id,
        "retry_after": retry_after_from(body, headers),
        "body": body if isinstance(body, Mapping) else None,
    }
    if status == 400 or vendor == "INVALID_ARGUMENT":
        error = BadRequestError(message, **kwargs)
        if _is_overflow(message):
            return ContextWindowExceededError(message, provider_error=error)
        return error
    if status == 401 or vendor == "UNAUTHENTICATED":
        return AuthenticationError(message, **kwargs)
    if status == 403 or vendor == "PERMISSION_DENIED":
        return PermissionDeniedError(message, **kwargs)
    if status == 404 or vendor == "NOT_FOUND":
        return NotFoundError(message, **kwargs)
    if status in (408, 504) or vendor == "DEADLINE_EXCEEDED":
        return ProviderTimeoutError(message, **kwargs)
    if status == 409 or vendor == "ABORTED":
        return ProviderError(message, recoverable=True, **kwargs)
    if status == 429 or vendor == "RESOURCE_EXHAUSTED":
        if _per_day_quota(body):
            return QuotaExhaustedError(message, **kwargs)
        return RateLimitError(message, **kwargs)
    if status in (503, 529) or vendor == "UNAVAILABLE":
        return OverloadedError(message, **kwargs)
    if (status is not None and status >= 500) or vendor == "INTERNAL":
        return InternalServerError(message, **kwargs)
    if status is not None and status >= 400:
        return BadRequestError(message, **kwargs)
    return ProviderError(message, **kwargs)


def classify_error(exc: BaseException) -> RobotaError | None:
    """Classify a failure from the SDK or the HTTP client; None when it is not one of ours.

    ``httpx`` timeouts → :class:`ProviderTimeoutError`; a body httpx cannot decode (bad
    ``content-encoding``) → :class:`MalformedResponseError`; other transport failures (refused,
    reset, a connection closed mid-body) → :class:`ProviderConnectionError`.
    """
    if isinstance(exc, genai_errors.APIError):
        return classify_api_error(exc)
    if isinstance(exc, httpx.TimeoutException):
        return ProviderTimeoutError(str(exc) or "request timed out", provider=PROVIDER_NAME)
    if isinstance(exc, httpx.DecodingError):
        return MalformedResponseError(
            f"{PROVIDER_NAME}: the response body cannot be decoded ({exc})",
            provider=PROVIDER_NAME,
            missing="a decodable body",
        )
    if isinstance(exc, httpx.RequestError):
        return ProviderConnectionError(str(exc) or "connection failed", provider=PROVIDER_NAME)
    return None


_RAW_MARKER = "Raw response: "
_DECODE_ERRORS: tuple[type[Exception], ...] = (
    genai_errors.UnknownApiResponseError,
    json.JSONDecodeError,
    pydantic.ValidationError,
    RecursionError,  # JSON nested deeper than the interpreter's recursion limit
)
_SHAPE_ERRORS: tuple[type[Exception], ...] = (ValueError, TypeError, LookupError, AttributeError)


def classify_read_error(
    exc: BaseException, *, api: str, during_stream: bool = False
) -> RobotaError | None:
    """Like :func:`classify_error`, for failures raised while the SDK *reads* a response: a body
    or chunk that is not JSON (``UnknownApiResponseError``, ``JSONDecodeError``), JSON nested too
    deep to decode (``RecursionError``) or JSON the SDK cannot shape (``ValidationError``) →
    :class:`MalformedResponseError`.

    Args:
        exc: The failure.
        api: The API surface named in the error.
        during_stream: The failure came from iterating the SDK's stream, where only response
            reading runs; then any ``ValueError``, ``TypeError``, ``LookupError`` or
            ``AttributeError`` is a reading failure too (e.g. the SDK's ``TypeError`` for an
            error chunk whose ``code`` is missing or not a number).
    """
    classified = classify_error(exc)
    if classified is not None:
        return classified
    readable = _DECODE_ERRORS + _SHAPE_ERRORS if during_stream else _DECODE_ERRORS
    if not isinstance(exc, readable):
        return None
    text = str(exc)
    if isinstance(exc, genai_errors.UnknownApiResponseError) and _RAW_MARKER in text:
        text = describe_body(text.split(_RAW_MARKER, 1)[1])
    return MalformedResponseError(
        f"{PROVIDER_NAME} {api}: the response cannot be read: {text}",
        provider=PROVIDER_NAME,
        api=api,
        missing="JSON object chunk" if during_stream else "JSON object body",
    )
