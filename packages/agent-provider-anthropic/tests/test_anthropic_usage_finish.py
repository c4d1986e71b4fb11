"""Usage reported while a stream runs (``UsageReported``: cumulative, so a round cancelled before
``message_stop`` still counts the input it was billed), and stop reasons normalized with the raw
reason kept."""

from __future__ import annotations

import json

import pytest
from _anthropic_fakes import (  # pyright: ignore[reportImplicitRelativeImport]
    REQUEST,
    Server,
    message,
    outcome,
    sse,
    start,
    stream_events,
    valid_stream,
)
from robota.core.provider import ResponseCompleted, TextDelta, UsageReported
from robota.core.usage import Usage

pytestmark = pytest.mark.anyio

_START_USAGE = {
    "input_tokens": 10,
    "cache_read_input_tokens": 5,
    "cache_creation_input_tokens": 3,
    "output_tokens": 1,
}


def _usage_stream(final_usage: dict[str, int] | None) -> bytes:
    events = stream_events(
        [({"type": "text", "text": ""}, ["Hello"])],
        usage=final_usage,  # pyright: ignore[reportArgumentType]
    )
    events[0] = start(_START_USAGE)
    if final_usage is None:
        del events[-2]["usage"]
    return sse(events)


async def test_usage_is_reported_from_message_start_and_message_delta() -> None:
    got = await outcome(Server(body=_usage_stream({"output_tokens": 42})).provider())
    reported = [e.usage for e in got.events if isinstance(e, UsageReported)]
    assert reported == [
        Usage(
            input_tokens=18,
            output_tokens=1,
            cache_read_tokens=5,
            cache_write_tokens=3,
            requests=1,
            partial=True,
        ),
        Usage(
            input_tokens=18,
            output_tokens=42,
            cache_read_tokens=5,
            cache_write_tokens=3,
            requests=1,
            partial=True,
        ),
    ]
    assert isinstance(got.events[0], UsageReported)  # before any content
    final = got.events[-1]
    assert isinstance(final, ResponseCompleted)
    assert final.response.usage == Usage(
        input_tokens=18, output_tokens=42, cache_read_tokens=5, cache_write_tokens=3, requests=1
    )


async def test_a_consumer_that_stops_early_has_seen_the_billed_input() -> None:
    provider = Server(body=_usage_stream({"output_tokens": 42})).provider()
    seen: list[object] = []
    stream = provider.stream(REQUEST)
    async for event in stream:
        seen.append(event)
        if isinstance(event, TextDelta):
            break
    await stream.aclose()  # pyright: ignore[reportAttributeAccessIssue] - an async generator
    last = [e for e in seen if isinstance(e, UsageReported)][-1]
    assert (last.usage.input_tokens, last.usage.cache_read_tokens) == (18, 5)


async def test_usage_growing_in_message_delta_replaces_the_count_so_far() -> None:
    final = {"input_tokens": 3042, "output_tokens": 354, "cache_read_input_tokens": 0}
    got = await outcome(Server(body=_usage_stream(final)).provider())
    reported = [e.usage for e in got.events if isinstance(e, UsageReported)]
    assert [(u.input_tokens, u.output_tokens) for u in reported] == [(18, 1), (3045, 354)]


async def test_no_usage_no_report() -> None:
    got = await outcome(Server(body=_usage_stream(None)).provider())
    assert len([e for e in got.events if isinstance(e, UsageReported)]) == 1


_FINISH = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
    "pause_turn": "other",
    "compaction": "other",
    "a_future_reason": "other",
}


@pytest.mark.parametrize(("raw", "finish"), _FINISH.items())
@pytest.mark.parametrize("streamed", [True, False])
async def test_stop_reasons_are_normalized_and_kept(raw: str, finish: str, streamed: bool) -> None:
    if streamed:
        events = valid_stream()
        events[-2]["delta"]["stop_reason"] = raw
        server = Server(body=sse(events))
    else:
        blocks: list[dict[str, object]] = [{"type": "text", "text": "ok"}]
        if (
            raw == "tool_use"
        ):  # tool_use without a tool call is malformed (see test_anthropic_promise)
            blocks.append({"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}})
        body = message(blocks, stop_reason=raw)
        server = Server(body=json.dumps(body).encode(), content_type="application/json")
    got = await outcome(server.provider(), stream=streamed)
    assert got.response is not None
    assert (got.response.finish_reason, got.response.raw_finish_reason) == (finish, raw)
    assert got.response.message.finish_reason == finish
    assert got.response.message.raw_finish_reason == raw
