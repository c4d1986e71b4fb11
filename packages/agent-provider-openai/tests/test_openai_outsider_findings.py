"""Regressions for the outsider's broken-server findings (issue #14: every response is a correct
answer or a typed error), one class of finding per section, on both API surfaces and on the
buffered and streamed paths alike."""

from __future__ import annotations

import gzip
import json
import math
import re
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
import pytest
from _openai_wire import (  # pyright: ignore[reportImplicitRelativeImport]
    JSON,
    Api,
    Server,
    chunk,
    completion,
    event,
    response_object,
    run,
    sse,
)
from robota.core import Agent
from robota.core.errors import (
    ContentFilterError,
    MalformedResponseError,
    ProviderConnectionError,
    ProviderTimeoutError,
)
from robota.core.messages import (
    ProviderDetailsPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    UserMessage,
)
from robota.core.provider import ModelRequest, ModelResponse, ToolCallDelta
from robota.core.settings import ModelSettings
from robota.core.tools.base import RiskClass
from robota.core.tools.function import tool
from robota.providers.openai import OpenAIChatProvider, OpenAIResponsesProvider
from robota.providers.openai._errors import decoding_failure
from robota.providers.openai._sse import SseDecoder, SseEvent

pytestmark = pytest.mark.anyio

BOM = b"\xef\xbb\xbf"
MINTED = re.compile(r"^call_robota_\d+_[0-9a-f]{12}$")


def text_of(response: ModelResponse) -> str:
    return "".join(p.text for p in response.message.parts if isinstance(p, TextPart))


def calls_of(response: ModelResponse) -> list[ToolCallPart]:
    return [p for p in response.message.parts if isinstance(p, ToolCallPart) and not p.hosted]


def tool_delta(index: int | None, call_id: str | None, name: str | None, args: object) -> Any:
    entry: dict[str, Any] = {"type": "function", "function": {}}
    if index is not None:
        entry["index"] = index
    if call_id is not None:
        entry["id"] = call_id
    if name is not None:
        entry["function"]["name"] = name
    if args is not None:
        entry["function"]["arguments"] = args
    return entry


def tool_stream(*entries: dict[str, Any], finish: str = "tool_calls") -> bytes:
    deltas = [chunk(None, tool_calls=[e]) for e in entries]
    return sse(chunk(None, role="assistant"), *deltas, chunk(None, finish), done=True)


def with_content(document: dict[str, Any], content: object) -> dict[str, Any]:
    """A chunk whose ``delta.content`` is ``content`` (any JSON value)."""
    document["choices"][0]["delta"]["content"] = content
    return document


def buffered_chat(message: dict[str, Any], finish: str = "stop") -> Server:
    document = completion(finish=finish)
    document["choices"][0]["message"] = {"role": "assistant", **message}
    return Server(headers=JSON, body=json.dumps(document).encode())


# --- 1. a leading byte-order mark ---------------------------------------------------------------


def test_sse_decoder_strips_one_leading_bom_however_the_body_is_split() -> None:
    body = BOM + b'data: {"a": 1}\n\ndata: [DONE]\n\n'
    expected = [SseEvent(event="", data='{"a": 1}'), SseEvent(event="", data="[DONE]")]
    for size in (1, 2, 3, 4, len(body)):
        decoder = SseDecoder()
        events: list[SseEvent] = []
        for at in range(0, len(body), size):
            events += decoder.feed(body[at : at + size])
        assert [*events, *decoder.end()] == expected, size
    twice = SseDecoder()  # only one BOM is ignored: a second one is part of the field name
    assert twice.feed(BOM + BOM + b"data: x\n\ndata: y\n\n") == [SseEvent(event="", data="y")]
    lone = SseDecoder()  # a body that is only part of a BOM gives nothing, and no error
    assert lone.feed(BOM[:2]) == []
    assert lone.end() == []


async def test_a_bom_never_costs_the_first_event() -> None:
    chat = sse(chunk("Hello", role="assistant"), chunk(" world", "stop"), done=True)
    call = tool_stream(tool_delta(0, "call_1", "f", '{"x": 1}'))
    streamed = sse(
        event("response.output_text.delta", output_index=0, content_index=0, delta="Hi"),
        event("response.completed", response=response_object()),
    )
    cases: list[tuple[Api, bytes]] = [("chat", chat), ("chat", call), ("responses", streamed)]
    for api, body in cases:
        plain = await run(Server(body=body).provider(api), stream=True)
        marked = await run(Server(body=BOM + body).provider(api), stream=True)
        assert plain.response is not None
        assert marked.response is not None
        assert marked.response.message == plain.response.message
    outcome = await run(Server(body=BOM + call).provider("chat"), stream=True)
    assert outcome.response is not None
    assert calls_of(outcome.response)[0].name == "f"


# --- 2. streamed tool-call deltas without an index ----------------------------------------------


async def test_tool_call_deltas_are_keyed_by_index_then_id_then_the_call_before() -> None:
    cases: list[tuple[bytes, list[tuple[str, dict[str, Any]]]]] = [
        (  # no index, distinct ids: two calls
            tool_stream(tool_delta(None, "a", "f", '{"x": 1}'), tool_delta(None, "b", "g", "{}")),
            [("f", {"x": 1}), ("g", {})],
        ),
        (  # no index, the id repeated on every fragment: one call
            tool_stream(tool_delta(None, "a", "f", '{"x"'), tool_delta(None, "a", None, ": 1}")),
            [("f", {"x": 1})],
        ),
        (  # no index, no id: a fragment continues the call before it
            tool_stream(
                tool_delta(None, "a", "f", '{"x"'),
                tool_delta(None, None, None, ": 1}"),
                tool_delta(None, "b", "g", '{"y"'),
                tool_delta(None, None, None, ": 2}"),
            ),
            [("f", {"x": 1}), ("g", {"y": 2})],
        ),
        (  # the same index with a new id: another call (servers that send index 0 for all)
            tool_stream(tool_delta(0, "a", "f", '{"x": 1}'), tool_delta(0, "b", "g", '{"y": 2}')),
            [("f", {"x": 1}), ("g", {"y": 2})],
        ),
        (  # interleaved indexes, ids only on the first fragment (OpenAI's own shape)
            tool_stream(
                tool_delta(0, "a", "f", '{"x"'),
                tool_delta(1, "b", "g", '{"y"'),
                tool_delta(0, None, None, ": 1}"),
                tool_delta(1, None, None, ": 2}"),
            ),
            [("f", {"x": 1}), ("g", {"y": 2})],
        ),
    ]
    for body, expected in cases:
        outcome = await run(Server(body=body).provider("chat"), stream=True)
        assert outcome.response is not None, outcome.error
        got = [(c.name, c.arguments) for c in calls_of(outcome.response)]
        assert got == expected
        indexes = {e.index for e in outcome.events if isinstance(e, ToolCallDelta)}
        assert indexes == set(range(len(expected)))


# --- 3. arguments sent as a JSON object ---------------------------------------------------------


async def test_arguments_sent_as_an_object_read_the_same_streamed_and_buffered() -> None:
    streamed = Server(body=tool_stream(tool_delta(0, "c", "f", {"x": 1, "s": "é"})))
    call = tool_delta(None, "c", "f", {"x": 1, "s": "é"})
    buffered = buffered_chat({"content": None, "tool_calls": [call]}, "tool_calls")
    answers: list[tuple[str, dict[str, Any] | None, str]] = []
    for server, stream in ((streamed, True), (buffered, False)):
        outcome = await run(server.provider("chat"), stream=stream)
        assert outcome.response is not None, outcome.error
        (part,) = calls_of(outcome.response)
        answers.append((part.name, part.arguments, part.raw_arguments))
    assert answers[0] == answers[1] == ("f", {"x": 1, "s": "é"}, '{"x": 1, "s": "é"}')


# --- 4. content as a list of parts --------------------------------------------------------------


async def test_content_parts_are_joined_on_both_paths() -> None:
    parts = [
        {"type": "thinking", "thinking": [{"type": "text", "text": "Hmm."}]},
        {"type": "text", "text": "Hello"},
        {"type": "output_text", "text": " world"},
    ]
    streamed = Server(
        body=sse(
            with_content(chunk(None, role="assistant"), parts[:2]),
            with_content(chunk(None, "stop"), parts[2:]),
            done=True,
        )
    )
    for server, stream in ((streamed, True), (buffered_chat({"content": parts}), False)):
        outcome = await run(server.provider("chat"), stream=stream)
        assert outcome.response is not None, outcome.error
        assert text_of(outcome.response) == "Hello world"
        thinking = [p.text for p in outcome.response.message.parts if isinstance(p, ThinkingPart)]
        assert thinking == ["Hmm."]
        assert outcome.response.finish_reason == "stop"


@pytest.mark.parametrize(
    "content",
    [[{"type": "image_url", "image_url": {"url": "x"}}], ["Hello"], {"text": "Hello"}, 42],
    ids=["unknown part type", "part not an object", "an object", "a number"],
)
async def test_unreadable_content_is_refused_on_both_paths(content: object) -> None:
    streamed = Server(body=sse(with_content(chunk(None, "stop"), content), done=True))
    for server, stream in ((streamed, True), (buffered_chat({"content": content}), False)):
        outcome = await run(server.provider("chat"), stream=stream)
        assert isinstance(outcome.error, MalformedResponseError), outcome
        assert outcome.error.missing == "readable message content"


# --- 5. a Responses final event without its output ----------------------------------------------


def _responses_stream(*events: dict[str, Any], final_output: bool = False) -> bytes:
    final = response_object()
    if not final_output:
        final["output"] = []
    return sse(*events, event("response.completed", response=final))


async def test_a_final_event_without_output_answers_what_was_streamed() -> None:
    message = {"type": "message", "id": "msg_1", "role": "assistant", "content": []}
    message["status"] = "in_progress"
    call = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f"}
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": []}
    body = _responses_stream(
        event("response.output_item.added", output_index=0, item=reasoning),
        event("response.reasoning_summary_text.delta", output_index=0, summary_index=0, delta="R"),
        event("response.output_item.added", output_index=1, item=message),
        event("response.output_text.delta", output_index=1, content_index=0, delta="Hel"),
        event("response.output_text.delta", output_index=1, content_index=0, delta="lo"),
        event("response.output_item.added", output_index=2, item={**call, "arguments": ""}),
        event("response.function_call_arguments.delta", output_index=2, delta='{"x": 1}'),
    )
    outcome = await run(Server(body=body).provider("responses"), stream=True)
    assert outcome.response is not None, outcome.error
    parts = outcome.response.message.parts
    assert [p.text for p in parts if isinstance(p, ThinkingPart)] == ["R"]
    assert text_of(outcome.response) == "Hello"
    headers = [p.data for p in parts if isinstance(p, ProviderDetailsPart)]
    assert headers == [
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed"}
    ]
    (part,) = calls_of(outcome.response)
    assert (part.id, part.name, part.arguments, part.signature) == ("call_1", "f", {"x": 1}, "fc_1")
    assert outcome.response.finish_reason == "tool_calls"


async def test_a_done_item_or_the_final_output_wins_over_deltas() -> None:
    done = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Final"}],
    }
    delta = event("response.output_text.delta", output_index=0, content_index=0, delta="Fin")
    with_done = _responses_stream(
        delta, event("response.output_item.done", output_index=0, item=done)
    )
    only_text_done = _responses_stream(
        event("response.output_text.done", output_index=0, content_index=0, text="Whole")
    )
    with_output = _responses_stream(delta, final_output=True)  # response_object says "ok"
    for body, expected in ((with_done, "Final"), (only_text_done, "Whole"), (with_output, "ok")):
        outcome = await run(Server(body=body).provider("responses"), stream=True)
        assert outcome.response is not None, outcome.error
        assert text_of(outcome.response) == expected


# --- 6. refusals --------------------------------------------------------------------------------

REFUSAL = "I'm sorry, I can't help with that."


async def test_a_chat_refusal_finishes_content_filter_streamed_and_buffered() -> None:
    streamed = Server(
        body=sse(
            chunk(None, role="assistant", refusal=""),
            chunk(None, refusal=REFUSAL[:10]),
            chunk(None, "stop", refusal=REFUSAL[10:]),
            done=True,
        )
    )
    buffered = buffered_chat({"content": None, "refusal": REFUSAL})
    for server, stream in ((streamed, True), (buffered, False)):
        outcome = await run(server.provider("chat"), stream=stream)
        assert outcome.response is not None, outcome.error
        assert text_of(outcome.response) == REFUSAL
        message = outcome.response.message
        assert (message.finish_reason, message.raw_finish_reason) == ("content_filter", "refusal")


async def test_a_responses_refusal_finishes_content_filter_streamed_and_buffered() -> None:
    refused = response_object()
    refused["output"][0]["content"] = [{"type": "refusal", "refusal": REFUSAL}]
    streamed = Server(
        body=sse(
            event("response.refusal.delta", output_index=0, content_index=0, delta=REFUSAL),
            event("response.completed", response=refused),
        )
    )
    buffered = Server(headers=JSON, body=json.dumps(refused).encode())
    for server, stream in ((streamed, True), (buffered, False)):
        outcome = await run(server.provider("responses"), stream=stream)
        assert outcome.response is not None, outcome.error
        assert text_of(outcome.response) == REFUSAL
        response = outcome.response
        assert (response.finish_reason, response.raw_finish_reason) == ("content_filter", "refusal")


async def test_an_agent_run_on_a_streamed_refusal_raises_content_filter_error() -> None:
    body = sse(chunk(None, role="assistant", refusal=REFUSAL), chunk(None, "stop"), done=True)
    server = Server(body=body)
    agent = Agent(server.provider("chat"), model="gpt-4o", retry=None)
    with pytest.raises(ContentFilterError) as raised:
        await agent.run("Explain.")
    assert raised.value.vendor_type == "refusal"


# --- 7. a tool-call finish without a tool call --------------------------------------------------


@pytest.mark.parametrize("raw", ["tool_calls", "function_call"])
async def test_a_tool_call_finish_without_a_call_is_malformed(raw: str) -> None:
    streamed = Server(
        body=sse(chunk("Let me look.", role="assistant"), chunk(None, raw), done=True)
    )
    for server, stream in (
        (streamed, True),
        (buffered_chat({"content": "Let me look."}, raw), False),
    ):
        outcome = await run(server.provider("chat"), stream=stream)
        assert isinstance(outcome.error, MalformedResponseError), outcome
        assert outcome.error.missing == "tool call announced by finish_reason"


# --- 8. tool calls without ids ------------------------------------------------------------------


async def test_calls_without_ids_get_distinct_minted_ids_on_every_path() -> None:
    streamed = Server(
        body=tool_stream(tool_delta(0, None, "f", '{"x": 1}'), tool_delta(1, None, "f", "{}"))
    )
    plain = [tool_delta(None, None, "f", '{"x": 1}'), tool_delta(None, None, "f", "{}")]
    buffered = buffered_chat({"content": None, "tool_calls": plain}, "tool_calls")
    item = {"type": "function_call", "name": "f", "arguments": "{}"}
    responses = response_object(output=[item, dict(item)])
    buffered_responses = Server(headers=JSON, body=json.dumps(responses).encode())
    paths: list[tuple[Server, Api, bool]] = [
        (streamed, "chat", True),
        (buffered, "chat", False),
        (buffered_responses, "responses", False),
    ]
    for server, api, stream in paths:
        outcome = await run(server.provider(api), stream=stream)
        assert outcome.response is not None, outcome.error
        ids = [c.id for c in calls_of(outcome.response)]
        assert len(ids) == 2
        assert len(set(ids)) == 2
        assert all(MINTED.match(i) for i in ids), ids


async def test_minted_ids_pair_calls_and_results_on_the_next_request() -> None:
    first = tool_stream(tool_delta(0, None, "echo", '{"x": 1}'), tool_delta(1, None, "echo", "{}"))
    second = sse(chunk("done", "stop", role="assistant"), done=True)
    replies = iter([first, second])
    bodies: list[dict[str, Any]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=next(replies)
        )

    @tool(risk=RiskClass.INSPECT)
    def echo(x: int = 0) -> str:
        """Echo.

        Args:
            x: Echoed.
        """
        return str(x)

    client = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    agent = Agent(OpenAIChatProvider("sk-test", http_client=client), model="gpt-4o", tools=[echo])
    result = await agent.run("Go.")
    assert result.text == "done"
    messages = bodies[1]["messages"]
    ids = [c["id"] for m in messages for c in m.get("tool_calls") or []]
    results = [m["tool_call_id"] for m in messages if m.get("role") == "tool"]
    assert len(set(ids)) == 2
    assert sorted(ids) == sorted(results)
    assert all(MINTED.match(i) for i in ids)


# --- 9. OPENAI_CUSTOM_HEADERS -------------------------------------------------------------------

SECRET = "sk-env-SECRET"


@pytest.mark.parametrize("api", ["chat", "responses"])
@pytest.mark.parametrize(
    ("key", "base_url"),
    [
        (None, "http://127.0.0.1:8080/v1"),
        ("sk-mine", "http://127.0.0.1:8080/v1"),
        ("sk-mine", None),
    ],
)
async def test_environment_custom_headers_are_never_sent(
    api: Api, key: str | None, base_url: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv(
        "OPENAI_CUSTOM_HEADERS", f"Authorization: Bearer {SECRET}\nX-Api-Key: {SECRET}"
    )
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, headers=JSON, content=b"{}")

    client = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    kind = OpenAIChatProvider if api == "chat" else OpenAIResponsesProvider
    provider = kind(key, base_url=base_url, http_client=client)
    await run(provider, stream=False)
    (request,) = seen
    assert not [name for name, value in request.headers.items() if SECRET in value]
    assert "x-api-key" not in request.headers
    authorization = request.headers.get("authorization")
    assert authorization == (f"Bearer {key}" if key else None)


# --- 10. a stream that keeps the connection open without events ---------------------------------


class Trickle(httpx.AsyncByteStream):
    """``head``, then ``piece`` every ``every`` seconds ``count`` times (None: forever), then
    ``tail``."""

    def __init__(
        self, head: bytes, piece: bytes, every: float, count: int | None, tail: bytes = b""
    ) -> None:
        self.head, self.piece, self.every, self.count, self.tail = head, piece, every, count, tail

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.head
        sent = 0
        while self.count is None or sent < self.count:
            await anyio.sleep(self.every)
            yield self.piece
            sent += 1
        yield self.tail


def trickling(api: Api, stream: Trickle) -> OpenAIChatProvider | OpenAIResponsesProvider:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=stream)

    client = httpx.AsyncClient(transport=httpx.MockTransport(answer), timeout=None)
    kind = OpenAIChatProvider if api == "chat" else OpenAIResponsesProvider
    return kind("sk-test", http_client=client)


TIMED = ModelRequest(
    model="gpt-4o", messages=(UserMessage.of("x"),), settings=ModelSettings(timeout=0.3)
)


@pytest.mark.parametrize("api", ["chat", "responses"])
@pytest.mark.parametrize("piece", [b": keep-alive\n\n", b""], ids=["keep-alive", "silent"])
async def test_the_call_timeout_bounds_the_wait_for_each_event(api: Api, piece: bytes) -> None:
    provider = trickling(api, Trickle(b": hello\n\n", piece, 0.05, None))
    started = anyio.current_time()
    with anyio.fail_after(3):
        outcome = await run(provider, stream=True, request=TIMED)
    assert isinstance(outcome.error, ProviderTimeoutError), outcome
    assert anyio.current_time() - started < 1.5


async def test_a_slow_but_steady_stream_outlives_the_call_timeout() -> None:
    head = sse(chunk("", role="assistant"))
    tail = sse(chunk(None, "stop"), done=True)
    provider = trickling("chat", Trickle(head, sse(chunk("a")), 0.15, 4, tail))
    outcome = await run(provider, stream=True, request=TIMED)  # 0.6 s in all, 0.15 s apart
    assert outcome.response is not None, outcome.error
    assert text_of(outcome.response) == "aaaa"


# --- 11. usage numbers --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ((9, 3), (9, 3, False)),
        ((9.0, 3.0), (9, 3, False)),
        ((-9, 3), (0, 3, True)),
        (("9", "3"), (0, 0, True)),
        ((9.5, 3), (0, 3, True)),
        ((math.nan, 3), (0, 3, True)),
        ((math.inf, 3), (0, 3, True)),
        ((True, 3), (0, 3, True)),
        ((None, 3), (0, 3, True)),
    ],
)
@pytest.mark.parametrize("api", ["chat", "responses"])
async def test_unreadable_usage_counts_are_unknown_not_attested(
    api: Api, counts: tuple[object, object], expected: tuple[int, int, bool]
) -> None:
    names = (
        ("prompt_tokens", "completion_tokens")
        if api == "chat"
        else ("input_tokens", "output_tokens")
    )
    usage = {n: c for n, c in zip(names, counts, strict=True) if c is not None}
    if api == "chat":
        document = completion()
        document["usage"] = usage
    else:
        document = response_object(usage=usage)
    outcome = await run(
        Server(headers=JSON, body=json.dumps(document).encode()).provider(api),
        stream=False,
    )
    assert outcome.response is not None, outcome.error
    got = outcome.response.usage
    assert (got.input_tokens, got.output_tokens, got.partial) == expected


async def test_negative_detail_counts_are_never_reported() -> None:
    document = completion()
    document["usage"] = {
        "prompt_tokens": 9,
        "completion_tokens": 3,
        "prompt_tokens_details": {"cached_tokens": -4, "audio_tokens": -1},
        "completion_tokens_details": {"reasoning_tokens": "2", "audio_tokens": None},
    }
    outcome = await run(
        Server(headers=JSON, body=json.dumps(document).encode()).provider("chat"), stream=False
    )
    assert outcome.response is not None
    usage = outcome.response.usage
    assert (usage.cache_read_tokens, usage.reasoning_tokens, usage.partial) == (0, 0, True)
    assert dict(usage.details) == {}


# --- 12. a body that cannot be decoded ----------------------------------------------------------


@pytest.mark.parametrize("api", ["chat", "responses"])
async def test_a_broken_content_encoding_is_malformed_not_a_connection_error(api: Api) -> None:
    garbage = b"\x1f\x8b\x08\x00\x00\x00\x00\x00" + b"not deflate data" * 8
    for stream in (True, False):
        headers = {"content-type": "text/event-stream" if stream else "application/json"}
        server = Server(headers={**headers, "content-encoding": "gzip"}, body=garbage)
        outcome = await run(server.provider(api), stream=stream)
        assert isinstance(outcome.error, MalformedResponseError), outcome
        assert not isinstance(outcome.error, ProviderConnectionError)
    valid = Server(
        headers={"content-type": "application/json", "content-encoding": "gzip"},
        body=gzip.compress(json.dumps(completion()).encode()),
    )
    outcome = await run(valid.provider("chat"), stream=False)
    assert outcome.response is not None
    assert text_of(outcome.response) == "ok"


def test_decoding_failure_walks_the_cause_chain() -> None:
    inner = httpx.DecodingError("bad gzip")
    outer = RuntimeError("Connection error.")
    outer.__cause__ = inner
    top = ValueError("wrapped")
    top.__context__ = outer
    assert decoding_failure(top) is inner
    assert decoding_failure(httpx.ReadError("reset")) is None
