"""Behaviour of the model fallback chain (seed 003, "A model fallback chain ...")."""

from __future__ import annotations

import doctest
import importlib
from typing import Any

import pytest
from robota.core.agent import Agent
from robota.core.errors import (
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    ContentFilterError,
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
from robota.core.events import Event
from robota.core.messages import UserMessage
from robota.core.provider import (
    ModelRequest,
    Provider,
    ResponseCompleted,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
)
from robota.core.testing.scripted import ScriptedProvider, fail, text, tool_call, usage
from robota.core.tools.base import RiskClass
from robota.core.tools.function import tool
from robota.framework.fallback import (
    FallbackEntrySkipped,
    FallbackProvider,
    FallbackSwitched,
    is_switchable,
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Sink:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)


def overloaded() -> OverloadedError:
    return OverloadedError("overloaded", provider="primary", status=529)


async def collect(provider: Provider, model: str = "ignored") -> list[StreamEvent]:
    request = ModelRequest(model=model, messages=(UserMessage.of("hi"),))
    return [event async for event in provider.stream(request)]


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (OverloadedError("x", provider="p", status=529), True),
        (RateLimitError("x", provider="p", status=429), True),
        (QuotaExhaustedError("x", provider="p", status=429), True),
        (InternalServerError("x", provider="p", status=500), True),
        (ProviderTimeoutError("x", provider="p"), True),
        (ProviderConnectionError("x", provider="p"), True),
        (NotFoundError("model not found", provider="p", status=404), True),
        (AuthenticationError("x", provider="p", status=401), False),
        (PermissionDeniedError("x", provider="p", status=403), False),
        (BadRequestError("x", provider="p", status=400), False),
        (ContentFilterError("x", provider="p"), False),
        # a bare ProviderError is decided by status; without one it is unclassifiable
        (ProviderError("x", provider="p", status=503), True),
        (ProviderError("x", provider="p", status=429), True),
        (ProviderError("x", provider="p", status=400), False),
        (ProviderError("x", provider="p"), False),
        (ValueError("not a provider error"), False),
    ],
)
def test_switchable_classification(error: BaseException, expected: bool) -> None:
    assert is_switchable(error) is expected


@pytest.mark.anyio
async def test_switchable_failure_moves_to_next_model_and_names_it() -> None:
    primary = ScriptedProvider([[fail(overloaded())]], name="primary")
    backup = ScriptedProvider([[text("from backup"), usage(input_tokens=7, output_tokens=2)]])
    sink = Sink()
    chain = FallbackProvider([(primary, "big-model"), (backup, "small-model")], sinks=[sink])

    events = await collect(chain)

    assert [e.text for e in events if isinstance(e, TextDelta)] == ["from backup"]
    final = events[-1]
    assert isinstance(final, ResponseCompleted)
    assert final.response.model == "small-model"
    assert final.response.message.model == "small-model"
    assert primary.requests[0].model == "big-model"
    assert backup.requests[0].model == "small-model"
    assert backup.requests[0].messages == primary.requests[0].messages
    switched = [e for e in sink.events if isinstance(e, FallbackSwitched)]
    assert [(e.from_model, e.to_model, e.error_code, e.status) for e in switched] == [
        ("big-model", "small-model", "overloaded", 529)
    ]
    assert chain.usage_by_model["small-model"].input_tokens == 7
    assert "big-model" not in chain.usage_by_model


@pytest.mark.anyio
async def test_no_switch_once_text_streamed() -> None:
    primary = ScriptedProvider([[text("partial answer"), fail(overloaded())]])
    backup = ScriptedProvider(["never used"])
    chain = FallbackProvider([(primary, "a"), (backup, "b")])

    seen: list[StreamEvent] = []

    async def consume() -> None:
        async for event in chain.stream(ModelRequest(model="a", messages=())):
            seen.append(event)

    with pytest.raises(OverloadedError):
        await consume()

    assert seen == [TextDelta(text="partial answer")]
    assert backup.requests == []


@pytest.mark.anyio
async def test_tool_call_deltas_are_held_back_so_a_failure_can_still_switch() -> None:
    primary = ScriptedProvider([[tool_call("c1", "lookup", {"q": "A"}), fail(overloaded())]])
    backup = ScriptedProvider([[tool_call("c9", "lookup", {"q": "B"})]])
    chain = FallbackProvider([(primary, "a"), (backup, "b")])

    events = await collect(chain)

    deltas = [e for e in events if isinstance(e, ToolCallDelta)]
    assert [(d.id, d.arguments_delta) for d in deltas] == [("c9", '{"q": "B"}')]
    final = events[-1]
    assert isinstance(final, ResponseCompleted)
    assert [c.id for c in final.response.message.tool_calls] == ["c9"]


@pytest.mark.parametrize(
    "error",
    [
        AuthenticationError("bad key", provider="p", status=401),
        BadRequestError("bad request", provider="p", status=400),
        ProviderError("something odd", provider="p"),
    ],
)
@pytest.mark.anyio
async def test_non_switchable_failure_is_raised_without_trying_the_next_model(
    error: ProviderError,
) -> None:
    primary = ScriptedProvider([[fail(error)]])
    backup = ScriptedProvider(["never used"])
    chain = FallbackProvider([(primary, "a"), (backup, "b")])

    with pytest.raises(type(error)) as raised:
        await collect(chain)

    assert raised.value is error
    assert backup.requests == []


@pytest.mark.anyio
async def test_exhausted_chain_raises_the_last_failure_with_a_note() -> None:
    first = ScriptedProvider([[fail(overloaded())]])
    last_error = RateLimitError("slow down", provider="second", status=429)
    second = ScriptedProvider([[fail(last_error)]])
    chain = FallbackProvider([(first, "a"), (second, "b")])

    with pytest.raises(RateLimitError) as raised:
        await collect(chain)

    assert raised.value is last_error
    assert "robota: fallback chain exhausted; tried a, b" in raised.value.__notes__


@pytest.mark.anyio
async def test_an_entry_that_cannot_be_built_is_passed_over() -> None:
    def broken() -> Provider:
        raise ConfigurationError("no API key for vendor B")

    backup = ScriptedProvider(["answer from c"])
    sink = Sink()
    chain = FallbackProvider(
        [(ScriptedProvider([[fail(overloaded())]]), "a"), (broken, "b"), (backup, "c")],
        sinks=[sink],
    )

    events = await collect(chain)

    final = events[-1]
    assert isinstance(final, ResponseCompleted)
    assert final.response.model == "c"
    assert chain.skipped == {"b": "ConfigurationError: no API key for vendor B"}
    kinds = [type(e) for e in sink.events]
    assert kinds == [FallbackEntrySkipped, FallbackSwitched]
    switched = sink.events[1]
    assert isinstance(switched, FallbackSwitched)
    assert (switched.from_model, switched.to_model) == ("a", "c")


@pytest.mark.anyio
async def test_no_buildable_entry_is_a_configuration_error() -> None:
    def broken() -> Provider:
        raise RuntimeError("boom")

    chain = FallbackProvider([(broken, "a")])
    with pytest.raises(ConfigurationError, match="a: RuntimeError: boom"):
        await collect(chain)


@pytest.mark.anyio
async def test_a_run_stays_on_the_accepting_model_and_the_next_run_starts_on_the_primary() -> None:
    calls: list[str] = []

    @tool(risk=RiskClass.INSPECT)
    def lookup(q: str) -> str:
        """Look something up."""
        calls.append(q)
        return f"result for {q}"

    primary = ScriptedProvider(
        [
            [fail(overloaded())],  # run 1, round 1: primary is busy
            ["primary answers run 2"],  # run 2 starts on the primary again
        ],
        name="primary",
    )
    backup = ScriptedProvider(
        [
            [tool_call("c1", "lookup", {"q": "x"}), usage(input_tokens=10, output_tokens=1)],
            [text("backup finished run 1"), usage(input_tokens=20, output_tokens=4)],
        ],
        name="backup",
    )
    chain = FallbackProvider([(primary, "big"), (backup, "small")])
    agent = Agent(chain, tools=[lookup])

    with chain.run_scope() as run:
        first = await agent.run("first")
    assert first.text == "backup finished run 1"
    assert run.models == ["small", "small"]
    assert [r.model for r in backup.requests] == ["small", "small"]
    assert calls == ["x"]

    with chain.run_scope() as run2:
        second = await agent.run("second")
    assert second.text == "primary answers run 2"
    assert run2.models == ["big"]
    assert len(primary.requests) == 2
    assert chain.usage_by_model["small"].input_tokens == 30
    assert chain.usage_by_model["small"].requests == 2
    assert chain.usage_by_model["big"].requests == 1
    assert chain.current_run is None


@pytest.mark.anyio
async def test_without_a_run_scope_every_call_starts_on_the_primary() -> None:
    primary = ScriptedProvider([[fail(overloaded())], "primary back"])
    backup = ScriptedProvider(["backup"])
    chain = FallbackProvider([(primary, "a"), (backup, "b")])

    first = await collect(chain)
    second = await collect(chain)

    assert [e.text for e in first if isinstance(e, TextDelta)] == ["backup"]
    assert [e.text for e in second if isinstance(e, TextDelta)] == ["primary back"]


class WindowProvider(ScriptedProvider):
    def __init__(self, window: int | None, **kwargs: Any) -> None:
        super().__init__(context_window=window, **kwargs)


def test_compaction_only_moves_to_models_with_a_known_window_at_least_the_primarys() -> None:
    chain = FallbackProvider(
        [
            (WindowProvider(200_000), "primary"),
            (WindowProvider(100_000), "smaller"),
            (WindowProvider(None), "unknown"),
            (WindowProvider(200_000), "same"),
            (WindowProvider(1_000_000), "bigger"),
        ]
    )
    assert chain.for_compaction().chain_models == ("primary", "same", "bigger")

    unknown_primary = FallbackProvider(
        [(WindowProvider(None), "primary"), (WindowProvider(1_000_000), "bigger")]
    )
    assert unknown_primary.for_compaction().chain_models == ("primary",)


def test_empty_chain_is_refused() -> None:
    with pytest.raises(ConfigurationError):
        FallbackProvider([])


def test_compaction_chain_shares_built_providers_instead_of_rebuilding() -> None:
    builds: list[str] = []

    def primary() -> Provider:
        builds.append("primary")
        return WindowProvider(100_000)

    chain = FallbackProvider([(primary, "p"), (WindowProvider(200_000), "q")])
    compaction = chain.for_compaction()

    assert compaction.chain_models == ("p", "q")
    assert compaction.model_info("p") is not None
    assert builds == ["primary"]


@pytest.mark.parametrize(
    "module", ["robota.framework.fallback.provider", "robota.framework.fallback.switchable"]
)
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0
    assert result.failed == 0
