"""Every recorded stream, cut at every event boundary and inside every event, and split into
arbitrary network chunks: the adapter gives the recorded answer or a typed error — never a
shorter answer. Streams are discovered from the recordings' content (``_openai_recorded.py``).

Summary: ``malformed(openai <surface>): streams=S cuts=N answers=A typed_errors=E wrong=0``.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import _openai_recorded as READER  # pyright: ignore[reportImplicitRelativeImport]
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
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from robota.core.errors import MalformedResponseError
from robota.core.provider import ModelResponse
from robota.providers.openai._sse import SseDecoder


def recorded_streams() -> list[tuple[str, Api, bytes, Any]]:
    """(id, surface, body, expected answer) of every recorded stream that answered."""
    found: list[tuple[str, Api, bytes, Any]] = []
    for file, interactions in READER.recordings():
        for index, i in enumerate(interactions):
            if not (READER.is_model_call(i) and i.is_stream and i.status == 200):
                continue
            expected = READER.outcome(i)
            if isinstance(expected, READER.Expected):
                api: Api = "chat" if READER.surface(i.path) == "chat" else "responses"
                found.append((f"{file.stem}#{index}", api, i.body, expected))
    return found


STREAMS = recorded_streams()


EDGE = 96
"""Every one of the last ``EDGE`` bytes is a cut point (where the final event and ``[DONE]``
sit); elsewhere at most ``SPREAD`` event boundaries and as many cuts inside events, evenly
spread, so the largest recordings stay quick."""
SPREAD = 60


def _spread(points: list[int]) -> list[int]:
    if len(points) <= SPREAD:
        return points
    step = len(points) / SPREAD
    return [points[int(k * step)] for k in range(SPREAD)]


def cut_points(body: bytes) -> list[int]:
    """Where to cut ``body``: event boundaries, the middle of events, and the tail."""
    boundaries: list[int] = []
    middles: list[int] = []
    start = 0
    while (end := body.find(b"\n\n", start)) != -1:
        boundaries.extend((end, end + 1))
        middles.append((start + end) // 2)
        start = end + 2
    points = set(_spread(boundaries)) | set(_spread(middles))
    points |= set(range(max(0, len(body) - EDGE), len(body)))
    return sorted(p for p in points if 0 <= p < len(body))


def same_answer(response: ModelResponse, expected: Any) -> bool:
    calls = [(c.name, c.arguments) for c in response.message.tool_calls]
    return (
        response.message.text == expected.text
        and calls == expected.tool_calls
        and response.raw_finish_reason == expected.raw_finish
    )


@pytest.mark.anyio
@pytest.mark.parametrize("api", ["chat", "responses"])
async def test_every_cut_of_a_recorded_stream_is_the_answer_or_a_typed_error(api: Api) -> None:
    streams = [s for s in STREAMS if s[1] == api]
    if not streams:
        pytest.skip(f"no recorded {api} streams under {READER.cassette_root()}")
    cuts = answers = errors = 0
    wrong: list[str] = []
    for name, _, body, expected in streams:
        server = Server()
        provider = server.provider(api)
        server.body = body
        full = await run(provider, stream=True)
        assert full.response is not None, (name, full.error)
        assert same_answer(full.response, expected), name
        for point in cut_points(body):
            server.body = body[:point]
            outcome = await run(provider, stream=True)
            cuts += 1
            if outcome.response is not None and same_answer(outcome.response, expected):
                answers += 1
            elif isinstance(outcome.error, MalformedResponseError):
                errors += 1
            else:
                wrong.append(f"{name} cut at {point}: {outcome.response or outcome.error!r}")
        await provider.aclose()
    print(
        f"malformed(openai {api}): streams={len(streams)} cuts={cuts} answers={answers} "
        f"typed_errors={errors} wrong={len(wrong)}"
    )
    assert wrong == []
    assert errors > 0


@pytest.mark.anyio
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
async def test_network_chunking_never_changes_the_outcome(data: st.DataObject) -> None:
    if not STREAMS:
        return
    name, api, body, expected = data.draw(st.sampled_from(STREAMS))
    splits = sorted(data.draw(st.sets(st.integers(1, max(1, len(body) - 1)), max_size=40)))
    pieces = [body[a:b] for a, b in zip([0, *splits], [*splits, len(body)], strict=True)]
    server = Server(pieces=pieces)
    outcome = await run(server.provider(api), stream=True)
    assert outcome.response is not None, (name, outcome.error)
    assert same_answer(outcome.response, expected), name


@given(
    body=st.lists(
        st.sampled_from([b'data: {"a": 1}', b"data: x", b"event: e", b": c", b"", b"id: 1"]),
        max_size=12,
    ).map(lambda lines: b"".join(line + b"\n" for line in lines)),
    newline=st.sampled_from([b"\n", b"\r\n", b"\r"]),
    splits=st.sets(st.integers(1, 200), max_size=20),
)
def test_the_event_decoder_does_not_depend_on_line_endings_or_chunks(
    body: bytes, newline: bytes, splits: set[int]
) -> None:
    def events(text: bytes, cuts: list[int]) -> list[Any]:
        decoder = SseDecoder()
        out: list[Any] = []
        bounds = [0, *[c for c in cuts if c < len(text)], len(text)]
        for start, end in itertools.pairwise(bounds):
            out.extend(decoder.feed(text[start:end]))
        return [*out, *decoder.end()]

    native = body.replace(b"\n", newline)
    assert events(native, sorted(splits)) == events(body, [])


# What str.splitlines takes for a line end but Server-Sent Events does not (older ``httpx`` line
# readers split there): the adapter reads the stream by the standard, whatever the SDK version.
SPLITLINES_ONLY = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


@pytest.mark.anyio
@pytest.mark.parametrize("char", list(SPLITLINES_ONLY), ids=[hex(ord(c)) for c in SPLITLINES_ONLY])
async def test_a_splitlines_break_is_no_line_end(char: str) -> None:
    body = sse(chunk("Hello there"), chunk(finish="stop"), done=True)
    server = Server()
    provider = server.provider("chat")
    # a line holding only the character, at every event boundary: a field with no value, ignored
    server.body = body.replace(b"\n\n", f"\n\n{char}\n".encode())
    got = await run(provider, stream=True)
    assert got.response is not None, got.error
    assert got.response.message.text == "Hello there"
    # inside a JSON string: text (NEL, U+2028, U+2029), or a raw control character JSON forbids
    server.body = body.replace(b"Hello there", f"Hello{char}there".encode())
    got = await run(provider, stream=True)
    if char in "\x85\u2028\u2029":
        assert got.response is not None, got.error
        assert got.response.message.text == f"Hello{char}there"
    else:
        assert isinstance(got.error, MalformedResponseError), got.response
    await provider.aclose()


FINISH = [
    ("stop", "stop"),
    ("length", "length"),
    ("tool_calls", "tool_calls"),
    ("function_call", "tool_calls"),
    ("content_filter", "content_filter"),
    ("eos_token", "other"),
]


@pytest.mark.anyio
@pytest.mark.parametrize(("raw", "normal"), FINISH)
async def test_chat_finish_reasons_are_normalized_and_kept(raw: str, normal: str) -> None:
    # a tool-call finish comes with its call (without one it is malformed: outsider findings)
    call = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "f"}}
    calls: dict[str, Any] = {"tool_calls": [call]} if normal == "tool_calls" else {}
    document = completion(finish=raw)
    document["choices"][0]["message"].update(calls)
    buffered = Server(headers=JSON, body=json.dumps(document).encode())
    streamed = Server(body=sse(chunk("ok", None, **calls), chunk(None, raw), done=True))
    for server, stream in ((buffered, False), (streamed, True)):
        outcome = await run(server.provider("chat"), stream=stream)
        assert outcome.response is not None
        assert (outcome.response.finish_reason, outcome.response.raw_finish_reason) == (
            normal,
            raw,
        )
        message = outcome.response.message
        assert (message.finish_reason, message.raw_finish_reason) == (normal, raw)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("reason", "normal"),
    [("max_output_tokens", "length"), ("content_filter", "content_filter"), ("other", "other")],
)
async def test_responses_incomplete_reasons_are_normalized_and_kept(
    reason: str, normal: str
) -> None:
    incomplete = response_object("incomplete", incomplete_details={"reason": reason})
    buffered = Server(headers=JSON, body=json.dumps(incomplete).encode())
    streamed = Server(body=sse(event("response.incomplete", response=incomplete)))
    for server, stream in ((buffered, False), (streamed, True)):
        outcome = await run(server.provider("responses"), stream=stream)
        assert outcome.response is not None
        assert outcome.response.finish_reason == normal
        assert outcome.response.raw_finish_reason == f"incomplete:{reason}"
        assert outcome.response.message.text == "ok"
