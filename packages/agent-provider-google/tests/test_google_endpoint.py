"""The constructor's key rule and endpoint provenance (issue #14): ``GoogleProvider(api_key=None,
*, ...)`` reads ``GEMINI_API_KEY`` then ``GOOGLE_API_KEY`` for Google's own endpoint only, fails at
construction without one, and sends no key header to a custom endpoint without a key; a custom
endpoint is not Google's and publishes model facts only."""

from __future__ import annotations

import json

import httpx
import pytest
from _google_serve import candidate, request, serving, text  # pyright: ignore[reportImplicitRelativeImport]
from google.auth.credentials import AnonymousCredentials
from robota.core.capabilities import UNKNOWN_CAPABILITIES, HostedTool
from robota.core.errors import ConfigurationError, UnsupportedCapabilityError
from robota.core.provider import EndpointProvenance
from robota.providers.google import GEMINI_BASE_URL, GoogleProvider, VertexTarget

KEY_HEADER = "x-goog-api-key"
ANSWER = candidate(text("ok"))
GATEWAY = "http://localhost:8080/gemini/"


@pytest.fixture
def no_key_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    return monkeypatch


async def _sent_key(**kwargs: object) -> str | None:
    server = serving((200, ANSWER))
    await server.provider(**kwargs).complete(request())
    return server.requests[0].headers.get(KEY_HEADER)


@pytest.mark.anyio
async def test_the_key_is_positional_or_keyword(no_key_env: pytest.MonkeyPatch) -> None:
    assert await _sent_key(api_key="by-keyword") == "by-keyword"
    server = serving((200, ANSWER))
    await server.provider("positional").complete(request())
    assert server.requests[0].headers[KEY_HEADER] == "positional"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("env", "sent"),
    [
        ({"GEMINI_API_KEY": "gemini"}, "gemini"),
        ({"GOOGLE_API_KEY": "google"}, "google"),
        ({"GEMINI_API_KEY": "gemini", "GOOGLE_API_KEY": "google"}, "gemini"),
    ],
)
async def test_googles_endpoint_reads_the_key_from_the_environment(
    no_key_env: pytest.MonkeyPatch, env: dict[str, str], sent: str
) -> None:
    for name, value in env.items():
        no_key_env.setenv(name, value)
    assert await _sent_key(api_key=None) == sent


@pytest.mark.parametrize(
    "base_url", [None, GEMINI_BASE_URL, "https://generativelanguage.googleapis.com"]
)
def test_googles_endpoint_without_a_key_fails_at_construction(
    no_key_env: pytest.MonkeyPatch, base_url: str | None
) -> None:
    with pytest.raises(ConfigurationError) as info:
        GoogleProvider(base_url=base_url)
    assert "GEMINI_API_KEY or GOOGLE_API_KEY" in info.value.message


@pytest.mark.anyio
async def test_a_custom_endpoint_without_a_key_sends_no_key_header(
    no_key_env: pytest.MonkeyPatch,
) -> None:
    no_key_env.setenv("GEMINI_API_KEY", "must-not-leave")
    server = serving((200, ANSWER))
    response = await server.provider(None, base_url=GATEWAY).complete(request())
    assert response.message.text == "ok"
    sent = server.requests[0]
    assert KEY_HEADER not in sent.headers
    assert "must-not-leave" not in json.dumps(dict(sent.headers))
    assert str(sent.url).startswith("http://localhost:8080/gemini/v1beta/models/gemini-2.5-flash:")
    assert await _sent_key(api_key="explicit", base_url=GATEWAY) == "explicit"


@pytest.mark.anyio
async def test_from_env_pairs_the_environment_key_with_a_custom_endpoint(
    no_key_env: pytest.MonkeyPatch,
) -> None:
    no_key_env.setenv("GOOGLE_API_KEY", "chosen-by-host")
    server = serving((200, ANSWER))
    client = httpx.AsyncClient(transport=httpx.MockTransport(server.handler))
    provider = GoogleProvider.from_env(http_client=client, base_url=GATEWAY)
    await provider.complete(request())
    assert server.requests[0].headers[KEY_HEADER] == "chosen-by-host"
    no_key_env.delenv("GOOGLE_API_KEY")
    with pytest.raises(ConfigurationError):
        GoogleProvider.from_env(http_client=client, base_url=GATEWAY)


def test_vertex_needs_credentials_not_a_key(no_key_env: pytest.MonkeyPatch) -> None:
    target = VertexTarget(project="p", location="europe-west4", credentials=AnonymousCredentials())
    provider = GoogleProvider(vertex=target)
    assert provider.endpoint == EndpointProvenance(
        base_url="https://europe-west4-aiplatform.googleapis.com/", vendor=True
    )
    with pytest.raises(ConfigurationError):
        GoogleProvider(vertex=VertexTarget(project="p", location="global"))


@pytest.mark.parametrize(
    ("base_url", "vendor"),
    [
        (None, True),
        ("https://generativelanguage.googleapis.com", True),
        ("https://us-central1-aiplatform.googleapis.com/", True),
        (GATEWAY, False),
        ("http://generativelanguage.googleapis.com/", False),
        ("https://generativelanguage.googleapis.com/proxy/", False),
        ("https://generativelanguage.googleapis.com.evil.example/", False),
        ("https://gateway.ai.cloudflare.com/v1/acct/gw/google-ai-studio/", False),
    ],
)
def test_endpoint_provenance(base_url: str | None, vendor: bool) -> None:
    provider = GoogleProvider("k", base_url=base_url)
    assert provider.endpoint == EndpointProvenance(
        base_url=base_url or GEMINI_BASE_URL, vendor=vendor
    )


def test_a_custom_endpoint_publishes_model_facts_only() -> None:
    google = GoogleProvider("k")
    gateway = GoogleProvider("k", base_url=GATEWAY)
    for model in ("gemini-2.5-pro", "gemini-2.0-flash-lite"):
        ours, theirs = google.model_info(model), gateway.model_info(model)
        assert ours is not None
        assert theirs is not None
        assert (theirs.context_window, theirs.max_output_tokens) == (
            ours.context_window,
            ours.max_output_tokens,
        )
        assert theirs.capabilities == UNKNOWN_CAPABILITIES
        assert gateway.capabilities(model) == UNKNOWN_CAPABILITIES
    assert google.capabilities("gemini-2.5-pro").native_structured_output is True
    assert all(info.capabilities == UNKNOWN_CAPABILITIES for info in gateway.models())
    assert gateway.model_info("gemini-99-ultra") is None


@pytest.mark.anyio
async def test_hosted_tools_are_refused_before_io_only_where_google_says_so() -> None:
    web_search = frozenset({HostedTool.WEB_SEARCH})
    google = serving((200, ANSWER))
    with pytest.raises(UnsupportedCapabilityError):
        await google.provider().complete(request("gemini-2.0-flash-lite", hosted_tools=web_search))
    assert not google.requests
    gateway = serving((200, ANSWER))
    provider = gateway.provider(base_url=GATEWAY)
    await provider.complete(request("gemini-2.0-flash-lite", hosted_tools=web_search))
    assert json.loads(gateway.requests[0].content)["tools"] == [{"googleSearch": {}}]


@pytest.mark.anyio
async def test_the_raw_body_switch_is_not_sent() -> None:
    server = serving((200, ANSWER))
    await server.provider(streaming=False).complete(request())
    body = json.loads(server.requests[0].content)
    assert set(body) == {"contents", "generationConfig"}
