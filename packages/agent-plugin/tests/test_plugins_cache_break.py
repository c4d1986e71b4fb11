"""CacheBreakDetector over a real Agent's model calls."""

from __future__ import annotations

import pytest
from _plugin_helpers import TOOLS, Recorder  # pyright: ignore[reportImplicitRelativeImport]
from robota.core.agent import Agent
from robota.core.errors import ConfigurationError
from robota.core.events import OwnerPath
from robota.core.testing.scripted import ScriptedProvider, Step, text, tool_call, usage
from robota.plugins.cache_break import CacheBreak, CacheBreakDetector


def _turn(read: int, write: int, *, call: str | None = None) -> list[Step]:
    steps: list[Step] = [
        usage(
            input_tokens=read + write + 50,
            output_tokens=10,
            cache_read_tokens=read,
            cache_write_tokens=write,
        )
    ]
    if call is not None:
        steps.insert(0, tool_call(call, "lookup", {"query": call}))
    else:
        steps.insert(0, text("ok"))
    return steps


@pytest.mark.anyio
async def test_a_partial_prefix_break_is_reported_with_expected_and_actual() -> None:
    provider = ScriptedProvider(
        [
            _turn(0, 4000, call="a"),  # round 1 writes the prefix
            _turn(4000, 600, call="b"),  # round 2 reads it back: healthy, establishes 4600
            _turn(2000, 2700),  # round 3 reads only the scaffold: a break
        ]
    )
    breaks: list[CacheBreak] = []
    detector = CacheBreakDetector(breaks.append)
    agent = Agent(provider, tools=TOOLS, sinks=[detector])

    result = await agent.run("go")

    assert len(breaks) == 1
    found = breaks[0]
    assert found.type == "cache.break"
    assert (found.expected_read_tokens, found.actual_read_tokens) == (4600, 2000)
    assert found.missed_tokens == 2600
    assert found.cache_write_tokens == 2700
    assert (found.run_id, found.round, found.round_kind) == (result.run_id, 3, "normal")
    assert not found.model_changed
    assert str(found.owner).endswith("/round:3")
    assert detector.breaks == (found,)


@pytest.mark.anyio
async def test_reads_within_the_ratio_and_growth_are_healthy() -> None:
    provider = ScriptedProvider(
        [
            _turn(0, 4000, call="a"),
            _turn(3300, 800, call="b"),  # 3300 >= 0.8 * 4000
            _turn(4100, 300),
        ]
    )
    breaks: list[CacheBreak] = []
    agent = Agent(provider, tools=TOOLS, sinks=[CacheBreakDetector(breaks.append)])

    await agent.run("go")

    assert breaks == []


@pytest.mark.anyio
async def test_the_conversation_continues_across_runs_of_one_agent() -> None:
    provider = ScriptedProvider([_turn(0, 3000), _turn(0, 3100)])
    breaks: list[CacheBreak] = []
    agent = Agent(provider, sinks=[CacheBreakDetector(breaks.append)])

    await agent.run("first")
    second = await agent.run("second")

    assert [(b.expected_read_tokens, b.actual_read_tokens, b.run_id) for b in breaks] == [
        (3000, 0, second.run_id)
    ]


@pytest.mark.anyio
async def test_ratio_zero_reports_only_total_loss_and_forget_skips_a_call() -> None:
    provider = ScriptedProvider([_turn(0, 5000), _turn(10, 5000), _turn(0, 5000), _turn(0, 5000)])
    breaks: list[CacheBreak] = []
    detector = CacheBreakDetector(breaks.append, expected_read_ratio=0.0)
    agent = Agent(provider, sinks=[detector], name="writer")

    await agent.run("1")
    await agent.run("2")  # read 10 of 5000: partial, not reported at ratio 0
    await agent.run("3")  # read 0: total loss
    detector.forget(OwnerPath().child("agent", "writer"))
    await agent.run("4")  # not judged after forget

    assert [(b.expected_read_tokens, b.actual_read_tokens) for b in breaks] == [(5010, 0)]


@pytest.mark.anyio
async def test_a_failing_callback_is_recorded_and_the_run_goes_on() -> None:
    provider = ScriptedProvider([_turn(0, 3000), _turn(0, 3000)])

    def explode(found: CacheBreak) -> None:
        raise RuntimeError("dashboard down")

    detector = CacheBreakDetector(explode)
    recorder = Recorder()
    agent = Agent(provider, sinks=[detector, recorder])

    await agent.run("1")
    result = await agent.run("2")

    assert result.text == "ok"
    assert [(f.stage, str(f.error)) for f in detector.failures] == [("callback", "dashboard down")]
    assert len(detector.breaks) == 1


def test_invalid_options_are_refused() -> None:
    with pytest.raises(ConfigurationError):
        CacheBreakDetector(print, expected_read_ratio=1.5)
    with pytest.raises(ConfigurationError):
        CacheBreakDetector(print, min_expected_tokens=-1)
