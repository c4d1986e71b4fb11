"""Wire pieces a broken server sends: Server-Sent Events framing, each vendor's clean stream and
buffered answer (text, tool calls, finish reason and usage as parameters), and response bodies
that arrive in tiny network chunks, stall, or break mid-body.

Everything here is bytes; nothing knows about the adapters (see :mod:`broken_server.harness`).
"""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator, Sequence
from typing import Any

import anyio
import httpx

__all__ = [
    "TEXT",
    "ChunkedBody",
    "anthropic_message",
    "anthropic_stream",
    "chat_chunk",
    "chat_completion",
    "chat_stream",
    "chat_tool_stream",
    "dumps",
    "gemini_chunk",
    "gemini_stream",
    "line_endings",
    "responses_object",
    "responses_stream",
    "sse",
    "tiny_chunks",
]

TEXT = ("Héllo ", "wörld ✓ ", "日本")
"""The clean answer's deltas: multi-byte UTF-8 in every piece, so byte-level splits land inside
characters."""


def dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def sse(data: object, event: str | None = None, *, eol: str = "\n", space: bool = True) -> bytes:
    """One Server-Sent Event (``data`` is JSON-encoded unless it is a string)."""
    text = data if isinstance(data, str) else dumps(data)
    head = f"event: {event}{eol}" if event else ""
    field = "data: " if space else "data:"
    return (head + field + text + eol + eol).encode()


def line_endings(body: bytes, eol: bytes) -> bytes:
    """``body`` with every line ending (CRLF, CR or LF) replaced by ``eol``."""
    normalized = body.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return normalized.replace(b"\n", eol)


def tiny_chunks(body: bytes, seed: int, *, low: int = 1, high: int = 3) -> list[bytes]:
    """``body`` cut into pieces of ``low``..``high`` bytes (deterministic for ``seed``)."""
    rng = random.Random(seed)
    pieces: list[bytes] = []
    at = 0
    while at < len(body):
        size = rng.randint(low, high)
        pieces.append(body[at : at + size])
        at += size
    return pieces


class ChunkedBody(httpx.AsyncByteStream):
    """A response body delivered piece by piece, then optionally failing or stalling.

    Args:
        pieces: The body's pieces, in order.
        error: Raised from the iterator after the last piece (a connection reset).
        stall: After the last piece, wait forever (the server went silent).
        pause: Seconds to sleep between pieces.
    """

    def __init__(
        self,
        pieces: Sequence[bytes],
        *,
        error: Exception | None = None,
        stall: bool = False,
        pause: float = 0.0,
    ) -> None:
        self.pieces = list(pieces)
        self.error = error
        self.stall = stall
        self.pause = pause
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self.pieces:
            if self.pause:
                await anyio.sleep(self.pause)
            yield piece
        if self.error is not None:
            raise self.error
        if self.stall:
            await anyio.sleep_forever()

    async def aclose(self) -> None:
        self.closed = True


# --- OpenAI Chat Completions ------------------------------------------------------------------

CHAT_USAGE: dict[str, Any] = {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12}


def chat_chunk(
    delta: dict[str, Any] | None,
    finish: str | None = None,
    *,
    usage: object = None,
    model: str = "gpt-4o-mini",
) -> dict[str, Any]:
    """One ``chat.completion.chunk`` (``delta=None``: the usage-only chunk, no choices)."""
    chunk: dict[str, Any] = {
        "id": "chatcmpl-outsider",
        "object": "chat.completion.chunk",
        "created": 1_760_000_000,
        "model": model,
    }
    if delta is None:
        chunk["choices"] = []
    else:
        chunk["choices"] = [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
    chunk["usage"] = usage
    return chunk


def chat_stream(
    texts: Sequence[str] = TEXT,
    *,
    finish: str = "stop",
    usage: object = CHAT_USAGE,
    eol: str = "\n",
    space: bool = True,
    done: int = 1,
) -> bytes:
    """A clean streamed chat answer: role chunk with the first text, one chunk per further text,
    the finish chunk, the usage chunk, then ``done`` times ``data: [DONE]``."""
    out = [sse(chat_chunk({"role": "assistant", "content": texts[0]}), eol=eol, space=space)]
    out += [sse(chat_chunk({"content": t}), eol=eol, space=space) for t in texts[1:]]
    out.append(sse(chat_chunk({}, finish), eol=eol, space=space))
    out.append(sse(chat_chunk(None, usage=usage), eol=eol, space=space))
    out += [sse("[DONE]", eol=eol, space=space)] * done
    return b"".join(out)


def chat_tool_stream(calls: Sequence[dict[str, Any]], *, finish: str = "tool_calls") -> bytes:
    """A streamed chat answer made of ``tool_calls`` delta entries, one per chunk, as given."""
    out = [sse(chat_chunk({"role": "assistant", "content": None}))]
    out += [sse(chat_chunk({"tool_calls": [call]})) for call in calls]
    out.append(sse(chat_chunk({}, finish)))
    out.append(sse(chat_chunk(None, usage=CHAT_USAGE)))
    out.append(sse("[DONE]"))
    return b"".join(out)


def chat_completion(message: dict[str, Any], finish: str = "stop") -> dict[str, Any]:
    """A buffered ``chat.completion`` with one choice."""
    return {
        "id": "chatcmpl-outsider",
        "object": "chat.completion",
        "created": 1_760_000_000,
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": CHAT_USAGE,
    }


# --- OpenAI Responses -------------------------------------------------------------------------

RESPONSES_USAGE: dict[str, Any] = {
    "input_tokens": 9,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 3,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 12,
}


def responses_object(
    status: str,
    output: list[dict[str, Any]],
    *,
    incomplete: str | None = None,
    usage: object = RESPONSES_USAGE,
    model: str = "gpt-4.1-mini",
) -> dict[str, Any]:
    return {
        "id": "resp_outsider",
        "object": "response",
        "created_at": 1_760_000_000,
        "status": status,
        "error": None,
        "incomplete_details": {"reason": incomplete} if incomplete else None,
        "model": model,
        "output": output,
        "usage": usage,
    }


def _message_item(text: str) -> dict[str, Any]:
    return {
        "id": "msg_outsider",
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def responses_stream(
    texts: Sequence[str] = TEXT,
    *,
    status: str = "completed",
    incomplete: str | None = None,
    final_output: bool = True,
    item_done: bool = True,
    usage: object = RESPONSES_USAGE,
    eol: str = "\n",
    space: bool = True,
) -> bytes:
    """A clean streamed Responses answer (one message item), ending with
    ``response.completed`` (``status="incomplete"``: ``response.incomplete``)."""
    whole = "".join(texts)
    item = _message_item(whole)
    ids = {"item_id": "msg_outsider", "output_index": 0, "content_index": 0}
    seq = iter(range(1000))

    def typed(kind: str, **fields: Any) -> bytes:
        return sse(
            {"type": kind, "sequence_number": next(seq), **fields}, kind, eol=eol, space=space
        )

    out = [
        typed("response.created", response=responses_object("in_progress", [], usage=None)),
        typed(
            "response.output_item.added",
            output_index=0,
            item={**item, "status": "in_progress", "content": []},
        ),
        typed(
            "response.content_part.added",
            part={"type": "output_text", "text": "", "annotations": []},
            **ids,
        ),
    ]
    out += [typed("response.output_text.delta", delta=t, **ids) for t in texts]
    out.append(typed("response.output_text.done", text=whole, **ids))
    if item_done:
        out.append(typed("response.output_item.done", output_index=0, item=item))
    final = responses_object(
        status, [item] if final_output else [], incomplete=incomplete, usage=usage
    )
    kind = "response.completed" if status == "completed" else "response.incomplete"
    out.append(typed(kind, response=final))
    return b"".join(out)


# --- Anthropic Messages -----------------------------------------------------------------------


def anthropic_message(
    content: list[dict[str, Any]], stop: str = "end_turn", usage: object = None
) -> dict[str, Any]:
    return {
        "id": "msg_outsider",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage if usage is not None else {"input_tokens": 9, "output_tokens": 3},
    }


ANTHROPIC_START_USAGE: dict[str, Any] = {"input_tokens": 9, "output_tokens": 1}
ANTHROPIC_DELTA_USAGE: dict[str, Any] = {"output_tokens": 3}


def anthropic_stream(
    texts: Sequence[str] = TEXT,
    *,
    stop: str = "end_turn",
    blocks: Sequence[bytes] | None = None,
    start_usage: object = ANTHROPIC_START_USAGE,
    usage: object = ANTHROPIC_DELTA_USAGE,
    eol: str = "\n",
    space: bool = True,
    tail: Sequence[bytes] = (),
) -> bytes:
    """A clean Anthropic stream: ``message_start`` (``start_usage``), one text block with
    ``texts`` (or the given ``blocks`` events), ``message_delta`` with ``stop`` and ``usage``
    (None: no usage field), ``message_stop``, then ``tail``."""

    def typed(kind: str, **fields: Any) -> bytes:
        return sse({"type": kind, **fields}, kind, eol=eol, space=space)

    started = anthropic_message([], "end_turn")
    started["stop_reason"] = None
    started["usage"] = start_usage
    out = [typed("message_start", message=started), typed("ping")]
    if blocks is None:
        out.append(
            typed("content_block_start", index=0, content_block={"type": "text", "text": ""})
        )
        out += [
            typed("content_block_delta", index=0, delta={"type": "text_delta", "text": t})
            for t in texts
        ]
        out.append(typed("content_block_stop", index=0))
    else:
        out += list(blocks)
    delta: dict[str, Any] = {"delta": {"stop_reason": stop, "stop_sequence": None}}
    if usage is not None:
        delta["usage"] = usage
    out.append(typed("message_delta", **delta))
    out.append(typed("message_stop"))
    out += list(tail)
    return b"".join(out)


# --- Gemini -----------------------------------------------------------------------------------

GEMINI_USAGE: dict[str, Any] = {
    "promptTokenCount": 9,
    "candidatesTokenCount": 3,
    "totalTokenCount": 12,
}


def gemini_chunk(
    parts: list[dict[str, Any]] | None,
    finish: str | None = None,
    *,
    usage: object = GEMINI_USAGE,
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"index": 0}
    if parts is not None:
        candidate["content"] = {"parts": parts, "role": "model"}
    if finish:
        candidate["finishReason"] = finish
    return {
        "candidates": [candidate],
        "usageMetadata": usage,
        "modelVersion": "gemini-2.5-flash",
        "responseId": "outsider",
    }


def gemini_stream(
    texts: Sequence[str] = TEXT,
    *,
    finish: str = "STOP",
    usage: object = GEMINI_USAGE,
    eol: str = "\r\n",
    space: bool = True,
) -> bytes:
    """A clean Gemini stream (one chunk per text, the last one with ``finish``); Gemini frames
    its events with CRLF."""
    out: list[bytes] = []
    for i, text in enumerate(texts):
        last = i == len(texts) - 1
        chunk = gemini_chunk([{"text": text}], finish if last else None, usage=usage)
        out.append(sse(chunk, eol=eol, space=space))
    return b"".join(out)
