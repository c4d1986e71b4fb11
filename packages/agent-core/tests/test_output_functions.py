"""Output functions, output validators and ModelRetry through the real loop (issue 17; seed
002, "Tool output…": an output function returns an accepted value or a model-safe retry;
thrown errors remain application failures)."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from pydantic import BaseModel
from robota.core.agent import Agent
from robota.core.agent.events import FinalResult, OutputValidationFailed
from robota.core.agent.output import OutputContext, OutputSpec
from robota.core.errors import ModelRetry, StructuredOutputError
from robota.core.messages import AssistantMessage, UserMessage
from robota.core.testing.recording import EventRecorder
from robota.core.testing.scripted import ScriptedProvider


class City(BaseModel):
    name: str


def kinds(history: list[Any]) -> list[str]:
    return [type(m).__name__ for m in history]


def user_text(message: Any) -> str:
    assert isinstance(message, UserMessage)
    return "".join(getattr(p, "text", "") for p in message.parts)


@pytest.mark.anyio
async def test_sync_output_function_returns_its_value() -> None:
    def area(width: int, height: int) -> int:
        """Area of a rectangle."""
        return width * height

    provider = ScriptedProvider(['{"width": 3, "height": "4"}'])
    result = await Agent(provider).run("q", output_type=area)
    assert result.output == 12
    output = provider.requests[0].output
    assert output is not None
    assert output.name == "area"
    assert output.schema["required"] == ["width", "height"]
    assert output.description == "Area of a rectangle."


@pytest.mark.anyio
async def test_async_output_function_with_context_and_partial() -> None:
    seen: list[OutputContext[str]] = []

    async def greet(ctx: OutputContext[str], name: str, punctuation: str) -> str:
        seen.append(ctx)
        return f"{ctx.deps} {name}{punctuation}"

    provider = ScriptedProvider(['{"name": "Ada"}'])
    fn = functools.partial(greet, punctuation="!")
    result = await Agent(provider, deps="Hello").run("q", output_type=fn, run_id="r1")
    assert result.output == "Hello Ada!"
    assert seen[0].run_id == "r1"
    assert seen[0].attempt == 1
    assert not seen[0].partial
    assert isinstance(seen[0].messages[-1], AssistantMessage)


@pytest.mark.anyio
async def test_model_retry_from_the_function_is_fed_back_and_bounded() -> None:
    calls: list[str] = []

    def capital(city: str) -> str:
        calls.append(city)
        if city != "Oslo":
            raise ModelRetry(f"{city} is not the capital")
        return city

    provider = ScriptedProvider(['{"city": "Bergen"}', '{"city": "Oslo"}'])
    sink = EventRecorder()
    agent = Agent(provider, sinks=[sink])
    result = await agent.run("q", output_type=capital)
    assert result.output == "Oslo"
    assert calls == ["Bergen", "Oslo"]
    # append-only: both answers and the feedback stay in history
    assert kinds(list(agent.history)) == [
        "UserMessage",
        "AssistantMessage",
        "UserMessage",
        "AssistantMessage",
    ]
    feedback = user_text(agent.history[2])
    assert "Bergen is not the capital" in feedback
    assert "rejected" in feedback
    failed = [e for e in sink.events if isinstance(e, OutputValidationFailed)]
    assert [(e.attempt, e.will_retry) for e in failed] == [(1, True)]
    assert len([e for e in sink.events if isinstance(e, FinalResult)]) == 1


@pytest.mark.anyio
async def test_model_retry_exhausts_the_output_budget() -> None:
    def never(city: str) -> str:
        raise ModelRetry("no")

    provider = ScriptedProvider(['{"city": "A"}'] * 3)
    agent = Agent(provider, output_retries=1)
    with pytest.raises(StructuredOutputError) as caught:
        await agent.run("q", output_type=never)
    assert caught.value.attempts == 2
    assert caught.value.issues == ("no",)
    assert len(provider.requests) == 2
    assert [m.text for m in agent.history if isinstance(m, AssistantMessage)] == [
        '{"city": "A"}',
        '{"city": "A"}',
    ]


@pytest.mark.anyio
async def test_an_application_exception_fails_the_run_without_retry() -> None:
    def broken(city: str) -> str:
        raise LookupError("database down")

    provider = ScriptedProvider(['{"city": "A"}', '{"city": "B"}'])
    with pytest.raises(LookupError, match="database down"):
        await Agent(provider).run("q", output_type=broken)
    assert len(provider.requests) == 1


@pytest.mark.anyio
async def test_validators_transform_in_order_and_may_retry() -> None:
    def upper(city: City) -> City:
        return City(name=city.name.upper())

    async def norway_only(ctx: OutputContext[Any], city: City) -> City:
        if city.name != "OSLO":
            raise ModelRetry(f"attempt {ctx.attempt}: {city.name} is not in Norway")
        return City(name=city.name + "!")

    provider = ScriptedProvider(['{"name": "Paris"}', '{"name": "oslo"}'])
    agent = Agent(provider, output_type=City, output_validators=[upper, norway_only])
    result = await agent.run("q")
    assert result.output == City(name="OSLO!")
    assert "attempt 1: PARIS is not in Norway" in user_text(agent.history[2])


@pytest.mark.anyio
async def test_a_validator_exception_is_an_application_failure() -> None:
    def explode(value: Any) -> Any:
        raise RuntimeError("bug")

    provider = ScriptedProvider(['{"name": "x"}', '{"name": "y"}'])
    with pytest.raises(RuntimeError, match="bug"):
        await Agent(provider, output_type=City, output_validators=[explode]).run("q")
    assert len(provider.requests) == 1


def test_output_function_and_validator_shapes_are_checked_early() -> None:
    def takes_args(*names: str) -> str:
        return ""

    with pytest.raises(TypeError, match="cannot be described"):
        OutputSpec.of(takes_args)
    with pytest.raises(TypeError, match=r"must take \(value\)"):
        OutputSpec.of(City, validators=[lambda: None])  # pyright: ignore[reportArgumentType]
