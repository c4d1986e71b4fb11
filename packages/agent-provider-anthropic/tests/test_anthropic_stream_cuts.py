"""A response cut anywhere is the recorded answer (only when nothing the answer needs was cut)
or :class:`MalformedResponseError` naming what is missing — never a shorter successful answer,
never an untyped exception. Attacked at every line start, line middle and line end of every
recorded stream (``ROBOTA_CASSETTE_DIR``), at random bytes of recorded and generated streams and
buffered bodies, and by connections that break mid-body."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from _anthropic_fakes import (  # pyright: ignore[reportImplicitRelativeImport]
    Outcome,
    Server,
    outcome,
    provider,
    sse,
    stream_events,
    valid_stream,
)
from _anthropic_wire import (  # pyright: ignore[reportImplicitRelativeImport]
    Expected,
    anthropic_interactions,
    message_stop_end,
    read_sse,
    sse_events,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from robota.core.errors import (
    MalformedResponseError,
    ProviderTimeoutError,
    RobotaError,
)
from robota.core.provider import ResponseCompleted

pytestmark = pytest.mark.anyio


def _recorded(stream: bool) -> list[bytes]:
    return [
        it.body
        for _, _, it in anthropic_interactions()
        if it.path == "/v1/messages" and it.status == 200 and it.is_stream == stream
    ]


_STREAMS = [b for b in _recorded(True) if isinstance(read_sse(b), Expected)]
_BODIES = [b for b in _recorded(False) if b.strip()]


def _cut_points(body: bytes) -> list[int]:
    points: set[int] = set()
    start = 0
    for line in body.splitlines(keepends=True):
        end = start + len(line.rstrip(b"\r\n"))
        points.update({start, (start + end) // 2, end})
        start += len(line)
    points.add(len(body))
    return sorted(points)


def _bounds(body: bytes) -> tuple[int, int]:
    """Offsets where the ``message_start`` and the ``message_stop`` events are complete."""
    events = sse_events(body)
    start = next(end for end, event in events if event.get("type") == "message_start")
    stop = message_stop_end(body)
    assert stop is not None
    return start, stop


def _judge(bounds: tuple[int, int], cut: int, got: Outcome, full: Outcome) -> str | None:
    """None when ``got`` (the body cut at ``cut``) is right; else what is wrong."""
    start, stop = bounds
    assert full.response is not None
    if cut >= stop:
        if got.response is None or got.response.message != full.response.message:
            return f"cut {cut} after message_stop: {got.error!r}"
        return None
    if not isinstance(got.error, MalformedResponseError):
        return f"cut {cut}: {got.error!r} (answer: {got.response is not None})"
    want = "message_stop event" if cut >= start else "message_start event"
    if got.error.missing != want:
        return f"cut {cut}: missing {got.error.missing!r}, want {want!r}"
    if any(isinstance(e, ResponseCompleted) for e in got.events):
        return f"cut {cut}: a ResponseCompleted before the error"
    return None


async def test_every_cut_of_every_recorded_stream() -> None:
    if not _STREAMS:
        pytest.skip("no recorded anthropic streams")
    server = Server()
    target = server.provider()
    cuts = answers = typed = 0
    failures: list[str] = []
    for body in _STREAMS:
        server.body = body
        full = await outcome(target)
        bounds = _bounds(body)
        for cut in _cut_points(body):
            server.body = body[:cut]
            got = await outcome(target)
            cuts += 1
            answers += got.response is not None
            typed += isinstance(got.error, RobotaError)
            problem = _judge(bounds, cut, got, full)
            if problem:
                failures.append(problem)
    untyped = cuts - answers - typed
    print(
        f"malformed(anthropic): streams={len(_STREAMS)} cuts={cuts} answers={answers} "
        f"typed_errors={typed} untyped={untyped} wrong={len(failures)}"
    )
    assert failures[:5] == []
    assert untyped == 0


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
async def test_a_random_byte_cut_of_a_recorded_stream(data: st.DataObject) -> None:
    if not _STREAMS:
        pytest.skip("no recorded anthropic streams")
    body = data.draw(st.sampled_from(_STREAMS))
    cut = data.draw(st.integers(min_value=0, max_value=len(body)))
    server = Server(body=body)
    for stream in (True, False):  # a buffered call answered with a stream: the same rules
        full = await outcome(server.provider(), stream=stream)
        server.body = body[:cut]
        got = await outcome(server.provider(), stream=stream)
        server.body = body
        assert _judge(_bounds(body), cut, got, full) is None


_PIECES = st.lists(st.text(alphabet=st.characters(codec="utf-8"), max_size=8), max_size=4)


@st.composite
def _blocks(draw: st.DrawFn) -> list[tuple[dict[str, Any], list[str]]]:
    blocks: list[tuple[dict[str, Any], list[str]]] = []
    for kind in draw(st.lists(st.sampled_from(["text", "thinking", "tool_use"]), max_size=4)):
        if kind == "tool_use":
            arguments = draw(st.dictionaries(st.text(max_size=4), st.integers(), max_size=3))
            text = json.dumps(arguments)
            split = draw(st.integers(min_value=0, max_value=len(text)))
            block = {"type": "tool_use", "id": f"t{len(blocks)}", "name": "f", "input": {}}
            blocks.append((block, [text[:split], text[split:]]))
        else:
            blocks.append(({"type": kind, kind: ""}, draw(_PIECES)))
    return blocks


def _visible_text(blocks: list[tuple[dict[str, Any], list[str]]]) -> str:
    text, last_text = "", False
    for block, pieces in blocks:
        if block["type"] != "text":
            last_text = False
            continue
        joined = "".join(pieces)
        if joined.strip() or (joined and last_text):
            text += joined
            last_text = last_text or bool(joined.strip())
    return text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_blocks(), st.data())
async def test_a_generated_stream_is_whole_or_a_typed_error_at_any_cut(
    blocks: list[tuple[dict[str, Any], list[str]]], data: st.DataObject
) -> None:
    body = sse(stream_events(blocks))
    full = await outcome(Server(body=body).provider())
    assert full.response is not None, repr(full.error)
    assert full.response.message.text == _visible_text(blocks)
    streamed = "".join(e.text for e in full.events if e.kind == "text_delta")
    assert streamed == full.response.message.text
    assert all(c.arguments is not None for c in full.response.message.tool_calls)
    cut = data.draw(st.integers(min_value=0, max_value=len(body) - 1))
    got = await outcome(Server(body=body[:cut]).provider())
    assert isinstance(got.error, MalformedResponseError), repr(got.error)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
async def test_a_cut_buffered_body_is_malformed(data: st.DataObject) -> None:
    if not _BODIES:
        pytest.skip("no recorded anthropic answers")
    body = data.draw(st.sampled_from(_BODIES))
    cut = data.draw(st.integers(min_value=0, max_value=len(body.rstrip()) - 1))
    server = Server(body=body[:cut], content_type="application/json")
    for stream in (False, True):
        got = await outcome(server.provider(), stream=stream)
        assert isinstance(got.error, MalformedResponseError), repr(got.error)
        assert got.error.missing == "JSON object body"


class _Breaking(httpx.AsyncByteStream):
    def __init__(self, body: bytes, error: Exception) -> None:
        self._body, self._error = body, error

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self._body
        raise self._error


@pytest.mark.parametrize(
    ("error", "cls"),
    [
        (httpx.ReadError("connection reset"), MalformedResponseError),
        (httpx.RemoteProtocolError("peer closed connection"), MalformedResponseError),
        (httpx.ReadTimeout("read timed out"), ProviderTimeoutError),
    ],
)
@pytest.mark.parametrize("stream", [True, False])
async def test_a_connection_breaking_mid_body_is_typed(
    error: Exception, cls: type[RobotaError], stream: bool
) -> None:
    body = sse(valid_stream())
    half = body[: len(body) // 2]

    def handler(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": "text/event-stream"}
        return httpx.Response(200, headers=headers, stream=_Breaking(half, error))

    got = await outcome(provider(handler), stream=stream)
    # a buffered call reads the body by the same rules as a streamed one (no longer inside the
    # SDK, which reported every break as a connection error)
    assert type(got.error) is cls, repr(got.error)
    assert isinstance(got.error, RobotaError)
    assert got.error.recoverable
    if isinstance(got.error, MalformedResponseError):
        assert got.error.missing == "message_stop event"
    assert not any(isinstance(e, ResponseCompleted) for e in got.events)
