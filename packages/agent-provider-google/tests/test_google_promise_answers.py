"""Regressions by class (issue #14, the outsider's broken server): a broken field the answer does
not depend on never costs the answer, and is never attested either.

- ``error``: only a non-null error object is an error — ``"error": null`` beside a complete
  answer is that answer (buffered and streamed, wherever the key stands); an error object is a
  typed error wherever the key stands.
- Usage: no ``usageMetadata`` is unknown usage (``partial=True``); a count that is not a
  non-negative integer (negative, a string, a fraction, NaN, a boolean) is 0 and ``partial`` —
  the answer itself stands, streamed and buffered.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from _google_serve import (  # pyright: ignore[reportImplicitRelativeImport]
    JSON,
    SSE,
    Outcome,
    Server,
    candidate,
    run,
    sse,
    text,
)
from robota.core.errors import RateLimitError
from robota.core.provider import UsageReported

pytestmark = pytest.mark.anyio

_USAGE: dict[str, Any] = {"promptTokenCount": 9, "candidatesTokenCount": 3, "totalTokenCount": 12}
_ERROR = {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": "slow down"}


def _hello(usage: object) -> dict[str, Any]:
    """A complete one-candidate answer "Hello" whose ``usageMetadata`` is ``usage``."""
    return {**candidate(text("Hello")), "usageMetadata": usage}


async def _answer(body: dict[str, Any] | list[dict[str, Any]], *, streamed: bool) -> Outcome:
    """The outcome of ``body`` (one response object, or stream chunks) served as a stream or
    as a buffered ``generateContent`` answer."""
    chunks = body if isinstance(body, list) else [body]
    if streamed:
        return await run(Server(responses=[(200, sse(*chunks), SSE)]).provider())
    assert len(chunks) == 1
    server = Server(responses=[(200, json.dumps(chunks[0]).encode(), JSON)])
    return await run(server.provider(streaming=False))


# --- error: null ------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["first", "last"])
@pytest.mark.parametrize("streamed", [True, False])
async def test_error_null_beside_an_answer_is_the_answer(where: str, streamed: bool) -> None:
    answer = candidate(text("Hello world"), usage=_USAGE)
    body = {"error": None, **answer} if where == "first" else {**answer, "error": None}
    got = await _answer(body, streamed=streamed)
    assert got.response is not None, got.error
    assert got.response.message.text == "Hello world"
    assert not got.response.usage.partial


@pytest.mark.parametrize("where", ["first", "last"])
@pytest.mark.parametrize("streamed", [True, False])
async def test_an_error_object_beside_an_answer_is_the_error(where: str, streamed: bool) -> None:
    answer = candidate(text("Hello world"), usage=_USAGE)
    body = {"error": _ERROR, **answer} if where == "first" else {**answer, "error": _ERROR}
    got = await _answer(body, streamed=streamed)
    assert isinstance(got.error, RateLimitError), got


async def test_an_error_null_chunk_in_the_middle_of_a_stream_is_harmless() -> None:
    first = {"error": None, **candidate(text("Hello "), finish=None, usage=_USAGE)}
    last = {"error": None, **candidate(text("world"), usage=_USAGE)}
    got = await _answer([first, last], streamed=True)
    assert got.response is not None, got.error
    assert got.response.message.text == "Hello world"


# --- usage ------------------------------------------------------------------------------------

_INVALID: dict[str, object] = {
    "negative": -9,
    "a numeric string": "9",
    "a word": "nine",
    "a fraction": 9.5,
    "NaN": math.nan,
    "infinity": math.inf,
    "a boolean": True,
    "a list": [9],
}


@pytest.mark.parametrize(
    "field", ["promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount"]
)
@pytest.mark.parametrize("label", _INVALID)
@pytest.mark.parametrize("streamed", [True, False])
async def test_an_unreadable_count_is_zero_and_partial(
    label: str, field: str, streamed: bool
) -> None:
    usage = {**_USAGE, "thoughtsTokenCount": 2, field: _INVALID[label]}
    got = await _answer(_hello(usage), streamed=streamed)
    assert got.response is not None, got.error
    assert got.response.message.text == "Hello"
    counts = got.response.usage
    assert counts.partial, counts
    expected = {"promptTokenCount": 9, "candidatesTokenCount": 3, "thoughtsTokenCount": 2}
    expected[field] = 0
    assert counts.input_tokens == expected["promptTokenCount"]
    assert counts.output_tokens == expected["candidatesTokenCount"] + expected["thoughtsTokenCount"]
    assert counts.reasoning_tokens == expected["thoughtsTokenCount"]


@pytest.mark.parametrize("streamed", [True, False])
async def test_no_usage_is_partial(streamed: bool) -> None:
    got = await _answer(candidate(text("Hello")), streamed=streamed)
    assert got.response is not None, got.error
    assert got.response.usage.partial
    assert (got.response.usage.input_tokens, got.response.usage.output_tokens) == (0, 0)


@pytest.mark.parametrize("usage", ["lots", [1, 2], 42])
@pytest.mark.parametrize("streamed", [True, False])
async def test_a_usage_that_is_not_an_object_is_partial(usage: object, streamed: bool) -> None:
    got = await _answer(_hello(usage), streamed=streamed)
    assert got.response is not None, got.error
    assert got.response.usage.partial


@pytest.mark.parametrize(
    "usage",
    [
        _USAGE,
        {"promptTokenCount": 9.0, "candidatesTokenCount": 3.0, "totalTokenCount": 12.0},
        {"promptTokenCount": 9, "candidatesTokenCount": 3},
        {"promptTokenCount": 9},  # proto3 JSON leaves zero counts out
    ],
)
@pytest.mark.parametrize("streamed", [True, False])
async def test_readable_counts_are_attested(usage: dict[str, Any], streamed: bool) -> None:
    got = await _answer(_hello(usage), streamed=streamed)
    assert got.response is not None, got.error
    counts = got.response.usage
    assert not counts.partial
    assert (counts.input_tokens, counts.output_tokens) == (
        9,
        int(usage.get("candidatesTokenCount", 0)),
    )


@pytest.mark.parametrize("streamed", [True, False])
async def test_a_bad_modality_detail_costs_nothing(streamed: bool) -> None:
    usage = {**_USAGE, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": -1.5}]}
    got = await _answer(_hello(usage), streamed=streamed)
    assert got.response is not None, got.error
    assert (got.response.usage.input_tokens, got.response.usage.partial) == (9, False)


async def test_usage_reported_mid_stream_is_never_negative_and_flags_unknowns() -> None:
    first = {
        **candidate(text("Hel"), finish=None),
        "usageMetadata": {**_USAGE, "promptTokenCount": -9},
    }
    last = candidate(text("lo"), usage=_USAGE)
    got = await _answer([first, last], streamed=True)
    assert got.response is not None, got.error
    reported = [e.usage for e in got.events if isinstance(e, UsageReported)]
    assert [(u.input_tokens, u.partial) for u in reported] == [(0, True)]
    assert (got.response.usage.input_tokens, got.response.usage.partial) == (9, False)
