"""Hand-made broken-server responses, by class, for every adapter family.

Each family gets a clean control answer (``Hello world``, finish ``stop``) in both call modes,
then the broken shapes: empty / whitespace / HTML bodies (with honest and lying content
types), the vendor's JSON error shape on a 200 (and as a mid-stream error event), missing final
events, vendor-specific holes, a JSON body answering a streamed call (and an event stream
answering a buffered one), invalid UTF-8, a JSON array where an object is due, absurdly nested
JSON, and event streams with garbage lines. Compatible servers also get their context-overflow
400s (llama.cpp, vLLM, Ollama).

Expectations follow the vendors' rules (see ``sse``) and the SSE decoding rule (WHATWG HTML
9.2.6: invalid UTF-8 in an event stream decodes to U+FFFD, so such a stream may answer with
U+FFFD in the text, or raise a typed error).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from robota.core.errors import (
    ContextWindowExceededError,
    InternalServerError,
    OverloadedError,
    RateLimitError,
    RobotaError,
)

from malformed_corpus.families import COMPAT_FAMILIES, VENDOR_FAMILIES
from malformed_corpus.model import Answer, CallMode, Case, Expect

__all__ = ["CLEAN", "shape_cases"]

CLEAN = Answer(text="Hello world", thinking="", tool_calls=(), finish_reason="stop")
"""What every clean template answers."""

GARBLED = Answer(text="Hel\ufffdlo world", tool_calls=(), finish_reason="stop")
"""The clean answer with its invalid byte decoded to U+FFFD."""

HTML = (
    b"<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body>"
    b"<center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>\n"
)
INVALID_UTF8 = b"\xff\xfe\xfd\x80\x81 not UTF-8 \xc3\x28 \xed\xa0\x80"
NESTING = 50_000

ERROR_CLASSES: dict[str, type[RobotaError]] = {
    "rate-limit": RateLimitError,
    "overloaded": OverloadedError,
    "server-error": InternalServerError,
    "context-overflow": ContextWindowExceededError,
}

COMPAT_OVERFLOWS: dict[str, dict[str, Any]] = {
    "llamacpp": {
        "error": {
            "code": 400,
            "message": "the request exceeds the available context size, try increasing it",
            "type": "exceed_context_size_error",
            "n_prompt_tokens": 5000,
            "n_ctx": 4096,
        }
    },
    "vllm": {
        "object": "error",
        "message": "This model's maximum context length is 4096 tokens. However, you requested "
        "5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of "
        "the messages or completion.",
        "type": "BadRequestError",
        "param": None,
        "code": 400,
    },
    "ollama": {
        "error": {
            "message": "prompt too long; exceeded max context length by 904 tokens",
            "type": "api_error",
            "param": None,
            "code": None,
        }
    },
}


def _dumps(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def _event(data: object, name: str | None = None, eol: bytes = b"\n") -> bytes:
    text = data if isinstance(data, str) else _dumps(data)
    head = f"event: {name}".encode() + eol if name else b""
    return head + b"data: " + text.encode() + eol + eol


def _nested() -> str:
    return '{"a":' * NESTING + "1" + "}" * NESTING


@dataclass(frozen=True, kw_only=True, slots=True)
class Shape:
    kind: str
    mode: CallMode
    body: bytes
    expect: Expect
    content_type: str | None = None
    status: int = 200


@dataclass(frozen=True, kw_only=True, slots=True)
class Dialect:
    """The wire pieces of one API surface.

    Attributes:
        model: Model named in requests.
        events: The clean stream's events (each a complete SSE block); the final one(s) last.
        completion: The clean buffered JSON answer.
        error_body: The vendor's JSON error body for an error kind.
        error_event: The vendor's mid-stream error event for an error kind.
        eol: End of line the vendor's streams use.
        vendor: Vendor-specific broken shapes.
    """

    model: str
    events: Callable[[], list[bytes]]
    completion: Callable[[], dict[str, Any]]
    error_body: Callable[[str], dict[str, Any]]
    error_event: Callable[[str], bytes]
    eol: bytes
    vendor: Callable[[], list[Shape]]


# --- OpenAI Chat Completions (and compatible servers) -------------------------------------------

_OPENAI_ERRORS: dict[str, dict[str, Any]] = {
    "rate-limit": {
        "message": "Rate limit reached for gpt-4o-mini in organization org-corpus on tokens per "
        "min (TPM): Limit 200000, Used 200000, Requested 512. Please try again in 153ms.",
        "type": "tokens",
        "param": None,
        "code": "rate_limit_exceeded",
    },
    "overloaded": {
        "message": "Our servers are currently overloaded. Please try again later.",
        "type": "service_unavailable_error",
        "param": None,
        "code": "server_is_overloaded",
    },
    "server-error": {
        "message": "The server had an error while processing your request. Sorry about that!",
        "type": "server_error",
        "param": None,
        "code": None,
    },
    "context-overflow": {
        "message": "This model's maximum context length is 128000 tokens. However, your "
        "messages resulted in 130213 tokens. Please reduce the length of the messages.",
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded",
    },
}
_CHAT_USAGE = {"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11}


def _chunk(model: str, delta: dict[str, Any] | None, finish: str | None = None) -> dict[str, Any]:
    chunk: dict[str, Any] = {
        "id": "chatcmpl-corpus",
        "object": "chat.completion.chunk",
        "created": 1_760_000_000,
        "model": model,
    }
    if delta is None:
        chunk["choices"] = []
        chunk["usage"] = _CHAT_USAGE
    else:
        chunk["choices"] = [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
        chunk["usage"] = None
    return chunk


def _chat(model: str) -> Dialect:
    def events(finish: str | None = "stop", done: bool = True) -> list[bytes]:
        out = [
            _event(_chunk(model, {"role": "assistant", "content": ""})),
            _event(_chunk(model, {"content": "Hello"})),
            _event(_chunk(model, {"content": " world"})),
        ]
        if finish:
            out.append(_event(_chunk(model, {}, finish)))
        out.append(_event(_chunk(model, None)))
        if done:
            out.append(_event("[DONE]"))
        return out

    def completion() -> dict[str, Any]:
        return {
            "id": "chatcmpl-corpus",
            "object": "chat.completion",
            "created": 1_760_000_000,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "Hello world", "refusal": None},
                    "logprobs": None,
                    "finish_reason": "stop",
                }
            ],
            "usage": _CHAT_USAGE,
        }

    def vendor() -> list[Shape]:
        no_choices = {
            k: v for k, v in _chunk(model, {"content": "Hello"}).items() if k != "choices"
        }
        without_choices = completion()
        del without_choices["choices"]
        empty_choices = {**completion(), "choices": []}
        unfinished = completion()
        unfinished["choices"][0]["finish_reason"] = None
        return [
            Shape(
                kind="stream:only-[DONE]",
                mode="stream",
                body=_event("[DONE]"),
                expect=Expect.error("no chunk, no finish_reason"),
            ),
            Shape(
                kind="stream:chunks-without-choices",
                mode="stream",
                body=_event(no_choices) + _event(no_choices) + _event("[DONE]"),
                expect=Expect.error("no choices, no finish_reason"),
            ),
            Shape(
                kind="stream:no-finish_reason",
                mode="stream",
                body=b"".join(events(finish=None)),
                expect=Expect.error("[DONE] without a finish_reason"),
            ),
            Shape(
                kind="stream:finish-without-[DONE]",
                mode="stream",
                body=b"".join(events(done=False)),
                expect=Expect.error("no data: [DONE]"),
            ),
            Shape(
                kind="buffered:no-choices",
                mode="buffered",
                body=_dumps(without_choices).encode(),
                expect=Expect.error("no choices"),
            ),
            Shape(
                kind="buffered:empty-choices",
                mode="buffered",
                body=_dumps(empty_choices).encode(),
                expect=Expect.error("choices: []"),
            ),
            Shape(
                kind="buffered:no-finish_reason",
                mode="buffered",
                body=_dumps(unfinished).encode(),
                expect=Expect.error("finish_reason: null"),
            ),
        ]

    return Dialect(
        model=model,
        events=events,
        completion=completion,
        error_body=lambda kind: {"error": _OPENAI_ERRORS[kind]},
        error_event=lambda kind: _event({"error": _OPENAI_ERRORS[kind]}),
        eol=b"\n",
        vendor=vendor,
    )


# --- OpenAI Responses ---------------------------------------------------------------------------

_RESPONSES_CODES = {
    "rate-limit": "rate_limit_exceeded",
    "overloaded": "server_is_overloaded",
    "server-error": "server_error",
    "context-overflow": "context_length_exceeded",
}
_TEXT_ITEM: dict[str, Any] = {
    "id": "msg_corpus",
    "type": "message",
    "status": "completed",
    "role": "assistant",
    "content": [{"type": "output_text", "text": "Hello world", "annotations": []}],
}


def _responses(model: str) -> Dialect:
    def response(status: str, output: list[Any], error: Any = None) -> dict[str, Any]:
        return {
            "id": "resp_corpus",
            "object": "response",
            "created_at": 1_760_000_000,
            "status": status,
            "error": error,
            "incomplete_details": None,
            "model": model,
            "output": output,
            "usage": {
                "input_tokens": 9,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 2,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": 11,
            }
            if status == "completed"
            else None,
        }

    def typed(kind: str, seq: int, **fields: Any) -> bytes:
        return _event({"type": kind, "sequence_number": seq, **fields}, kind)

    def events(final: bytes | None = None) -> list[bytes]:
        partial = {**_TEXT_ITEM, "status": "in_progress", "content": []}
        part = {"type": "output_text", "text": "", "annotations": []}
        ids = {"item_id": "msg_corpus", "output_index": 0, "content_index": 0}
        out = [
            typed("response.created", 0, response=response("in_progress", [])),
            typed("response.in_progress", 1, response=response("in_progress", [])),
            typed("response.output_item.added", 2, output_index=0, item=partial),
            typed("response.content_part.added", 3, part=part, **ids),
            typed("response.output_text.delta", 4, delta="Hello", **ids),
            typed("response.output_text.delta", 5, delta=" world", **ids),
            typed("response.output_text.done", 6, text="Hello world", **ids),
            typed(
                "response.content_part.done",
                7,
                part={**part, "text": "Hello world"},
                **ids,
            ),
            typed("response.output_item.done", 8, output_index=0, item=_TEXT_ITEM),
        ]
        out.append(
            final
            if final is not None
            else typed("response.completed", 9, response=response("completed", [_TEXT_ITEM]))
        )
        return out

    def failed(code: str) -> bytes:
        error = {"code": code, "message": f"corpus {code}"}
        return typed("response.failed", 9, response=response("failed", [], error))

    def error_event(kind: str) -> bytes:
        code = _RESPONSES_CODES[kind]
        message = _OPENAI_ERRORS[kind]["message"]
        return typed("error", 5, code=code, message=message, param=None)

    def vendor() -> list[Shape]:
        failed_body = response("failed", [], {"code": "server_error", "message": "corpus"})
        return [
            Shape(
                kind="stream:no-response.completed",
                mode="stream",
                body=b"".join(events()[:-1]),
                expect=Expect.error("no response.completed"),
            ),
            Shape(
                kind="stream:response.failed[server_error]",
                mode="stream",
                body=b"".join(events(failed("server_error"))),
                expect=Expect.error("response.failed server_error", InternalServerError),
            ),
            Shape(
                kind="stream:response.failed[rate_limit_exceeded]",
                mode="stream",
                body=b"".join(events(failed("rate_limit_exceeded"))),
                expect=Expect.error("response.failed rate_limit_exceeded", RateLimitError),
            ),
            Shape(
                kind="buffered:status-in_progress",
                mode="buffered",
                body=_dumps(response("in_progress", [])).encode(),
                expect=Expect.error("status in_progress"),
            ),
            Shape(
                kind="buffered:status-failed[server_error]",
                mode="buffered",
                body=_dumps(failed_body).encode(),
                expect=Expect.error("status failed, server_error", InternalServerError),
            ),
        ]

    return Dialect(
        model=model,
        events=events,
        completion=lambda: response("completed", [_TEXT_ITEM]),
        error_body=lambda kind: {"error": _OPENAI_ERRORS[kind]},
        error_event=error_event,
        eol=b"\n",
        vendor=vendor,
    )


# --- Anthropic Messages -------------------------------------------------------------------------

_ANTHROPIC_ERRORS = {
    "rate-limit": ("rate_limit_error", "Number of request tokens has exceeded your rate limit"),
    "overloaded": ("overloaded_error", "Overloaded"),
    "server-error": ("api_error", "Internal server error"),
    "context-overflow": (
        "invalid_request_error",
        "prompt is too long: 208310 tokens > 200000 maximum",
    ),
}


def _anthropic(model: str) -> Dialect:
    def message(stop: str | None) -> dict[str, Any]:
        return {
            "id": "msg_corpus",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": "Hello world"}],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 9, "output_tokens": 2},
        }

    def typed(kind: str, **fields: Any) -> bytes:
        return _event({"type": kind, **fields}, kind)

    def events(start: bytes | None = None) -> list[bytes]:
        started = {**message(None), "content": [], "usage": {"input_tokens": 9, "output_tokens": 1}}
        return [
            start if start is not None else typed("message_start", message=started),
            typed("content_block_start", index=0, content_block={"type": "text", "text": ""}),
            typed("ping"),
            typed("content_block_delta", index=0, delta={"type": "text_delta", "text": "Hello"}),
            typed("content_block_delta", index=0, delta={"type": "text_delta", "text": " world"}),
            typed("content_block_stop", index=0),
            typed(
                "message_delta",
                delta={"stop_reason": "end_turn", "stop_sequence": None},
                usage={"output_tokens": 2},
            ),
            typed("message_stop"),
        ]

    def error_body(kind: str) -> dict[str, Any]:
        vendor_type, text = _ANTHROPIC_ERRORS[kind]
        return {
            "type": "error",
            "error": {"type": vendor_type, "message": text},
            "request_id": "req_corpus",
        }

    def vendor() -> list[Shape]:
        return [
            Shape(
                kind="stream:message_start-without-message",
                mode="stream",
                body=b"".join(events(typed("message_start"))),
                expect=Expect.error("message_start has no message"),
            ),
            Shape(
                kind="stream:no-message_stop",
                mode="stream",
                body=b"".join(events()[:-1]),
                expect=Expect.error("no message_stop"),
            ),
            Shape(
                kind="buffered:no-stop_reason",
                mode="buffered",
                body=_dumps(message(None)).encode(),
                expect=Expect.error("stop_reason: null"),
            ),
        ]

    return Dialect(
        model=model,
        events=events,
        completion=lambda: message("end_turn"),
        error_body=error_body,
        error_event=lambda kind: _event(error_body(kind), "error"),
        eol=b"\n",
        vendor=vendor,
    )


# --- Gemini -------------------------------------------------------------------------------------

_GEMINI_ERRORS = {
    "rate-limit": (429, "Resource has been exhausted (e.g. check quota).", "RESOURCE_EXHAUSTED"),
    "overloaded": (503, "The model is overloaded. Please try again later.", "UNAVAILABLE"),
    "server-error": (500, "An internal error has occurred. Please retry.", "INTERNAL"),
    "context-overflow": (
        400,
        "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
        "INVALID_ARGUMENT",
    ),
}
_CRLF = b"\r\n"


def _gemini(model: str) -> Dialect:
    def chunk(text: str | None, finish: str | None, *, candidates: bool = True) -> dict[str, Any]:
        candidate: dict[str, Any] = {"index": 0}
        if text is not None:
            candidate["content"] = {"parts": [{"text": text}], "role": "model"}
        if finish:
            candidate["finishReason"] = finish
        usage: dict[str, Any] = {"promptTokenCount": 9, "totalTokenCount": 9}
        if finish:
            usage = {"promptTokenCount": 9, "candidatesTokenCount": 2, "totalTokenCount": 11}
        return {
            "candidates": [candidate] if candidates else [],
            "usageMetadata": usage,
            "modelVersion": model,
            "responseId": "corpus",
        }

    def event(value: dict[str, Any]) -> bytes:
        return _event(value, eol=_CRLF)

    def events() -> list[bytes]:
        return [event(chunk("Hello", None)), event(chunk(" world", "STOP"))]

    def error_body(kind: str) -> dict[str, Any]:
        code, text, status = _GEMINI_ERRORS[kind]
        return {"error": {"code": code, "message": text, "status": status}}

    def vendor() -> list[Shape]:
        empty = chunk(None, None, candidates=False)
        malformed = chunk(None, "MALFORMED_FUNCTION_CALL")
        malformed["candidates"][0]["finishMessage"] = "Malformed function call: print(default_api"
        unfinished = chunk(" world", None)
        whole = chunk("Hello world", "STOP")
        whole_unfinished = chunk("Hello world", None)
        shapes: list[Shape] = []
        for mode in ("stream", "buffered"):
            pick: Callable[[list[dict[str, Any]]], bytes] = (
                (lambda chunks: b"".join(event(c) for c in chunks))
                if mode == "stream"
                else (lambda chunks: _dumps(chunks[-1]).encode())
            )
            shapes += [
                Shape(
                    kind=f"{mode}:candidates-empty",
                    mode=mode,
                    body=pick([empty]),
                    expect=Expect.error("candidates: []"),
                ),
                Shape(
                    kind=f"{mode}:finishReason-MALFORMED_FUNCTION_CALL",
                    mode=mode,
                    body=pick([chunk("Hello", None), malformed]),
                    expect=Expect.error("finishReason MALFORMED_FUNCTION_CALL"),
                ),
                Shape(
                    kind=f"{mode}:no-finishReason",
                    mode=mode,
                    body=pick([chunk("Hello", None), unfinished])
                    if mode == "stream"
                    else pick([whole_unfinished]),
                    expect=Expect.error("no finishReason"),
                ),
            ]
        del whole
        return shapes

    return Dialect(
        model=model,
        events=events,
        completion=lambda: chunk("Hello world", "STOP"),
        error_body=error_body,
        error_event=lambda kind: event(error_body(kind)),
        eol=_CRLF,
        vendor=vendor,
    )


# --- the shapes every family gets -------------------------------------------------------------


def _common(dialect: Dialect) -> Iterator[Shape]:
    stream = b"".join(dialect.events())
    completion = _dumps(dialect.completion()).encode()
    eol = dialect.eol
    natural = {"stream": "text/event-stream", "buffered": "application/json"}
    yield Shape(
        kind="stream:clean",
        mode="stream",
        body=stream,
        expect=Expect(kind="answer", answer=CLEAN, why="control"),
    )
    yield Shape(
        kind="buffered:clean",
        mode="buffered",
        body=completion,
        expect=Expect(kind="answer", answer=CLEAN, why="control"),
    )
    modes: tuple[CallMode, CallMode] = ("stream", "buffered")
    for mode in modes:
        ct = natural[mode]
        yield Shape(
            kind=f"{mode}:empty-200",
            mode=mode,
            body=b"",
            content_type=ct,
            expect=Expect.error("empty body"),
        )
        yield Shape(
            kind=f"{mode}:whitespace-200",
            mode=mode,
            body=b" \n\r\n\t \n",
            content_type=ct,
            expect=Expect.error("whitespace body"),
        )
        for html_ct in ("text/html; charset=utf-8", "application/json", "text/event-stream"):
            yield Shape(
                kind=f"{mode}:html-200[{html_ct.split(';')[0]}]",
                mode=mode,
                body=HTML,
                content_type=html_ct,
                expect=Expect.error("HTML page"),
            )
        for error_kind, error_class in ERROR_CLASSES.items():
            yield Shape(
                kind=f"{mode}:error-json-200[{error_kind}]",
                mode=mode,
                body=_dumps(dialect.error_body(error_kind)).encode(),
                content_type="application/json",
                expect=Expect.error(f"vendor error body ({error_kind})", error_class),
            )
        yield Shape(
            kind=f"{mode}:invalid-utf8-body",
            mode=mode,
            body=INVALID_UTF8,
            content_type=ct,
            expect=Expect.error("not UTF-8"),
        )
        garbled = (stream if mode == "stream" else completion).replace(b"Hello", b"Hel\xfflo")
        yield Shape(
            kind=f"{mode}:invalid-utf8-in-text",
            mode=mode,
            body=garbled,
            content_type=ct,
            expect=Expect(kind="either", answer=GARBLED, why="U+FFFD decoding or a typed error"),
        )
    yield Shape(
        kind="buffered:json-array",
        mode="buffered",
        body=b"[" + completion + b"]",
        expect=Expect.error("a JSON array, not an object"),
    )
    yield Shape(
        kind="buffered:nested-json",
        mode="buffered",
        body=_nested().encode(),
        expect=Expect.error(f"JSON nested {NESTING} deep"),
    )
    events = dialect.events()
    first, rest = events[0], events[1:]
    array_event = first.replace(b"data: {", b"data: [{", 1)
    array_event = array_event.replace(b"}" + eol + eol, b"}]" + eol + eol, 1)
    yield Shape(
        kind="stream:json-array-event",
        mode="stream",
        body=array_event + b"".join(rest),
        expect=Expect.error("an event whose data is a JSON array"),
    )
    yield Shape(
        kind="stream:nested-json-event",
        mode="stream",
        body=first + _event(_nested(), eol=eol) + b"".join(rest),
        expect=Expect.error(f"an event whose data is nested {NESTING} deep"),
    )
    garbage = (
        b"this line has no colon"
        + eol
        + eol
        + b": keep-alive comment"
        + eol
        + eol
        + b"retry: 1000"
        + eol
        + b"id: 7"
        + eol
        + eol
        + b"unknown-field: x"
        + eol
        + eol
    )
    yield Shape(
        kind="stream:sse-garbage-lines",
        mode="stream",
        body=first + garbage + b"".join(rest),
        expect=Expect(kind="either", answer=CLEAN, why="lines an SSE parser ignores"),
    )
    yield Shape(
        kind="stream:sse-garbage-data",
        mode="stream",
        body=first + b"data: {this is not json" + eol + eol + b"".join(rest),
        expect=Expect.error("a data line that is not JSON"),
    )
    for error_kind, error_class in ERROR_CLASSES.items():
        yield Shape(
            kind=f"stream:error-event-mid-stream[{error_kind}]",
            mode="stream",
            body=b"".join(events[:3]) + dialect.error_event(error_kind),
            expect=Expect.error(f"vendor error event ({error_kind})", error_class),
        )
    yield Shape(
        kind="stream:json-body-for-stream",
        mode="stream",
        body=completion,
        content_type="application/json",
        expect=Expect(kind="either", answer=CLEAN, why="a buffered answer to a streamed call"),
    )
    yield Shape(
        kind="buffered:sse-body-for-buffered",
        mode="buffered",
        body=stream,
        content_type="text/event-stream",
        expect=Expect(kind="either", answer=CLEAN, why="an event stream answering a buffered call"),
    )
    yield from dialect.vendor()


def _dialect(family: str) -> Dialect:
    if family == "openai-chat":
        return _chat("gpt-4o-mini")
    if family.startswith("compat:"):
        return _chat("local-model")
    if family == "openai-responses":
        return _responses("gpt-4.1-mini")
    if family == "anthropic":
        return _anthropic("claude-sonnet-4-6")
    if family == "gemini":
        return _gemini("gemini-2.5-flash")
    raise ValueError(family)


def shape_cases(families: tuple[str, ...] = VENDOR_FAMILIES + COMPAT_FAMILIES) -> Iterator[Case]:
    """Every hand-made shape for every family."""
    for family in families:
        dialect = _dialect(family)
        shapes = list(_common(dialect))
        if family.startswith("compat:"):
            for server, body in COMPAT_OVERFLOWS.items():
                for mode in ("stream", "buffered"):
                    shapes.append(
                        Shape(
                            kind=f"{mode}:context-overflow-400[{server}]",
                            mode=mode,
                            body=_dumps(body).encode(),
                            content_type="application/json",
                            status=400,
                            expect=Expect.error(
                                f"{server} context overflow", ContextWindowExceededError
                            ),
                        )
                    )
        for shape in shapes:
            content_type = shape.content_type or (
                "text/event-stream" if shape.mode == "stream" else "application/json"
            )
            yield Case(
                family=family,
                kind=shape.kind,
                where="whole",
                mode=shape.mode,
                model=dialect.model,
                full=shape.body,
                status=shape.status,
                headers={"content-type": content_type},
                expect=shape.expect,
            )
