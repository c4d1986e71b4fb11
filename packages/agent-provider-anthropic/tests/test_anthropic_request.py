"""Neutral request → Anthropic wire body, and the effort table."""

from __future__ import annotations

import pytest
from robota.core.capabilities import HostedTool, StructuredOutputTransport
from robota.core.errors import (
    ConfigurationError,
    UnsupportedCapabilityError,
    UnsupportedSettingError,
)
from robota.core.messages import (
    AssistantMessage,
    HostedToolResultPart,
    JsonValue,
    MediaPart,
    SystemMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultMessage,
    ToolResultPart,
    UserMessage,
)
from robota.core.provider import ModelRequest, OutputSchema, ToolDefinition
from robota.core.settings import ModelSettings, ToolChoiceName
from robota.providers.anthropic._request import build_request

_TOOL = ToolDefinition(
    name="get_weather",
    description="Weather for a city",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
)


def _build(request: ModelRequest, cache: frozenset[str] = frozenset()):  # type: ignore[no-untyped-def]
    return build_request(
        request,
        provider="anthropic",
        default_max_tokens=4096,
        cache_breakpoints=cache,  # pyright: ignore[reportArgumentType]
    )


def test_history_with_tool_batch_and_thinking_round_trip() -> None:
    request = ModelRequest(
        model="claude-sonnet-4-5",
        messages=(
            SystemMessage(content="Be brief."),
            UserMessage.of("Weather in Paris and Rome?"),
            AssistantMessage(
                provider="anthropic",
                parts=(
                    ThinkingPart(text="two calls", signature="sig-1", provider="anthropic"),
                    ThinkingPart(signature="opaque", redacted=True, provider="anthropic"),
                    ThinkingPart(text="foreign idea", signature="x", provider="openai"),
                    TextPart(text="Checking."),
                    ToolCallPart(id="toolu_1", name="get_weather", arguments={"city": "Paris"}),
                    ToolCallPart(id="toolu_2", name="get_weather", arguments={"city": "Rome"}),
                ),
            ),
            ToolResultMessage(
                results=(
                    ToolResultPart(
                        call_id="toolu_1", name="get_weather", content=(TextPart(text="Sun"),)
                    ),
                    ToolResultPart(
                        call_id="toolu_2",
                        name="get_weather",
                        content=(TextPart(text="no such city"),),
                        is_error=True,
                    ),
                )
            ),
        ),
        tools=(_TOOL,),
    )
    body = _build(request).body
    assert body["system"] == [{"type": "text", "text": "Be brief."}]
    assert body["max_tokens"] == 4096
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"] == [
        {"type": "thinking", "thinking": "two calls", "signature": "sig-1"},
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "text", "text": "<thinking>\nforeign idea\n</thinking>"},
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
        {"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": {"city": "Rome"}},
    ]
    assert body["messages"][2]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "content": [{"type": "text", "text": "Sun"}],
        },
        {
            "type": "tool_result",
            "tool_use_id": "toolu_2",
            "content": [{"type": "text", "text": "no such city"}],
            "is_error": True,
        },
    ]
    assert body["tools"][0]["name"] == "get_weather"
    assert body["tool_choice"] == {"type": "auto"}


def test_cache_breakpoints_mark_system_last_tool_and_last_user_turn() -> None:
    request = ModelRequest(
        model="claude-sonnet-4-5",
        messages=(SystemMessage(content="S"), UserMessage.of("hi")),
        tools=(_TOOL,),
        hosted_tools=frozenset({HostedTool.WEB_SEARCH}),
    )
    body = _build(request, frozenset({"system", "tools", "history"})).body
    eph = {"type": "ephemeral"}
    assert body["system"][-1]["cache_control"] == eph
    assert body["tools"][-1] == {
        "type": "web_search_20250305",
        "name": "web_search",
        "cache_control": eph,
    }
    assert "cache_control" not in body["tools"][0]
    assert body["messages"][-1]["content"][-1] == {
        "type": "text",
        "text": "hi",
        "cache_control": eph,
    }
    assert "cache_control" not in str(_build(request).body)


def test_media_are_base64_or_url_sources() -> None:
    request = ModelRequest(
        model="claude-haiku-4-5",
        messages=(
            UserMessage(
                parts=(
                    MediaPart(media_kind="image", media_type="image/png", data=b"\x89PNG"),
                    MediaPart(
                        media_kind="document", media_type="application/pdf", url="https://x/a.pdf"
                    ),
                    MediaPart(media_kind="document", media_type="text/plain", data=b"hello"),
                )
            ),
        ),
    )
    content = _build(request).body["messages"][0]["content"]
    assert content == [
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw=="},
        },
        {"type": "document", "source": {"type": "url", "url": "https://x/a.pdf"}},
        {
            "type": "document",
            "source": {"type": "text", "media_type": "text/plain", "data": "hello"},
        },
    ]
    audio = ModelRequest(
        model="claude-haiku-4-5",
        messages=(
            UserMessage(parts=(MediaPart(media_kind="audio", media_type="audio/wav", data=b"x"),)),
        ),
    )
    with pytest.raises(UnsupportedCapabilityError):
        _build(audio)


def test_settings_map_to_vendor_fields() -> None:
    request = ModelRequest(
        model="claude-sonnet-4-5",
        messages=(UserMessage.of("hi"),),
        tools=(_TOOL,),
        settings=ModelSettings(
            max_tokens=100,
            temperature=0.3,
            top_p=0.9,
            stop=("END",),
            tool_choice=ToolChoiceName(name="get_weather"),
            parallel_tool_calls=False,
            service_tier="default",
            extra_body={"anthropic": {"metadata": {"user_id": "u1"}}, "openai": {"x": 1}},
        ),
    )
    body = _build(request).body
    assert body["max_tokens"] == 100
    assert body["temperature"] == 0.3
    assert body["top_p"] == 0.9
    assert body["stop_sequences"] == ["END"]
    assert body["tool_choice"] == {
        "type": "tool",
        "name": "get_weather",
        "disable_parallel_tool_use": True,
    }
    assert body["service_tier"] == "standard_only"
    assert body["metadata"] == {"user_id": "u1"}
    assert "x" not in body
    none_choice = ModelRequest(
        model="claude-sonnet-4-5",
        messages=(UserMessage.of("hi"),),
        tools=(_TOOL,),
        settings=ModelSettings(tool_choice="none"),
    )
    assert "tools" not in _build(none_choice).body
    with pytest.raises(UnsupportedSettingError):
        _build(
            ModelRequest(model="m", messages=(UserMessage.of("x"),), settings=ModelSettings(seed=1))
        )


def test_structured_output_native_and_refusals() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"]}
    native = ModelRequest(
        model="claude-sonnet-4-5",
        messages=(UserMessage.of("hi"),),
        output=OutputSchema(name="r", schema=schema, transport=StructuredOutputTransport.NATIVE),
    )
    assert _build(native).body["output_config"] == {
        "format": {"type": "json_schema", "schema": schema}
    }
    prompted = ModelRequest(
        model="claude-sonnet-4-5",
        messages=(UserMessage.of("hi"),),
        output=OutputSchema(name="r", schema=schema, transport=StructuredOutputTransport.PROMPTED),
    )
    assert "output_config" not in _build(prompted).body
    old = ModelRequest(
        model="claude-3-5-haiku-latest",
        messages=(UserMessage.of("hi"),),
        output=OutputSchema(name="r", schema=schema, transport=StructuredOutputTransport.NATIVE),
    )
    with pytest.raises(UnsupportedCapabilityError):
        _build(old)


def test_rejected_tool_schema_and_unavailable_hosted_tool_fail_before_io() -> None:
    bad = ToolDefinition(name="t", description="", parameters={"type": "string"})
    with pytest.raises(ConfigurationError):
        _build(
            ModelRequest(model="claude-sonnet-4-5", messages=(UserMessage.of("x"),), tools=(bad,))
        )
    request = ModelRequest(
        model="claude-sonnet-4-5",
        messages=(UserMessage.of("x"),),
        hosted_tools=frozenset({HostedTool.CODE_EXECUTION}),
    )
    with pytest.raises(UnsupportedCapabilityError):
        build_request(
            request,
            provider="anthropic",
            default_max_tokens=10,
            cache_breakpoints=frozenset(),
            hosted_tools=frozenset({HostedTool.WEB_SEARCH}),
        )
    built = _build(request)
    assert built.betas == ("code-execution-2025-08-25",)


def test_hosted_parts_round_trip_only_to_their_own_provider() -> None:
    block: dict[str, JsonValue] = {
        "type": "web_search_tool_result",
        "tool_use_id": "srv_1",
        "content": [],
    }
    history = AssistantMessage(
        provider="anthropic",
        parts=(
            ToolCallPart(
                id="srv_1",
                name="web_search",
                arguments={"query": "q"},
                hosted=True,
                provider="anthropic",
            ),
            HostedToolResultPart(
                call_id="srv_1", name="web_search", content=block, provider="anthropic"
            ),
            ToolCallPart(
                id="ws_9", name="web_search", arguments={}, hosted=True, provider="openai"
            ),
            TextPart(text="done"),
        ),
    )
    request = ModelRequest(model="claude-sonnet-4-5", messages=(UserMessage.of("q"), history))
    assert _build(request).body["messages"][1]["content"] == [
        {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"query": "q"}},
        block,
        {"type": "text", "text": "done"},
    ]


@pytest.mark.parametrize(
    ("model", "effort", "settings_max", "thinking", "output_effort", "max_tokens", "disposition"),
    [
        (
            "claude-sonnet-4-5",
            "medium",
            None,
            {"type": "enabled", "budget_tokens": 8192},
            None,
            8192 + 4096,
            "applied",
        ),
        (
            "claude-sonnet-4-5",
            "high",
            5000,
            {"type": "enabled", "budget_tokens": 4999},
            None,
            5000,
            "clamped",
        ),
        ("claude-sonnet-4-5", "low", 1000, None, None, 1000, "not_applied"),
        ("claude-sonnet-4-5", "none", None, {"type": "disabled"}, None, 4096, "applied"),
        ("claude-opus-4-6", "max", None, {"type": "adaptive"}, "max", 4096, "applied"),
        ("claude-sonnet-4-6", "max", None, {"type": "adaptive"}, "high", 4096, "clamped"),
        ("claude-sonnet-4-6", "minimal", None, {"type": "adaptive"}, "low", 4096, "clamped"),
        ("claude-3-5-haiku-latest", "high", None, None, None, 4096, "not_applied"),
        ("claude-unknown-9", "high", None, None, None, 4096, "not_applied"),
        ("claude-sonnet-4-5", "auto", None, None, None, 4096, "model_default"),
    ],
)
def test_effort_table(
    model: str,
    effort: str,
    settings_max: int | None,
    thinking: object,
    output_effort: str | None,
    max_tokens: int,
    disposition: str,
) -> None:
    request = ModelRequest(
        model=model,
        messages=(UserMessage.of("x"),),
        settings=ModelSettings(reasoning_effort=effort, max_tokens=settings_max),  # pyright: ignore[reportArgumentType]
    )
    built = _build(request)
    assert built.body.get("thinking") == thinking
    assert built.body.get("output_config", {}).get("effort") == output_effort
    assert built.body["max_tokens"] == max_tokens
    assert built.effort is not None
    assert built.effort.disposition == disposition
    assert built.effort.native_control_sent == (thinking is not None)
