"""Server-Sent Events (robota.core.sse): the WHATWG parsing rule and the idle-timeout bound."""

from __future__ import annotations

import doctest
import itertools
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

import anyio
import pytest
import robota.core.sse
from hypothesis import given, settings
from hypothesis import strategies as st
from robota.core.errors import ProviderTimeoutError
from robota.core.sse import SseDecoder, SseEvent, SseLineDecoder, iter_events, with_idle_timeout

BOM = b"\xef\xbb\xbf"


def decode(body: bytes, cuts: Sequence[int] = ()) -> list[SseEvent]:
    """The events of ``body`` fed in the pieces ``cuts`` splits it into."""
    decoder = SseDecoder()
    bounds = [0, *sorted(c for c in set(cuts) if 0 < c < len(body)), len(body)]
    return [e for start, end in itertools.pairwise(bounds) for e in decoder.feed(body[start:end])]


def test_docstring_examples_run() -> None:
    result = doctest.testmod(robota.core.sse)
    assert result.attempted > 0
    assert result.failed == 0


# --- the parsing rule ---------------------------------------------------------------------------


def test_fields_comments_and_multi_line_data() -> None:
    body = (
        b": a comment\n"
        b"event: delta\n"
        b"data: one\n"
        b"data:two\n"  # no space after the colon
        b"data:  three\n"  # only one space is removed
        b"data\n"  # no colon: an empty data line
        b"retry: 10\n"
        b"\n"
    )
    assert decode(body) == [SseEvent(event="delta", data="one\ntwo\n three\n")]


def test_a_blank_line_after_no_data_dispatches_nothing_and_clears_the_name() -> None:
    assert decode(b"event: a\n\ndata: x\n\n") == [SseEvent(data="x")]


def test_the_last_event_id_holds_for_the_events_after_it() -> None:
    body = b"id: 7\ndata: a\n\ndata: b\n\nid: bad\0\ndata: c\n\nid\ndata: d\n\n"
    assert [e.id for e in decode(body)] == ["7", "7", "7", ""]


def test_an_incomplete_last_event_is_discarded() -> None:
    decoder = SseDecoder()
    assert decoder.feed(b"data: whole\n\ndata: cut\n") == [SseEvent(data="whole")]
    assert decode(b'data: {"a": 1}') == []
    cut = SseDecoder()
    assert cut.feed(b"data: x") == []
    assert not cut.saw_data  # an unterminated line is no line
    assert cut.feed(b"\n") == []
    assert cut.saw_data


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
def test_every_line_end_in_every_chunking(eol: bytes) -> None:
    body = eol.join([b"event: a", b"data: 1", b"", b"data: 2", b"", b""])
    for size in range(1, len(body) + 1):
        cuts = range(size, len(body), size)
        assert decode(body, cuts) == [SseEvent(event="a", data="1"), SseEvent(data="2")], size


def test_a_crlf_split_across_chunks_is_one_line_end() -> None:
    decoder = SseDecoder()
    assert decoder.feed(b"data: a\r") == []
    assert decoder.feed(b"\n\r") == [SseEvent(data="a")]  # LF ends nothing; CR ends the blank line
    assert decoder.feed(b"\ndata: b\r\n\r\n") == [SseEvent(data="b")]


def test_always_utf8_with_invalid_bytes_replaced() -> None:
    latin1 = "data: café\n\n".encode("latin-1")  # as if the response declared charset=latin-1
    assert decode(latin1) == [SseEvent(data="caf\ufffd")]
    split = "data: é€\n\n".encode()
    for at in range(len(split)):
        assert decode(split, [at]) == [SseEvent(data="é€")], at


def test_one_leading_bom_is_skipped_even_split() -> None:
    body = BOM + b"data: x\n\n"
    for at in range(len(body)):
        assert decode(body, [at]) == [SseEvent(data="x")], at
    # only one: a second is part of the first field name, so that line is no data
    assert decode(BOM + BOM + b"data: x\n\ndata: y\n\n") == [SseEvent(data="y")]
    assert decode(BOM[:2]) == []


def test_the_line_decoder_hands_back_an_unterminated_last_line() -> None:
    lines = SseLineDecoder()
    assert lines.feed(b"a\r\nb\rc\n{") == ["a", "b", "c"]
    assert lines.feed(b'"x": 1}') == []
    assert lines.flush() == ['{"x": 1}']


# --- any chunking of a valid stream: the same events ---------------------------------------------

_VALUE = st.text(st.characters(exclude_characters="\r\n", exclude_categories=["Cs"]), max_size=6)


@dataclass(frozen=True)
class _Event:
    comments: list[str]
    name: str | None
    id: str | None
    data: list[str]


_EVENTS = st.lists(
    st.builds(
        _Event,
        comments=st.lists(_VALUE, max_size=2),
        name=st.none() | _VALUE,
        id=st.none() | _VALUE,
        data=st.lists(_VALUE, min_size=1, max_size=3),
    ),
    max_size=5,
)


def _field(name: str, value: str, spaced: bool) -> str:
    return f"{name}: {value}" if spaced or value.startswith(" ") else f"{name}:{value}"


def _body(events: list[_Event], cut_off: list[str], data: st.DataObject) -> bytes:
    draw = data.draw
    lines: list[str] = []
    for event in events:
        lines += [f":{c}" for c in event.comments]
        if event.name is not None:
            lines.append(_field("event", event.name, draw(st.booleans())))
        if event.id is not None:
            lines.append(_field("id", event.id, draw(st.booleans())))
        lines += [_field("data", d, draw(st.booleans())) for d in event.data]
        lines.append("")
    lines += [_field("data", d, True) for d in cut_off]  # an event no blank line ends
    text, previous = "", ""
    for line in lines:
        eol = draw(st.sampled_from(["\n", "\r\n", "\r"]))
        if previous == "\r" and not line and eol == "\n":
            eol = "\r\n"  # "\r" + "\n" would be one line end
        text, previous = text + line + eol, eol
    if cut_off and draw(st.booleans()):
        text = text.rstrip("\r\n")  # the body stops inside the last line
    return (BOM if draw(st.booleans()) else b"") + text.encode()


def _expected(events: list[_Event]) -> list[SseEvent]:
    out: list[SseEvent] = []
    last_id = ""
    for event in events:
        if event.id is not None and "\0" not in event.id:
            last_id = event.id
        out.append(SseEvent(event=event.name or "", data="\n".join(event.data), id=last_id))
    return out


@settings(max_examples=300, deadline=None)
@given(
    events=_EVENTS,
    cut_off=st.lists(_VALUE, max_size=2),
    data=st.data(),
)
def test_any_chunking_of_a_valid_stream_yields_the_same_events(
    events: list[_Event], cut_off: list[str], data: st.DataObject
) -> None:
    body = _body(events, cut_off, data)
    cuts = data.draw(st.lists(st.integers(0, max(len(body), 1)), max_size=12))
    assert decode(body, cuts) == _expected(events) == decode(body)


# --- iter_events and with_idle_timeout ------------------------------------------------------------


async def _pieces(
    pieces: Sequence[bytes],
    *,
    pause: float = 0.0,
    stall: bool = False,
    closed: list[bool] | None = None,
) -> AsyncIterator[bytes]:
    try:
        for piece in pieces:
            if pause:
                await anyio.sleep(pause)
            yield piece
        if stall:
            await anyio.sleep_forever()
    finally:
        if closed is not None:
            closed.append(True)


async def _drain(events: AsyncIterator[SseEvent], into: list[str]) -> None:
    async for event in events:
        into.append(event.data)


def _stalled() -> ProviderTimeoutError:
    return ProviderTimeoutError("no event in time", provider="p")


@pytest.mark.anyio
async def test_an_event_ended_by_cr_is_not_held_back_for_a_possible_lf() -> None:
    events = iter_events(_pieces([b"data: x\r\r"], stall=True))
    with anyio.fail_after(1):
        assert await anext(events) == SseEvent(data="x")
    await events.aclose()


@pytest.mark.anyio
async def test_the_decoder_passed_in_is_the_one_fed() -> None:
    decoder = SseDecoder()
    assert [e async for e in iter_events(_pieces([b"data: x"]), decoder=decoder)] == []
    assert not decoder.saw_data


@pytest.mark.parametrize(
    "keepalive", [b": keep-alive\n\n", b"event: ping\ndata: {}\n\n"], ids=["comment", "ping"]
)
@pytest.mark.anyio
async def test_keepalives_never_extend_the_wait(keepalive: bytes) -> None:
    body = _pieces([b"data: start\n\n", *[keepalive] * 50], pause=0.02, stall=True)
    events = with_idle_timeout(
        iter_events(body),
        idle_timeout=0.2,
        on_timeout=_stalled,
        keeps_alive=lambda e: e.event == "ping",
    )
    started = time.monotonic()
    got: list[str] = []
    with pytest.raises(ProviderTimeoutError, match="no event in time"):
        await _drain(events, got)
    assert got[0] == "start"
    assert time.monotonic() - started < 0.6


@pytest.mark.anyio
async def test_each_meaningful_event_restarts_the_wait() -> None:
    body = _pieces([b"data: %d\n\n" % n for n in range(8)], pause=0.06)  # 0.48 s in all
    events = with_idle_timeout(iter_events(body), idle_timeout=0.2, on_timeout=_stalled)
    assert [e.data async for e in events] == [str(n) for n in range(8)]


@pytest.mark.anyio
async def test_the_readers_own_time_does_not_count() -> None:
    events = with_idle_timeout(
        iter_events(_pieces([b"data: 1\n\ndata: 2\n\n"])), idle_timeout=0.05, on_timeout=_stalled
    )
    got: list[str] = []
    async for event in events:
        got.append(event.data)
        await anyio.sleep(0.15)
    assert got == ["1", "2"]


@pytest.mark.anyio
async def test_no_timeout_waits_as_long_as_the_source() -> None:
    body = _pieces([b"data: 1\n\n", b"data: 2\n\n"], pause=0.05)
    events = with_idle_timeout(iter_events(body), idle_timeout=None, on_timeout=_stalled)
    assert [e.data async for e in events] == ["1", "2"]


@pytest.mark.anyio
async def test_a_source_error_passes_unchanged() -> None:
    async def broken() -> AsyncIterator[bytes]:
        yield b"data: 1\n\n"
        raise ConnectionResetError("gone")

    events = with_idle_timeout(iter_events(broken()), idle_timeout=1, on_timeout=_stalled)
    got: list[str] = []
    with pytest.raises(ConnectionResetError, match="gone"):
        await _drain(events, got)
    assert got == ["1"]


@pytest.mark.anyio
async def test_closing_early_closes_the_body() -> None:
    closed: list[bool] = []
    body = _pieces([b"data: 1\n\n", b"data: 2\n\n"], closed=closed, stall=True)
    events = with_idle_timeout(iter_events(body), idle_timeout=1, on_timeout=_stalled)
    assert (await anext(events)).data == "1"
    await events.aclose()
    assert closed == [True]
