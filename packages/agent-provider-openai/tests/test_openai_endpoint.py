"""Constructor shape, API key rule, base URL, endpoint provenance and what a custom endpoint may
claim — checked on the requests the real adapters put on the wire."""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai
import pytest
from robota.core.capabilities import HostedTool, StructuredOutputTransport
from robota.core.errors import ConfigurationError, UnsupportedSettingError
from robota.core.messages import UserMessage
from robota.core.provider import EndpointProvenance, ModelRequest, OutputSchema, ToolDefinition
from robota.core.settings import ModelSettings
from robota.providers.openai import (
    CompatProfile,
    OpenAIChatProvider,
    OpenAIResponsesProvider,
    is_openai_endpoint,
)

CHAT_BODY: dict[str, Any] = {
    "id": "c1",
    "model": "gpt-4o",
    "choices": [
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "hi"}}
    ],
}
RESPONSE_BODY: dict[str, Any] = {
    "id": "r1",
    "object": "response",
    "status": "completed",
    "model": "gpt-4o",
    "output": [],
}
STREAM = {"content-type": "text/event-stream"}
TOOL = ToolDefinition(
    name="lookup",
    description="Look up.",
    parameters={"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
    strict=True,
)
Kind = type[OpenAIChatProvider] | type[OpenAIResponsesProvider]
KINDS: list[Kind] = [OpenAIChatProvider, OpenAIResponsesProvider]


class Wire:
    """Records each request; answers with a complete buffered or streamed answer."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        chat = request.url.path.endswith("/chat/completions")
        if b'"stream": true' in request.content or b'"stream":true' in request.content:
            if chat:
                chunk = '{"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":"hi"},'
                text = f'data: {chunk}"finish_reason":"stop"}}]}}\n\ndata: [DONE]\n\n'
            else:
                completed = {"type": "response.completed", "response": RESPONSE_BODY}
                text = f"data: {json.dumps(completed)}\n\n"
            return httpx.Response(200, headers=STREAM, text=text)
        return httpx.Response(200, json=CHAT_BODY if chat else RESPONSE_BODY)

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.MockTransport(self))


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "OPENAI_ORG_ID",
        "OPENAI_PROJECT_ID",
        "OPENAI_CUSTOM_HEADERS",
        "OPENAI_ADMIN_KEY",
    ):
        monkeypatch.delenv(name, raising=False)


async def call(provider: OpenAIChatProvider | OpenAIResponsesProvider, *, stream: bool) -> None:
    request = ModelRequest(model="gpt-4o", messages=(UserMessage.of("x"),))
    if stream:
        [event async for event in provider.stream(request)]
    else:
        await provider.complete(request)


@pytest.mark.parametrize("kind", KINDS)
def test_no_key_for_openais_endpoint_fails_at_construction(kind: Kind) -> None:
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        kind()
    with pytest.raises(ConfigurationError):
        kind(None, base_url="https://api.openai.com/v1")


@pytest.mark.anyio
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("stream", [True, False])
async def test_a_custom_endpoint_without_a_key_gets_no_authorization_header(
    kind: Kind, stream: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Neither the user's OpenAI key nor an ambient header may follow a URL the caller chose.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-users-own")
    monkeypatch.setenv("OPENAI_CUSTOM_HEADERS", "Authorization: Bearer ambient")
    wire = Wire()
    provider = kind(base_url="http://127.0.0.1:8080/v1", http_client=wire.client())
    await call(provider, stream=stream)
    headers = wire.requests[0].headers
    assert "authorization" not in headers
    assert "unused" not in str(headers).lower()
    assert str(wire.requests[0].url).startswith("http://127.0.0.1:8080/v1/")


@pytest.mark.anyio
@pytest.mark.parametrize("kind", KINDS)
async def test_the_key_is_positional_or_keyword_and_read_from_the_environment(
    kind: Kind, monkeypatch: pytest.MonkeyPatch
) -> None:
    wires = [Wire(), Wire(), Wire()]
    await call(kind("sk-positional", http_client=wires[0].client()), stream=False)
    await call(kind(api_key="sk-keyword", http_client=wires[1].client()), stream=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    await call(kind(http_client=wires[2].client()), stream=False)
    sent = [w.requests[0].headers["authorization"] for w in wires]
    assert sent == ["Bearer sk-positional", "Bearer sk-keyword", "Bearer sk-env"]
    assert [str(w.requests[0].url.host) for w in wires] == ["api.openai.com"] * 3


@pytest.mark.anyio
@pytest.mark.parametrize("kind", KINDS)
async def test_base_url_from_the_environment_pairs_with_the_environment_key(
    kind: Kind, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "https://proxy.example/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proxy")
    monkeypatch.setenv("OPENAI_ORG_ID", "org-ambient")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-ambient")
    wire = Wire()
    provider = kind(http_client=wire.client())
    await call(provider, stream=False)
    request = wire.requests[0]
    assert str(request.url).startswith("https://proxy.example/v1/")
    assert request.headers["authorization"] == "Bearer sk-proxy"
    assert "openai-organization" not in request.headers
    assert "openai-project" not in request.headers
    assert provider.endpoint == EndpointProvenance(
        base_url="https://proxy.example/v1", vendor=False
    )
    # An explicit base_url wins over the environment, and from_env is the same constructor.
    explicit = kind("k", base_url="https://api.openai.com/v1")
    assert explicit.endpoint.vendor is True
    assert kind.from_env().endpoint == provider.endpoint


@pytest.mark.parametrize(
    ("url", "vendor"),
    [
        ("https://api.openai.com/v1", True),
        ("https://api.openai.com/v1/", True),
        ("https://eu.api.openai.com/v1", True),
        ("https://api.openai.com:443/v1", True),
        ("http://api.openai.com/v1", False),
        ("https://api.openai.com.evil.test/v1", False),
        ("https://user:pw@api.openai.com/v1", False),
        ("https://res.openai.azure.com/openai/v1", False),
        ("https://openrouter.ai/api/v1", False),
        ("http://127.0.0.1:8080/v1", False),
    ],
)
def test_endpoint_provenance(url: str, vendor: bool) -> None:
    assert is_openai_endpoint(url) is vendor
    for kind in KINDS:
        assert kind("k", base_url=url).endpoint == EndpointProvenance(base_url=url, vendor=vendor)


def test_an_injected_client_reports_its_own_endpoint() -> None:
    client = openai.AsyncOpenAI(api_key="k", base_url="https://gw.example/v1")
    assert OpenAIChatProvider(client=client).endpoint.vendor is False
    vendor = openai.AsyncOpenAI(api_key="k", base_url="https://api.openai.com/v1")
    assert OpenAIResponsesProvider(client=vendor).endpoint.vendor is True


@pytest.mark.parametrize("kind", KINDS)
def test_a_gateway_keeps_model_facts_but_claims_no_endpoint_guarantee(kind: Kind) -> None:
    vendor = kind("k").capabilities("gpt-4o")
    assert vendor.native_structured_output is True
    hosted = {HostedTool.WEB_SEARCH, HostedTool.CODE_EXECUTION}  # Chat Completions runs none
    assert vendor.hosted_tools == frozenset(hosted if kind is OpenAIResponsesProvider else ())
    gateway = kind("k", base_url="https://gateway.example/v1")
    info = gateway.model_info("o3")
    assert info is not None
    assert (info.context_window, info.max_output_tokens) == (200_000, 100_000)
    caps = info.capabilities
    assert caps.unsupported_settings == frozenset({"temperature", "top_p"})
    assert caps.thinking is True
    assert (caps.native_structured_output, caps.json_mode, caps.hosted_tools) == (None,) * 3
    assert (caps.parallel_tool_calls, caps.tools, caps.media) == (None,) * 3
    assert gateway.capabilities("o3") == caps
    assert gateway.model_info("no-such-model") is None
    assert all(not i.capabilities.native_structured_output for i in gateway.models())


def test_a_profile_states_what_its_server_guarantees() -> None:
    stated = CompatProfile(
        name="lab", source="https://lab.test", supports_response_format_json_schema=False
    )
    provider = OpenAIChatProvider(base_url="http://lab.test/v1", profile=stated)
    caps = provider.capabilities("any-local-model")
    assert (caps.native_structured_output, caps.json_mode) == (False, True)
    assert provider.capabilities("gpt-4o").native_structured_output is False


@pytest.mark.anyio
async def test_a_model_fact_still_refuses_a_setting_on_a_gateway_before_any_request() -> None:
    wire = Wire()
    gateway = OpenAIChatProvider("k", base_url="https://gw.example/v1", http_client=wire.client())
    request = ModelRequest(
        model="o3", messages=(UserMessage.of("x"),), settings=ModelSettings(temperature=0.2)
    )
    with pytest.raises(UnsupportedSettingError):
        await gateway.complete(request)
    assert wire.requests == []


@pytest.mark.anyio
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("url", ["https://api.openai.com/v1", "https://gateway.example/v1"])
async def test_strict_tool_schemas_are_sent_only_where_guaranteed(kind: Kind, url: str) -> None:
    wire = Wire()
    provider = kind("k", base_url=url, http_client=wire.client())
    output = OutputSchema(
        name="r",
        schema={"type": "object", "properties": {}},
        transport=StructuredOutputTransport.NATIVE,
        strict=True,
    )
    request = ModelRequest(
        model="gpt-4o", messages=(UserMessage.of("x"),), tools=(TOOL,), output=output
    )
    await provider.complete(request)
    body = json.loads(wire.requests[0].content)
    tool = body["tools"][0]
    strict = tool["function"].get("strict") if "function" in tool else tool["strict"]
    vendor = url.startswith("https://api.openai.com")
    assert strict is (True if vendor else (None if kind is OpenAIChatProvider else False))
    if kind is OpenAIChatProvider:
        assert body["response_format"]["json_schema"].get("strict") is (True if vendor else None)
