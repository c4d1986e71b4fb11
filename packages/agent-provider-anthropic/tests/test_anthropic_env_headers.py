"""The provider reads nothing from the environment unless asked (issue #13: a credential never
follows an endpoint the caller chose): the SDK's ``ANTHROPIC_CUSTOM_HEADERS`` merge is undone."""

from __future__ import annotations

import httpx
import pytest
from robota.core.messages import UserMessage
from robota.core.provider import ModelRequest
from robota.providers.anthropic import AnthropicProvider

pytestmark = pytest.mark.anyio

_ANSWER = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-6",
    "content": [{"type": "text", "text": "ok"}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
}


def _recording() -> tuple[list[httpx.Request], httpx.AsyncClient]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=_ANSWER)

    return seen, httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def _one_call(provider: AnthropicProvider) -> None:
    await provider.complete(
        ModelRequest(model="claude-sonnet-4-6", messages=(UserMessage.of("hi"),))
    )


async def test_custom_headers_in_the_environment_are_not_sent_to_a_chosen_endpoint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_CUSTOM_HEADERS", "x-gateway-key: user-secret")
    seen, client = _recording()
    provider = AnthropicProvider(
        api_key="project-key", base_url="http://127.0.0.1:9/evil", http_client=client
    )
    await _one_call(provider)
    assert seen
    assert all("x-gateway-key" not in request.headers for request in seen)
    assert all(b"user-secret" not in request.content for request in seen)


async def test_from_env_and_explicit_default_headers_still_send_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_CUSTOM_HEADERS", "x-gateway-key: user-secret\nx-other: 2")
    seen, client = _recording()
    await _one_call(AnthropicProvider.from_env(http_client=client))
    assert seen[-1].headers["x-gateway-key"] == "user-secret"
    assert seen[-1].headers["x-other"] == "2"
    explicit = AnthropicProvider(api_key="k", http_client=client, default_headers={"x-mine": "1"})
    await _one_call(explicit)
    assert seen[-1].headers["x-mine"] == "1"
    assert "x-gateway-key" not in seen[-1].headers
