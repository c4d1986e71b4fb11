"""OpenAI SDK exceptions → Robota's error taxonomy (seed 000, "Error Taxonomy").

Classification uses the HTTP status and OpenAI's error ``type`` / ``code`` fields
(https://platform.openai.com/docs/guides/error-codes) — or, for an error a server states inside a
stream or a 200 body, the status it names in its ``code`` — and never message text, with one
exception: the context-overflow wording of compatible servers that have no code for it
(:func:`robota.core.wire.is_context_overflow`). The vendor facts
(status, type, ``x-request-id``, ``retry-after`` / ``retry-after-ms``) are kept on the error.

Example:
    >>> parse_retry_after({"retry-after-ms": "1500"}), parse_retry_after({"retry-after": "20"})
    (1.5, 20.0)
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any, cast

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
from robota.core.wire import is_context_overflow

import openai

__all__ = [
    "classify_body",
    "classify_error",
    "decoding_failure",
    "error_object",
    "parse_retry_after",
]

_QUOTA_CODES = frozenset({"insufficient_quota", "billing_hard_limit_reached"})
_CONTEXT_CODES = frozenset({"context_length_exceeded", "string_above_max_length"})


parse_retry_after = retry_after_seconds
"""See :func:`robota.core.retry.retry_after_seconds`."""


def decoding_failure(error: BaseException) -> BaseException | None:
    """The ``httpx`` (or ``httpx2``, the SDK's own client) ``DecodingError`` in ``error``'s
    cause chain, if any: a body that could not be decoded (a broken ``Content-Encoding``) is a
    malformed response, not a failed connection, although the SDK wraps it as one.

    Example:
        >>> import httpx
        >>> wrapped = RuntimeError("Connection error.")
        >>> wrapped.__cause__ = httpx.DecodingError("invalid gzip")
        >>> type(decoding_failure(wrapped)).__name__, decoding_failure(RuntimeError("x"))
        ('DecodingError', None)
    """
    kinds: list[type[BaseException]] = []
    for name in ("httpx", "httpx2"):  # only a library already imported can have raised it
        module = sys.modules.get(name)
        found = getattr(module, "DecodingError", None) if module is not None else None
        if isinstance(found, type) and issubclass(found, BaseException):
            kinds.append(found)
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, tuple(kinds)):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def classify_error(error: Exception, *, provider: str, api: str | None = None) -> RobotaError:
    """Map an ``openai`` SDK exception to a Robota error.

    Status rules: 400/422 → BadRequestError, 401 → AuthenticationError, 403 →
    PermissionDeniedError, 404 → NotFoundError, 408 → ProviderTimeoutError, 409 →
    InternalServerError (recoverable conflict), 413 → ContextWindowExceededError, 429 →
    RateLimitError or QuotaExhaustedError (``insufficient_quota``), 503/529 → OverloadedError,
    other 5xx → InternalServerError; connection and timeout failures map to
    ProviderConnectionError / ProviderTimeoutError, except a body that could not be decoded
    (:func:`decoding_failure`): MalformedResponseError. A context overflow — OpenAI's
    ``context_length_exceeded`` code, or the wording of a compatible server (llama.cpp's
    ``exceed_context_size_error``, vLLM's "maximum context length", Ollama's "prompt too long",
    see :func:`robota.core.wire.is_context_overflow`) — is a ContextWindowExceededError wrapping
    the provider error (``provider_error``). Errors without a status are classified by their
    ``type``/``code`` (see :func:`classify_body`).

    Returns:
        The Robota error to raise (``raise classify_error(e, ...) from e``).
    """
    if isinstance(error, openai.APITimeoutError):
        return ProviderTimeoutError(str(error), provider=provider)
    if isinstance(error, openai.APIConnectionError):
        broken = decoding_failure(error)
        if broken is not None:
            where = f"{provider} {api}" if api else provider
            return MalformedResponseError(
                f"{where}: the response body could not be decoded "
                f"({type(broken).__name__}: {broken})",
                provider=provider,
                api=api,
                missing="a decodable body",
            )
        return ProviderConnectionError(str(error), provider=provider)
    if isinstance(error, openai.APIStatusError):
        headers = {k.lower(): v for k, v in error.response.headers.items()}
        return classify_body(
            error.body,
            provider=provider,
            status=error.status_code,
            request_id=error.request_id or headers.get("x-request-id"),
            retry_after=parse_retry_after(headers),
            fallback_message=error.message,
        )
    if isinstance(error, openai.APIError):
        return classify_body(error.body, provider=provider, fallback_message=error.message)
    return ProviderError(f"{type(error).__name__}: {error}", provider=provider)


def error_object(document: object) -> Mapping[str, Any] | str | None:
    """The error a JSON document states in-band, or None when it states none.

    Recognized shapes: ``{"error": {...}}`` / ``{"error": "text"}`` (OpenAI, llama.cpp, Ollama,
    OpenRouter), a Responses ``error`` event (``{"type": "error", "code": ..., "message": ...}``
    or with a nested ``error``), and vLLM's bare ``{"object": "error", ...}``. A Responses
    ``response`` object (whose ``error`` is null unless it failed) is not an error document: its
    ``status`` decides (see ``_responses_response``).

    Example:
        >>> error_object({"error": {"type": "server_error"}}), error_object({"choices": []})
        ({'type': 'server_error'}, None)
    """
    if type(document) is not dict and not isinstance(document, Mapping):
        return None
    fields: Mapping[str, Any] = cast(Mapping[str, Any], document)
    if "error" not in fields and "type" not in fields and "object" not in fields:
        return None  # the usual stream chunk: nothing more to look at
    if fields.get("object") == "response":
        return None
    if fields.get("type") == "error" or fields.get("object") == "error":
        inner = fields.get("error")
        if isinstance(inner, Mapping) or (isinstance(inner, str) and inner):
            return inner  # pyright: ignore[reportUnknownVariableType]
        return {k: v for k, v in fields.items() if k not in ("type", "object")}
    inner = fields.get("error")
    if isinstance(inner, Mapping) and inner:
        return inner  # pyright: ignore[reportUnknownVariableType]
    if isinstance(inner, str) and inner:
        return inner
    return None


def _named_status(fields: Mapping[str, Any]) -> int | None:
    """An HTTP status an in-band error names in its ``code`` / ``status`` (llama.cpp, vLLM,
    OpenRouter put the status there), if any."""
    for key in ("code", "status"):
        value = fields.get(key)
        if isinstance(value, bool):
            continue
        if isinstance(value, str) and value.isdigit():
            value = int(value)
        if isinstance(value, int) and 100 <= value <= 599:
            return value
    return None


def classify_body(
    body: object,
    *,
    provider: str,
    status: int | None = None,
    request_id: str | None = None,
    retry_after: float | None = None,
    fallback_message: str = "",
) -> RobotaError:
    """Classify an error body: an HTTP error's body, an error event inside a stream, or a 200
    body that states an error.

    Args:
        body: The decoded JSON (``{"error": {...}}``, a bare error object, or anything else).
        status: The HTTP status, or None for an error delivered in-band (in a stream or in a 200
            body) — then a status the error names in its ``code`` / ``status`` is used.
        fallback_message: Message when the body has none (the SDK's).

    Returns:
        The error, by the rules of :func:`classify_error`; an error naming no status and no
        known ``type``/``code`` is a plain :class:`~robota.core.errors.ProviderError` (a failure
        that cannot be placed is not worth switching models for, seed 000 "Error Taxonomy").

    Example:
        >>> type(classify_body({"error": {"code": 502, "message": "upstream"}}, provider="p"))
        <class 'robota.core.errors.InternalServerError'>
        >>> error = classify_body({"error": {"code": 400, "type": "exceed_context_size_error",
        ...     "message": "the request exceeds the available context size"}}, provider="p")
        >>> type(error).__name__, error.provider_error.status
        ('ContextWindowExceededError', 400)
    """
    stated = error_object(body)
    document: Mapping[str, Any] | None = None
    if isinstance(body, Mapping):
        document = cast(Mapping[str, Any], body)
    fields: Mapping[str, Any] = {}
    if isinstance(stated, str):
        fields = {"message": stated}
    elif stated is not None:
        fields = stated
    elif document is not None:
        fields = document
    vendor_type = fields.get("type")
    code = fields.get("code")
    type_text = str(vendor_type) if vendor_type is not None else None
    code_text = str(code) if code is not None and not isinstance(code, bool) else None
    if status is None:
        status = _named_status(fields)
    message = str(fields.get("message") or fallback_message or "provider error")
    kwargs: dict[str, Any] = {
        "provider": provider,
        "status": status,
        "vendor_type": type_text or code_text,
        "request_id": request_id,
        "retry_after": retry_after,
        "body": document,
    }
    marks = {type_text, code_text}
    if marks & _QUOTA_CODES:
        return QuotaExhaustedError(message, **kwargs)
    if marks & _CONTEXT_CODES or status == 413:
        return ContextWindowExceededError(
            message, provider_error=BadRequestError(message, **kwargs)
        )
    if status == 429 or (status is None and marks & _RATE_LIMIT_MARKS):
        return RateLimitError(message, **kwargs)
    if status not in _NOT_OVERFLOW and is_context_overflow(message, type_text, code_text):
        inner = (
            _classify_status(status, message, kwargs)
            if status
            else BadRequestError(message, **kwargs)
        )
        return ContextWindowExceededError(message, provider_error=inner)
    if status is None:
        return _classify_marks(message, marks, kwargs)
    return _classify_status(status, message, kwargs)


_RATE_LIMIT_MARKS = frozenset({"rate_limit_exceeded", "rate_limit_error", "tokens", "requests"})
_NOT_OVERFLOW = frozenset({401, 403, 404, 408, 429})
"""Statuses whose meaning a context-overflow wording in the message cannot change."""


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


def _classify_marks(message: str, marks: set[str | None], kwargs: dict[str, Any]) -> ProviderError:
    if marks & {"server_error", "internal_error", "api_error"}:
        return InternalServerError(message, **kwargs)
    if marks & {"overloaded_error", "server_is_overloaded", "slow_down"}:
        return OverloadedError(message, **kwargs)
    if marks & {"invalid_request_error", "invalid_prompt", "BadRequestError"}:
        return BadRequestError(message, **kwargs)
    if marks & {"authentication_error", "invalid_api_key"}:
        return AuthenticationError(message, **kwargs)
    if marks & {"permission_error"}:
        return PermissionDeniedError(message, **kwargs)
    if marks & {"not_found_error", "model_not_found", "NotFoundError"}:
        return NotFoundError(message, **kwargs)
    return ProviderError(message, **kwargs)
