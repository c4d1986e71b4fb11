"""The canned model of the benchmark: what the loopback server answers, decided from the request.

The scenario has N tool rounds followed by one answer. The model id carries N: ``bench-r3``
means three rounds in which the model calls two tools in parallel (``get_weather`` and
``get_time``), then a final answer of :data:`ANSWER_TOKENS` text deltas. The server is stateless:
it counts the tool results already in the request (Chat Completions: messages with role
``tool``; Responses: input items of type ``function_call_output``) and answers with the next
step. Bodies follow OpenAI's API reference for Chat Completions chunks and Responses streaming
events (https://platform.openai.com/docs/api-reference).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "ANSWER_TOKENS",
    "TOOLS_PER_ROUND",
    "chat_completion",
    "chat_stream",
    "responses_completion",
    "responses_stream",
    "rounds_of",
    "step_of",
]

ANSWER_TOKENS = 200
"""Text deltas in the final answer (one word-token each)."""

TOOLS_PER_ROUND = 2
"""Parallel tool calls the model makes in each tool round."""

_TOOL_CALLS: tuple[tuple[str, str], ...] = (
    ("get_weather", '{"city": "Paris"}'),
    ("get_time", '{"city": "Paris"}'),
)
_WORDS = ("The", " weather", " in", " Paris", " is", " mild", " and", " the", " time", " is")
_MODEL_ROUNDS = re.compile(r"-r(\d+)$")


def rounds_of(model: str) -> int:
    """Tool rounds named by a model id like ``bench-r3`` (0 when the id names none)."""
    match = _MODEL_ROUNDS.search(model)
    return int(match.group(1)) if match else 0


def step_of(body: Mapping[str, Any]) -> tuple[int, int]:
    """``(rounds done, rounds wanted)`` for a Chat Completions or Responses request body."""
    wanted = rounds_of(str(body.get("model", "")))
    results = 0
    messages = body.get("messages")
    if isinstance(messages, list):
        results = sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "tool")
    items = body.get("input")
    if isinstance(items, list):
        results = sum(
            1 for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"
        )
    return results // TOOLS_PER_ROUND, wanted


def _answer_deltas() -> list[str]:
    return [_WORDS[i % len(_WORDS)] for i in range(ANSWER_TOKENS)]


def _call_id(done: int, index: int) -> str:
    return f"call_{done}_{index}"


def _usage_chat() -> dict[str, Any]:
    return {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70}


def _sse(data: Mapping[str, Any] | str, event: str | None = None) -> bytes:
    text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {text}\n\n".encode()


# --- Chat Completions -------------------------------------------------------------------------


def chat_completion(body: Mapping[str, Any]) -> dict[str, Any]:
    """A non-streaming ``chat.completion`` object for the next step."""
    done, wanted = step_of(body)
    message: dict[str, Any] = {"role": "assistant", "content": None, "refusal": None}
    if done < wanted:
        message["tool_calls"] = [
            {
                "id": _call_id(done, i),
                "type": "function",
                "function": {"name": name, "arguments": args},
            }
            for i, (name, args) in enumerate(_TOOL_CALLS)
        ]
        finish = "tool_calls"
    else:
        message["content"] = "".join(_answer_deltas())
        finish = "stop"
    return {
        "id": f"chatcmpl-{done}",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "bench"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": _usage_chat(),
    }


def chat_stream(body: Mapping[str, Any]) -> bytes:
    """The whole SSE body of a streamed Chat Completions answer for the next step."""
    done, wanted = step_of(body)
    model = body.get("model", "bench")
    base: dict[str, Any] = {
        "id": f"chatcmpl-{done}",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        return _sse({**base, "choices": [choice]})

    out = [chunk({"role": "assistant", "content": ""})]
    if done < wanted:
        for i, (name, args) in enumerate(_TOOL_CALLS):
            head = {
                "index": i,
                "id": _call_id(done, i),
                "type": "function",
                "function": {"name": name, "arguments": ""},
            }
            out.append(chunk({"tool_calls": [head]}))
            out.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": args}}]}))
        out.append(chunk({}, "tool_calls"))
    else:
        out.extend(chunk({"content": word}) for word in _answer_deltas())
        out.append(chunk({}, "stop"))
    options = body.get("stream_options")
    if isinstance(options, dict) and options.get("include_usage"):
        out.append(_sse({**base, "choices": [], "usage": _usage_chat()}))
    out.append(_sse("[DONE]"))
    return b"".join(out)


# --- Responses --------------------------------------------------------------------------------


def _output_items(done: int, wanted: int) -> list[dict[str, Any]]:
    if done < wanted:
        return [
            {
                "type": "function_call",
                "id": f"fc_{done}_{i}",
                "call_id": _call_id(done, i),
                "name": name,
                "arguments": args,
                "status": "completed",
            }
            for i, (name, args) in enumerate(_TOOL_CALLS)
        ]
    text = "".join(_answer_deltas())
    return [
        {
            "type": "message",
            "id": f"msg_{done}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}],
        }
    ]


def _response(
    body: Mapping[str, Any], done: int, status: str, output: Sequence[Any]
) -> dict[str, Any]:
    return {
        "id": f"resp_{done}",
        "object": "response",
        "created_at": 0,
        "status": status,
        "model": body.get("model", "bench"),
        "output": list(output),
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "metadata": {},
        "temperature": None,
        "top_p": None,
        "text": {"format": {"type": "text"}},
        "usage": {
            "input_tokens": 50,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 20,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 70,
        }
        if status == "completed"
        else None,
    }


def responses_completion(body: Mapping[str, Any]) -> dict[str, Any]:
    """A non-streaming ``response`` object for the next step."""
    done, wanted = step_of(body)
    return _response(body, done, "completed", _output_items(done, wanted))


def responses_stream(body: Mapping[str, Any]) -> bytes:
    """The whole SSE body of a streamed Responses answer for the next step."""
    done, wanted = step_of(body)
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": _response(body, done, "in_progress", [])},
        {"type": "response.in_progress", "response": _response(body, done, "in_progress", [])},
    ]
    items = _output_items(done, wanted)
    for index, item in enumerate(items):
        if item["type"] == "function_call":
            events.append(
                {
                    "type": "response.output_item.added",
                    "output_index": index,
                    "item": {**item, "arguments": "", "status": "in_progress"},
                }
            )
            events.append(
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": item["id"],
                    "output_index": index,
                    "delta": item["arguments"],
                }
            )
            events.append(
                {
                    "type": "response.function_call_arguments.done",
                    "item_id": item["id"],
                    "output_index": index,
                    "name": item["name"],
                    "arguments": item["arguments"],
                }
            )
        else:
            events.extend(_message_events(item, index))
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    events.append(
        {"type": "response.completed", "response": _response(body, done, "completed", items)}
    )
    return b"".join(
        _sse({**event, "sequence_number": n}, event["type"]) for n, event in enumerate(events)
    )


def _message_events(item: dict[str, Any], index: int) -> list[dict[str, Any]]:
    item_id = item["id"]
    empty = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
    where = {"item_id": item_id, "output_index": index, "content_index": 0}
    events: list[dict[str, Any]] = [
        {
            "type": "response.output_item.added",
            "output_index": index,
            "item": {**item, "status": "in_progress", "content": []},
        },
        {"type": "response.content_part.added", **where, "part": empty},
    ]
    events.extend(
        {"type": "response.output_text.delta", **where, "delta": word, "logprobs": []}
        for word in _answer_deltas()
    )
    part = item["content"][0]
    events.append(
        {"type": "response.output_text.done", **where, "text": part["text"], "logprobs": []}
    )
    events.append({"type": "response.content_part.done", **where, "part": part})
    return events
