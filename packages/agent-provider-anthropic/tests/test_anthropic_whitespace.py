"""Whitespace-only text blocks: the API refuses them when sent back ("text content blocks must
contain non-whitespace text"), so a ``"\\n\\n"`` block before a ``tool_use`` used to kill a run
right after its tool ran. None is decoded (stream or buffered) and none is encoded (history from
other providers or sessions may carry one)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from _anthropic_fakes import (  # pyright: ignore[reportImplicitRelativeImport]
    Server,
    message,
    outcome,
    provider,
    sse,
    stream_events,
)
from hypothesis import given
from hypothesis import strategies as st
from robota.core.agent import Agent
from robota.core.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultMessage,
    ToolResultPart,
    UserMessage,
)
from robota.core.provider import ModelRequest, TextDelta
from robota.core.tools.base import Tool, ToolContext
from robota.providers.anthropic._request import build_request

pytestmark = pytest.mark.anyio

_CALL = {"type": "tool_use", "id": "toolu_1", "name": "clock", "input": {}}
_CASES: dict[str, tuple[list[str | None], str]] = {
    # text blocks (None: the tool call) → the message text
    "blank before a tool call": (["\n\n", None], ""),
    "blank between texts joins them": (["A", "\n\n", "B"], "A\n\nB"),
    "blank after a tool call": (["Let me check.", None, " "], "Let me check."),
    "only blanks": ([" ", "\t\n"], ""),
    "leading blanks of a real text": (["\n\nHello"], "\n\nHello"),
}


def _blocks(texts: list[str | None]) -> list[dict[str, Any]]:
    return [_CALL if t is None else {"type": "text", "text": t} for t in texts]


def _no_blank_parts(parts: tuple[Any, ...]) -> None:
    assert all(p.text.strip() for p in parts if isinstance(p, TextPart)), parts


@pytest.mark.parametrize(("texts", "text"), _CASES.values(), ids=list(_CASES))
async def test_buffered_answers_hold_no_blank_text_part(texts: list[str | None], text: str) -> None:
    body = json.dumps(message(_blocks(texts))).encode()
    got = await outcome(Server(body=body, content_type="application/json").provider(), stream=False)
    assert got.response is not None
    assert got.response.message.text == text
    _no_blank_parts(got.response.message.parts)
    assert len(got.response.message.tool_calls) == texts.count(None)


@pytest.mark.parametrize(("texts", "text"), _CASES.values(), ids=list(_CASES))
async def test_streamed_answers_hold_no_blank_text_part_and_stream_what_they_keep(
    texts: list[str | None], text: str
) -> None:
    blocks = [(_CALL, []) if t is None else ({"type": "text", "text": ""}, list(t)) for t in texts]
    got = await outcome(Server(body=sse(stream_events(blocks))).provider())
    assert got.response is not None
    assert got.response.message.text == text
    _no_blank_parts(got.response.message.parts)
    assert "".join(e.text for e in got.events if isinstance(e, TextDelta)) == text


def _text_blocks(body: dict[str, Any]) -> list[str]:
    found: list[str] = [b["text"] for b in body.get("system") or []]

    def walk(blocks: Any) -> None:
        for block in blocks if isinstance(blocks, list) else []:
            if block.get("type") == "text":
                found.append(block["text"])
            walk(block.get("content"))

    for entry in body["messages"]:
        walk(entry["content"])
    return found


_BLANKS = st.sampled_from(["", " ", "\n\n", "\t", " \r\n "])
_TEXTS = st.one_of(_BLANKS, st.text(max_size=6))


@st.composite
def _history(draw: st.DrawFn) -> list[Message]:
    messages: list[Message] = [SystemMessage(content=draw(_TEXTS))]
    for turn in range(draw(st.integers(min_value=1, max_value=4))):
        messages.append(
            UserMessage(parts=tuple(TextPart(text=t) for t in draw(st.lists(_TEXTS, max_size=3))))
        )
        parts: list[Any] = [TextPart(text=t) for t in draw(st.lists(_TEXTS, max_size=3))]
        if draw(st.booleans()):
            parts.append(ThinkingPart(text=draw(_TEXTS), provider="openai"))
        call = ToolCallPart(id=f"c{turn}", name="clock", arguments={})
        parts.append(call)
        messages.append(AssistantMessage(parts=tuple(parts), interrupted=draw(st.booleans())))
        result = ToolResultPart(
            call_id=call.id, name="clock", content=(TextPart(text=draw(_TEXTS)),)
        )
        messages.append(ToolResultMessage(results=(result,)))
    messages.append(UserMessage.of("go on"))
    return messages


@given(_history())
def test_no_history_puts_a_blank_text_block_on_the_wire(history: list[Message]) -> None:
    request = ModelRequest(model="claude-sonnet-4-6", messages=tuple(history))
    body = build_request(
        request,
        provider="anthropic",
        default_max_tokens=64,
        cache_breakpoints=frozenset({"system", "tools", "history"}),
    ).body
    assert all(text.strip() for text in _text_blocks(body))


# --- a whole run: the real adapter against a server that refuses blank text blocks ---


class _Clock(Tool):
    name = "clock"
    description = "The time."

    def __init__(self) -> None:
        self.parameters = {"type": "object", "properties": {}}
        self.calls = 0

    async def call(self, arguments: dict[str, Any], ctx: ToolContext[Any]) -> str:
        self.calls += 1
        return "12:00"


class _StrictServer:
    """Answers a tool call after a blank text block, then the final text; 400 like Anthropic
    for any request carrying a whitespace-only text block."""

    def __init__(self, *, streamed: bool) -> None:
        self.streamed = streamed
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.bodies.append(body)
        if not all(t.strip() for t in _text_blocks(body)):
            error = {
                "type": "error",
                "error": {
                    "type": "invalid_request_error",
                    "message": "messages: text content blocks must contain non-whitespace text",
                },
            }
            return httpx.Response(400, json=error)
        first = len(self.bodies) == 1
        blocks = _blocks(["\n\n", None]) if first else _blocks(["It is noon."])
        stop = "tool_use" if first else "end_turn"
        if not self.streamed:
            return httpx.Response(200, json=message(blocks, stop_reason=stop))
        pieces = [(b, [] if b["type"] == "tool_use" else [b["text"]]) for b in blocks]
        shells = [
            (b if b["type"] == "tool_use" else {"type": "text", "text": ""}, p) for b, p in pieces
        ]
        events = stream_events(shells, stop_reason=stop)
        return httpx.Response(
            200, content=sse(events), headers={"content-type": "text/event-stream"}
        )


@pytest.mark.parametrize("streamed", [True, False])
async def test_a_run_goes_on_after_a_tool_call_that_followed_a_blank_text(streamed: bool) -> None:
    server = _StrictServer(streamed=streamed)
    clock = _Clock()
    agent = Agent(provider(server), model="claude-sonnet-4-6", tools=[clock])
    result = await agent.run("What time is it?")
    assert result.text == "It is noon."
    assert clock.calls == 1
    assert len(server.bodies) == 2
    assert server.bodies[1]["messages"][1]["content"] == [
        {"type": "tool_use", "id": "toolu_1", "name": "clock", "input": {}}
    ]


async def test_a_run_on_foreign_history_with_blank_text_is_not_refused() -> None:
    server = _StrictServer(streamed=True)
    history: list[Message] = [
        UserMessage.of("Hi"),
        AssistantMessage(parts=(TextPart(text="\n\n"), TextPart(text="Hello!")), provider="openai"),
        UserMessage(parts=(TextPart(text=" "), TextPart(text="Time?"))),
        AssistantMessage(parts=(TextPart(text=" \n"),), provider="google"),
    ]
    agent = Agent(provider(server), model="claude-sonnet-4-6", tools=[_Clock()], history=history)
    result = await agent.run("What time is it?")
    assert result.text == "It is noon."
