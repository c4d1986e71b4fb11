"""The wire floor: the scenario spoken with ``httpx`` and ``json`` alone.

No SDK types and no framework: the request body is a dict dumped to JSON, a buffered answer is
``json.loads`` of the body, and a streamed answer is Server-Sent Events parsed by hand from the
byte stream (WHATWG HTML "Server-sent events", section 9.2.6: lines end in LF, CR LF or CR; a
blank line dispatches the event; ``data:`` lines of one event join with LF). This is the least
any client can do for a correct loop: send the history and tools, gather text and tool calls,
run the round's calls concurrently, append the results, repeat. Every other contender's
per-round time is also reported as a ratio to this floor (same api and mode).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx

from tools.bench._common import PROMPT, TOOL_BODIES, Contender
from tools.bench._raw import chat_tool_specs, responses_tool_specs

__all__ = ["WIRE_CONTENDERS", "WireChat", "WireResponses", "sse_events"]

_HEADERS = {
    "authorization": "Bearer bench",
    "content-type": "application/json",
    "accept": "application/json",
}
_STREAM_HEADERS = {**_HEADERS, "accept": "text/event-stream"}


async def sse_events(chunks: AsyncIterator[bytes]) -> AsyncIterator[tuple[str, str]]:
    """Parse a Server-Sent Events byte stream into ``(event type, data)`` pairs.

    Args:
        chunks: The response body as it arrives (any chunking; an event may span chunks).

    Yields:
        ``(event, data)`` per dispatched event: ``event`` is the ``event:`` field or
        ``"message"``; ``data`` is the event's ``data:`` lines joined with ``\\n``. Events
        without a ``data:`` line are skipped, as are comments (lines starting with ``:``) and
        an unterminated event at the end of the stream.
    """
    pending = b""
    event = ""
    data: list[str] = []
    async for chunk in chunks:
        pending += chunk
        # A CR at the very end may be the first half of a CR LF split across chunks: hold it.
        held = b"\r" if pending.endswith(b"\r") else b""
        work = pending[:-1] if held else pending
        lines = work.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
        pending = lines.pop() + held  # the unterminated tail waits for the next chunk
        for raw in lines:
            if not raw:
                if data:
                    yield event or "message", "\n".join(data)
                event, data = "", []
                continue
            name, _, value = raw.decode().partition(":")
            value = value.removeprefix(" ")
            if name == "data":
                data.append(value)
            elif name == "event":
                event = value
    # At the end of the stream an event without its blank line is discarded (the spec's rule).


async def _call(name: str, arguments: str) -> str:
    return await TOOL_BODIES[name](**json.loads(arguments))


class WireChat:
    """Chat Completions loop on bare httpx, streamed or buffered."""

    def __init__(self, base_url: str, client: httpx.AsyncClient, *, stream: bool) -> None:
        self.url = f"{base_url}/chat/completions"
        self.client = client
        self.stream = stream
        self.tools = chat_tool_specs()

    async def _streamed(self, body: dict[str, Any]) -> tuple[str | None, list[Any], float | None]:
        text: list[str] = []
        calls: dict[int, dict[str, str]] = {}
        first: float | None = None
        payload = json.dumps(
            {**body, "stream": True, "stream_options": {"include_usage": True}}
        ).encode()
        async with self.client.stream(
            "POST", self.url, content=payload, headers=_STREAM_HEADERS
        ) as response:
            response.raise_for_status()
            async for _, data in sse_events(response.aiter_bytes()):
                if data == "[DONE]":
                    continue  # read to the end so the connection goes back to the pool
                choices = json.loads(data).get("choices")
                if not choices:
                    continue
                delta = choices[0].get("delta") or {}
                content = delta.get("content")
                if content:
                    if first is None:
                        first = time.perf_counter()
                    text.append(content)
                for call in delta.get("tool_calls") or ():
                    slot = calls.setdefault(call["index"], {"id": "", "name": "", "args": ""})
                    if call.get("id"):
                        slot["id"] = call["id"]
                    function = call.get("function") or {}
                    if function.get("name"):
                        slot["name"] = function["name"]
                    if function.get("arguments"):
                        slot["args"] += function["arguments"]
        tool_calls = [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": c["args"]},
            }
            for _, c in sorted(calls.items())
        ]
        return "".join(text) or None, tool_calls, first

    async def _buffered(self, body: dict[str, Any]) -> tuple[str | None, list[Any], float | None]:
        response = await self.client.post(
            self.url, content=json.dumps(body).encode(), headers=_HEADERS
        )
        response.raise_for_status()
        message = json.loads(response.content)["choices"][0]["message"]
        return message.get("content"), message.get("tool_calls") or [], None

    async def run(self, model: str) -> float | None:
        """Run the scenario; returns the first text delta's instant (streaming only)."""
        messages: list[dict[str, Any]] = [{"role": "user", "content": PROMPT}]
        first: float | None = None
        while True:
            body = {"model": model, "messages": messages, "tools": self.tools}
            if self.stream:
                content, tool_calls, seen = await self._streamed(body)
                first = first if first is not None else seen
            else:
                content, tool_calls, _ = await self._buffered(body)
            assistant: dict[str, Any] = {"role": "assistant", "content": content}
            if not tool_calls:
                messages.append(assistant)
                return first
            assistant["tool_calls"] = tool_calls
            messages.append(assistant)
            results = await asyncio.gather(
                *(_call(c["function"]["name"], c["function"]["arguments"]) for c in tool_calls)
            )
            messages.extend(
                {"role": "tool", "tool_call_id": c["id"], "content": r}
                for c, r in zip(tool_calls, results, strict=True)
            )


class WireResponses:
    """Responses API loop on bare httpx, streamed or buffered; history kept client-side
    (``store`` off), output items appended to the input as received."""

    def __init__(self, base_url: str, client: httpx.AsyncClient, *, stream: bool) -> None:
        self.url = f"{base_url}/responses"
        self.client = client
        self.stream = stream
        self.tools = responses_tool_specs()

    async def _streamed(self, body: dict[str, Any]) -> tuple[list[Any], float | None]:
        output: list[Any] = []
        first: float | None = None
        payload = json.dumps({**body, "stream": True}).encode()
        async with self.client.stream(
            "POST", self.url, content=payload, headers=_STREAM_HEADERS
        ) as response:
            response.raise_for_status()
            async for event, data in sse_events(response.aiter_bytes()):
                if event == "response.output_text.delta":
                    if first is None:
                        first = time.perf_counter()
                elif event == "response.output_item.done":
                    output.append(json.loads(data)["item"])
                elif event in ("response.failed", "error"):
                    raise RuntimeError(f"the server sent {event}: {data}")
        return output, first

    async def _buffered(self, body: dict[str, Any]) -> list[Any]:
        response = await self.client.post(
            self.url, content=json.dumps(body).encode(), headers=_HEADERS
        )
        response.raise_for_status()
        return json.loads(response.content)["output"]

    async def run(self, model: str) -> float | None:
        """Run the scenario; returns the first text delta's instant (streaming only)."""
        items: list[Any] = [{"role": "user", "content": PROMPT}]
        first: float | None = None
        while True:
            body = {"model": model, "input": items, "tools": self.tools, "store": False}
            if self.stream:
                output, seen = await self._streamed(body)
                first = first if first is not None else seen
            else:
                output = await self._buffered(body)
            items.extend(output)
            calls = [o for o in output if o["type"] == "function_call"]
            if not calls:
                return first
            results = await asyncio.gather(*(_call(c["name"], c["arguments"]) for c in calls))
            items.extend(
                {"type": "function_call_output", "call_id": c["call_id"], "output": r}
                for c, r in zip(calls, results, strict=True)
            )


WIRE_CONTENDERS = (
    Contender(
        name="wire/chat/stream",
        family="wire",
        api="chat",
        streaming=True,
        requires=(),
        make=lambda url, client: WireChat(url, client, stream=True),
    ),
    Contender(
        name="wire/chat/buffered",
        family="wire",
        api="chat",
        streaming=False,
        requires=(),
        make=lambda url, client: WireChat(url, client, stream=False),
    ),
    Contender(
        name="wire/responses/stream",
        family="wire",
        api="responses",
        streaming=True,
        requires=(),
        make=lambda url, client: WireResponses(url, client, stream=True),
    ),
    Contender(
        name="wire/responses/buffered",
        family="wire",
        api="responses",
        streaming=False,
        requires=(),
        make=lambda url, client: WireResponses(url, client, stream=False),
    ),
)
