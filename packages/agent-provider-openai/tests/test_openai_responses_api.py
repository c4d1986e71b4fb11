"""Responses API: reasoning round-trip, hosted tools, structured output, streaming."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from robota.core.capabilities import HostedTool, StructuredOutputTransport
from robota.core.errors import (
    RateLimitError,
    UnsupportedCapabilityError,
    UnsupportedSettingError,
)
from robota.core.messages import (
    HostedToolResultPart,
    ProviderDetailsPart,
    SystemMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultMessage,
    ToolResultPart,
    UserMessage,
)
from robota.core.provider import (
    ModelRequest,
    OutputSchema,
    ResponseCompleted,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from robota.core.settings import ModelSettings
from robota.providers.openai import OpenAIResponsesProvider

RESPONSE: dict[str, Any] = {
    "id": "resp_1",
    "object": "response",
    "status": "completed",
    "model": "o4-mini-2025-04-16",
    "output": [
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "Need the weather."}],
            "encrypted_content": "gAAAAenc",
        },
        {
            "type": "web_search_call",
            "id": "ws_1",
            "status": "completed",
            "action": {"type": "search", "query": "oslo weather"},
        },
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": '{"city":"Oslo"}',
            "status": "completed",
        },
        {"type": "compaction", "id": "cmp_1", "encrypted_content": "opaque"},
    ],
    "usage": {
        "input_tokens": 200,
        "input_tokens_details": {"cached_tokens": 128},
        "output_tokens": 90,
        "output_tokens_details": {"reasoning_tokens": 64},
        "total_tokens": 290,
    },
}


class Recorder:
    def __init__(self, *responses: httpx.Response) -> None:
        self.responses = list(responses)
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.bodies.append(json.loads(request.content))
        return self.responses.pop(0)


def provider(rec: Recorder, **kwargs: Any) -> OpenAIResponsesProvider:
    client = httpx.AsyncClient(transport=httpx.MockTransport(rec))
    return OpenAIResponsesProvider("sk-test", http_client=client, **kwargs)


def sse(*events: dict[str, Any]) -> httpx.Response:
    text = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, text=text)


@pytest.mark.anyio
async def test_reasoning_hosted_and_function_items_decode_and_round_trip() -> None:
    rec = Recorder(httpx.Response(200, json=RESPONSE), httpx.Response(200, json=RESPONSE))
    p = provider(rec, store=False)
    first = await p.complete(
        ModelRequest(
            model="o4-mini",
            messages=(SystemMessage(content="Be brief."), UserMessage.of("Weather in Oslo?")),
            settings=ModelSettings(reasoning_effort="minimal"),
            hosted_tools=frozenset({HostedTool.WEB_SEARCH}),
        )
    )
    sent = rec.bodies[0]
    assert sent["instructions"] == "Be brief."
    assert sent["store"] is False
    assert sent["include"] == ["reasoning.encrypted_content"]
    assert sent["reasoning"] == {"effort": "low"}
    assert sent["tools"] == [{"type": "web_search"}]
    parts = first.message.parts
    assert parts[0] == ThinkingPart(
        text="Need the weather.", signature="gAAAAenc", provider="openai", id="rs_1"
    )
    assert isinstance(parts[1], ToolCallPart)
    assert parts[1].hosted
    assert parts[1].arguments == {"type": "search", "query": "oslo weather"}
    assert isinstance(parts[2], HostedToolResultPart)
    assert parts[2].call_id == "ws_1"
    assert first.message.tool_calls == (
        ToolCallPart(
            id="call_1",
            name="get_weather",
            arguments={"city": "Oslo"},
            raw_arguments='{"city":"Oslo"}',
            signature="fc_1",  # the function_call item id, kept for replay
            provider="openai",
        ),
    )
    assert isinstance(parts[4], ProviderDetailsPart)
    assert first.finish_reason == "tool_calls"
    usage = first.usage
    assert (
        usage.input_tokens,
        usage.cache_read_tokens,
        usage.output_tokens,
        usage.reasoning_tokens,
    ) == (
        200,
        128,
        90,
        64,
    )
    # Second turn: the assistant turn and the tool result go back.
    await p.complete(
        ModelRequest(
            model="o4-mini",
            messages=(
                UserMessage.of("Weather in Oslo?"),
                first.message,
                ToolResultMessage(
                    results=(
                        ToolResultPart(
                            call_id="call_1", name="get_weather", content=(TextPart(text="rain"),)
                        ),
                    )
                ),
            ),
        )
    )
    items = rec.bodies[1]["input"]
    assert items[1] == {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": "Need the weather."}],
        "encrypted_content": "gAAAAenc",
    }
    assert items[2] == RESPONSE["output"][1]
    assert items[3] == {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "get_weather",
        "arguments": '{"city":"Oslo"}',
    }
    assert items[4] == RESPONSE["output"][3]
    assert items[5] == {"type": "function_call_output", "call_id": "call_1", "output": "rain"}


@pytest.mark.anyio
async def test_thinking_from_another_provider_is_not_sent() -> None:
    rec = Recorder(httpx.Response(200, json=RESPONSE))
    from robota.core.messages import AssistantMessage

    await provider(rec).complete(
        ModelRequest(
            model="gpt-5",
            messages=(
                UserMessage.of("q"),
                AssistantMessage(
                    parts=(
                        ThinkingPart(text="t", signature="sig", provider="anthropic", id="x"),
                        TextPart(text="a"),
                    )
                ),
                UserMessage.of("q2"),
            ),
        )
    )
    assert rec.bodies[0]["input"][1] == {"role": "assistant", "content": "a"}
    assert len(rec.bodies[0]["input"]) == 3


@pytest.mark.anyio
async def test_native_output_and_refused_settings() -> None:
    rec = Recorder(httpx.Response(200, json=RESPONSE))
    p = provider(rec)
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    await p.complete(
        ModelRequest(
            model="gpt-4.1",
            messages=(UserMessage.of("x"),),
            output=OutputSchema(
                name="final_result",
                schema=schema,
                transport=StructuredOutputTransport.NATIVE,
                strict=True,
            ),
            settings=ModelSettings(max_tokens=300),
        )
    )
    assert rec.bodies[0]["text"] == {
        "format": {"type": "json_schema", "name": "final_result", "schema": schema, "strict": True}
    }
    assert rec.bodies[0]["max_output_tokens"] == 300
    with pytest.raises(UnsupportedSettingError):
        await p.complete(
            ModelRequest(
                model="gpt-4.1",
                messages=(UserMessage.of("x"),),
                settings=ModelSettings(stop=("END",)),
            )
        )
    with pytest.raises(UnsupportedCapabilityError):
        await p.complete(
            ModelRequest(
                model="gpt-4.1",
                messages=(UserMessage.of("x"),),
                hosted_tools=frozenset({HostedTool.WEB_FETCH}),
            )
        )
    with pytest.raises(UnsupportedCapabilityError):
        await p.complete(
            ModelRequest(
                model="o3-mini",
                messages=(UserMessage.of("x"),),
                hosted_tools=frozenset({HostedTool.CODE_EXECUTION}),
            )
        )
    assert len(rec.bodies) == 1


@pytest.mark.anyio
async def test_stream_yields_thinking_text_and_tool_deltas() -> None:
    final = {
        **RESPONSE,
        "output": [
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": "Hmm."}],
            },
            {
                "type": "message",
                "id": "m1",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Hi!", "annotations": []}],
            },
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": "ping",
                "arguments": "",
            },
        ],
    }
    rec = Recorder(
        sse(
            {
                "type": "response.created",
                "response": {**final, "status": "in_progress", "output": []},
            },
            {"type": "response.reasoning_summary_text.delta", "output_index": 0, "delta": "Hmm."},
            {"type": "response.output_text.delta", "output_index": 1, "delta": "Hi"},
            {"type": "response.output_text.delta", "output_index": 1, "delta": "!"},
            {
                "type": "response.output_item.added",
                "output_index": 2,
                "item": {
                    "type": "function_call",
                    "id": "fc_1",
                    "call_id": "call_1",
                    "name": "ping",
                    "arguments": "",
                },
            },
            {"type": "response.completed", "response": final},
        )
    )
    events: list[StreamEvent] = [
        e
        async for e in provider(rec).stream(
            ModelRequest(model="gpt-5", messages=(UserMessage.of("x"),))
        )
    ]
    assert [type(e).__name__ for e in events] == [
        "ThinkingDelta",
        "TextDelta",
        "TextDelta",
        "ToolCallDelta",
        "ResponseCompleted",
    ]
    assert isinstance(events[0], ThinkingDelta)
    assert events[0].text == "Hmm."
    assert isinstance(events[1], TextDelta)
    assert events[1].text == "Hi"
    assert events[3] == ToolCallDelta(index=0, id="call_1", name="ping", arguments_delta="")
    done = events[-1]
    assert isinstance(done, ResponseCompleted)
    assert done.response.message.text == "Hi!"
    assert done.response.message.tool_calls[0].arguments == {}
    assert done.response.finish_reason == "tool_calls"


@pytest.mark.anyio
async def test_incomplete_response_is_length_and_failed_response_raises() -> None:
    incomplete = {
        **RESPONSE,
        "status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"},
        "output": [],
    }
    failed = {
        **RESPONSE,
        "status": "failed",
        "error": {"code": "rate_limit_exceeded", "message": "slow down"},
        "output": [],
    }
    rec = Recorder(httpx.Response(200, json=incomplete), httpx.Response(200, json=failed))
    p = provider(rec)
    response = await p.complete(ModelRequest(model="gpt-5", messages=(UserMessage.of("x"),)))
    assert (response.finish_reason, response.raw_finish_reason) == (
        "length",
        "incomplete:max_output_tokens",
    )
    with pytest.raises(RateLimitError):
        await p.complete(ModelRequest(model="gpt-5", messages=(UserMessage.of("x"),)))
