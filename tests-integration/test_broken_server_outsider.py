"""Outsider attack on issue #14: every provider response is a correct answer or a typed error
(a ``robota.core.errors.RobotaError`` of the right class), never a silent partial success, never
an untyped exception, never a hang.

What ``test_malformed_corpus.py`` does not try, against the real adapters (OpenAI Chat
Completions and Responses, Anthropic Messages, Gemini) over an injected ``httpx`` client, and
against the real ``Agent``:

* **framing**: bodies delivered 1–3 bytes at a time (split inside CRLF and UTF-8), CRLF / LF / CR
  line endings, a leading byte-order mark, ``data:`` without a space — on hand-made streams and on
  every recorded stream of ``../shared/cassettes/pydantic-ai``; a 5 MB single event;
* **stream semantics**: events after the final event, two ``[DONE]``, a finish then a server
  error event, interleaved / jumping / missing tool-call indexes, missing tool-call ids, tool
  arguments sent as an object, content sent as a list of parts, a final event without the
  output its deltas streamed, usage numbers that are negative, strings, fractions or missing;
* **HTTP**: 201/204/206/3xx/418/499/529/599, gzip garbage, a connection reset mid-body, a
  declared charset, Retry-After forms, bodies that lie about their status, ``"error": null``,
  vLLM's / llama.cpp's context-overflow wordings;
* **the Agent**: ``finish_reason`` ``length`` and content filtering per provider (and
  ``accept_truncated``), streamed refusals, leaving ``agent.stream()`` mid tool call, cancelling
  mid tool execution, steering after a cancellation, usage of a cancelled round, the next
  request's contents (no dangling tool call, no whitespace-only Anthropic text block, Responses
  reasoning / function-call / message ids in order), strict tools' ``null`` for optional fields,
  retries on by default;
* **configuration**: vendor keys and gateway headers from the environment against custom and
  look-alike base URLs, no key for the vendor endpoint;
* **hangs**: a real socket that goes silent or sends only keep-alive comments, with a per-call
  ``timeout``.

Every attempt asserts the promise, so a held promise passes and a broken one fails. The last
test prints ``malformed(outsider): tried=N held=H broken=B`` (collected by the repository's
conftest) and lists the broken attempts.

Run: ``uv run --frozen pytest tests-integration/test_broken_server_outsider.py``.
"""

from __future__ import annotations

import contextlib
import email.utils
import gzip
import itertools
import json
import os
import sys
import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from pydantic import BaseModel
from robota.core import Agent
from robota.core.agent import ModelToolCallDelta, RunResult
from robota.core.cancellation import CancelToken
from robota.core.errors import (
    ConfigurationError,
    ContentFilterError,
    ContextWindowExceededError,
    IncompleteToolCallError,
    InternalServerError,
    MalformedResponseError,
    OverloadedError,
    ProviderError,
    RateLimitError,
    RobotaError,
    TruncatedResponseError,
)
from robota.core.messages import (
    AssistantMessage,
    TextPart,
    ToolResultMessage,
    UserMessage,
)
from robota.core.provider import ModelRequest, Provider
from robota.core.settings import ModelSettings
from robota.core.tools.base import RiskClass
from robota.core.tools.function import FunctionTool, tool
from robota.providers.anthropic import AnthropicProvider
from robota.providers.google import GoogleProvider
from robota.providers.openai.chat import OpenAIChatProvider
from robota.providers.openai.responses import OpenAIResponsesProvider

sys.path.insert(0, str(Path(__file__).resolve().parent))  # for the broken_server helpers
from broken_server import (
    FAMILIES,
    MODELS,
    Answer,
    ChunkedBody,
    Family,
    Server,
    Tally,
    build,
    call,
    cassette_root,
    describe,
    is_typed,
    recorded_streams,
    stalling_server,
)
from broken_server.conversation import (
    dangling_calls,
    mentions,
    tool_call_reply,
    tool_call_stall,
    whitespace_text_blocks,
)
from broken_server.wire import (
    TEXT,
    anthropic_message,
    anthropic_stream,
    chat_chunk,
    chat_completion,
    chat_stream,
    chat_tool_stream,
    gemini_chunk,
    gemini_stream,
    line_endings,
    responses_object,
    responses_stream,
    sse,
    tiny_chunks,
)

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.integration,
    pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning"),
]

TALLY = Tally()
"""Every attempt of this module; the last test prints it."""

Outcome = Answer | BaseException
FULL_TEXT = "".join(TEXT)


def verdict(name: str, problems: Sequence[str]) -> None:
    """Record one attempt and fail the test when it broke the promise."""
    TALLY.record(name, problems)
    assert not problems, f"{name}: " + "; ".join(problems)


def untyped(outcome: Outcome) -> list[str]:
    if isinstance(outcome, BaseException) and not is_typed(outcome):
        return [f"untyped exception {describe(outcome)}"]
    return []


def same_or_typed(reference: Answer, outcome: Outcome) -> list[str]:
    """The reference answer exactly, or a typed error."""
    if isinstance(outcome, Answer):
        if outcome == reference:
            return []
        return [f"silent difference: expected {describe(reference)}; got {describe(outcome)}"]
    return untyped(outcome)


def typed_as(kind: type[BaseException], outcome: Outcome, **attrs: object) -> list[str]:
    """A typed error of class ``kind`` with the given attributes."""
    if not isinstance(outcome, kind):
        return [f"expected {kind.__name__}, got {describe(outcome)}"]
    wrong = [
        f"{name}={getattr(outcome, name, None)!r} (expected {value!r})"
        for name, value in attrs.items()
        if getattr(outcome, name, None) != value
    ]
    return [f"{kind.__name__} with " + ", ".join(wrong)] if wrong else []


CLEAN: Mapping[Family, Callable[[], bytes]] = {
    "openai-chat": lambda: chat_stream(),
    "openai-responses": lambda: responses_stream(),
    "anthropic": lambda: anthropic_stream(),
    "gemini": lambda: gemini_stream(),
}
_references: dict[Family, Answer] = {}


async def reference(family: Family) -> Answer:
    """The family's answer to its clean stream (checked once against the text sent)."""
    if family not in _references:
        outcome, _ = await call(family, CLEAN[family]())
        assert isinstance(outcome, Answer), f"clean {family} stream: {describe(outcome)}"
        assert outcome.text == FULL_TEXT, describe(outcome)
        assert outcome.finish_reason == "stop", describe(outcome)
        _references[family] = outcome
    return _references[family]


# --- A. framing --------------------------------------------------------------------------------

FRAMINGS = (
    "lf",
    "crlf",
    "cr",
    "tiny-chunks-lf",
    "tiny-chunks-crlf",
    "tiny-chunks-cr",
    "bom",
    "bom-tiny-chunks",
    "data-without-space",
    "crlf-split-between-reads",
    "utf8-split-between-reads",
)


def framed(family: Family, framing: str) -> bytes | ChunkedBody:
    body = CLEAN[family]()
    seed = zlib.crc32(f"{family}/{framing}".encode())
    if framing == "data-without-space":
        return body.replace(b"data: ", b"data:")
    if framing in ("bom", "bom-tiny-chunks"):
        body = b"\xef\xbb\xbf" + body
        return ChunkedBody(tiny_chunks(body, seed)) if framing.endswith("chunks") else body
    if framing == "crlf-split-between-reads":
        body = line_endings(body, b"\r\n")
        pieces = body.split(b"\r")
        return ChunkedBody([p + b"\r" for p in pieces[:-1]] + [pieces[-1]])
    if framing == "utf8-split-between-reads":
        cuts = [0] + [i for i in range(1, len(body)) if body[i] & 0xC0 == 0x80] + [len(body)]
        return ChunkedBody([body[a:b] for a, b in itertools.pairwise(cuts) if b > a])
    eol = {"lf": b"\n", "crlf": b"\r\n", "cr": b"\r"}[framing.rsplit("-", 1)[-1]]
    body = line_endings(body, eol)
    return ChunkedBody(tiny_chunks(body, seed)) if framing.startswith("tiny") else body


@pytest.mark.parametrize("framing", FRAMINGS)
@pytest.mark.parametrize("family", FAMILIES)
async def test_stream_framing_gives_the_same_answer(family: Family, framing: str) -> None:
    """Valid SSE framings (WHATWG §9.2.6: CRLF, LF or CR line ends, one leading U+FEFF ignored,
    ``data:`` with or without the space) and any network chunking must give the clean answer,
    or at worst a typed error — never a different answer."""
    ref = await reference(family)
    outcome, _ = await call(family, framed(family, framing))
    verdict(f"framing[{family}/{framing}]", same_or_typed(ref, outcome))


@dataclass(kw_only=True, slots=True)
class RecordedRun:
    attempts: int = 0
    problems: list[str] = field(default_factory=lambda: [])


@pytest.mark.parametrize("family", FAMILIES)
async def test_recorded_streams_survive_tiny_chunks_crlf_and_bom(family: Family) -> None:
    """Every recorded stream of the family, delivered 1–3 bytes at a time, with CRLF line ends
    (in tiny chunks), and with a leading BOM, gives the answer of the whole recorded body (or a
    typed error)."""
    root = cassette_root()
    if not root.is_dir():
        pytest.skip(f"no recorded traffic at {root}")
    run = RecordedRun()
    for recorded in recorded_streams(root):
        if recorded.family != family:
            continue
        whole, _ = await call(family, recorded.body, model=recorded.model)
        seed = zlib.crc32(recorded.source.encode())
        variants: dict[str, bytes | ChunkedBody] = {
            "tiny-chunks": ChunkedBody(tiny_chunks(recorded.body, seed)),
            "crlf-tiny-chunks": ChunkedBody(
                tiny_chunks(line_endings(recorded.body, b"\r\n"), seed + 1)
            ),
            "bom": b"\xef\xbb\xbf" + recorded.body,
        }
        for name, body in variants.items():
            outcome, _ = await call(family, body, model=recorded.model)
            run.attempts += 1
            if isinstance(whole, Answer):
                found = same_or_typed(whole, outcome)
            else:
                found = untyped(outcome)
                if isinstance(outcome, Answer):
                    found.append(f"answered {describe(outcome)} where the whole body failed")
            label = f"recorded[{family}:{recorded.source}/{name}]"
            TALLY.record(label, found)
            run.problems += [f"{label}: {p}" for p in found]
    if run.attempts == 0:
        pytest.skip(f"no recorded {family} stream")
    assert not run.problems, f"{len(run.problems)} of {run.attempts}:\n" + "\n".join(run.problems)


GIANT = 5 * 1024 * 1024


@pytest.mark.parametrize("family", FAMILIES)
async def test_giant_single_event(family: Family) -> None:
    """One 5 MB text delta (the stream delivered in 64 KB reads): the whole text, or a typed
    error, within the call limit."""
    big = "é" * (GIANT // 2)
    makers: Mapping[Family, Callable[[], bytes]] = {
        "openai-chat": lambda: chat_stream((big, "!")),
        "openai-responses": lambda: responses_stream((big, "!")),
        "anthropic": lambda: anthropic_stream((big, "!")),
        "gemini": lambda: gemini_stream((big, "!")),
    }
    body = makers[family]()
    outcome, _ = await call(
        family, ChunkedBody([body[i : i + 65536] for i in range(0, len(body), 65536)])
    )
    problems = untyped(outcome)
    if isinstance(outcome, Answer) and outcome.text != big + "!":
        problems.append(f"text of {len(outcome.text)} chars, expected {len(big) + 1}")
    verdict(f"giant-event[{family}]", problems)


# --- B. stream semantics -----------------------------------------------------------------------

Check = Callable[[Outcome], list[str]]


def answer(
    text: str | None = None,
    calls: Sequence[tuple[str, Mapping[str, Any]]] | None = None,
    finish: str | None = None,
) -> Check:
    """An answer with this text / these tool calls / this finish reason (None: not checked)."""

    def check(outcome: Outcome) -> list[str]:
        if not isinstance(outcome, Answer):
            return [f"expected an answer, got {describe(outcome)}"]
        problems: list[str] = []
        if text is not None and outcome.text != text:
            problems.append(f"text {outcome.text[:80]!r}, expected {text[:80]!r}")
        if calls is not None:
            wanted = tuple((n, json.dumps(a, sort_keys=True)) for n, a in calls)
            if outcome.tool_calls != wanted:
                problems.append(f"tool calls {outcome.tool_calls}, expected {wanted}")
        if finish is not None and outcome.finish_reason != finish:
            problems.append(f"finish {outcome.finish_reason}, expected {finish}")
        return problems

    return check


def answer_or_typed(expected: Check) -> Check:
    """``expected`` when it is an answer; any typed error is fine too."""

    def check(outcome: Outcome) -> list[str]:
        if isinstance(outcome, BaseException):
            return untyped(outcome)
        return expected(outcome)

    return check


def error(kind: type[BaseException], **attrs: object) -> Check:
    return lambda outcome: typed_as(kind, outcome, **attrs)


def typed() -> Check:
    def check(outcome: Outcome) -> list[str]:
        if isinstance(outcome, BaseException) and is_typed(outcome):
            return []
        return [f"expected a typed error, got {describe(outcome)}"]

    return check


@dataclass(frozen=True, kw_only=True, slots=True)
class Shape:
    name: str
    family: Family
    body: bytes | ChunkedBody | httpx.Response
    check: Check
    streaming: bool = True
    status: int = 200
    content_type: str | None = None
    headers: Mapping[str, str] = field(default_factory=lambda: {})
    base_url: str | None = None
    profile: str = "openai"


def _tool(
    index: int | None,
    call_id: str | None = None,
    name: str | None = None,
    arguments: object = None,
) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "function", "function": {}}
    if index is not None:
        entry["index"] = index
    if call_id is not None:
        entry["id"] = call_id
    if name is not None:
        entry["function"]["name"] = name
    if arguments is not None:
        entry["function"]["arguments"] = arguments
    return entry


def _typed_sse(kind: str, **fields: Any) -> bytes:
    return sse({"type": kind, **fields}, kind)


def semantics_shapes() -> list[Shape]:
    chat_error = sse({"error": {"message": "boom", "type": "server_error", "code": None}})
    overloaded_chunk = sse(
        {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}},
        eol="\r\n",
    )
    two_calls = [("f", {"x": 1}), ("g", {"y": 2})]
    content_list = (
        sse(chat_chunk({"role": "assistant", "content": [{"type": "text", "text": "Hello"}]}))
        + sse(chat_chunk({"content": [{"type": "text", "text": " world"}]}))
        + sse(chat_chunk({}, "stop"))
        + sse("[DONE]")
    )
    gemini_answer = gemini_chunk([{"text": "Hello world"}], "STOP")
    malformed_call = gemini_chunk(None, "MALFORMED_FUNCTION_CALL")
    malformed_call["candidates"][0]["finishMessage"] = "Malformed function call: print(default_api"
    no_candidates = {**gemini_chunk(None), "candidates": []}
    return [
        # events after the final event / duplicate final events
        Shape(
            name="chat: error event and garbage after [DONE]",
            family="openai-chat",
            body=chat_stream() + chat_error + b"data: {not json\n\n",
            check=answer(FULL_TEXT, finish="stop"),
        ),
        Shape(
            name="chat: two [DONE]",
            family="openai-chat",
            body=chat_stream(done=2),
            check=answer(FULL_TEXT, finish="stop"),
        ),
        Shape(
            name="anthropic: error event and garbage after message_stop",
            family="anthropic",
            body=anthropic_stream(
                tail=[
                    _typed_sse(
                        "error", error={"type": "overloaded_error", "message": "Overloaded"}
                    ),
                    b"data: {not json\n\n",
                ]
            ),
            check=answer(FULL_TEXT, finish="stop"),
        ),
        Shape(
            name="responses: error event after response.completed",
            family="openai-responses",
            body=responses_stream()
            + _typed_sse("error", code="server_error", message="late", param=None),
            check=answer(FULL_TEXT, finish="stop"),
        ),
        Shape(
            name="responses: response.completed twice",
            family="openai-responses",
            body=responses_stream()
            + _typed_sse("response.completed", response=responses_object("completed", [])),
            check=answer(FULL_TEXT, finish="stop"),
        ),
        # a finish, then a server error before the end of the stream
        Shape(
            name="chat: finish chunk, then an error event, then [DONE]",
            family="openai-chat",
            body=chat_stream(done=0) + chat_error + sse("[DONE]"),
            check=error(InternalServerError),
        ),
        Shape(
            name="anthropic: message_delta, then an overloaded error event",
            family="anthropic",
            body=anthropic_stream().split(b"event: message_stop")[0]
            + _typed_sse("error", error={"type": "overloaded_error", "message": "Overloaded"}),
            check=error(OverloadedError),
        ),
        Shape(
            name="gemini: chunk with finishReason, then an error chunk",
            family="gemini",
            body=gemini_stream() + overloaded_chunk,
            check=error(OverloadedError),
        ),
        # tool-call deltas
        Shape(
            name="chat: parallel tool calls with interleaved indexes",
            family="openai-chat",
            body=chat_tool_stream(
                [
                    _tool(0, "call_a", "f", '{"x"'),
                    _tool(1, "call_b", "g", '{"y"'),
                    _tool(0, arguments=": 1}"),
                    _tool(1, arguments=": 2}"),
                ]
            ),
            check=answer(calls=two_calls, finish="tool_calls"),
        ),
        Shape(
            name="chat: tool-call index jump 0 -> 5",
            family="openai-chat",
            body=chat_tool_stream(
                [_tool(0, "call_a", "f", '{"x": 1}'), _tool(5, "call_b", "g", '{"y": 2}')]
            ),
            check=answer(calls=two_calls, finish="tool_calls"),
        ),
        Shape(
            name="chat: two tool calls without an index (distinct ids)",
            family="openai-chat",
            body=chat_tool_stream(
                [_tool(None, "call_a", "f", '{"x": 1}'), _tool(None, "call_b", "g", '{"y": 2}')]
            ),
            check=answer_or_typed(answer(calls=two_calls)),
        ),
        Shape(
            name="chat: streamed tool-call arguments sent as a JSON object",
            family="openai-chat",
            body=chat_tool_stream([_tool(0, "call_a", "f", {"x": 1})]),
            check=answer_or_typed(answer(calls=[("f", {"x": 1})])),
        ),
        Shape(
            name="chat: buffered tool-call arguments sent as a JSON object",
            family="openai-chat",
            streaming=False,
            body=json.dumps(
                chat_completion(
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [_tool(None, "c", "f", {"x": 1})],
                    },
                    "tool_calls",
                )
            ).encode(),
            check=answer_or_typed(answer(calls=[("f", {"x": 1})])),
        ),
        # content shapes
        Shape(
            name="chat: streamed content as a list of text parts",
            family="openai-chat",
            body=content_list,
            check=answer_or_typed(answer("Hello world")),
        ),
        Shape(
            name="chat: buffered content as a list of text parts",
            family="openai-chat",
            streaming=False,
            body=json.dumps(
                chat_completion(
                    {"role": "assistant", "content": [{"type": "text", "text": "Hello world"}]}
                )
            ).encode(),
            check=answer_or_typed(answer("Hello world")),
        ),
        Shape(
            name="responses: text deltas streamed, final event without output, no item.done",
            family="openai-responses",
            body=responses_stream(final_output=False, item_done=False),
            check=answer_or_typed(answer(FULL_TEXT)),
        ),
        # Gemini's typed, retryable refusals to answer
        Shape(
            name="gemini stream: MALFORMED_FUNCTION_CALL",
            family="gemini",
            body=sse(malformed_call, eol="\r\n"),
            check=error(
                MalformedResponseError, recoverable=True, vendor_type="MALFORMED_FUNCTION_CALL"
            ),
        ),
        Shape(
            name="gemini buffered: MALFORMED_FUNCTION_CALL",
            family="gemini",
            streaming=False,
            body=json.dumps(malformed_call).encode(),
            check=error(
                MalformedResponseError, recoverable=True, vendor_type="MALFORMED_FUNCTION_CALL"
            ),
        ),
        Shape(
            name="gemini stream: candidates []",
            family="gemini",
            body=sse(no_candidates, eol="\r\n"),
            check=error(MalformedResponseError, recoverable=True, missing="candidates"),
        ),
        Shape(
            name="gemini buffered: candidates []",
            family="gemini",
            streaming=False,
            body=json.dumps(no_candidates).encode(),
            check=error(MalformedResponseError, recoverable=True, missing="candidates"),
        ),
        # bodies that say "error" without an error
        Shape(
            name='gemini buffered: complete answer carrying "error": null',
            family="gemini",
            streaming=False,
            body=json.dumps({**gemini_answer, "error": None}).encode(),
            check=answer("Hello world", finish="stop"),
        ),
        Shape(
            name='chat buffered: complete answer carrying "error": null',
            family="openai-chat",
            streaming=False,
            body=json.dumps(
                {**chat_completion({"role": "assistant", "content": "Hello world"}), "error": None}
            ).encode(),
            check=answer("Hello world", finish="stop"),
        ),
        Shape(
            name="anthropic: HTTP 500 whose body says rate_limit_error",
            family="anthropic",
            status=500,
            content_type="application/json",
            body=json.dumps(
                {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}
            ).encode(),
            check=error(RateLimitError),
        ),
        Shape(
            name="anthropic: HTTP 429 whose body says the prompt is too long",
            family="anthropic",
            status=429,
            content_type="application/json",
            body=json.dumps(
                {
                    "type": "error",
                    "error": {
                        "type": "invalid_request_error",
                        "message": "prompt is too long: 208310 tokens > 200000 maximum",
                    },
                }
            ).encode(),
            check=error(ContextWindowExceededError),
        ),
        Shape(
            name="chat: HTTP 500 whose body says context_length_exceeded",
            family="openai-chat",
            status=500,
            content_type="application/json",
            body=json.dumps(
                {
                    "error": {
                        "message": "This model's maximum context length is 128000 tokens.",
                        "type": "invalid_request_error",
                        "code": "context_length_exceeded",
                    }
                }
            ).encode(),
            check=error(ContextWindowExceededError),
        ),
        Shape(
            name="gemini: HTTP 503 whose body says the input token count exceeds the maximum",
            family="gemini",
            status=503,
            content_type="application/json",
            body=json.dumps(
                {
                    "error": {
                        "code": 400,
                        "message": "The input token count (1200000) exceeds the maximum number "
                        "of tokens allowed (1048576).",
                        "status": "INVALID_ARGUMENT",
                    }
                }
            ).encode(),
            check=error(ContextWindowExceededError),
        ),
        Shape(
            name="anthropic: content block index jump 0 -> 5",
            family="anthropic",
            body=anthropic_stream(
                blocks=[
                    _typed_sse(
                        "content_block_start", index=0, content_block={"type": "text", "text": ""}
                    ),
                    _typed_sse(
                        "content_block_delta",
                        index=0,
                        delta={"type": "text_delta", "text": "Hello"},
                    ),
                    _typed_sse("content_block_stop", index=0),
                    _typed_sse(
                        "content_block_start", index=5, content_block={"type": "text", "text": ""}
                    ),
                    _typed_sse(
                        "content_block_delta",
                        index=5,
                        delta={"type": "text_delta", "text": " world"},
                    ),
                    _typed_sse("content_block_stop", index=5),
                ]
            ),
            check=answer_or_typed(answer("Hello world")),
        ),
        Shape(
            name="anthropic: message_start twice",
            family="anthropic",
            body=anthropic_stream().replace(
                b"event: ping", anthropic_stream().split(b"event: ping")[0] + b"event: ping", 1
            ),
            check=typed(),
        ),
        Shape(
            name="responses: two function calls with interleaved argument deltas",
            family="openai-responses",
            body=responses_two_calls(),
            check=answer(calls=two_calls, finish="tool_calls"),
        ),
        *[
            Shape(
                name=f"{family}: buffered JSON body with a leading BOM",
                family=family,
                streaming=False,
                body=b"\xef\xbb\xbf" + BUFFERED[family](),
                check=answer_or_typed(answer("Hello world")),
            )
            for family in FAMILIES
        ],
    ]


def responses_two_calls() -> bytes:
    calls = [
        {
            "id": f"fc_{n}",
            "type": "function_call",
            "status": "completed",
            "call_id": f"call_{n}",
            "name": name,
            "arguments": arguments,
        }
        for n, name, arguments in ((1, "f", '{"x": 1}'), (2, "g", '{"y": 2}'))
    ]
    events = [_typed_sse("response.created", response=responses_object("in_progress", []))]
    for i, item in enumerate(calls):
        added = {**item, "status": "in_progress", "arguments": ""}
        events.append(_typed_sse("response.output_item.added", output_index=i, item=added))
    for piece in range(2):
        for i, item in enumerate(calls):
            text = str(item["arguments"])
            half = text[: len(text) // 2] if piece == 0 else text[len(text) // 2 :]
            events.append(
                _typed_sse(
                    "response.function_call_arguments.delta",
                    item_id=item["id"],
                    output_index=i,
                    delta=half,
                )
            )
    for i, item in enumerate(calls):
        events.append(_typed_sse("response.output_item.done", output_index=i, item=item))
    events.append(_typed_sse("response.completed", response=responses_object("completed", calls)))
    return b"".join(events)


BUFFERED: Mapping[Family, Callable[[], bytes]] = {
    "openai-chat": lambda: json.dumps(
        chat_completion({"role": "assistant", "content": "Hello world"})
    ).encode(),
    "openai-responses": lambda: json.dumps(
        responses_object(
            "completed",
            [
                {
                    "id": "msg_1",
                    "type": "message",
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "Hello world", "annotations": []}],
                }
            ],
        )
    ).encode(),
    "anthropic": lambda: json.dumps(
        anthropic_message([{"type": "text", "text": "Hello world"}])
    ).encode(),
    "gemini": lambda: json.dumps(gemini_chunk([{"text": "Hello world"}], "STOP")).encode(),
}


SEMANTICS = semantics_shapes()


async def run_shape(shape: Shape) -> Outcome:
    outcome, _ = await call(
        shape.family,
        shape.body,
        streaming=shape.streaming,
        status=shape.status,
        content_type=shape.content_type,
        headers=shape.headers,
        base_url=shape.base_url,
        profile=shape.profile,
    )
    return outcome


@pytest.mark.parametrize("shape", SEMANTICS, ids=[s.name for s in SEMANTICS])
async def test_stream_semantics(shape: Shape) -> None:
    outcome = await run_shape(shape)
    verdict(f"semantics[{shape.name}]", shape.check(outcome))


# --- B2. usage numbers ------------------------------------------------------------------------

USAGE_VARIANTS: Mapping[str, Mapping[Family, object]] = {
    "negative": {
        "openai-chat": {"prompt_tokens": -9, "completion_tokens": -3, "total_tokens": -12},
        "openai-responses": {"input_tokens": -9, "output_tokens": -3, "total_tokens": -12},
        "anthropic": {"input_tokens": -9, "output_tokens": -3},
        "gemini": {"promptTokenCount": -9, "candidatesTokenCount": -3, "totalTokenCount": -12},
    },
    "strings": {
        "openai-chat": {"prompt_tokens": "9", "completion_tokens": "3", "total_tokens": "12"},
        "openai-responses": {"input_tokens": "9", "output_tokens": "3", "total_tokens": "12"},
        "anthropic": {"input_tokens": "9", "output_tokens": "3"},
        "gemini": {"promptTokenCount": "9", "candidatesTokenCount": "3", "totalTokenCount": "12"},
    },
    "fractions": {
        "openai-chat": {"prompt_tokens": 9.5, "completion_tokens": 3.5, "total_tokens": 13},
        "openai-responses": {"input_tokens": 9.5, "output_tokens": 3.5, "total_tokens": 13},
        "anthropic": {"input_tokens": 9.5, "output_tokens": 3.5},
        "gemini": {"promptTokenCount": 9.5, "candidatesTokenCount": 3.5, "totalTokenCount": 13},
    },
    "nan": {
        "openai-chat": {"prompt_tokens": float("nan"), "completion_tokens": 3},
        "openai-responses": {"input_tokens": float("nan"), "output_tokens": 3},
        "anthropic": {"input_tokens": float("nan"), "output_tokens": 3},
        "gemini": {"promptTokenCount": float("nan"), "candidatesTokenCount": 3},
    },
    "huge": {
        "openai-chat": {"prompt_tokens": 10**30, "completion_tokens": 3},
        "openai-responses": {"input_tokens": 10**30, "output_tokens": 3},
        "anthropic": {"input_tokens": 10**30, "output_tokens": 3},
        "gemini": {"promptTokenCount": 10**30, "candidatesTokenCount": 3},
    },
}


def usage_body(family: Family, usage: object) -> bytes:
    if family == "openai-chat":
        return chat_stream(usage=usage)
    if family == "openai-responses":
        return responses_stream(usage=usage)
    if family == "anthropic":
        # message_start carries the input count, message_delta the output count
        if not isinstance(usage, Mapping):
            return anthropic_stream(start_usage=None, usage=None)
        counts: Mapping[str, object] = usage  # pyright: ignore[reportUnknownVariableType]
        return anthropic_stream(
            start_usage={"input_tokens": counts.get("input_tokens"), "output_tokens": 1},
            usage={"output_tokens": counts.get("output_tokens")},
        )
    return gemini_stream(usage=usage)


@pytest.mark.parametrize("variant", [*USAGE_VARIANTS, "missing"])
@pytest.mark.parametrize("family", FAMILIES)
async def test_usage_numbers(family: Family, variant: str) -> None:
    """Usage is part of the answer: counts are never negative, and counts the adapter could
    not read are flagged ``partial`` (never attested as a consistent zero) — or the response is
    a typed error."""
    usage: object = None if variant == "missing" else USAGE_VARIANTS[variant][family]
    outcome, _ = await call(family, usage_body(family, usage))
    problems = untyped(outcome)
    if isinstance(outcome, Answer):
        tokens = outcome.usage[:4]
        partial = outcome.usage[4]
        if any(n < 0 for n in tokens):
            problems.append(f"negative token counts attested: {outcome.usage}")
        if variant in ("strings", "fractions", "nan") and tokens[:2] != (9, 3) and not partial:
            problems.append(f"unreadable counts attested as {outcome.usage} (partial=False)")
        if variant == "missing" and not partial:
            problems.append(f"no usage sent, counts attested as {outcome.usage} (partial=False)")
        if outcome.text != FULL_TEXT:
            problems.append(f"text {outcome.text!r}")
    verdict(f"usage[{family}/{variant}]", problems)


# --- C. HTTP layer -----------------------------------------------------------------------------


def http_shapes() -> list[Shape]:
    shapes: list[Shape] = []
    html = b"<html><body><h1>Teapot</h1></body></html>"
    for family in FAMILIES:
        clean = CLEAN[family]()
        for status, body, check in (
            (201, clean, answer_or_typed(answer(FULL_TEXT))),
            (204, b"", typed()),
            (206, clean[: len(clean) // 2], typed()),
            (301, html, typed()),
            (302, b"", typed()),
            (418, html, typed()),
            (499, b"", typed()),
            (529, html, error(OverloadedError)),
            (599, b"", error(InternalServerError)),
        ):
            shapes.append(
                Shape(
                    name=f"{family}: HTTP {status} with {len(body)}-byte body",
                    family=family,
                    status=status,
                    body=body,
                    headers={"location": "https://elsewhere.example/"} if status < 400 else {},
                    check=check,
                )
            )
        garbage = b"\x1f\x8b\x08\x00\x00\x00\x00\x00" + b"this is not deflate data" * 8
        shapes += [
            Shape(
                name=f"{family}: content-encoding gzip, body garbage",
                family=family,
                body=garbage,
                headers={"content-encoding": "gzip"},
                check=error(MalformedResponseError),
            ),
            Shape(
                name=f"{family}: content-encoding gzip, valid",
                family=family,
                body=gzip.compress(clean),
                headers={"content-encoding": "gzip"},
                check=answer(FULL_TEXT),
            ),
            Shape(
                name=f"{family}: connection reset mid-body",
                family=family,
                body=ChunkedBody(
                    tiny_chunks(clean[: len(clean) // 2], 7, high=9),
                    error=httpx.ReadError("Connection reset by peer"),
                ),
                check=typed(),
            ),
            Shape(
                name=f"{family}: connection reset after the whole body",
                family=family,
                body=ChunkedBody([clean], error=httpx.ReadError("Connection reset by peer")),
                check=answer_or_typed(answer(FULL_TEXT)),
            ),
            Shape(
                name=f"{family}: peer closed mid-body (RemoteProtocolError)",
                family=family,
                body=ChunkedBody(
                    [clean[: len(clean) // 3]],
                    error=httpx.RemoteProtocolError("peer closed connection"),
                ),
                check=typed(),
            ),
            Shape(
                name=f"{family}: declared charset iso-8859-1 (SSE is UTF-8)",
                family=family,
                body=clean,
                content_type="text/event-stream; charset=iso-8859-1",
                check=answer_or_typed(answer(FULL_TEXT)),
            ),
        ]
    decoder = (
        "The decoder prompt (length 8825) is longer than the maximum model length of 8192. "
        "Make sure that `max_model_len` is no smaller than the number of text tokens."
    )
    v1 = (
        "The decoder prompt (length 5000) plus the number of requested output tokens (at least "
        "1) is longer than the model's maximum context length of 4096."
    )
    llamacpp = {
        "error": {
            "code": 400,
            "message": "the request exceeds the available context size, try increasing it",
            "type": "exceed_context_size_error",
            "n_prompt_tokens": 5000,
            "n_ctx": 4096,
        }
    }
    overflow_bodies: list[tuple[str, str, object, int]] = [
        (
            "vllm",
            "vLLM decoder-prompt wording, object error",
            {
                "object": "error",
                "message": decoder,
                "type": "BadRequestError",
                "param": None,
                "code": 400,
            },
            400,
        ),
        (
            "vllm",
            "vLLM decoder-prompt wording, error object",
            {"error": {"message": decoder, "type": "BadRequestError", "param": None, "code": 400}},
            400,
        ),
        (
            "vllm",
            "vLLM v1 wording",
            {"error": {"message": v1, "type": "BadRequestError", "param": None, "code": 400}},
            400,
        ),
        ("llamacpp", "llama.cpp overflow sent with HTTP 500", llamacpp, 500),
        ("openai", "llama.cpp overflow behind the default profile", llamacpp, 400),
    ]
    for profile, label, payload, status in overflow_bodies:
        for streaming in (True, False):
            shapes.append(
                Shape(
                    name=f"compat {label} ({'stream' if streaming else 'buffered'})",
                    family="openai-chat",
                    streaming=streaming,
                    status=status,
                    content_type="application/json",
                    body=json.dumps(payload).encode(),
                    base_url="http://127.0.0.1:8000/v1",
                    profile=profile,
                    check=error(ContextWindowExceededError),
                )
            )
    return shapes


HTTP = http_shapes()


@pytest.mark.parametrize("shape", HTTP, ids=[s.name for s in HTTP])
async def test_http_layer(shape: Shape) -> None:
    outcome = await run_shape(shape)
    problems = shape.check(outcome)
    if isinstance(outcome, Answer) and "iso-8859-1" in shape.name:
        # SSE is always UTF-8 (WHATWG §9.2.6); the declared charset may be ignored
        problems = [] if outcome.text == FULL_TEXT else problems
    verdict(f"http[{shape.name}]", problems)


# --- D. the Agent ------------------------------------------------------------------------------


@tool(risk=RiskClass.INSPECT)
async def slow(x: int = 0) -> str:
    """Wait a long time.

    Args:
        x: Ignored.
    """
    await anyio.sleep(60)
    return f"slow {x}"


def agent_for(family: Family, client: httpx.AsyncClient, **options: Any) -> Agent:
    provider = build(family, client)
    return Agent(provider, model=MODELS[family], tools=[slow], **options)


LENGTH: Mapping[Family, tuple[Callable[[], bytes], str]] = {
    "openai-chat": (lambda: chat_stream(finish="length"), "length"),
    "openai-responses": (
        lambda: responses_stream(status="incomplete", incomplete="max_output_tokens"),
        "incomplete:max_output_tokens",
    ),
    "anthropic": (lambda: anthropic_stream(stop="max_tokens"), "max_tokens"),
    "gemini": (lambda: gemini_stream(finish="MAX_TOKENS"), "MAX_TOKENS"),
}
FILTERED: Mapping[Family, tuple[Callable[[], bytes], str]] = {
    "openai-chat": (lambda: chat_stream(finish="content_filter"), "content_filter"),
    "openai-responses": (
        lambda: responses_stream(status="incomplete", incomplete="content_filter"),
        "incomplete:content_filter",
    ),
    "anthropic": (lambda: anthropic_stream(stop="refusal"), "refusal"),
    "gemini": (lambda: gemini_stream(finish="SAFETY"), "SAFETY"),
}


async def agent_run(family: Family, reply: bytes, **options: Any) -> tuple[object, Server]:
    server = Server(replies=[reply])
    async with server.client() as client:
        agent = agent_for(family, client, retry=None, **options)
        try:
            with anyio.fail_after(10):
                result: object = await agent.run("Explain.")
        except Exception as exc:
            result = exc
    return result, server


@pytest.mark.parametrize("family", FAMILIES)
async def test_agent_truncated_answer(family: Family) -> None:
    """``length`` through a real Agent: TruncatedResponseError (raw reason kept), and with
    ``accept_truncated=True`` the cut answer with finish ``length``."""
    make, raw = LENGTH[family]
    refused, _ = await agent_run(family, make())
    problems = typed_as(TruncatedResponseError, refused_outcome(refused), vendor_type=raw)
    accepted, _ = await agent_run(family, make(), accept_truncated=True)
    text = getattr(accepted, "text", None)
    finish = (
        getattr(accepted, "finish_reason", None),
        getattr(accepted, "raw_finish_reason", None),
    )
    if text != FULL_TEXT or finish != ("length", raw):
        problems.append(f"accept_truncated gave {accepted!r:.200}")
    verdict(f"agent-length[{family}]", problems)


def refused_outcome(value: object) -> Outcome:
    if isinstance(value, BaseException):
        return value
    return Answer(
        text=str(getattr(value, "text", "")),
        thinking="",
        tool_calls=(),
        finish_reason=getattr(value, "finish_reason", None),
        raw_finish_reason=getattr(value, "raw_finish_reason", None),
        usage=(0, 0, 0, 0, False),
    )


@pytest.mark.parametrize("family", FAMILIES)
async def test_agent_content_filter(family: Family) -> None:
    make, raw = FILTERED[family]
    result, _ = await agent_run(family, make())
    verdict(
        f"agent-content-filter[{family}]",
        typed_as(ContentFilterError, refused_outcome(result), vendor_type=raw),
    )


async def test_agent_streamed_chat_refusal() -> None:
    """OpenAI streams a refusal as ``delta.refusal`` (finish ``stop``); the buffered decoder
    returns it as the answer text. Streamed, it must be that text too — or a
    ContentFilterError — never an empty successful answer."""
    refusal = "I'm sorry, I can't help with that."
    body = (
        sse(chat_chunk({"role": "assistant", "content": None, "refusal": ""}))
        + sse(chat_chunk({"refusal": refusal[:10]}))
        + sse(chat_chunk({"refusal": refusal[10:]}))
        + sse(chat_chunk({}, "stop"))
        + sse(chat_chunk(None, usage={"prompt_tokens": 9, "completion_tokens": 9}))
        + sse("[DONE]")
    )
    result, _ = await agent_run("openai-chat", body)
    problems: list[str] = []
    if isinstance(result, BaseException):
        problems = typed_as(ContentFilterError, result)
    elif getattr(result, "text", None) != refusal:
        problems.append(
            f"successful run with text {getattr(result, 'text', None)!r} "
            f"finish={getattr(result, 'finish_reason', None)} (the refusal was dropped)"
        )
    verdict("agent-streamed-refusal[openai-chat]", problems)


@pytest.mark.parametrize("family", ["openai-chat", "anthropic"])
async def test_agent_tool_call_finish_without_a_tool_call(family: Family) -> None:
    """The response says it stopped to call tools (``tool_calls`` / ``tool_use``) but no tool
    call arrived (a gateway dropped it, a compatible server's tool parser failed): the run must
    not present the preamble as the final answer — a typed error is due."""
    preamble = ("Let me look that up.",)
    body = (
        chat_stream(preamble, finish="tool_calls")
        if family == "openai-chat"
        else anthropic_stream(preamble, stop="tool_use")
    )
    result, _ = await agent_run(family, body)
    problems: list[str] = []
    if not isinstance(result, BaseException):
        problems.append(
            f"successful run answering {getattr(result, 'text', None)!r} with finish "
            f"{getattr(result, 'finish_reason', None)} and no tool call"
        )
    else:
        problems = untyped(result)
    verdict(f"agent-tool-finish-without-call[{family}]", problems)


INCOMPLETE_CALL: Mapping[Family, Callable[[], bytes]] = {
    "openai-chat": lambda: chat_tool_stream(
        [_tool(0, "call_cut", "slow", '{"x": 1, "y": {"z": [1, 2')], finish="length"
    ),
    "anthropic": lambda: tool_call_reply("anthropic", '{"x": 1, "y": [1, 2').replace(
        b'"stop_reason":"tool_use"', b'"stop_reason":"max_tokens"'
    ),
    "openai-responses": lambda: (
        tool_call_reply("openai-responses", '{"x": 1, "y": [1')
        .replace(b'"type":"response.completed"', b'"type":"response.incomplete"')
        .replace(
            b'"status":"completed","error":null,"incomplete_details":null',
            b'"status":"incomplete","error":null,"incomplete_details":{"reason":"max_output_tokens"}',
        )
    ),
}


@pytest.mark.parametrize("family", list(INCOMPLETE_CALL))
async def test_agent_incomplete_tool_call(family: Family) -> None:
    """Tool arguments valid only as a prefix, cut at the token limit: IncompleteToolCallError,
    and no tool runs."""
    result, server = await agent_run(family, INCOMPLETE_CALL[family]())
    problems = typed_as(IncompleteToolCallError, refused_outcome(result))
    if len(server.seen) != 1:
        problems.append(f"{len(server.seen)} requests were sent")
    verdict(f"agent-incomplete-tool-call[{family}]", problems)


async def test_agent_tool_calls_without_ids_pair_their_results() -> None:
    """A compatible server that sends tool calls without ids: the calls get distinct ids (as the
    Gemini adapter does) or the response is a typed error — never two results that both answer
    ``tool_call_id: ""``."""
    first = chat_tool_stream(
        [_tool(0, None, "slow", '{"x": 1}'), _tool(1, None, "slow", '{"x": 2}')]
    )
    server = Server(replies=[first, chat_stream()])
    problems: list[str] = []

    @tool(risk=RiskClass.INSPECT, name="slow")
    def quick(x: int = 0) -> str:
        """Answer at once.

        Args:
            x: Echoed.
        """
        return f"quick {x}"

    async with server.client() as client:
        agent = Agent(
            build("openai-chat", client), model=MODELS["openai-chat"], tools=[quick], retry=None
        )
        try:
            await agent.run("Go.")
        except RobotaError:
            pass  # a typed refusal holds the promise
        except Exception as exc:
            problems.append(f"untyped {describe(exc)}")
    if len(server.seen) > 1:
        messages = server.seen[1].body["messages"]
        ids = [c.get("id") for m in messages for c in m.get("tool_calls") or []]
        answers = [m.get("tool_call_id") for m in messages if m.get("role") == "tool"]
        if any(not i for i in ids) or len(set(ids)) != len(ids):
            problems.append(f"next request pairs tool calls by ids {ids} and results by {answers}")
    verdict("agent-tool-calls-without-ids[openai-chat]", problems)


@pytest.mark.parametrize("family", FAMILIES)
async def test_leaving_the_stream_mid_tool_call(family: Family) -> None:
    """Leave ``agent.stream()`` while the model is writing a tool call (the server stalls): the
    run ends at once, a steer afterwards is refused, and the next run's request has no tool
    call without a result (and, for Anthropic, no whitespace-only text block)."""
    server = Server(replies=[ChunkedBody([tool_call_stall(family)], stall=True), CLEAN[family]()])
    problems: list[str] = []
    async with server.client() as client:
        agent = agent_for(family, client)
        with anyio.fail_after(5):
            async with agent.stream("Check it.") as stream:
                async for event in stream:
                    if isinstance(event, ModelToolCallDelta):
                        break
        if agent.steer("LEAKED-STEER"):
            problems.append("steer() after the stream was left returned True")
        with anyio.fail_after(10):
            result = await agent.run("And now?")
        if result.text != FULL_TEXT:
            problems.append(f"next run answered {result.text!r}")
    if len(server.seen) < 2:
        problems.append("no second request")
    else:
        body = server.seen[1].body
        problems += dangling_calls(family, body)
        if family == "anthropic":
            problems += [f"whitespace-only text block {b}" for b in whitespace_text_blocks(body)]
        if mentions(body, "LEAKED-STEER"):
            problems.append("the refused steer reached the next request")
    verdict(f"agent-leave-stream-mid-tool-call[{family}]", problems)


@pytest.mark.parametrize("family", FAMILIES)
async def test_cancel_mid_tool_execution_then_steer(family: Family) -> None:
    """Cancel (``anyio.move_on_after``) while the tool runs, after steering once during the run:
    steer() afterwards is False, and the next run's request answers every tool call and carries
    neither steer."""
    server = Server(replies=[tool_call_reply(family), CLEAN[family]()])
    problems: list[str] = []
    async with server.client() as client:
        agent = agent_for(family, client)

        async def steer_soon() -> None:
            await anyio.sleep(0.2)
            agent.steer("EARLY-STEER")

        with anyio.move_on_after(0.6):
            async with anyio.create_task_group() as group:
                group.start_soon(steer_soon)
                await agent.run("Run the tool.")
        if agent.steer("LATE-STEER"):
            problems.append("steer() after cancellation returned True")
        with anyio.fail_after(10):
            await agent.run("And now?")
    if len(server.seen) < 2:
        problems.append("no second request")
    else:
        body = server.seen[-1].body
        problems += dangling_calls(family, body)
        for needle in ("EARLY-STEER", "LATE-STEER"):
            if mentions(body, needle):
                problems.append(f"{needle} leaked into the next run")
    verdict(f"agent-cancel-mid-tool[{family}]", problems)


@pytest.mark.parametrize("family", ["anthropic", "gemini"])
async def test_cancelled_round_counts_reported_usage(family: Family) -> None:
    """The vendor reported 9 input tokens before the stream stalled; cancelling the run with its
    CancelToken resolves it interrupted and counts them."""
    if family == "anthropic":
        head = anthropic_stream().split(b"event: content_block_stop")[0]
    else:
        head = sse(gemini_chunk([{"text": "Hel"}]), eol="\r\n") + sse(
            gemini_chunk([{"text": "lo"}]), eol="\r\n"
        )
    server = Server(replies=[ChunkedBody([head], stall=True)])
    problems: list[str] = []
    async with server.client() as client:
        agent = agent_for(family, client)
        token = CancelToken()

        async def cancel_soon() -> None:
            await anyio.sleep(0.3)
            token.cancel("impatient user")

        results: list[RunResult] = []

        async def run_it() -> None:
            results.append(await agent.run("Go.", cancel=token))

        with anyio.fail_after(5):
            async with anyio.create_task_group() as group:
                group.start_soon(cancel_soon)
                group.start_soon(run_it)
    result = results[0]
    if not result.interrupted:
        problems.append("run not interrupted")
    if result.usage.input_tokens != 9:
        problems.append(f"usage {result.usage} (expected the 9 reported input tokens)")
    verdict(f"agent-cancel-usage[{family}]", problems)


async def test_responses_replay_keeps_reasoning_and_item_ids_in_order() -> None:
    rs1 = {
        "id": "rs_1",
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": "think"}],
        "encrypted_content": "ENC1",
    }
    msg = {
        "id": "msg_1",
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Calling.", "annotations": []}],
    }
    fc1 = {
        "id": "fc_1",
        "type": "function_call",
        "status": "completed",
        "call_id": "call_1",
        "name": "quick",
        "arguments": '{"x":1}',
    }
    rs2 = {"id": "rs_2", "type": "reasoning", "summary": [], "encrypted_content": "ENC2"}
    fc2 = {**fc1, "id": "fc_2", "call_id": "call_2", "arguments": '{"x":2}'}
    output = [rs1, msg, fc1, rs2, fc2]
    events = [_typed_sse("response.created", response=responses_object("in_progress", []))]
    events += [
        _typed_sse("response.output_item.done", output_index=i, item=item)
        for i, item in enumerate(output)
    ]
    # the final event carries no output: the collected items must be used
    events.append(_typed_sse("response.completed", response=responses_object("completed", [])))

    @tool(risk=RiskClass.INSPECT)
    def quick(x: int = 0) -> str:
        """Answer at once.

        Args:
            x: Echoed.
        """
        return f"quick {x}"

    server = Server(replies=[b"".join(events), responses_stream()])
    async with server.client() as client:
        agent = Agent(
            build("openai-responses", client, base_url=None), model="o4-mini", tools=[quick]
        )
        await agent.run("Go.")
    problems: list[str] = []
    sent = [
        (item.get("type"), item.get("id") or item.get("call_id"))
        for item in server.seen[1].body["input"]
        if item.get("role") != "user"
    ]
    wanted = [
        ("reasoning", "rs_1"),
        ("message", "msg_1"),
        ("function_call", "fc_1"),
        ("reasoning", "rs_2"),
        ("function_call", "fc_2"),
        ("function_call_output", "call_1"),
        ("function_call_output", "call_2"),
    ]
    if sent[: len(wanted)] != wanted:
        problems.append(f"replayed items {sent}, expected {wanted}")
    encrypted = [
        i.get("encrypted_content")
        for i in server.seen[1].body["input"]
        if i.get("type") == "reasoning"
    ]
    if encrypted != ["ENC1", "ENC2"]:
        problems.append(f"encrypted reasoning {encrypted}")
    verdict("agent-responses-replay-ids", problems)


async def test_anthropic_whitespace_only_text_blocks_never_decoded_nor_sent() -> None:
    """A streamed whitespace-only text block before a tool call is not kept as a part, and a
    history holding whitespace-only text (user, assistant, tool result, another provider's
    reasoning) sends no whitespace-only text block."""
    history = [
        UserMessage.of("   "),
        AssistantMessage(parts=(TextPart(text="\n\n"),)),
        UserMessage.of("Check it."),
    ]
    server = Server(replies=[tool_call_reply("anthropic"), anthropic_stream()])

    @tool(risk=RiskClass.INSPECT, name="slow")
    def quick(x: int = 0) -> str:
        """Answer with whitespace.

        Args:
            x: Ignored.
        """
        return "  \n "

    problems: list[str] = []
    async with server.client() as client:
        agent = Agent(
            build("anthropic", client),
            model=MODELS["anthropic"],
            tools=[quick],
            history=history,
            system_prompt="  ",
        )
        result = await agent.run("\t")
        for message in result.new_messages:
            if isinstance(message, AssistantMessage):
                blank = [p for p in message.parts if isinstance(p, TextPart) and not p.text.strip()]
                if blank:
                    problems.append(f"decoded whitespace-only text part {blank}")
    for seen in server.seen:
        problems += [
            f"sent whitespace-only text block {b}" for b in whitespace_text_blocks(seen.body)
        ]
        problems += dangling_calls("anthropic", seen.body)
    verdict("agent-anthropic-whitespace", problems)


class Inner(BaseModel):
    z: int = 0
    w: str = "d"


@tool(risk=RiskClass.INSPECT, strict=True)
def flat(x: int, y: int = 3) -> str:
    """Flat optional field.

    Args:
        x: Required.
        y: Optional.
    """
    return f"flat {x} {y}"


@tool(risk=RiskClass.INSPECT, strict=True)
def maybe_model(inner: Inner | None = None) -> str:
    """An optional model parameter.

    Args:
        inner: Optional settings.
    """
    return f"maybe {inner}"


@tool(risk=RiskClass.INSPECT, strict=True)
def maybe_list(items: list[Inner] | None = None) -> str:
    """An optional list of models.

    Args:
        items: Optional list.
    """
    return f"list {items}"


@tool(risk=RiskClass.INSPECT, strict=True)
def model_list(items: list[Inner]) -> str:
    """A list of models.

    Args:
        items: The list.
    """
    return f"list {items}"


STRICT_CASES: list[tuple[FunctionTool, dict[str, Any]]] = [
    (flat, {"x": 1, "y": None}),
    (maybe_model, {"inner": {"z": None, "w": None}}),
    (maybe_list, {"items": [{"z": None, "w": None}]}),
    (model_list, {"items": [{"z": None, "w": "a"}]}),
]


@pytest.mark.parametrize(
    ("strict_tool", "arguments"), STRICT_CASES, ids=[t.name for t, _ in STRICT_CASES]
)
async def test_strict_tool_null_for_optional_field_validates(
    strict_tool: FunctionTool, arguments: dict[str, Any]
) -> None:
    """OpenAI strict mode makes every optional field required and nullable; the model's
    ``null`` for an optional field must validate (the tool runs with the default)."""
    reply = chat_tool_stream([_tool(0, "call_s", strict_tool.name, json.dumps(arguments))])
    server = Server(replies=[reply, chat_stream()])
    async with server.client() as client:
        agent = Agent(
            build("openai-chat", client),
            model=MODELS["openai-chat"],
            tools=[strict_tool],
            retry=None,
        )
        await agent.run("Go.")
    sent_tools = server.seen[0].body.get("tools") or []
    results = [
        part
        for message in agent.history
        if isinstance(message, ToolResultMessage)
        for part in message.results
    ]
    problems = (
        [f"strict schema not sent: {sent_tools}"]
        if not sent_tools or not sent_tools[0]["function"].get("strict")
        else []
    )
    problems += [f"refused: {r.text[:200]!r}" for r in results if r.is_error]
    verdict(f"strict-null[{strict_tool.name}]", problems)


# --- D2. retries ------------------------------------------------------------------------------


def _json_response(
    status: int, body: object, headers: Mapping[str, str] | None = None
) -> httpx.Response:
    return httpx.Response(
        status,
        headers={"content-type": "application/json", **(headers or {})},
        content=json.dumps(body).encode(),
    )


OPENAI_RATE = {
    "error": {"message": "Rate limit reached", "type": "tokens", "code": "rate_limit_exceeded"}
}
OPENAI_5XX = {"error": {"message": "The server had an error", "type": "server_error", "code": None}}


def retry_cases() -> list[
    tuple[
        str,
        Family,
        list[httpx.Response | bytes],
        dict[str, Any],
        Callable[[object, int, float], list[str]],
    ]
]:
    def ok(requests: int) -> Callable[[object, int, float], list[str]]:
        def check(result: object, sent: int, seconds: float) -> list[str]:
            problems: list[str] = []
            if getattr(result, "text", None) != FULL_TEXT:
                problems.append(f"result {describe(result)}")
            if sent != requests:
                problems.append(f"{sent} requests, expected {requests}")
            return problems

        return check

    def fails(
        kind: type[BaseException], requests: int, within: float
    ) -> Callable[[object, int, float], list[str]]:
        def check(result: object, sent: int, seconds: float) -> list[str]:
            problems = typed_as(kind, refused_outcome(result))
            if sent != requests:
                problems.append(f"{sent} requests, expected {requests}")
            if seconds > within:
                problems.append(f"took {seconds:.1f}s")
            return problems

        return check

    past = "Wed, 21 Oct 2015 07:28:00 GMT"
    future = email.utils.formatdate(time.time() + 7200, usegmt=True)
    chat = chat_stream()
    first_text = chat_stream().split(b"\n\n")[0] + b"\n\n"
    malformed_call = gemini_chunk(None, "MALFORMED_FUNCTION_CALL")
    no_candidates = {**gemini_chunk(None), "candidates": []}
    return [
        (
            "default Agent retries a 503",
            "openai-chat",
            [_json_response(503, OPENAI_5XX), chat],
            {},
            ok(2),
        ),
        (
            "retry=None does not retry",
            "openai-chat",
            [_json_response(503, OPENAI_5XX), chat],
            {"retry": None},
            fails(OverloadedError, 1, 2.0),
        ),
        (
            "no retry after the first content event",
            "openai-chat",
            [first_text + sse({"error": OPENAI_5XX["error"]}), chat],
            {},
            fails(InternalServerError, 1, 2.0),
        ),
        (
            "Retry-After 3600 gives up at once",
            "openai-chat",
            [_json_response(429, OPENAI_RATE, {"retry-after": "3600"}), chat],
            {},
            fails(RateLimitError, 1, 2.0),
        ),
        (
            "Retry-After HTTP-date in 2 hours gives up at once",
            "openai-chat",
            [_json_response(429, OPENAI_RATE, {"retry-after": future}), chat],
            {},
            fails(RateLimitError, 1, 2.0),
        ),
        (
            "Retry-After HTTP-date in the past is retried",
            "openai-chat",
            [_json_response(429, OPENAI_RATE, {"retry-after": past}), chat],
            {},
            ok(2),
        ),
        (
            "Retry-After garbage is retried",
            "openai-chat",
            [_json_response(429, OPENAI_RATE, {"retry-after": "soon, maybe"}), chat],
            {},
            ok(2),
        ),
        (
            "retry-after-ms 200 is retried",
            "openai-chat",
            [_json_response(429, OPENAI_RATE, {"retry-after-ms": "200"}), chat],
            {},
            ok(2),
        ),
        (
            "anthropic 529 overloaded is retried",
            "anthropic",
            [
                _json_response(
                    529,
                    {
                        "type": "error",
                        "error": {"type": "overloaded_error", "message": "Overloaded"},
                    },
                ),
                anthropic_stream(),
            ],
            {},
            ok(2),
        ),
        (
            "gemini MALFORMED_FUNCTION_CALL is retried",
            "gemini",
            [sse(malformed_call, eol="\r\n"), gemini_stream()],
            {},
            ok(2),
        ),
        (
            "gemini candidates [] is retried",
            "gemini",
            [sse(no_candidates, eol="\r\n"), gemini_stream()],
            {},
            ok(2),
        ),
        (
            "gemini RetryInfo 1e400s gives up at once",
            "gemini",
            [
                _json_response(
                    429,
                    {
                        "error": {
                            "code": 429,
                            "message": "quota",
                            "status": "RESOURCE_EXHAUSTED",
                            "details": [
                                {
                                    "@type": "type.googleapis.com/google.rpc.RetryInfo",
                                    "retryDelay": "1e400s",
                                }
                            ],
                        }
                    },
                ),
                gemini_stream(),
            ],
            {},
            fails(RateLimitError, 1, 2.0),
        ),
    ]


RETRIES = retry_cases()


@pytest.mark.parametrize(
    ("name", "family", "replies", "options", "check"), RETRIES, ids=[c[0] for c in RETRIES]
)
async def test_retries_by_default(
    name: str,
    family: Family,
    replies: list[httpx.Response | bytes],
    options: dict[str, Any],
    check: Callable[[object, int, float], list[str]],
) -> None:
    server = Server(replies=list(replies))
    started = time.monotonic()
    async with server.client() as client:
        agent = Agent(build(family, client), model=MODELS[family], **options)
        try:
            with anyio.fail_after(15):
                result: object = await agent.run("Hi.")
        except Exception as exc:
            result = exc
    verdict(f"retry[{name}]", check(result, len(server.seen), time.monotonic() - started))


# --- E. configuration ---------------------------------------------------------------------------

SECRET = "sk-outsider-SECRET-from-env"
LOOKALIKES: Mapping[Family, tuple[str, ...]] = {
    "openai-chat": (
        "http://127.0.0.1:8080/v1",
        "https://api.openai.com.evil.example/v1",
        "http://api.openai.com/v1",
        "https://api.openai.com:8443/v1",
        "https://user:pw@api.openai.com/v1",
        "https://evil.example/api.openai.com/v1",
    ),
    "openai-responses": ("http://127.0.0.1:8080/v1", "https://api.openai.com.evil.example/v1"),
    "anthropic": (
        "http://127.0.0.1:4000",
        "https://api.anthropic.com.evil.example",
        "http://api.anthropic.com",
        "https://x@api.anthropic.com",
    ),
    "gemini": (
        "http://127.0.0.1:4000/",
        "https://generativelanguage.googleapis.com.evil.example/",
        "http://generativelanguage.googleapis.com/",
    ),
}
ENV_CREDENTIALS = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
)


def keyless(family: Family, client: httpx.AsyncClient, base_url: str) -> Provider:
    if family == "openai-chat":
        return OpenAIChatProvider(base_url=base_url, http_client=client)
    if family == "openai-responses":
        return OpenAIResponsesProvider(base_url=base_url, http_client=client)
    if family == "anthropic":
        return AnthropicProvider(base_url=base_url, http_client=client)
    return GoogleProvider(base_url=base_url, http_client=client)


def clear_vendor_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "ANTHROPIC_", "GEMINI_", "GOOGLE_")):
            monkeypatch.delenv(name)


async def sent_headers(family: Family, base_url: str) -> tuple[str, list[tuple[str, str]]]:
    server = Server(replies=[CLEAN[family]()])
    async with server.client() as client:
        provider = keyless(family, client, base_url)
        request = ModelRequest(model=MODELS[family], messages=(UserMessage.of("Hi"),))
        with contextlib.suppress(RobotaError):
            await Provider.complete(provider, request)
    if not server.seen:
        return "no request", []
    seen = server.seen[0]
    leaks = [(k, v) for k, v in seen.headers.items() if SECRET in v]
    if SECRET in seen.url:
        leaks.append(("url", seen.url))
    return seen.url, leaks


@pytest.mark.parametrize("family", FAMILIES)
async def test_env_keys_never_follow_a_custom_base_url(
    family: Family, monkeypatch: pytest.MonkeyPatch
) -> None:
    clear_vendor_env(monkeypatch)
    for name in ENV_CREDENTIALS:
        monkeypatch.setenv(name, SECRET)
    problems: list[str] = []
    for url in LOOKALIKES[family]:
        try:
            sent_to, leaks = await sent_headers(family, url)
        except RobotaError as exc:
            problems.append(f"{url}: construction failed {describe(exc)}")
            continue
        if leaks:
            problems.append(f"{url}: sent {leaks} to {sent_to}")
    verdict(f"config-env-key[{family}]", problems)


@pytest.mark.parametrize(
    ("variable", "family"),
    [
        ("OPENAI_CUSTOM_HEADERS", "openai-chat"),
        ("OPENAI_CUSTOM_HEADERS", "openai-responses"),
        ("ANTHROPIC_CUSTOM_HEADERS", "anthropic"),
    ],
)
async def test_env_gateway_headers_never_follow_a_custom_base_url(
    variable: str, family: Family, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Custom-header variables usually carry gateway credentials; with no key given, a custom
    base URL gets no credential header — neither ``Authorization`` nor one of these."""
    clear_vendor_env(monkeypatch)
    monkeypatch.setenv(variable, f"Authorization: Bearer {SECRET}\nX-Api-Key: {SECRET}")
    url = LOOKALIKES[family][0]
    sent_to, leaks = await sent_headers(family, url)
    verdict(
        f"config-env-headers[{variable}->{family}]",
        [f"sent {leaks} to {sent_to}"] if leaks else [],
    )


VENDOR_CTORS: Mapping[str, Callable[[], object]] = {
    "openai-chat": lambda: OpenAIChatProvider(),
    "openai-chat empty key": lambda: OpenAIChatProvider(""),
    "openai-responses": lambda: OpenAIResponsesProvider(),
    "anthropic": lambda: AnthropicProvider(),
    "anthropic empty key": lambda: AnthropicProvider(""),
    "gemini": lambda: GoogleProvider(),
}


@pytest.mark.parametrize("name", list(VENDOR_CTORS))
def test_vendor_endpoint_without_key_is_a_configuration_error(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    clear_vendor_env(monkeypatch)
    try:
        VENDOR_CTORS[name]()
    except ConfigurationError:
        problems: list[str] = []
    except Exception as exc:
        problems = [f"raised {describe(exc)}"]
    else:
        problems = ["constructed without a key"]
    verdict(f"config-no-key[{name}]", problems)


# --- F. hangs on a real socket -----------------------------------------------------------------

TIMEOUT = 0.3
HANG_LIMIT = 2.5


@pytest.mark.parametrize("mode", ["silent", "keepalive"])
@pytest.mark.parametrize("family", FAMILIES)
async def test_stalled_socket_honours_the_call_timeout(family: Family, mode: str) -> None:
    """A real server sends a 200 event-stream header, then nothing (``silent``) or only
    ``: keep-alive`` comments (``keepalive``). With ``ModelSettings(timeout=0.3)`` ("seconds per
    call") on a client without its own timeout, the call must end with a typed error well within
    2.5 s — never hang."""
    problems: list[str] = []
    async with stalling_server("silent" if mode == "silent" else "keepalive") as url:
        base = url + ("/v1" if family.startswith("openai") else "/" if family == "gemini" else "")
        async with httpx.AsyncClient(timeout=None) as client:
            provider = build(family, client, base_url=base)
            request = ModelRequest(
                model=MODELS[family],
                messages=(UserMessage.of("Hi"),),
                settings=ModelSettings(timeout=TIMEOUT),
            )
            started = time.monotonic()
            outcome: object
            try:
                with anyio.fail_after(HANG_LIMIT):
                    outcome = await Provider.complete(provider, request)
            except TimeoutError:
                outcome = None
                problems.append(
                    f"no outcome after {HANG_LIMIT}s (timeout={TIMEOUT}s was set): the call hangs"
                )
            except Exception as exc:
                outcome = exc
            seconds = time.monotonic() - started
    if outcome is not None and not isinstance(outcome, ProviderError):
        problems.append(f"after {seconds:.1f}s: {describe(outcome)}")
    verdict(f"hang[{family}/{mode}]", problems)


async def test_cancelling_a_stalled_agent_run_is_prompt() -> None:
    """A MockTransport stream that stalls forever (no timeout can fire): the caller's
    cancellation ends the run at once and the agent takes the next run."""
    problems: list[str] = []
    for family in FAMILIES:
        server = Server(replies=[ChunkedBody([CLEAN[family]()[:40]], stall=True), CLEAN[family]()])
        async with server.client() as client:
            agent = agent_for(family, client)
            started = time.monotonic()
            with anyio.move_on_after(0.3):
                await agent.run("Hi")
            if time.monotonic() - started > 1.5:
                problems.append(f"{family}: cancellation took {time.monotonic() - started:.1f}s")
            with anyio.fail_after(10):
                result = await agent.run("Again")
            if result.text != FULL_TEXT:
                problems.append(f"{family}: next run answered {result.text!r}")
    verdict("cancel-stalled-run", problems)


# --- summary -----------------------------------------------------------------------------------


def test_zz_broken_server_outsider_summary() -> None:
    """Print the figures of every attempt above (runs last: pytest keeps the file's order)."""
    print(TALLY.line())
    for broken in TALLY.broken:
        print(f"  BROKEN {broken[:300]}")
    assert TALLY.held or TALLY.broken, "no attempt ran"
