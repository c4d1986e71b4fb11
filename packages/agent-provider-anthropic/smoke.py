"""Smoke program of robota-agent-provider-anthropic: an installed copy answers an Agent, offline.

The real ``AnthropicProvider`` (through the official ``anthropic`` SDK) reads a Messages API
answer served by an in-memory ``httpx.MockTransport``; nothing leaves the host.
"""

import json

import httpx
from robota.core import Agent
from robota.providers.anthropic import AnthropicProvider

MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [{"type": "text", "text": "Bonjour !"}],
    "stop_reason": "end_turn",
    "usage": {"input_tokens": 9, "output_tokens": 3},
}
seen: list[httpx.Request] = []


def serve(request: httpx.Request) -> httpx.Response:
    seen.append(request)
    return httpx.Response(200, json=MESSAGE, headers={"request-id": "req_smoke"})


client = httpx.AsyncClient(transport=httpx.MockTransport(serve))
provider = AnthropicProvider("sk-ant-smoke", http_client=client)
result = Agent(provider, model="claude-sonnet-4-5").run_sync("Say hello in French")
assert result.text == "Bonjour !", result
assert result.usage.output_tokens == 3, result
assert seen[0].url.path == "/v1/messages"
assert any("sk-ant-smoke" in value for value in seen[0].headers.values())  # the key was sent
assert json.loads(seen[0].content)["messages"][-1]["role"] == "user"
print("smoke ok robota-agent-provider-anthropic")
