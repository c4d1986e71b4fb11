"""Smoke program of robota-agent-provider-openai: an installed copy answers an Agent, offline.

The real ``OpenAIChatProvider`` (through the official ``openai`` SDK) streams a recorded-shape
Chat Completions answer served by an in-memory ``httpx.MockTransport``; nothing leaves the host.
"""

import json

import httpx
from robota.core import Agent
from robota.providers.openai import OpenAIChatProvider

CHUNKS = [
    {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Bonjour"}}]},
    {"choices": [{"index": 0, "delta": {"content": " !"}, "finish_reason": "stop"}]},
    {"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12}},
]
seen: list[httpx.Request] = []


def serve(request: httpx.Request) -> httpx.Response:
    seen.append(request)
    events = [
        {"id": "c1", "object": "chat.completion.chunk", "model": "gpt-4o", **c} for c in CHUNKS
    ]
    body = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
    return httpx.Response(200, content=body.encode(), headers={"content-type": "text/event-stream"})


client = httpx.AsyncClient(transport=httpx.MockTransport(serve))
provider = OpenAIChatProvider("sk-smoke", http_client=client)
result = Agent(provider, model="gpt-4o").run_sync("Say hello in French")
assert result.text == "Bonjour !", result
assert result.usage.output_tokens == 3, result
assert seen[0].url.path == "/v1/chat/completions"
assert json.loads(seen[0].content)["messages"][-1]["content"] == "Say hello in French"
print("smoke ok robota-agent-provider-openai")
