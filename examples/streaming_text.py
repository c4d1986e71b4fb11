"""Streaming a model's answer as it arrives, offline.

Shows: the text alone in one line, ``async for delta in agent.stream(prompt).text_deltas()``
(no ``async with``, no event filter); then ``agent.stream(prompt)`` as an async context manager,
whose iteration yields every event of the run (text deltas, tool calls and results, usage…) while
the model answers, with ``stream.result`` holding the finished ``RunResult``. Leaving the loop or
the block early cancels the run. The scripted provider streams its text in pieces, as a real
provider would.

Run: ``uv run python examples/streaming_text.py``
"""

from __future__ import annotations

import anyio
from robota.core import Agent, ModelTextDelta
from robota.core.testing.scripted import ScriptedProvider, text, usage


async def text_only() -> None:
    provider = ScriptedProvider([[text("Hello "), text("from "), text("Robota.")]])
    agent = Agent(provider)
    stream = agent.stream("Say hello")
    async for delta in stream.text_deltas():
        print(f"text delta: {delta!r}")
    assert stream.result.output == "Hello from Robota."


async def every_event() -> None:
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


async def main() -> None:
    await text_only()
    await every_event()


if __name__ == "__main__":
    anyio.run(main)
