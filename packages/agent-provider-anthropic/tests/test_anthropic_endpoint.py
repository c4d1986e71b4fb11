"""Construction (``AnthropicProvider(api_key=None, *, base_url=...)``), the API key rule and
endpoint provenance: Anthropic's own endpoint needs a key (explicit or ``ANTHROPIC_API_KEY``) at
construction; a custom base URL gets only an explicit key, or no credential header at all, and
does not claim Anthropic's capability guarantees."""

from __future__ import annotations

import httpx
import pytest
from _anthropic_fakes import REQUEST, message  # pyright: ignore[reportImplicitRelativeImport]
from robota.core.errors import ConfigurationError
from robota.providers.anthropic import DEFAULT_BASE_URL, AnthropicProvider
from robota.providers.anthropic._endpoint import is_anthropic_endpoint

pytestmark = pytest.mark.anyio

_CREDENTIAL_ENV = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _CREDENTIAL_ENV:
        monkeypatch.delenv(name, raising=False)


def _recording() -> tuple[list[httpx.Request], httpx.AsyncClient]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=message([{"type": "text", "text": "ok"}]))

    return seen, httpx.AsyncClient(transport=httpx.MockTransport(handler))


def _credential(request: httpx.Request) -> str | None:
    """The credential a request carries (``x-api-key`` or a bearer token), if any."""
    if "x-api-key" in request.headers:
        return request.headers["x-api-key"]
    auth = request.headers.get("authorization")
    return auth.removeprefix("Bearer ") if auth else None


async def _sent(provider: AnthropicProvider, seen: list[httpx.Request]) -> httpx.Request:
    await provider.complete(REQUEST)
    return seen[-1]


async def test_api_key_positional_or_keyword() -> None:
    seen, client = _recording()
    assert (
        _credential(await _sent(AnthropicProvider("sk-pos", http_client=client), seen)) == "sk-pos"
    )
    keyword = AnthropicProvider(api_key="sk-kw", base_url=DEFAULT_BASE_URL, http_client=client)
    assert _credential(await _sent(keyword, seen)) == "sk-kw"
    assert str(seen[-1].url) == "https://api.anthropic.com/v1/messages"


async def test_the_vendor_endpoint_reads_anthropic_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-env")
    seen, client = _recording()
    assert _credential(await _sent(AnthropicProvider(http_client=client), seen)) == "sk-env"


@pytest.mark.parametrize("base_url", [DEFAULT_BASE_URL, "https://api.anthropic.com/"])
def test_the_vendor_endpoint_without_a_key_fails_at_construction(base_url: str) -> None:
    with pytest.raises(ConfigurationError, match="ANTHROPIC_API_KEY"):
        AnthropicProvider(base_url=base_url)
    with pytest.raises(ConfigurationError):
        AnthropicProvider(api_key="", base_url=base_url)


async def test_a_custom_endpoint_without_a_key_sends_no_credential(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the user's own credentials in the environment do not follow a URL the caller chose
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-user")
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "tok-user")
    seen, client = _recording()
    provider = AnthropicProvider(base_url="http://127.0.0.1:4000/anthropic", http_client=client)
    request = await _sent(provider, seen)
    assert str(request.url) == "http://127.0.0.1:4000/anthropic/v1/messages"
    assert "x-api-key" not in request.headers
    assert "authorization" not in request.headers
    assert b"sk-user" not in request.content


async def test_a_custom_endpoint_gets_an_explicit_key_or_header() -> None:
    seen, client = _recording()
    keyed = AnthropicProvider("sk-gw", base_url="https://gw.example", http_client=client)
    assert _credential(await _sent(keyed, seen)) == "sk-gw"
    headed = AnthropicProvider(
        base_url="https://gw.example",
        http_client=client,
        default_headers={"Authorization": "Bearer gateway-token"},
    )
    assert (await _sent(headed, seen)).headers["authorization"] == "Bearer gateway-token"


async def test_from_env_pairs_the_key_with_the_base_url_beside_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen, client = _recording()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "https://proxy.example")
    assert _credential(await _sent(AnthropicProvider.from_env(http_client=client), seen)) is None
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-env")
    request = await _sent(AnthropicProvider.from_env(http_client=client), seen)
    assert (request.url.host, _credential(request)) == ("proxy.example", "sk-env")
    monkeypatch.delenv("ANTHROPIC_BASE_URL")
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with pytest.raises(ConfigurationError):
        AnthropicProvider.from_env()


@pytest.mark.parametrize(
    ("base_url", "vendor"),
    [
        ("https://api.anthropic.com", True),
        ("https://api.anthropic.com/", True),
        ("https://API.anthropic.com:443", True),
        ("http://api.anthropic.com", False),
        ("https://api.anthropic.com/v1/proxy", False),
        ("https://api.anthropic.com.evil.test", False),
        ("https://user@api.anthropic.com", False),
        ("https://api.anthropic.com:8443", False),
        ("https://api.anthropic.com:notaport", False),
        ("http://localhost:4000", False),
    ],
)
def test_which_base_urls_are_anthropics_own(base_url: str, vendor: bool) -> None:
    assert is_anthropic_endpoint(base_url) is vendor


def test_provenance_and_what_a_custom_endpoint_claims() -> None:
    vendor = AnthropicProvider("sk")
    gateway = AnthropicProvider(base_url="https://gw.example")
    assert (vendor.endpoint.base_url, vendor.endpoint.vendor) == (DEFAULT_BASE_URL, True)
    assert (gateway.endpoint.base_url, gateway.endpoint.vendor) == ("https://gw.example", False)
    own = vendor.model_info("claude-sonnet-4-5")
    theirs = gateway.model_info("claude-sonnet-4-5")
    assert own is not None
    assert theirs is not None
    # model facts by id still hold
    assert (theirs.context_window, theirs.max_output_tokens) == (200_000, 64_000)
    assert (own.context_window, own.max_output_tokens) == (200_000, 64_000)
    # Anthropic's guarantees are stated only for Anthropic's endpoint; unknown, never false
    assert own.capabilities.native_structured_output is True
    assert own.capabilities.hosted_tools
    caps = theirs.capabilities
    assert (caps.native_structured_output, caps.hosted_tools, caps.thinking, caps.tools) == (
        None,
        None,
        None,
        None,
    )
    assert (caps.json_mode, caps.unsupported_settings) == (False, frozenset({"seed"}))
    assert gateway.capabilities("claude-sonnet-4-5") == caps
    assert gateway.model_info("claude-unknown") is None
    assert all(i.capabilities == caps for i in gateway.models())
    assert {i.model for i in gateway.models()} == {i.model for i in vendor.models()}
