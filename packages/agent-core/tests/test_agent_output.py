"""Structured output: transports, lenient parsing, retries committed to history, exhaustion
(seed 000, "Structured Output Contract")."""

from __future__ import annotations

import pytest
from pydantic import BaseModel
from robota.core.agent import Agent, OutputValidationFailed
from robota.core.agent.output import parse_json_leniently
from robota.core.capabilities import ModelCapabilities, StructuredOutputTransport
from robota.core.errors import StructuredOutputError
from robota.core.events import Event
from robota.core.messages import SystemMessage, UserMessage
from robota.core.testing.scripted import ScriptedProvider, tool_call
from robota.core.tools.function import tool


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)


class City(BaseModel):
    name: str
    population: int


@pytest.mark.anyio
async def test_native_transport_returns_a_validated_model() -> None:
    caps = ModelCapabilities(native_structured_output=True)
    provider = ScriptedProvider(['{"name": "Oslo", "population": 709000}'], capabilities=caps)
    result = await Agent(provider, system_prompt="sys").run("city?", output_type=City)
    assert result.output == City(name="Oslo", population=709000)
    request = provider.requests[0]
    assert request.output is not None
    assert request.output.transport is StructuredOutputTransport.NATIVE
    assert request.output.name == "City"
    assert request.messages[0] == SystemMessage(content="sys")


@pytest.mark.anyio
async def test_json_mode_sends_flag_and_states_schema() -> None:
    caps = ModelCapabilities(native_structured_output=False, json_mode=True)
    provider = ScriptedProvider(['{"name": "A", "population": 1}'], capabilities=caps)
    await Agent(provider).run("q", output_type=City)
    request = provider.requests[0]
    assert request.output is not None
    assert request.output.transport is StructuredOutputTransport.JSON_MODE
    system = request.messages[0]
    assert isinstance(system, SystemMessage)
    assert '"population"' in system.content


@pytest.mark.anyio
async def test_prompted_transport_states_schema_for_that_request_only() -> None:
    caps = ModelCapabilities(native_structured_output=False, json_mode=False)
    provider = ScriptedProvider(
        ['```json\n{"name": "B", "population": 2}\n```', "plain"], capabilities=caps
    )
    agent = Agent(provider, system_prompt="Base prompt.")
    result = await agent.run("q", output_type=City)
    assert result.output == City(name="B", population=2)
    first = provider.requests[0]
    assert first.output is None
    system = first.messages[0]
    assert isinstance(system, SystemMessage)
    assert system.content.startswith("Base prompt.\n\nRespond with only a JSON value")
    assert agent.system_prompt == "Base prompt."
    await agent.run("next")
    assert provider.requests[1].messages[0] == SystemMessage(content="Base prompt.")


@pytest.mark.anyio
async def test_unknown_capabilities_send_the_schema_natively() -> None:
    # seed 000: silence about a capability is not a denial; the request goes unchanged
    provider = ScriptedProvider(['{"name": "U", "population": 5}'])
    result = await Agent(provider).run("q", output_type=City)
    assert result.output == City(name="U", population=5)
    request = provider.requests[0]
    assert request.output is not None
    assert request.output.transport is StructuredOutputTransport.NATIVE
    assert all(not isinstance(m, SystemMessage) for m in request.messages)  # no instruction


@pytest.mark.anyio
async def test_native_stated_false_and_json_mode_unknown_is_prompted() -> None:
    caps = ModelCapabilities(native_structured_output=False)
    provider = ScriptedProvider(['{"name": "P", "population": 6}'], capabilities=caps)
    result = await Agent(provider).run("q", output_type=City)
    assert result.output == City(name="P", population=6)
    request = provider.requests[0]
    assert request.output is None
    system = request.messages[0]
    assert isinstance(system, SystemMessage)
    assert '"population"' in system.content


@pytest.mark.anyio
async def test_dict_schema_returns_a_dict_after_tools_run() -> None:
    @tool
    async def lookup() -> str:
        """Look up."""
        return "42"

    schema = {
        "type": "object",
        "properties": {"answer": {"type": "integer"}},
        "required": ["answer"],
    }
    provider = ScriptedProvider([[tool_call("1", "lookup", {})], 'Sure: {"answer": 42}'])
    result = await Agent(provider, tools=[lookup]).run("q", output_type=schema)
    assert result.output == {"answer": 42}


@pytest.mark.anyio
async def test_validation_retry_feedback_is_committed_then_succeeds() -> None:
    sink = Recorder()
    provider = ScriptedProvider(['{"name": "C"}', '{"name": "C", "population": 3}'])
    agent = Agent(provider, sinks=[sink])
    result = await agent.run("q", output_type=City)
    assert result.output == City(name="C", population=3)
    assert [m.kind for m in agent.history] == ["user", "assistant", "user", "assistant"]
    feedback = agent.history[2]
    assert isinstance(feedback, UserMessage)
    assert "population" in feedback.parts[0].text  # type: ignore[union-attr]
    assert "did not validate" in feedback.parts[0].text  # type: ignore[union-attr]
    failed = [e for e in sink.events if isinstance(e, OutputValidationFailed)]
    assert [(e.attempt, e.will_retry) for e in failed] == [(1, True)]


@pytest.mark.anyio
async def test_exhausted_retries_raise_structured_output_error() -> None:
    provider = ScriptedProvider(["not json", '{"name": 1}', "[]"])
    agent = Agent(provider, output_retries=2)
    with pytest.raises(StructuredOutputError) as caught:
        await agent.run("q", output_type=City)
    assert caught.value.attempts == 3
    assert caught.value.issues
    assert len(provider.requests) == 3


def test_lenient_json_parsing() -> None:
    assert parse_json_leniently('```\n{"a": 1}\n```') == {"a": 1}
    assert parse_json_leniently('Here you go: {"a": [1, 2]} done') == {"a": [1, 2]}
    assert parse_json_leniently(" [1, 2] ") == [1, 2]
    with pytest.raises(ValueError, match="not valid JSON"):
        parse_json_leniently("no json here")


def test_invalid_output_type_is_refused() -> None:
    from robota.core.agent.output import OutputSpec

    with pytest.raises(TypeError):
        OutputSpec.of(object())  # int is an output type now (issue 17)
