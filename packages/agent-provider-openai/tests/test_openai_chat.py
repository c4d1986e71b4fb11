"""Chat Completions: what goes on the wire, and how streams and bodies come back."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from robota.core.capabilities import HostedTool, StructuredOutputTransport
from robota.core.errors import (
    ConfigurationError,
    InternalServerError,
    UnsupportedCapabilityError,
    UnsupportedSettingError,
)
from robota.core.messages import (
    AssistantMessage,
    MediaPart,
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
    PayloadEvent,
    ResponseCompleted,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    ToolDefinition,
)
from robota.core.settings import ModelSettings, ToolChoiceName
from robota.providers.openai import CompatProfile, OpenAIChatProvider

COMPLETION = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "model": "gpt-4o-2024-08-06",
    "choices": [
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}
    ],
    "usage": {
        "prompt_tokens": 120,
        "completion_tokens": 30,
        "total_tokens": 150,
        "prompt_tokens_details": {"cached_tokens": 100, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 12, "accepted_prediction_tokens": 3},
    },
}

WEATHER = ToolDefinition(
    name="get_weather",
    description="Weather for a city.",
    parameters={
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    },
    strict=True,
)


class Recorder:
    """A loopback transport: records request bodies, answers with canned responses."""

    def __init__(self, *responses: httpx.Response) -> None:
        self.responses = list(responses)
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[httpx.Headers] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.bodies.append(json.loads(request.content))
        self.headers.append(request.headers)
        return self.responses.pop(0)


def provider(recorder: Recorder, **kwargs: Any) -> OpenAIChatProvider:
    client = httpx.AsyncClient(transport=httpx.MockTransport(recorder))
    return OpenAIChatProvider("sk-test", http_client=client, **kwargs)


def sse(*chunks: dict[str, Any]) -> httpx.Response:
    text = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return httpx.Response(
        200, headers={"content-type": "text/event-stream", "x-request-id": "req_9"}, text=text
    )


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "c1",
        "object": "chat.completion.chunk",
        "model": "gpt-4o",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


async def collect(p: OpenAIChatProvider, request: ModelRequest) -> list[StreamEvent]:
    return [event async for event in p.stream(request)]


@pytest.mark.anyio
async def test_buffered_call_sends_history_and_reads_usage() -> None:
    rec = Recorder(httpx.Response(200, json=COMPLETION, headers={"x-request-id": "req_1"}))
    history = (
        SystemMessage(content="Be brief."),
        UserMessage(
            parts=(
                TextPart(text="What is this?"),
                MediaPart(media_kind="image", media_type="image/png", data=b"\x89PNG"),
            )
        ),
        AssistantMessage(
            parts=(
                TextPart(text="Let me check."),
                ToolCallPart(
                    id="call_1",
                    name="get_weather",
                    arguments={"city": "Oslo"},
                    raw_arguments='{"city":"Oslo"}',
                ),
            )
        ),
        ToolResultMessage(
            results=(
                ToolResultPart(
                    call_id="call_1", name="get_weather", content=(TextPart(text="rain"),)
                ),
            )
        ),
    )
    response = await provider(rec).complete(
        ModelRequest(
            model="gpt-4o",
            messages=history,
            tools=(WEATHER,),
            settings=ModelSettings(
                max_tokens=50, temperature=0.3, tool_choice=ToolChoiceName(name="get_weather")
            ),
        )
    )
    body = rec.bodies[0]
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw=="}},
            ],
        },
        {
            "role": "assistant",
            "content": "Let me check.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "rain"},
    ]
    assert body["max_completion_tokens"] == 50
    assert body["temperature"] == 0.3
    assert body["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    assert body["tools"][0]["function"]["strict"] is True
    assert "stream" not in body
    assert response.message.text == "ok"
    assert response.request_id == "req_1"
    assert response.model == "gpt-4o-2024-08-06"
    assert response.usage.input_tokens == 120
    assert response.usage.cache_read_tokens == 100
    assert response.usage.reasoning_tokens == 12
    assert response.usage.details == {"completion_tokens_details.accepted_prediction_tokens": 3}
    assert rec.headers[0]["authorization"] == "Bearer sk-test"


@pytest.mark.anyio
async def test_reasoning_model_gets_developer_role_and_effort() -> None:
    rec = Recorder(httpx.Response(200, json=COMPLETION))
    response = await provider(rec).complete(
        ModelRequest(
            model="o3-mini",
            messages=(SystemMessage(content="sys"), UserMessage.of("hi")),
            settings=ModelSettings(reasoning_effort="xhigh", max_tokens=10),
        )
    )
    body = rec.bodies[0]
    assert body["messages"][0] == {"role": "developer", "content": "sys"}
    assert body["reasoning_effort"] == "high"
    assert body["max_completion_tokens"] == 10
    assert response.effort is not None
    assert (response.effort.disposition, response.effort.native_control_sent) == ("clamped", True)


@pytest.mark.anyio
async def test_temperature_on_reasoning_model_fails_before_any_request() -> None:
    rec = Recorder()
    with pytest.raises(UnsupportedSettingError) as info:
        await provider(rec).complete(
            ModelRequest(
                model="o3",
                messages=(UserMessage.of("hi"),),
                settings=ModelSettings(temperature=0.2),
            )
        )
    assert info.value.setting == "temperature"
    assert rec.bodies == []


@pytest.mark.anyio
async def test_structured_output_transports() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    rec = Recorder(httpx.Response(200, json=COMPLETION), httpx.Response(200, json=COMPLETION))
    p = provider(rec)
    for transport in (StructuredOutputTransport.NATIVE, StructuredOutputTransport.JSON_MODE):
        await p.complete(
            ModelRequest(
                model="gpt-4o",
                messages=(UserMessage.of("n?"),),
                output=OutputSchema(
                    name="final_result", schema=schema, transport=transport, strict=True
                ),
            )
        )
    assert rec.bodies[0]["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "final_result", "schema": schema, "strict": True},
    }
    assert rec.bodies[1]["response_format"] == {"type": "json_object"}


@pytest.mark.anyio
async def test_compatible_server_profile_shapes_the_request() -> None:
    rec = Recorder(sse(chunk({"content": "hi"}, "stop")))
    p = provider(rec, profile="ollama", name="ollama", base_url="http://127.0.0.1:11434/v1")
    await collect(
        p,
        ModelRequest(
            model="qwen3",
            messages=(SystemMessage(content="s"), UserMessage.of("hi")),
            tools=(WEATHER,),
            settings=ModelSettings(
                max_tokens=64, extra_body={"ollama": {"keep_alive": "5m"}, "openai": {"x": 1}}
            ),
        ),
    )
    body = rec.bodies[0]
    assert body["max_tokens"] == 64
    assert "max_completion_tokens" not in body
    assert "strict" not in body["tools"][0]["function"]
    assert body["keep_alive"] == "5m"
    assert "x" not in body
    assert body["stream_options"] == {"include_usage": True}
    # A model id OpenAI's table knows keeps its model facts on another server; what the
    # endpoint guarantees is what the ollama profile states, not OpenAI's table.
    info = p.model_info("gpt-4o")
    assert info is not None
    assert info.context_window == 128_000
    assert info.capabilities.hosted_tools is None
    assert info.capabilities.parallel_tool_calls is None  # ollama: no parallel_tool_calls flag
    assert info.capabilities.native_structured_output is True
    assert p.model_info("qwen3") is None


def test_unknown_profile_is_refused_and_custom_profile_is_used() -> None:
    with pytest.raises(ConfigurationError):
        OpenAIChatProvider(None, base_url="http://lab.test/v1", profile="my-mystery-server")
    custom = CompatProfile(name="lab", source="https://lab.test/docs", supports_stream_usage=False)
    provider = OpenAIChatProvider(None, base_url="http://lab.test/v1", profile=custom)
    assert provider.profile is custom


@pytest.mark.anyio
async def test_stream_keeps_parallel_calls_apart_and_reads_empty_arguments() -> None:
    rec = Recorder(
        sse(
            chunk({"role": "assistant", "content": "Checking "}),
            chunk({"content": "both."}),
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "call_a",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": ""},
                        }
                    ]
                }
            ),
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": 1,
                            "id": "call_b",
                            "type": "function",
                            "function": {"name": "get_time", "arguments": None},
                        }
                    ]
                }
            ),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city":'}}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"Oslo"}'}}]}),
            chunk({}, "tool_calls"),
            {
                "id": "c1",
                "object": "chat.completion.chunk",
                "model": "gpt-4o",
                "choices": [],
                "usage": {"prompt_tokens": 40, "completion_tokens": 9, "total_tokens": 49},
            },
        )
    )
    events = await collect(
        provider(rec), ModelRequest(model="gpt-4o", messages=(UserMessage.of("x"),))
    )
    assert rec.bodies[0]["stream"] is True
    assert rec.bodies[0]["stream_options"] == {"include_usage": True}
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Checking ", "both."]
    deltas = [(e.index, e.name, e.arguments_delta) for e in events if isinstance(e, ToolCallDelta)]
    assert deltas == [
        (0, "get_weather", ""),
        (1, "get_time", ""),
        (0, None, '{"city":'),
        (0, None, '"Oslo"}'),
    ]
    final = events[-1]
    assert isinstance(final, ResponseCompleted)
    message = final.response.message
    assert message.text == "Checking both."
    assert [(c.id, c.name, c.arguments, c.raw_arguments) for c in message.tool_calls] == [
        ("call_a", "get_weather", {"city": "Oslo"}, '{"city":"Oslo"}'),
        ("call_b", "get_time", {}, ""),
    ]
    assert (final.response.finish_reason, final.response.raw_finish_reason) == (
        "tool_calls",
        "tool_calls",
    )
    assert (final.response.usage.input_tokens, final.response.usage.output_tokens) == (40, 9)
    assert final.response.request_id == "req_9"


@pytest.mark.anyio
async def test_unparseable_arguments_are_kept_raw_and_reasoning_content_is_thinking() -> None:
    body = {
        "id": "x",
        "model": "deepseek-reasoner",
        "choices": [
            {
                "index": 0,
                "finish_reason": "length",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "reasoning_content": "Think first.",
                    "tool_calls": [
                        {
                            "id": "c",
                            "type": "function",
                            "function": {"name": "f", "arguments": '{"a": 1'},
                        }
                    ],
                },
            }
        ],
    }
    rec = Recorder(httpx.Response(200, json=body))
    p = provider(rec, profile="deepseek", name="deepseek")
    response = await p.complete(
        ModelRequest(model="deepseek-reasoner", messages=(UserMessage.of("x"),))
    )
    assert response.message.parts[0] == ThinkingPart(text="Think first.", provider="deepseek")
    call = response.message.tool_calls[0]
    assert (call.arguments, call.raw_arguments) == (None, '{"a": 1')
    assert response.finish_reason == "length"
    assert response.usage.partial is True


@pytest.mark.anyio
async def test_hosted_tools_are_refused_on_chat_before_any_request() -> None:
    rec = Recorder()
    with pytest.raises(UnsupportedCapabilityError):
        await provider(rec).complete(
            ModelRequest(
                model="gpt-4o",
                messages=(UserMessage.of("x"),),
                hosted_tools=frozenset({HostedTool.CODE_EXECUTION}),
            )
        )
    assert rec.bodies == []


@pytest.mark.anyio
async def test_payloads_are_reported_in_order() -> None:
    seen: list[PayloadEvent] = []
    rec = Recorder(sse(chunk({"content": "a"}), chunk({}, "stop")))
    await collect(
        provider(rec),
        ModelRequest(model="gpt-4o", messages=(UserMessage.of("x"),), on_payload=seen.append),
    )
    assert [(e.direction, e.order, e.api) for e in seen] == [
        ("request", 0, "chat.completions"),
        ("stream", 1, "chat.completions"),
        ("stream", 2, "chat.completions"),
    ]
    first = seen[0].payload
    assert isinstance(first, dict)
    assert first["model"] == "gpt-4o"


@pytest.mark.anyio
async def test_error_inside_the_stream_is_classified_after_the_text_so_far() -> None:
    error = {"error": {"message": "overloaded", "type": "server_error", "code": "server_error"}}
    rec = Recorder(sse(chunk({"content": "par"}), error))
    seen: list[str] = []

    async def consume() -> None:
        async for event in provider(rec).stream(
            ModelRequest(model="gpt-4o", messages=(UserMessage.of("x"),))
        ):
            if isinstance(event, TextDelta):
                seen.append(event.text)

    with pytest.raises(InternalServerError) as info:
        await consume()
    assert seen == ["par"]
    assert info.value.vendor_type == "server_error"
    assert info.value.recoverable is True


@pytest.mark.anyio
async def test_tool_choice_is_not_sent_without_tools() -> None:
    rec = Recorder(httpx.Response(200, json=COMPLETION))
    await provider(rec).complete(
        ModelRequest(
            model="gpt-4o",
            messages=(UserMessage.of("x"),),
            settings=ModelSettings(tool_choice="none"),
        )
    )
    assert "tool_choice" not in rec.bodies[0]
    assert "tools" not in rec.bodies[0]
