"""OpenAIChatProvider (profile ``llamacpp``) against a real llama.cpp server on 127.0.0.1.

The server and model are prepared by ``.ci/setup-llamacpp`` (Gemma 3 270M, a small pretrained
BASE model), so these tests assert wire behaviour (streaming, usage, finish reasons, grammar-
constrained structured output), never the quality of an answer. A missing server fails them;
``ROBOTA_SKIP_LLAMA=1`` skips them (see ``llamacpp/``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import BaseModel, Field
from robota.core.agent import Agent
from robota.core.capabilities import StructuredOutputTransport
from robota.core.messages import SystemMessage, TextPart, UserMessage
from robota.core.provider import (
    ModelRequest,
    ModelResponse,
    OutputSchema,
    PayloadEvent,
    Provider,
    ResponseCompleted,
    StreamEvent,
    TextDelta,
)
from robota.core.settings import ModelSettings
from robota.providers.openai import OpenAIChatProvider

sys.path.insert(0, str(Path(__file__).parent))
from llamacpp import MODEL_ALIAS, LlamaServer, shared_server

pytestmark = pytest.mark.integration

PROMPT = "Write a short story about a cat who lives in a lighthouse."


@pytest.fixture(scope="session")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    with shared_server(tmp_path_factory.mktemp("llama-server")) as server:
        yield server


LOCAL_KEY = "no-key-needed"
"""llama.cpp started without ``--api-key`` ignores the bearer; the SDK insists on one (below)."""


def _provider(server: LlamaServer) -> OpenAIChatProvider:
    return OpenAIChatProvider(
        LOCAL_KEY,
        base_url=server.base_url,
        profile="llamacpp",
        name="llamacpp",
        default_model=MODEL_ALIAS,
    )


async def _collect(
    provider: Provider, request: ModelRequest
) -> tuple[list[StreamEvent], ModelResponse]:
    events: list[StreamEvent] = []
    async for event in provider.stream(request):
        events.append(event)
    last = events[-1]
    assert isinstance(last, ResponseCompleted)
    return events, last.response


def _chunks_with_usage(payloads: list[PayloadEvent]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for event in payloads:
        body = event.payload
        if event.direction == "stream" and isinstance(body, dict) and body.get("usage"):
            found.append(body)
    return found


@pytest.mark.anyio
async def test_stream_delivers_text_in_several_deltas_and_stops_on_length(
    llama: LlamaServer,
) -> None:
    payloads: list[PayloadEvent] = []
    request = ModelRequest(
        model=MODEL_ALIAS,
        messages=(UserMessage.of(PROMPT),),
        settings=ModelSettings(max_tokens=12, temperature=0.0, seed=7),
        on_payload=payloads.append,
    )
    async with _provider(llama) as provider:
        events, response = await _collect(provider, request)

    deltas = [event.text for event in events if isinstance(event, TextDelta)]
    assert len(deltas) > 1
    assert "".join(deltas) == response.message.text
    assert response.message.text.strip() != ""
    assert response.finish_reason == "length"
    assert response.raw_finish_reason == "length"
    # The output limit is exact: a "length" stop after max_tokens tokens.
    assert response.usage.output_tokens == 12
    assert response.usage.requests == 1
    assert payloads[0].direction == "request"
    sent = payloads[0].payload
    assert isinstance(sent, dict)
    assert sent["max_tokens"] == 12


@pytest.mark.anyio
async def test_usage_equals_the_servers_own_counts(llama: LlamaServer) -> None:
    payloads: list[PayloadEvent] = []
    messages = (SystemMessage(content="You are a helpful assistant."), UserMessage.of(PROMPT))
    request = ModelRequest(
        model=MODEL_ALIAS,
        messages=messages,
        settings=ModelSettings(max_tokens=20, temperature=0.0),
        on_payload=payloads.append,
    )
    async with _provider(llama) as provider:
        _, response = await _collect(provider, request)

    [final] = _chunks_with_usage(payloads)
    server_usage = final["usage"]
    assert response.usage.input_tokens == server_usage["prompt_tokens"]
    assert response.usage.output_tokens == server_usage["completion_tokens"]
    assert response.usage.input_tokens > 0
    assert 0 < response.usage.output_tokens <= 20

    # Independently of the usage chunk: the server's own tokenizer gives the same prompt size.
    async with httpx.AsyncClient(base_url=llama.origin, timeout=30.0) as client:
        templated = await client.post(
            "/apply-template",
            json={
                "messages": [
                    {"role": "system", "content": "You are a helpful assistant."},
                    {"role": "user", "content": PROMPT},
                ]
            },
        )
        prompt = templated.json()["prompt"]
        tokens = await client.post(
            "/tokenize", json={"content": prompt, "add_special": True, "parse_special": True}
        )
    assert response.usage.input_tokens == len(tokens.json()["tokens"])


class Pet(BaseModel):
    """The structured answer: short, bounded fields so the grammar ends quickly."""

    name: str = Field(min_length=1, max_length=12)
    legs: int = Field(ge=0, le=8)
    indoor: bool


@pytest.mark.anyio
async def test_agent_structured_output_travels_as_json_schema_and_validates(
    llama: LlamaServer,
) -> None:
    payloads: list[PayloadEvent] = []
    # the llamacpp compat profile states json_schema support, so the Agent picks NATIVE
    provider = OpenAIChatProvider(
        LOCAL_KEY,
        base_url=llama.base_url,
        profile="llamacpp",
        name="llamacpp",
        default_model=MODEL_ALIAS,
    )
    async with provider:
        agent = Agent(
            provider,
            output_type=Pet,
            settings=ModelSettings(max_tokens=96, temperature=0.0),
            on_payload=payloads.append,
            max_rounds=1,
            output_retries=0,
        )
        result = await agent.run("Describe a pet as JSON.")

    assert isinstance(result.output, Pet)
    assert 1 <= len(result.output.name) <= 12
    assert 0 <= result.output.legs <= 8
    [request] = [p.payload for p in payloads if p.direction == "request"]
    assert isinstance(request, dict)
    response_format = request["response_format"]
    assert isinstance(response_format, dict)
    assert response_format["type"] == "json_schema"
    json_schema = response_format["json_schema"]
    assert isinstance(json_schema, dict)
    assert json_schema["name"] == "Pet"
    assert json_schema["schema"] == Pet.model_json_schema()
    assert Pet.model_validate_json(result.text) == result.output


@pytest.mark.anyio
async def test_native_output_schema_on_a_plain_request_is_grammar_constrained(
    llama: LlamaServer,
) -> None:
    """Without an Agent: ``ModelRequest.output`` with the NATIVE transport is honoured."""
    schema = Pet.model_json_schema()
    request = ModelRequest(
        model=MODEL_ALIAS,
        messages=(UserMessage.of("A pet:"),),
        settings=ModelSettings(max_tokens=96, temperature=0.0),
        output=OutputSchema(name="Pet", schema=schema, transport=StructuredOutputTransport.NATIVE),
    )
    async with _provider(llama) as provider:
        _, response = await _collect(provider, request)
    assert response.finish_reason == "stop"
    pet = Pet.model_validate_json(response.message.text)
    assert [type(p) for p in response.message.parts] == [TextPart]
    assert 0 <= pet.legs <= 8


@pytest.mark.anyio
async def test_a_local_server_needs_no_api_key(llama: LlamaServer) -> None:
    request = ModelRequest(
        model=MODEL_ALIAS,
        messages=(UserMessage.of("Hi"),),
        settings=ModelSettings(max_tokens=2),
    )
    provider = OpenAIChatProvider(
        None, base_url=llama.base_url, profile="llamacpp", name="llamacpp"
    )
    async with provider:
        _, response = await _collect(provider, request)
    assert response.usage.output_tokens == 2
