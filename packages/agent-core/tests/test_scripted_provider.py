"""The scripted test provider (robota.core.testing.scripted)."""

from __future__ import annotations

import anyio
import pytest
from robota.core.capabilities import ModelCapabilities
from robota.core.errors import OverloadedError
from robota.core.messages import TextPart, ThinkingPart, ToolCallPart, UserMessage
from robota.core.provider import (
    ModelRequest,
    ResponseCompleted,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from robota.core.testing.scripted import (
    ScriptedProvider,
    ScriptExhaustedError,
    delay,
    fail,
    finish,
    text,
    thinking,
    tool_call,
    usage,
)


def request(text_: str = "hi") -> ModelRequest:
    return ModelRequest(model="m1", messages=(UserMessage.of(text_),))


@pytest.mark.anyio
async def test_turn_yields_events_and_an_assembled_message_in_order() -> None:
    provider = ScriptedProvider(
        [
            [
                thinking("hmm", signature="sig-1"),
                text("Hel"),
                "lo",
                tool_call("c1", "search", {"q": "x"}),
                tool_call("c2", "broken", "{oops"),
                usage(input_tokens=11, output_tokens=5),
            ]
        ]
    )
    events = [e async for e in provider.stream(request())]
    assert events[:5] == [
        ThinkingDelta(text="hmm"),
        TextDelta(text="Hel"),
        TextDelta(text="lo"),
        ToolCallDelta(index=0, id="c1", name="search", arguments_delta='{"q": "x"}'),
        ToolCallDelta(index=1, id="c2", name="broken", arguments_delta="{oops"),
    ]
    final = events[5]
    assert isinstance(final, ResponseCompleted)
    message = final.response.message
    assert message.parts == (
        ThinkingPart(text="hmm", signature="sig-1", provider="scripted"),
        TextPart(text="Hello"),
        ToolCallPart(id="c1", name="search", arguments={"q": "x"}, raw_arguments='{"q": "x"}'),
        ToolCallPart(id="c2", name="broken", arguments=None, raw_arguments="{oops"),
    )
    assert message.finish_reason == "tool_calls"
    assert final.response.usage.input_tokens == 11
    assert final.response.usage.requests == 1
    assert final.response.model == "m1"


@pytest.mark.anyio
async def test_records_requests_and_reports_exhaustion_clearly() -> None:
    provider = ScriptedProvider(["only"])
    first = await provider.complete(request("a"))
    assert first.message.text == "only"
    assert first.finish_reason == "stop"
    with pytest.raises(ScriptExhaustedError, match="called 2 times but the script has only 1"):
        await provider.complete(request("b"))
    assert [r.messages[0].parts[0].text for r in provider.requests] == ["a", "b"]  # type: ignore[union-attr]
    assert isinstance(ScriptExhaustedError("x"), AssertionError)
    # every later call still names the script's real length, not the number of calls so far
    with pytest.raises(ScriptExhaustedError, match="called 3 times but the script has only 1 "):
        await provider.complete(request("c"))


@pytest.mark.anyio
async def test_errors_delays_and_finish_reasons() -> None:
    error = OverloadedError("busy", provider="scripted", status=529)
    provider = ScriptedProvider([[delay(0), text("x"), fail(error)], [text("y"), finish("length")]])
    seen: list[object] = []

    async def consume() -> None:
        async for event in provider.stream(request()):
            seen.append(event)

    with pytest.raises(OverloadedError):
        await consume()
    assert seen == [TextDelta(text="x")]
    response = await provider.complete(request())
    assert response.finish_reason == "length"
    assert provider.remaining == 0
    provider.add("more")
    assert provider.remaining == 1


@pytest.mark.anyio
async def test_delay_is_a_cancellation_point() -> None:
    provider = ScriptedProvider([[text("a"), delay(3600), text("b")]])
    seen: list[object] = []
    with anyio.move_on_after(0):
        async for event in provider.stream(request()):
            seen.append(event)
    assert seen == [TextDelta(text="a")]


def test_model_info_and_capabilities_are_configurable() -> None:
    caps = ModelCapabilities(native_structured_output=True)
    provider = ScriptedProvider([], context_window=4096, capabilities=caps, model="m9")
    info = provider.model_info("m9")
    assert info is not None
    assert info.context_window == 4096
    assert provider.capabilities("m9") is caps
    assert provider.default_model == "m9"
    assert ScriptedProvider([]).model_info("x").context_window is None  # type: ignore[union-attr]
