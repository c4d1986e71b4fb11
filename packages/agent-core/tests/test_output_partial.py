"""Partial structured output while streaming (issue 17; seed 002, "Streaming parts…"):
repaired snapshots, monotonic, raw deltas first, exactly one FinalResult — for every chunking
of the answer, on native, JSON-mode and prompted transports."""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from robota.core.agent import Agent
from robota.core.agent.events import FinalResult, ModelTextDelta, PartialOutput
from robota.core.agent.output import OutputContext, OutputValidator, PartialJson
from robota.core.agent.output.partial import NOTHING, extends
from robota.core.capabilities import ModelCapabilities
from robota.core.errors import ModelRetry
from robota.core.events import Event
from robota.core.testing.recording import EventRecorder
from robota.core.testing.scripted import ScriptedProvider, text


class Item(BaseModel):
    name: str
    qty: int


class Order(BaseModel):
    customer: str
    items: list[Item]
    note: str | None = None


ANSWER = json.dumps(
    {
        "customer": 'Ada "the first" Lovelace',
        "items": [{"name": "tea", "qty": 12}, {"name": "scones\\n", "qty": -3}],
        "note": "deliver at 4.30, ring twice",
    }
)


def chunks_of(answer: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(answer) + 1) for c in cuts} | {0, len(answer)})
    return [answer[a:b] for a, b in itertools.pairwise(points) if b > a]


async def stream_run(
    chunks: list[str],
    output_type: Any,
    caps: ModelCapabilities | None = None,
    validators: Sequence[OutputValidator] = (),
) -> tuple[Any, list[Event]]:
    provider = ScriptedProvider([[text(c) for c in chunks]], capabilities=caps)
    sink = EventRecorder()
    agent = Agent(provider, sinks=[sink], output_type=output_type, output_validators=validators)
    result = await agent.run("order?")
    return result.output, sink.events


def check_stream(events: list[Event], output: Any) -> list[PartialOutput]:
    partials = [e for e in events if isinstance(e, PartialOutput)]
    for earlier, later in itertools.pairwise(partials):
        assert earlier.snapshot != later.snapshot
        assert extends(earlier.snapshot, later.snapshot)
    finals = [e for e in events if isinstance(e, FinalResult)]
    assert len(finals) == 1
    assert finals[0].output == output
    # every partial comes after the raw delta that completed it, and before the final result
    for index, event in enumerate(events):
        if isinstance(event, PartialOutput):
            assert isinstance(events[index - 1], ModelTextDelta | PartialOutput)
            assert index < events.index(finals[0])
    return partials


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cuts=st.lists(st.integers(min_value=0, max_value=len(ANSWER)), max_size=40))
def test_every_chunking_gives_monotonic_snapshots_and_one_final_result(cuts: list[int]) -> None:
    chunks = chunks_of(ANSWER, cuts)
    output, events = anyio.run(stream_run, chunks, Order)
    assert output == Order.model_validate_json(ANSWER)
    partials = check_stream(events, output)
    if len(chunks) > 8:
        assert partials  # a streamed answer shows progress
    final = json.loads(ANSWER)
    assert all(extends(p.snapshot, final) for p in partials)  # each is a prefix of the answer


@pytest.mark.anyio
@pytest.mark.parametrize(
    "caps",
    [
        ModelCapabilities(native_structured_output=True),
        ModelCapabilities(native_structured_output=False, json_mode=True),
        ModelCapabilities(native_structured_output=False, json_mode=False),
    ],
    ids=["native", "json_mode", "prompted"],
)
async def test_prose_and_fence_prefixes_are_skipped_on_every_transport(
    caps: ModelCapabilities,
) -> None:
    answer = "Here is the order:\n```json\n" + ANSWER + "\n```\n"
    chunks = [answer[i : i + 3] for i in range(0, len(answer), 3)]
    output, events = await stream_run(chunks, Order, caps)
    partials = check_stream(events, output)
    assert "Here" not in json.dumps([p.snapshot for p in partials])
    assert partials[-1].snapshot["items"][0] == {"name": "tea", "qty": 12}
    assert any(p.value is not None and isinstance(p.value, Order) for p in partials)


@pytest.mark.anyio
async def test_wrapped_list_snapshots_are_unwrapped_and_typed() -> None:
    answer = json.dumps({"result": [{"name": "a", "qty": 1}, {"name": "b", "qty": 2}]})
    chunks = [answer[i : i + 2] for i in range(0, len(answer), 2)]
    output, events = await stream_run(chunks, list[Item])
    partials = check_stream(events, output)
    assert output == [Item(name="a", qty=1), Item(name="b", qty=2)]
    assert all(isinstance(p.snapshot, list) for p in partials)
    typed = [p.value for p in partials if p.value]
    assert typed
    assert typed[-1][0] == Item(name="a", qty=1)


@pytest.mark.anyio
async def test_validators_see_partials_and_a_refusal_only_hides_the_snapshot() -> None:
    seen: list[tuple[bool, int]] = []

    def short_lists(ctx: OutputContext[Any], items: list[Item]) -> list[Item]:
        seen.append((ctx.partial, len(items)))
        if ctx.partial and len(items) == 1:
            raise ModelRetry("hidden")
        return items

    answer = json.dumps({"result": [{"name": "a", "qty": 1}, {"name": "b", "qty": 2}]})
    chunks = list(answer)
    output, events = await stream_run(chunks, list[Item], validators=[short_lists])
    partials = check_stream(events, output)
    assert (True, 1) in seen
    assert seen[-1] == (False, 2)
    assert all(not (isinstance(p.value, list) and len(p.value) == 1) for p in partials)
    assert len([e for e in events if isinstance(e, FinalResult)]) == 1


@pytest.mark.anyio
async def test_a_run_without_streamed_json_still_has_one_final_result() -> None:
    output, events = await stream_run(["7"], int)
    assert output == 7
    assert not [e for e in events if isinstance(e, PartialOutput)]
    assert len([e for e in events if isinstance(e, FinalResult)]) == 1


def test_unfinished_numbers_and_literals_are_held_back() -> None:
    partial = PartialJson()
    assert partial.feed('{"a": 1') == {}
    assert partial.feed("2") is NOTHING  # no delimiter yet: no new parse
    assert partial.feed(', "b": tr') == {"a": 12}
    assert partial.feed('ue, "c": "he') == {"a": 12, "b": True, "c": "he"}


def test_regressions_are_not_extensions() -> None:
    assert not extends({"a": 1}, {})
    assert not extends([1, 2], [1])
    assert not extends("hello", "help")
    assert not extends({"a": {"b": 1}}, {"a": {"b": 2}})
    assert extends({"a": "x"}, {"a": "xy", "b": None})
