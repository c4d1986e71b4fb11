"""Streaming a model's answer as it arrives, offline.

Shows: ``agent.stream(prompt)`` as an async context manager; iterating it yields the run's
events (text deltas, tool calls and results, usage…) while the model answers, and ``s.result``
holds the finished ``RunResult``. Leaving the block early cancels the run. The scripted provider
streams its text in pieces, as a real provider would.

Run: ``uv run python examples/streaming_text.py``
"""

from __future__ import annotations

import anyio
from robota.core import Agent
from robota.core.agent import ModelTextDelta
from robota.core.testing.scripted import ScriptedProvider, text, usage


async def main() -> None:
    provider = ScriptedProvider(
        [
            [
                text("Robota runs "),
                text("the loop: "),
                text("model, tools, results, "),
                text("model again."),
                usage(input_tokens=42, output_tokens=11),
            ]
        ]
    )
    async with Agent(provider) as agent, agent.stream("What does Robota do?") as stream:
        pieces: list[str] = []
        async for event in stream:
            if isinstance(event, ModelTextDelta):
                pieces.append(event.text)
                print(f"delta: {event.text!r}")
    result = stream.result
    print("answer:", result.text)
    print("usage:", result.usage.input_tokens, "in,", result.usage.output_tokens, "out")
    assert (
        "".join(pieces)
        == result.text
        == "Robota runs the loop: model, tools, results, model again."
    )


if __name__ == "__main__":
    anyio.run(main)
