"""RetryingProvider: backoff with full jitter, Retry-After, budget, no retry after delivery."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

import pytest
from robota.core.capabilities import ModelInfo
from robota.core.errors import (
    AuthenticationError,
    ConfigurationError,
    InternalServerError,
    ProviderError,
    RateLimitError,
)
from robota.core.messages import AssistantMessage
from robota.core.provider import (
    ModelRequest,
    ModelResponse,
    Provider,
    ResponseCompleted,
    StreamEvent,
    TextDelta,
    UsageReported,
)
from robota.core.retry import RetryingProvider, RetryPolicy
from robota.core.usage import Usage

REQUEST = ModelRequest(model="m", messages=())
DONE = ResponseCompleted(response=ModelResponse(message=AssistantMessage(parts=())))


class FlakyProvider(Provider):
    """Fails with the scripted errors (optionally after one delta), then succeeds."""

    name = "flaky"

    def __init__(self, errors: Sequence[ProviderError], *, delta_first: bool = False) -> None:
        self.errors = list(errors)
        self.delta_first = delta_first
        self.calls = 0
        self.closed = False

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        self.calls += 1
        if self.delta_first:
            yield TextDelta(text="partial")
        if self.errors:
            raise self.errors.pop(0)
        yield TextDelta(text="hello")
        yield DONE

    def models(self) -> tuple[ModelInfo, ...]:
        return ()

    async def aclose(self) -> None:
        self.closed = True


def server_error() -> InternalServerError:
    return InternalServerError("boom", provider="flaky", status=500)


class Recorder:
    def __init__(self) -> None:
        self.sleeps: list[float] = []

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)


async def collect(provider: Provider) -> list[StreamEvent]:
    return [event async for event in provider.stream(REQUEST)]


@pytest.mark.anyio
async def test_recoverable_errors_are_retried_with_full_jitter_backoff() -> None:
    inner = FlakyProvider([server_error(), server_error(), server_error()])
    rec = Recorder()
    provider = RetryingProvider(
        inner, RetryPolicy(max_attempts=4, base_delay=0.5), sleep=rec.sleep, random=lambda: 0.5
    )
    assert await collect(provider) == [TextDelta(text="hello"), DONE]
    assert inner.calls == 4
    assert rec.sleeps == [0.25, 0.5, 1.0]


def test_backoff_is_capped_by_max_delay() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=3.0)
    assert [policy.backoff(n, 1.0) for n in range(4)] == [1.0, 2.0, 3.0, 3.0]


@pytest.mark.anyio
async def test_attempts_run_out_and_the_last_error_is_raised_with_a_note() -> None:
    errors = [server_error() for _ in range(3)]
    last = errors[-1]
    inner = FlakyProvider(errors)
    rec = Recorder()
    provider = RetryingProvider(inner, RetryPolicy(max_attempts=3), sleep=rec.sleep)
    with pytest.raises(InternalServerError) as info:
        await collect(provider)
    assert info.value is last
    assert inner.calls == 3
    assert len(rec.sleeps) == 2
    assert info.value.__notes__ == ["robota: gave up after 2 retries"]


@pytest.mark.anyio
async def test_unrecoverable_errors_are_not_retried() -> None:
    inner = FlakyProvider([AuthenticationError("no key", provider="flaky", status=401)])
    rec = Recorder()
    with pytest.raises(AuthenticationError):
        await collect(RetryingProvider(inner, sleep=rec.sleep))
    assert (inner.calls, rec.sleeps) == (1, [])


@pytest.mark.anyio
async def test_no_retry_once_an_event_was_delivered() -> None:
    inner = FlakyProvider([server_error()], delta_first=True)
    rec = Recorder()
    seen: list[StreamEvent] = []

    async def consume() -> None:
        async for event in RetryingProvider(inner, sleep=rec.sleep).stream(REQUEST):
            seen.append(event)

    with pytest.raises(InternalServerError):
        await consume()
    assert seen == [TextDelta(text="partial")]
    assert (inner.calls, rec.sleeps) == (1, [])


@pytest.mark.anyio
async def test_retry_after_is_a_floor() -> None:
    inner = FlakyProvider([RateLimitError("slow down", provider="flaky", retry_after=7.0)])
    rec = Recorder()
    provider = RetryingProvider(inner, sleep=rec.sleep, random=lambda: 0.1)
    assert await collect(provider) == [TextDelta(text="hello"), DONE]
    assert rec.sleeps == [7.0]


@pytest.mark.anyio
async def test_retry_after_beyond_the_budget_raises_without_waiting() -> None:
    inner = FlakyProvider([RateLimitError("slow down", provider="flaky", retry_after=120.0)])
    rec = Recorder()
    provider = RetryingProvider(inner, RetryPolicy(total_budget=60), sleep=rec.sleep)
    with pytest.raises(RateLimitError):
        await collect(provider)
    assert (inner.calls, rec.sleeps) == (1, [])


@pytest.mark.anyio
async def test_total_budget_bounds_the_summed_waits() -> None:
    errors = [RateLimitError("slow", provider="flaky", retry_after=4.0) for _ in range(5)]
    inner = FlakyProvider(errors)
    rec = Recorder()
    policy = RetryPolicy(max_attempts=10, total_budget=10.0)
    with pytest.raises(RateLimitError):
        await collect(RetryingProvider(inner, policy, sleep=rec.sleep, random=lambda: 0.0))
    assert rec.sleeps == [4.0, 4.0]
    assert inner.calls == 3


@pytest.mark.anyio
async def test_delegates_to_the_inner_provider() -> None:
    inner = FlakyProvider([])
    provider = RetryingProvider(inner)
    assert provider.name == "flaky"
    response = await provider.complete(REQUEST)
    assert response == DONE.response
    await provider.aclose()
    assert inner.closed


def test_policy_rejects_zero_attempts() -> None:
    with pytest.raises(ConfigurationError, match="at least 1"):
        RetryPolicy(max_attempts=0)


class UsageFirstProvider(Provider):
    """Reports usage (as Anthropic's message_start does), then fails once, then answers."""

    name = "usage-first"

    def __init__(self) -> None:
        self.calls = 0

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        self.calls += 1
        yield UsageReported(usage=Usage(input_tokens=10))
        if self.calls == 1:
            raise server_error()
        yield TextDelta(text="hello")
        yield DONE


@pytest.mark.anyio
async def test_a_usage_report_alone_does_not_prevent_a_retry() -> None:
    inner = UsageFirstProvider()
    rec = Recorder()
    events = [e async for e in RetryingProvider(inner, sleep=rec.sleep).stream(REQUEST)]
    assert inner.calls == 2
    assert len(rec.sleeps) == 1
    assert [e for e in events if isinstance(e, TextDelta)] == [TextDelta(text="hello")]
