"""A stream is an answer only when it completed by the Messages API's event rules; every broken
order, unbalanced block, unknown index or ill-typed field is a typed error (issue #14), found by
mutating a valid stream at every position rather than by one example each."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from _anthropic_fakes import (  # pyright: ignore[reportImplicitRelativeImport]
    Outcome,
    Server,
    outcome,
    sse,
    start,
    stream_events,
    valid_stream,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from robota.core.errors import MalformedResponseError, RobotaError
from robota.core.messages import ProviderDetailsPart

pytestmark = pytest.mark.anyio

_BASE = valid_stream()
_ANSWER_TEXT = "Checking the weather."


async def _run(events: list[dict[str, Any]]) -> Outcome:
    got = await outcome(Server(body=sse(events)).provider())
    if got.error is not None:
        assert isinstance(got.error, RobotaError), f"untyped {got.error!r}"
    return got


def _malformed(got: Outcome) -> MalformedResponseError:
    assert isinstance(got.error, MalformedResponseError), repr(got.error)
    assert got.error.api == "messages"
    return got.error


async def test_the_valid_stream_is_an_answer() -> None:
    got = await _run(_BASE)
    assert got.response is not None
    assert got.response.message.text == _ANSWER_TEXT
    assert [(c.name, c.arguments) for c in got.response.message.tool_calls] == [
        ("weather", {"city": "Paris"})
    ]


# Dropping or repeating these leaves a stream the rules accept (a lost delta is not detectable).
_HARMLESS_DROP = {"ping", "content_block_delta"}
_HARMLESS_DUPLICATE = {"ping", "content_block_delta", "message_delta", "message_stop"}


@pytest.mark.parametrize("position", range(len(_BASE)))
async def test_dropping_any_event_is_an_answer_only_when_harmless(position: int) -> None:
    kind = _BASE[position]["type"]
    got = await _run(_BASE[:position] + _BASE[position + 1 :])
    if kind in _HARMLESS_DROP:
        assert got.response is not None, repr(got.error)
    else:
        assert _malformed(got).missing or kind == "content_block_start"


@pytest.mark.parametrize("position", range(len(_BASE)))
async def test_repeating_any_event_is_an_answer_only_when_harmless(position: int) -> None:
    kind = _BASE[position]["type"]
    got = await _run(_BASE[: position + 1] + _BASE[position:])
    if kind in _HARMLESS_DUPLICATE:
        assert got.response is not None, repr(got.error)
    else:
        _malformed(got)


@pytest.mark.parametrize("position", range(len(_BASE) - 1))
async def test_swapping_neighbours_is_an_answer_or_a_typed_error(position: int) -> None:
    events = list(_BASE)
    events[position], events[position + 1] = events[position + 1], events[position]
    got = await _run(events)
    if got.response is None:
        _malformed(got)


_FIELDS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=9),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.sampled_from(["type", "text", "index", "message"]), st.none(), max_size=2),
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found: list[tuple[Any, ...]] = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, inner in value.items():  # pyright: ignore[reportUnknownVariableType]
            found += _paths(inner, (*prefix, key))
    return found


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
async def test_any_field_of_any_event_replaced_is_an_answer_or_a_typed_error(
    data: st.DataObject,
) -> None:
    events = copy.deepcopy(_BASE)
    position = data.draw(st.integers(min_value=0, max_value=len(events) - 1))
    path = data.draw(st.sampled_from(_paths(events[position])))
    target = events[position]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = data.draw(_FIELDS)
    await _run(events)  # asserts the only failure is a RobotaError


@pytest.mark.parametrize(
    ("events", "missing"),
    [
        ([{"type": "message_start"}], "message in message_start"),
        ([{"type": "message_start", "message": "msg"}], "message in message_start"),
        (_BASE[2:], "message_start event"),
        ([{"type": "ping"}], "message_start event"),
        (
            [start(), {"type": "message_delta", "delta": {}}, {"type": "message_stop"}],
            "stop_reason in message_delta",
        ),
        ([start(), {"type": "message_delta"}], "delta in message_delta"),
        ([e for e in _BASE if e["type"] != "message_delta"], "stop_reason in message_delta"),
        ([e for e in _BASE if e["type"] != "content_block_stop"], "content_block_stop for block 0"),
        ([*_BASE[:2], {**_BASE[3], "index": 7}], "content_block_start for block 7"),
        ([*_BASE[:2], {**_BASE[2], "index": "0"}], "a block index in content_block_start"),
        ([*_BASE[:2], {**_BASE[2], "index": True}], "a block index in content_block_start"),
        ([*_BASE[:2], {**_BASE[2], "index": -1}], "a block index in content_block_start"),
        (
            [*_BASE[:2], {"type": "content_block_start", "index": 0}],
            "content_block in content_block_start",
        ),
        ([*_BASE[:3], {"type": "content_block_delta", "index": 0}], "delta in content_block_delta"),
        ([*_BASE[:7], _BASE[5]], "content_block_start for block 0"),
    ],
)
async def test_broken_orders_name_what_was_missing(
    events: list[dict[str, Any]], missing: str
) -> None:
    assert _malformed(await _run(events)).missing == missing


async def test_a_second_message_start_is_not_a_second_answer() -> None:
    error = _malformed(await _run([*_BASE[:-1], *_BASE]))
    assert "second message_start" in str(error)


async def test_a_block_started_twice_is_refused() -> None:
    error = _malformed(await _run([*_BASE[:3], _BASE[2], *_BASE[3:]]))
    assert "started twice" in str(error)


@pytest.mark.parametrize(
    ("block", "delta"),
    [
        (
            {"type": "tool_use", "id": "t", "name": "f", "input": {}},
            {"type": "text_delta", "text": "x"},
        ),
        ({"type": "text", "text": ""}, {"type": "input_json_delta", "partial_json": "{}"}),
        ({"type": "text", "text": ""}, {"type": "thinking_delta", "thinking": "x"}),
        ({"type": "thinking", "thinking": ""}, {"type": "citations_delta", "citation": {}}),
        ({"type": "text", "text": ""}, {"type": "text_delta", "text": None}),
        ({"type": "text", "text": ""}, {"type": "text_delta"}),
    ],
)
async def test_a_delta_that_does_not_fit_its_block_is_refused(
    block: dict[str, Any], delta: dict[str, Any]
) -> None:
    events = stream_events([(block, [])])
    events.insert(3, {"type": "content_block_delta", "index": 0, "delta": delta})
    _malformed(await _run(events))


async def test_tool_call_without_id_or_name_is_refused() -> None:
    events = stream_events([({"type": "tool_use", "input": {}}, [])], stop_reason="tool_use")
    assert _malformed(await _run(events)).missing == "id and name of tool_use block 0"


async def test_unknown_event_and_delta_types_are_ignored() -> None:
    events = list(_BASE)
    events.insert(1, {"type": "some_future_event", "payload": 1})
    events.insert(4, {"type": "content_block_delta", "index": 0, "delta": {"type": "new_delta"}})
    got = await _run(events)
    assert got.response is not None
    assert got.response.message.text == _ANSWER_TEXT


async def test_nothing_after_message_stop_is_read() -> None:
    got = await _run([*_BASE, {"type": "error", "error": {"type": "api_error"}}])
    assert got.response is not None


async def test_streamed_input_of_a_verbatim_block_is_kept_whole() -> None:
    block = {"type": "mcp_tool_use", "id": "m1", "name": "ask", "server_name": "wiki", "input": {}}
    pieces = ['{"question"', ': "why?"}']
    events = stream_events([(block, [])])
    for offset, piece in enumerate(pieces):
        delta = {"type": "input_json_delta", "partial_json": piece}
        events.insert(3 + offset, {"type": "content_block_delta", "index": 0, "delta": delta})
    got = await _run(events)
    assert got.response is not None
    (part,) = got.response.message.parts
    assert isinstance(part, ProviderDetailsPart)
    assert isinstance(part.data, dict)
    assert part.data["input"] == {"question": "why?"}
    # ...and a cut one cannot be sent back verbatim
    events[4] = {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "input_json_delta", "partial_json": ""},
    }
    error = _malformed(await _run(events))
    assert error.missing == "a JSON object input for content block 0 (mcp_tool_use)"


async def test_tool_arguments_that_do_not_parse_in_a_completed_stream_are_kept_raw() -> None:
    """The server said the block and the message completed: the call is handed on with its raw
    text and no arguments, and the agent reports the bad arguments (or, with finish ``length``,
    fails with ``IncompleteToolCallError``)."""
    block = {"type": "tool_use", "id": "t1", "name": "add", "input": {}}
    got = await _run(stream_events([(block, ['{"a": 1,'])], stop_reason="max_tokens"))
    assert got.response is not None
    (call,) = got.response.message.tool_calls
    assert (call.arguments, call.raw_arguments) == (None, '{"a": 1,')
    assert got.response.finish_reason == "length"


def test_the_mutation_base_has_every_event_kind() -> None:
    kinds = {e["type"] for e in _BASE}
    assert kinds >= {
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    }
    assert json.dumps(_BASE)


# What str.splitlines takes for a line end but Server-Sent Events does not (older ``httpx`` line
# readers split there): the adapter reads the stream by the standard, whatever the SDK version.
SPLITLINES_ONLY = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


@pytest.mark.parametrize("char", list(SPLITLINES_ONLY), ids=[hex(ord(c)) for c in SPLITLINES_ONLY])
async def test_a_splitlines_break_is_no_line_end(char: str) -> None:
    body = sse(_BASE)
    # a line holding only the character, at every event boundary: a field with no value, ignored
    lone = body.replace(b"\n\n", f"\n\n{char}\n".encode())
    got = await outcome(Server(body=lone).provider())
    assert got.response is not None, got.error
    assert got.response.message.text == _ANSWER_TEXT
    # inside a JSON string: text (NEL, U+2028, U+2029), or a raw control character JSON forbids
    assert body.count(b"the weather") == 1
    inside = body.replace(b"the weather", f"the{char}weather".encode())
    got = await outcome(Server(body=inside).provider())
    if char in "\x85\u2028\u2029":
        assert got.response is not None, got.error
        assert got.response.message.text == _ANSWER_TEXT.replace("the weather", f"the{char}weather")
    else:
        _malformed(got)
