"""The SDK floor: the scenario as a hand-written loop on the raw ``openai`` SDK.

The same correct loop as the wire floor (:mod:`tools.bench._wire`): send the history and tools,
collect text and tool calls (streamed or buffered), run the calls of a round concurrently, append
the results, repeat; here through the SDK's typed requests, chunks and events, so its cost over
the wire floor is the SDK's. Chat Completions and Responses, streamed and buffered.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx

from tools.bench._common import PROMPT, TOOL_BODIES, Contender, openai_client

__all__ = ["RAW_CONTENDERS", "chat_tool_specs", "responses_tool_specs"]


def chat_tool_specs() -> list[dict[str, Any]]:
    """The two scenario tools as Chat Completions ``tools`` entries."""
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": fn.__doc__ or "",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                },
            },
        }
        for name, fn in TOOL_BODIES.items()
    ]


def responses_tool_specs() -> list[dict[str, Any]]:
    """The two scenario tools as Responses ``tools`` entries."""
    return [{"type": "function", **spec["function"]} for spec in chat_tool_specs()]


async def _call(name: str, arguments: str) -> str:
    return await TOOL_BODIES[name](**json.loads(arguments))


class RawChat:
    """Chat Completions loop, streamed or buffered."""

    def __init__(self, base_url: str, client: httpx.AsyncClient, *, stream: bool) -> None:
        self.client = openai_client(base_url, client)
        self.stream = stream
        self.tools = chat_tool_specs()

    async def run(self, model: str) -> float | None:
        """Run the scenario; returns the first text delta's instant (streaming only)."""
        messages: list[dict[str, Any]] = [{"role": "user", "content": PROMPT}]
        first: float | None = None
        while True:
            if self.stream:
                text: list[str] = []
                calls: dict[int, dict[str, str]] = {}
                chunks = await self.client.chat.completions.create(
                    model=model,
                    messages=messages,
                    tools=self.tools,
                    stream=True,
                    stream_options={"include_usage": True},
                )
                async for chunk in chunks:
                    if not chunk.choices:
                        continue
                    delta = chunk.choices[0].delta
                    if delta.content:
                        if first is None:
                            first = time.perf_counter()
                        text.append(delta.content)
                    for call in delta.tool_calls or ():
                        slot = calls.setdefault(call.index, {"id": "", "name": "", "args": ""})
                        if call.id:
                            slot["id"] = call.id
                        if call.function and call.function.name:
                            slot["name"] = call.function.name
                        if call.function and call.function.arguments:
                            slot["args"] += call.function.arguments
                content = "".join(text) or None
                tool_calls = [calls[i] for i in sorted(calls)]
            else:
                completion = await self.client.chat.completions.create(
                    model=model, messages=messages, tools=self.tools
                )
                message = completion.choices[0].message
                content = message.content
                tool_calls = [
                    {"id": c.id, "name": c.function.name, "args": c.function.arguments}
                    for c in message.tool_calls or ()
                ]
            assistant: dict[str, Any] = {"role": "assistant", "content": content}
            if not tool_calls:
                messages.append(assistant)
                return first
            assistant["tool_calls"] = [
                {
                    "id": c["id"],
                    "type": "function",
                    "function": {"name": c["name"], "arguments": c["args"]},
                }
                for c in tool_calls
            ]
            messages.append(assistant)
            results = await asyncio.gather(*(_call(c["name"], c["args"]) for c in tool_calls))
            messages.extend(
                {"role": "tool", "tool_call_id": c["id"], "content": r}
                for c, r in zip(tool_calls, results, strict=True)
            )


class RawResponses:
    """Responses API loop, streamed or buffered; history kept client-side (``store`` off)."""

    def __init__(self, base_url: str, client: httpx.AsyncClient, *, stream: bool) -> None:
        self.client = openai_client(base_url, client)
        self.stream = stream
        self.tools = responses_tool_specs()

    async def run(self, model: str) -> float | None:
        """Run the scenario; returns the first text delta's instant (streaming only)."""
        items: list[Any] = [{"role": "user", "content": PROMPT}]
        first: float | None = None
        while True:
            output: list[dict[str, Any]] = []
            if self.stream:
                events = await self.client.responses.create(
                    model=model, input=items, tools=self.tools, stream=True, store=False
                )
                async for event in events:
                    if event.type == "response.output_text.delta":
                        if first is None:
                            first = time.perf_counter()
                    elif event.type == "response.output_item.done":
                        output.append(event.item.to_dict())
            else:
                response = await self.client.responses.create(
                    model=model, input=items, tools=self.tools, store=False
                )
                output = [item.to_dict() for item in response.output]
            items.extend(output)
            calls = [o for o in output if o["type"] == "function_call"]
            if not calls:
                return first
            results = await asyncio.gather(*(_call(c["name"], c["arguments"]) for c in calls))
            items.extend(
                {"type": "function_call_output", "call_id": c["call_id"], "output": r}
                for c, r in zip(calls, results, strict=True)
            )


RAW_CONTENDERS = (
    Contender(
        name="raw/chat/stream",
        family="raw",
        api="chat",
        streaming=True,
        requires=("openai",),
        make=lambda url, client: RawChat(url, client, stream=True),
    ),
    Contender(
        name="raw/chat/buffered",
        family="raw",
        api="chat",
        streaming=False,
        requires=("openai",),
        make=lambda url, client: RawChat(url, client, stream=False),
    ),
    Contender(
        name="raw/responses/stream",
        family="raw",
        api="responses",
        streaming=True,
        requires=("openai",),
        make=lambda url, client: RawResponses(url, client, stream=True),
    ),
    Contender(
        name="raw/responses/buffered",
        family="raw",
        api="responses",
        streaming=False,
        requires=("openai",),
        make=lambda url, client: RawResponses(url, client, stream=False),
    ),
)
