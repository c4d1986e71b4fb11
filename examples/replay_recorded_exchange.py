"""Replaying a recorded provider exchange, offline.

Shows: how to test against a real vendor's wire format without the network. A recording (a
vcrpy-style cassette: request method and URL, response status, headers and body) is served by
``robota.core.testing.cassette.Cassette.transport()`` through the provider's injectable
``httpx`` client; ``robota.providers.openai.replay.replay_provider`` builds the provider around
it. The recording here is written inline — two Chat Completions responses, a tool call and then
the answer — but ``load_cassette("file.yaml")`` reads the same thing from a file recorded against
the live API. A request with no recorded response left raises ``CassetteMissError``.

Run: ``uv run python examples/replay_recorded_exchange.py``
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from robota.core import Agent, RiskClass, tool
from robota.core.messages import Message, ToolResultMessage
from robota.core.testing.cassette import Cassette, Interaction
from robota.providers.openai.replay import replay_provider

URL = "https://api.openai.com/v1/chat/completions"


def tool_results(messages: Sequence[Message]) -> list[str]:
    """The text of every tool result among ``messages``, in order."""
    return [r.text for m in messages if isinstance(m, ToolResultMessage) for r in m.results]


def chat_response(message: dict[str, Any], finish_reason: str, n: int) -> Interaction:
    """One recorded Chat Completions response, as the API sent it."""
    body = {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": 1750000000 + n,
        "model": "gpt-4.1-mini-2025-04-14",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 60 + n, "completion_tokens": 12, "total_tokens": 72 + n},
    }
    return Interaction(
        method="POST",
        uri=URL,
        request_body=None,
        status=200,
        headers={"content-type": "application/json"},
        body=json.dumps(body).encode(),
        json=body,
    )


RECORDING = Cassette(
    path=Path("inline-recording.yaml"),
    interactions=[
        chat_response(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "add", "arguments": '{"a": 2, "b": 40}'},
                    }
                ],
            },
            "tool_calls",
            1,
        ),
        chat_response({"role": "assistant", "content": "2 + 40 = 42."}, "stop", 2),
    ],
)


@tool(risk=RiskClass.INSPECT)
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def main() -> None:
    provider = replay_provider(RECORDING)  # api and base URL are read from the recording
    agent = Agent(provider, model="gpt-4.1-mini", tools=[add])
    result = agent.run_sync("What is 2 + 40? Use the add tool.")
    print("answer:", result.text)
    print("finish reason:", result.finish_reason, "| rounds:", result.rounds)
    print("input tokens:", result.usage.input_tokens, "| served:", RECORDING.served, "responses")
    assert result.text == "2 + 40 = 42."
    assert RECORDING.served == 2
    assert tool_results(result.new_messages) == ["42"]


if __name__ == "__main__":
    main()
