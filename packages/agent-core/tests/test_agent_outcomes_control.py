"""Host-side outcomes of issue #14: a steer never leaks into the next run (seed 004, steer), a
strict tool's null for an optional field is not a validation error (seed 000, "Tool Schema
Projection"), and retries are on by default (RetryingProvider, never wrapped twice)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from robota.core.agent import Agent, RunCompleted, ToolCallSkipped, ToolCallStarted
from robota.core.agent.retries import DEFAULT_RETRY_POLICY
from robota.core.cancellation import CancelToken
from robota.core.capabilities import ModelInfo
from robota.core.errors import AuthenticationError, OverloadedError
from robota.core.events import Event
from robota.core.messages import Message, ToolResultMessage, UserMessage
from robota.core.provider import EndpointProvenance, ModelRequest, Provider, StreamEvent
from robota.core.retry import RetryingProvider, RetryPolicy
from robota.core.testing.scripted import (
    ScriptedProvider,
    fail,
    reached,
    text,
    tool_call,
    wait_for,
)
from robota.core.tools.function import FunctionTool

pytestmark = pytest.mark.anyio


def user_texts(messages: tuple[Message, ...]) -> list[str]:
    return [m.parts[0].text for m in messages if isinstance(m, UserMessage)]  # type: ignore[union-attr]


# --- steer -------------------------------------------------------------------------------------


async def test_steer_after_cancel_returns_false_and_nothing_leaks() -> None:
    answering = anyio.Event()
    provider = ScriptedProvider([[reached(answering), wait_for(anyio.Event())], "second"])
    agent = Agent(provider)
    token = CancelToken()
    outcomes: list[bool] = []
    results: list[Any] = []
    async with anyio.create_task_group() as group:

        async def run() -> None:
            results.append(await agent.run("first", cancel=token))

        group.start_soon(run)
        await answering.wait()
        token.cancel()
        outcomes.append(agent.steer("too late"))
    assert outcomes == [False]
    assert results[0].interrupted
    await agent.run("next")
    assert user_texts(provider.requests[1].messages) == ["first", "next"]


async def test_steer_between_runs_returns_false_and_queues_nothing() -> None:
    provider = ScriptedProvider(["a", "b"])
    agent = Agent(provider)
    await agent.run("one")
    assert agent.steer("stray") is False
    await agent.run("two")
    assert "stray" not in user_texts(provider.requests[1].messages)


async def test_steer_while_the_run_is_ending_returns_false() -> None:
    outcomes: list[bool] = []
    agent: Agent

    class SteerOnEnd:
        def emit(self, event: Event) -> None:
            if isinstance(event, RunCompleted):
                outcomes.append(agent.steer("after the answer"))

    provider = ScriptedProvider(["answer", "next answer"])
    agent = Agent(provider, sinks=[SteerOnEnd()])
    await agent.run("q")
    await agent.run("q2")
    assert outcomes == [False, False]
    assert user_texts(provider.requests[1].messages) == ["q", "q2"]


async def test_steer_during_the_forced_summary_returns_false() -> None:
    summarizing = anyio.Event()
    release = anyio.Event()
    tool = FunctionTool(lambda: "ok", name="noop")
    provider = ScriptedProvider(
        [[tool_call("c1", "noop")], [reached(summarizing), wait_for(release), text("summary")]]
    )
    agent = Agent(provider, tools=[tool], max_rounds=1)
    outcomes: list[bool] = []
    results: list[Any] = []
    async with anyio.create_task_group() as group:

        async def run() -> None:
            results.append(await agent.run("go"))

        group.start_soon(run)
        await summarizing.wait()
        outcomes.append(agent.steer("one more"))
        release.set()
    assert outcomes == [False]
    assert results[0].text == "summary"


# --- strict tools ------------------------------------------------------------------------------


def make_search(strict: bool | None, seen: list[dict[str, Any]]) -> FunctionTool:
    def search(query: str, limit: int = 10, note: str | None = "n/a") -> str:
        seen.append({"query": query, "limit": limit, "note": note})
        return f"{query}:{limit}:{note}"

    return FunctionTool(search, description="Search.", strict=strict)


async def test_a_strict_tool_reads_null_for_an_optional_field_as_absent() -> None:
    seen: list[dict[str, Any]] = []
    started: list[dict[str, Any]] = []

    class Sink:
        def emit(self, event: Event) -> None:
            if isinstance(event, ToolCallStarted):
                started.append(dict(event.arguments))

    provider = ScriptedProvider(
        [[tool_call("c1", "search", {"query": "x", "limit": None, "note": None})], "done"]
    )
    agent = Agent(provider, tools=[make_search(True, seen)], sinks=[Sink()])
    await agent.run("find x")
    # limit (optional, not nullable) takes its default; note (nullable) keeps the model's null
    assert seen == [{"query": "x", "limit": 10, "note": None}]
    assert started == [{"query": "x", "note": None}]
    result = agent.history[2]
    assert isinstance(result, ToolResultMessage)
    assert not result.results[0].is_error
    call = agent.history[1].tool_calls[0]  # type: ignore[union-attr]
    assert call.arguments == {"query": "x", "limit": None, "note": None}  # history unchanged


async def test_a_non_strict_tool_still_rejects_null_for_a_non_nullable_field() -> None:
    seen: list[dict[str, Any]] = []
    skipped: list[str] = []

    class Sink:
        def emit(self, event: Event) -> None:
            if isinstance(event, ToolCallSkipped):
                skipped.append(event.reason)

    provider = ScriptedProvider([[tool_call("c1", "search", {"query": "x", "limit": None})], "ok"])
    agent = Agent(provider, tools=[make_search(None, seen)], sinks=[Sink()])
    await agent.run("find x")
    assert seen == []
    assert skipped == ["invalid_arguments"]


async def test_a_strict_tool_still_validates_against_the_original_schema() -> None:
    seen: list[dict[str, Any]] = []
    provider = ScriptedProvider([[tool_call("c1", "search", {"query": None})], "ok"])
    agent = Agent(provider, tools=[make_search(True, seen)])
    await agent.run("find")
    result = agent.history[2]
    assert isinstance(result, ToolResultMessage)
    assert result.results[0].is_error
    assert seen == []  # a required field is never dropped


# --- retries -----------------------------------------------------------------------------------


def overloaded() -> OverloadedError:
    return OverloadedError("busy", provider="scripted", status=529)


async def test_retries_are_on_by_default() -> None:
    provider = ScriptedProvider([[fail(overloaded())], "recovered"])
    agent = Agent(provider)
    assert agent.retry == RetryPolicy() == DEFAULT_RETRY_POLICY
    assert agent.provider is provider  # hosts still see the provider they gave
    result = await agent.run("q")
    assert result.text == "recovered"
    assert len(provider.requests) == 2


async def test_retry_policy_is_the_agents_and_none_turns_retries_off() -> None:
    provider = ScriptedProvider([[fail(overloaded())], [fail(overloaded())], "third", "spare"])
    result = await Agent(provider, retry=RetryPolicy(max_attempts=3, base_delay=0.0)).run("q")
    assert result.text == "third"
    assert len(provider.requests) == 3

    off = ScriptedProvider([[fail(overloaded())], "unused"])
    with pytest.raises(OverloadedError):
        await Agent(off, retry=None).run("q")
    assert len(off.requests) == 1


async def test_no_retry_after_the_first_streamed_event_or_for_unrecoverable_errors() -> None:
    partial = ScriptedProvider([[text("half"), fail(overloaded())], "unused"])
    with pytest.raises(OverloadedError):
        await Agent(partial, retry=RetryPolicy(base_delay=0.0)).run("q")
    assert len(partial.requests) == 1

    denied = ScriptedProvider([[fail(AuthenticationError("bad key", provider="s", status=401))]])
    with pytest.raises(AuthenticationError):
        await Agent(denied, retry=RetryPolicy(base_delay=0.0)).run("q")
    assert len(denied.requests) == 1


class Decorator(Provider):
    """A provider decorator in Robota's convention (``inner``)."""

    def __init__(self, inner: Provider) -> None:
        self.inner = inner
        self.name = inner.name
        self.default_model = inner.default_model

    def model_info(self, model: str) -> ModelInfo | None:
        return self.inner.model_info(model)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        async for event in self.inner.stream(request):
            yield event


async def test_a_provider_that_already_retries_is_not_wrapped_again() -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    def itself(provider: Provider) -> Provider:
        return provider

    for wrap in (itself, Decorator):
        waits.clear()
        scripted = ScriptedProvider([[fail(overloaded())], [fail(overloaded())], "never"])
        retrying = RetryingProvider(scripted, RetryPolicy(max_attempts=2), sleep=sleep)
        with pytest.raises(OverloadedError):
            await Agent(wrap(retrying)).run("q")
        assert len(scripted.requests) == 2  # 2 attempts, not 2 x 4
        assert len(waits) == 1


async def test_the_retrying_provider_reports_the_inner_endpoint() -> None:
    class Custom(ScriptedProvider):
        @property
        def endpoint(self) -> EndpointProvenance:
            return EndpointProvenance(base_url="http://localhost:8080/v1", vendor=False)

    retrying = RetryingProvider(Custom())
    assert retrying.endpoint == EndpointProvenance(
        base_url="http://localhost:8080/v1", vendor=False
    )
