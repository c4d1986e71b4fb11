"""Regressions by class (issue #14, the outsider's broken server): what an answer claims must be
true, or the answer is a typed error.

- A ``stop_reason`` of ``tool_use`` with no ``tool_use`` block is not a final answer: the text
  is a preamble to a call that never arrived → MalformedResponseError, streamed and buffered,
  whatever else the answer holds.
- Token counts that are not non-negative integers are unknown: 0 for that count and
  ``partial=True`` — never attested as read.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from _anthropic_fakes import (  # pyright: ignore[reportImplicitRelativeImport]
    Server,
    message,
    outcome,
    sse,
    start,
    stream_events,
)
from robota.core.errors import MalformedResponseError
from robota.core.provider import UsageReported
from robota.providers.anthropic._response import usage_of

pytestmark = pytest.mark.anyio

_MISSING = "tool_use block announced by stop_reason"

_TEXT = ({"type": "text", "text": ""}, ["Let me look that up."])
_THINKING = ({"type": "thinking", "thinking": "", "signature": ""}, ["hmm"])
_HOSTED = (
    {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
    ['{"query": "x"}'],
)
_CALL = ({"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}, ['{"x": 1}'])

# --- tool_use without a tool call ------------------------------------------------------------

_WITHOUT_CALL: dict[str, list[tuple[dict[str, Any], list[str]]]] = {
    "text only": [_TEXT],
    "no block at all": [],
    "thinking and text": [_THINKING, _TEXT],
    "a hosted call only": [_HOSTED, _TEXT],
}


def _buffered_blocks(blocks: list[tuple[dict[str, Any], list[str]]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for block, pieces in blocks:
        kind = block["type"]
        if kind == "text":
            out.append({"type": "text", "text": "".join(pieces)})
        elif kind == "thinking":
            out.append({"type": "thinking", "thinking": "".join(pieces), "signature": "sig"})
        else:
            out.append({**block, "input": json.loads("".join(pieces))})
    return out


@pytest.mark.parametrize("shape", _WITHOUT_CALL)
@pytest.mark.parametrize("mode", ["stream", "buffered JSON", "buffered event stream"])
async def test_tool_use_without_a_tool_use_block_is_malformed(shape: str, mode: str) -> None:
    blocks = _WITHOUT_CALL[shape]
    if mode == "buffered JSON":
        body = message(_buffered_blocks(blocks), stop_reason="tool_use")
        server = Server(body=json.dumps(body).encode(), content_type="application/json")
    else:
        server = Server(body=sse(stream_events(blocks, stop_reason="tool_use")))
    got = await outcome(server.provider(), stream=mode == "stream")
    assert isinstance(got.error, MalformedResponseError), got
    assert got.error.missing == _MISSING


@pytest.mark.parametrize("stream", [True, False])
@pytest.mark.parametrize("blocks", [[_CALL], [_TEXT, _CALL], [_HOSTED, _TEXT, _CALL]])
async def test_tool_use_with_a_tool_call_is_an_answer(
    blocks: list[tuple[dict[str, Any], list[str]]], stream: bool
) -> None:
    server = Server(body=sse(stream_events(blocks, stop_reason="tool_use")))
    got = await outcome(server.provider(), stream=stream)
    assert got.response is not None, got.error
    assert got.response.finish_reason == "tool_calls"
    assert [c.name for c in got.response.message.tool_calls if not c.hosted] == ["f"]


@pytest.mark.parametrize("stop", ["end_turn", "max_tokens", "pause_turn", "refusal"])
async def test_other_stop_reasons_need_no_tool_call(stop: str) -> None:
    got = await outcome(Server(body=sse(stream_events([_TEXT], stop_reason=stop))).provider())
    assert got.response is not None, got.error


# --- token counts -----------------------------------------------------------------------------

_INVALID: dict[str, object] = {
    "negative": -9,
    "a string": "9",
    "a word": "nine",
    "a fraction": 9.5,
    "NaN": math.nan,
    "infinity": math.inf,
    "a boolean": True,
    "an object": {"n": 9},
}


def _stream_with(input_tokens: object, output_tokens: object) -> bytes:
    events = stream_events([_TEXT])
    events[0] = start({"input_tokens": 9, "output_tokens": 1})
    events[0]["message"]["usage"]["input_tokens"] = input_tokens
    events[-2]["usage"] = {"output_tokens": output_tokens}
    return sse(events)  # NaN and infinity written as Python's JSON writes them


@pytest.mark.parametrize("field", ["input_tokens", "output_tokens"])
@pytest.mark.parametrize("label", _INVALID)
@pytest.mark.parametrize("stream", [True, False])
async def test_an_unreadable_count_is_zero_and_partial(
    label: str, field: str, stream: bool
) -> None:
    counts: dict[str, object] = {"input_tokens": 9, "output_tokens": 3, field: _INVALID[label]}
    if stream:
        server = Server(body=_stream_with(counts["input_tokens"], counts["output_tokens"]))
    else:
        body = message([{"type": "text", "text": "Hello"}])
        body["usage"] = counts
        server = Server(body=json.dumps(body).encode(), content_type="application/json")
    got = await outcome(server.provider(), stream=stream)
    assert got.response is not None, got.error
    usage = got.response.usage
    assert usage.partial, usage
    expected = {"input_tokens": 9, "output_tokens": 3, field: 0}
    assert {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens} == expected
    assert got.response.message.usage == usage
    if stream:
        reported = [e.usage for e in got.events if isinstance(e, UsageReported)]
        assert reported
        assert all(u.input_tokens >= 0 and u.output_tokens >= 0 for u in reported)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"input_tokens": 9, "output_tokens": 3}, (9, 3, False)),
        ({"input_tokens": 9.0, "output_tokens": 3.0}, (9, 3, False)),  # integral JSON numbers
        ({"input_tokens": 10**30, "output_tokens": 3}, (10**30, 3, False)),
        ({"input_tokens": 9}, (9, 0, True)),  # output_tokens is always sent
        ({"output_tokens": 3}, (0, 3, True)),
        ({"input_tokens": None, "output_tokens": 3}, (0, 3, True)),
        (None, (0, 0, True)),
        ({}, (0, 0, True)),
        ({"input_tokens": 9, "output_tokens": 3, "cache_read_input_tokens": None}, (9, 3, False)),
        ({"input_tokens": 9, "output_tokens": 3, "cache_read_input_tokens": -5}, (9, 3, True)),
        ({"input_tokens": 9, "output_tokens": 3, "cache_creation_input_tokens": 1.5}, (9, 3, True)),
        (
            {"input_tokens": 9, "output_tokens": 3, "output_tokens_details": "many"},
            (9, 3, True),
        ),
        (
            {"input_tokens": 9, "output_tokens": 3, "server_tool_use": {"web_search_requests": -1}},
            (9, 3, True),
        ),
    ],
)
def test_usage_of_reads_only_counts(raw: dict[str, Any] | None, expected: tuple[Any, ...]) -> None:
    usage = usage_of(raw)
    assert (usage.input_tokens, usage.output_tokens, usage.partial) == expected
    for count in (usage.cache_read_tokens, usage.cache_write_tokens, usage.reasoning_tokens):
        assert count >= 0
    assert all(v >= 0 for v in usage.details.values())


async def test_a_usage_that_is_not_an_object_is_partial() -> None:
    events = stream_events([_TEXT])
    events[-2]["usage"] = "lots"
    got = await outcome(Server(body=sse(events)).provider())
    assert got.response is not None, got.error
    assert got.response.usage.partial
    assert got.response.usage.input_tokens == 10  # message_start's count still stands


async def test_valid_counts_are_attested() -> None:
    got = await outcome(Server(body=sse(stream_events([_TEXT]))).provider())
    assert got.response is not None, got.error
    usage = got.response.usage
    assert (usage.input_tokens, usage.output_tokens, usage.partial) == (10, 7, False)
