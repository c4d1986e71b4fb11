"""Smoke program of robota-agent-provider-google: an installed copy answers an Agent, offline.

The real ``GoogleProvider`` (through the official ``google-genai`` SDK) reads a Gemini answer
served by an in-memory ``httpx.MockTransport``; nothing leaves the host.
"""

import json

import httpx
from robota.core import Agent
from robota.providers.google import GoogleProvider

ANSWER = {
    "candidates": [
        {"content": {"role": "model", "parts": [{"text": "Bonjour !"}]}, "finishReason": "STOP"}
    ],
    "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 3, "totalTokenCount": 12},
    "modelVersion": "gemini-2.5-flash",
}
seen: list[httpx.Request] = []


def serve(request: httpx.Request) -> httpx.Response:
    seen.append(request)
    body = f"data: {json.dumps(ANSWER)}\r\n\r\n".encode()
    return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})


client = httpx.AsyncClient(transport=httpx.MockTransport(serve))
provider = GoogleProvider("smoke-key", http_client=client)
result = Agent(provider, model="gemini-2.5-flash").run_sync("Say hello in French")
assert result.text == "Bonjour !", result
assert result.usage.output_tokens == 3, result
assert seen[0].url.path.endswith("gemini-2.5-flash:streamGenerateContent")
assert seen[0].headers["x-goog-api-key"] == "smoke-key"
print("smoke ok robota-agent-provider-google")
