"""Tool-calling replies per family (complete, or cut off mid-call for a stall) and inspectors for
what an adapter sent next: tool calls left without a result, whitespace-only Anthropic text
blocks, and the order of replayed Responses items."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, cast

from broken_server.harness import Family
from broken_server.wire import (
    anthropic_stream,
    chat_chunk,
    chat_tool_stream,
    gemini_chunk,
    responses_object,
    sse,
)

__all__ = [
    "dangling_calls",
    "mentions",
    "tool_call_reply",
    "tool_call_stall",
    "whitespace_text_blocks",
]


def _anthropic_tool_blocks(arguments: str, *, stop: bool) -> list[bytes]:
    def typed(kind: str, **fields: Any) -> bytes:
        return sse({"type": kind, **fields}, kind)

    blocks = [
        typed("content_block_start", index=0, content_block={"type": "text", "text": ""}),
        typed("content_block_delta", index=0, delta={"type": "text_delta", "text": " \n\n "}),
        typed("content_block_stop", index=0),
        typed(
            "content_block_start",
            index=1,
            content_block={"type": "tool_use", "id": "toolu_outsider", "name": "slow", "input": {}},
        ),
        typed(
            "content_block_delta",
            index=1,
            delta={"type": "input_json_delta", "partial_json": arguments},
        ),
    ]
    if stop:
        blocks.append(typed("content_block_stop", index=1))
    return blocks


def _responses_tool_events(arguments: str, *, complete: bool) -> bytes:
    item = {
        "id": "fc_outsider",
        "type": "function_call",
        "status": "completed",
        "call_id": "call_outsider",
        "name": "slow",
        "arguments": arguments,
    }
    seq = iter(range(100))

    def typed(kind: str, **fields: Any) -> bytes:
        return sse({"type": kind, "sequence_number": next(seq), **fields}, kind)

    out = [
        typed("response.created", response=responses_object("in_progress", [], usage=None)),
        typed(
            "response.output_item.added",
            output_index=0,
            item={**item, "status": "in_progress", "arguments": ""},
        ),
        typed(
            "response.function_call_arguments.delta",
            item_id="fc_outsider",
            output_index=0,
            delta=arguments,
        ),
    ]
    if complete:
        out.append(typed("response.output_item.done", output_index=0, item=item))
        out.append(typed("response.completed", response=responses_object("completed", [item])))
    return b"".join(out)


def tool_call_reply(family: Family, arguments: str = '{"x": 1}') -> bytes:
    """A complete streamed answer calling the tool ``slow`` once with ``arguments``."""
    if family == "openai-chat":
        return chat_tool_stream(
            [
                {
                    "index": 0,
                    "id": "call_outsider",
                    "type": "function",
                    "function": {"name": "slow", "arguments": arguments},
                }
            ]
        )
    if family == "openai-responses":
        return _responses_tool_events(arguments, complete=True)
    if family == "anthropic":
        return anthropic_stream(
            stop="tool_use", blocks=_anthropic_tool_blocks(arguments, stop=True)
        )
    chunk = gemini_chunk([{"functionCall": {"name": "slow", "args": {"x": 1}}}], "STOP")
    return sse(chunk, eol="\r\n")


def tool_call_stall(family: Family) -> bytes:
    """The start of a streamed answer that is writing a call to ``slow`` (the body then
    stalls: see :class:`~broken_server.wire.ChunkedBody`)."""
    if family == "openai-chat":
        call = {
            "index": 0,
            "id": "call_outsider",
            "type": "function",
            "function": {"name": "slow", "arguments": '{"x": '},
        }
        return sse(chat_chunk({"role": "assistant", "content": "Let me check."})) + sse(
            chat_chunk({"tool_calls": [call]})
        )
    if family == "openai-responses":
        return _responses_tool_events('{"x": ', complete=False)
    if family == "anthropic":
        full = anthropic_stream(blocks=_anthropic_tool_blocks('{"x": ', stop=False))
        return full[: full.index(b"event: message_delta")]
    first = gemini_chunk([{"text": "Let me check."}])
    call = gemini_chunk([{"functionCall": {"name": "slow", "args": {"x": 1}}}])
    return sse(first, eol="\r\n") + sse(call, eol="\r\n")


def _items(value: object) -> list[Any]:
    return cast(list[Any], value) if isinstance(value, list) else []


def _map(value: object) -> Mapping[str, Any]:
    return cast(Mapping[str, Any], value) if isinstance(value, Mapping) else {}


def dangling_calls(family: Family, body: object) -> list[str]:
    """Tool calls in a request body that have no result (and results without a call)."""
    request = _map(body)
    calls: list[str] = []
    results: list[str] = []
    if family == "openai-chat":
        for message in map(_map, _items(request.get("messages"))):
            for call in map(_map, _items(message.get("tool_calls"))):
                calls.append(str(call.get("id")))
            if message.get("role") == "tool":
                results.append(str(message.get("tool_call_id")))
    elif family == "openai-responses":
        for item in map(_map, _items(request.get("input"))):
            if item.get("type") == "function_call":
                calls.append(str(item.get("call_id")))
            elif item.get("type") == "function_call_output":
                results.append(str(item.get("call_id")))
    elif family == "anthropic":
        for message in map(_map, _items(request.get("messages"))):
            for block in map(_map, _items(message.get("content"))):
                if block.get("type") == "tool_use":
                    calls.append(str(block.get("id")))
                elif block.get("type") == "tool_result":
                    results.append(str(block.get("tool_use_id")))
    else:
        for content in map(_map, _items(request.get("contents"))):
            for part in map(_map, _items(content.get("parts"))):
                if "functionCall" in part:
                    calls.append(str(_map(part["functionCall"]).get("name")))
                elif "functionResponse" in part:
                    results.append(str(_map(part["functionResponse"]).get("name")))
    problems = [
        f"tool call {c!r} has no result" for c in calls if calls.count(c) > results.count(c)
    ]
    problems += [f"result {r!r} has no call" for r in results if results.count(r) > calls.count(r)]
    return sorted(set(problems))


def _text_blocks(value: object) -> Iterator[str]:
    for block in map(_map, _items(value)):
        if block.get("type") == "text":
            yield str(block.get("text"))
        yield from _text_blocks(block.get("content"))


def whitespace_text_blocks(body: object) -> list[str]:
    """Whitespace-only text blocks anywhere in an Anthropic request body."""
    request = _map(body)
    texts = list(_text_blocks(request.get("system")))
    for message in map(_map, _items(request.get("messages"))):
        texts += list(_text_blocks(message.get("content")))
    return [repr(t) for t in texts if not t.strip()]


def mentions(body: object, needle: str) -> bool:
    """True when ``needle`` appears anywhere in a request body."""
    return needle in repr(body)
