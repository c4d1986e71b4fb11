"""Error classification, Retry-After parsing, model metadata, effort table, cost."""

from __future__ import annotations

import email.utils
from decimal import Decimal
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
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
)
from robota.core.messages import AssistantMessage, UserMessage
from robota.core.provider import ModelRequest, ModelResponse
from robota.core.usage import Usage
from robota.providers.openai import (
    OpenAIChatProvider,
    estimate_cost,
    openai_model_info,
    parse_retry_after,
    resolve_effort,
)


def failing(
    status: int, body: dict[str, Any], headers: dict[str, str] | None = None
) -> OpenAIChatProvider:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json=body, headers=headers or {})

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    return OpenAIChatProvider("sk-test", http_client=client)


def err(kind: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": "m", "type": kind, "param": None, "code": code}}


REQUEST = ModelRequest(model="gpt-4o", messages=(UserMessage.of("x"),))


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (400, err("invalid_request_error"), BadRequestError),
        (401, err("invalid_request_error", "invalid_api_key"), AuthenticationError),
        (403, err("invalid_request_error"), PermissionDeniedError),
        (404, err("invalid_request_error", "model_not_found"), NotFoundError),
        (408, err("timeout"), ProviderTimeoutError),
        (409, err("conflict"), InternalServerError),
        (422, err("invalid_request_error"), BadRequestError),
        (429, err("requests", "rate_limit_exceeded"), RateLimitError),
        (429, err("insufficient_quota", "insufficient_quota"), QuotaExhaustedError),
        (500, err("server_error"), InternalServerError),
        (502, err("server_error"), InternalServerError),
        (503, err("server_error"), OverloadedError),
        (529, err("overloaded_error"), OverloadedError),
    ],
)
async def test_status_and_code_classify(
    status: int, body: dict[str, Any], expected: type[ProviderError]
) -> None:
    with pytest.raises(ProviderError) as info:
        await failing(status, body, {"x-request-id": "req_7"}).complete(REQUEST)
    error = info.value
    assert type(error) is expected
    assert (error.status, error.request_id, error.provider) == (status, "req_7", "openai")
    assert error.vendor_type == body["error"]["type"]


@pytest.mark.anyio
async def test_retry_after_ms_wins_and_rate_limit_is_recoverable() -> None:
    headers = {"retry-after-ms": "1500", "retry-after": "9"}
    with pytest.raises(RateLimitError) as info:
        await failing(429, err("tokens", "rate_limit_exceeded"), headers).complete(REQUEST)
    assert info.value.retry_after == 1.5
    assert info.value.recoverable is True


@pytest.mark.anyio
async def test_context_length_exceeded_wraps_the_provider_error() -> None:
    body = err("invalid_request_error", "context_length_exceeded")
    with pytest.raises(ContextWindowExceededError) as info:
        await failing(400, body, {"x-request-id": "req_c"}).complete(REQUEST)
    inner = info.value.provider_error
    assert info.value.provider_reported is True
    assert isinstance(inner, BadRequestError)
    assert (inner.status, inner.request_id) == (400, "req_c")


@pytest.mark.anyio
async def test_connection_failure_is_classified() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    with pytest.raises(ProviderConnectionError):
        await OpenAIChatProvider("k", http_client=client).complete(REQUEST)


def test_retry_after_http_date() -> None:
    date = email.utils.formatdate(1_000_030.0, usegmt=True)
    assert parse_retry_after({"Retry-After": date}, now=1_000_000.0) == 30.0
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


@given(st.integers(min_value=0, max_value=10**7))
def test_retry_after_ms_is_milliseconds(ms: int) -> None:
    assert parse_retry_after({"retry-after-ms": str(ms)}) == ms / 1000.0


@given(st.text())
def test_retry_after_never_raises_or_goes_negative(raw: str) -> None:
    value = parse_retry_after({"retry-after": raw})
    assert value is None or value >= 0.0


def test_model_metadata() -> None:
    info = openai_model_info("gpt-4.1-mini-2025-04-14")
    assert info is not None
    assert (info.model, info.context_window, info.max_output_tokens) == (
        "gpt-4.1-mini-2025-04-14",
        1_047_576,
        32_768,
    )
    assert info.source == "https://platform.openai.com/docs/models/gpt-4.1-mini"
    o3 = openai_model_info("o3")
    assert o3 is not None
    assert "temperature" in o3.capabilities.unsupported_settings
    assert openai_model_info("gpt-4o").capabilities.unsupported_settings == frozenset()  # type: ignore[union-attr]
    assert openai_model_info("llama3.2") is None
    assert openai_model_info("gpt-4o-mini-search") is None


@pytest.mark.parametrize(
    ("model", "requested", "disposition", "native"),
    [
        ("gpt-5", "minimal", "applied", "minimal"),
        ("gpt-5", "none", "clamped", "minimal"),
        ("gpt-5", "xhigh", "clamped", "high"),
        ("gpt-5.1", "minimal", "clamped", "none"),
        ("gpt-5.1", "none", "applied", "none"),
        ("gpt-5.2", "max", "clamped", "xhigh"),
        ("gpt-5-pro", "low", "clamped", "high"),
        ("o3", "medium", "applied", "medium"),
        ("o4-mini-2025-04-16", "minimal", "clamped", "low"),
        ("gpt-4o", "high", "not_applied", None),
        ("o1-mini", "high", "not_applied", None),
        ("gpt-5", "auto", "model_default", "medium"),
    ],
)
def test_effort_table(model: str, requested: Any, disposition: str, native: str | None) -> None:
    resolution = resolve_effort(model, requested)
    assert resolution is not None
    assert (resolution.disposition, resolution.native_value) == (disposition, native)
    assert resolution.native_control_sent == (disposition in ("applied", "clamped"))
    assert "2026-11-30" in resolution.source


def test_cost_from_genai_prices() -> None:
    response = ModelResponse(
        message=AssistantMessage(),
        model="gpt-4o-mini",
        usage=Usage(input_tokens=1_000_000, output_tokens=1_000_000),
    )
    assert estimate_cost(response) == Decimal("0.75")
    unknown = ModelResponse(
        message=AssistantMessage(), model="my-finetune", usage=Usage(input_tokens=5)
    )
    assert estimate_cost(unknown) is None


@pytest.mark.anyio
async def test_413_is_context_window_exceeded() -> None:
    with pytest.raises(ContextWindowExceededError) as info:
        await failing(413, err("invalid_request_error")).complete(REQUEST)
    assert info.value.provider_error is not None
    assert info.value.provider_error.status == 413
