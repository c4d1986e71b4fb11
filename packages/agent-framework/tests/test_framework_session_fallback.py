"""The fallback chain belongs to the session (seed 003, "A model fallback chain ..."; issue #15):
a real InteractiveSession over a FallbackProvider of two ScriptedProviders — one run scope per
turn, the chain's rule instead of the agent's retries, the chain's compaction rule, usage per
model, and which model answered each stored response."""

from __future__ import annotations

import dataclasses
import doctest
import importlib
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from robota.core import Event, RiskClass, ToolContext, tool
from robota.core.agent.events import ModelResponded
from robota.core.errors import (
    ConfigurationError,
    ContextWindowExceededError,
    OverloadedError,
    ProviderError,
)
from robota.core.messages import AssistantMessage, ToolResultMessage, UserMessage
from robota.core.provider import ModelRequest, ResponseCompleted, StreamEvent
from robota.core.testing.scripted import ScriptedProvider, Turn, fail, text, tool_call, usage
from robota.core.usage import Usage
from robota.framework.fallback import FallbackProvider, FallbackSwitched
from robota.framework.interactive import InteractiveSession, SessionConfig
from robota.framework.interactive.events import ContextOverflowRecovered
from robota.framework.interactive.usage import (
    USAGE_BY_MODEL_KEY,
    merged_metadata,
    stored_usage_by_model,
)
from robota.session import EventLog, SQLiteSessionStore

pytestmark = pytest.mark.anyio


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)


@tool(residency="resident", risk=RiskClass.INSPECT)
async def lookup(ctx: ToolContext[Any]) -> str:
    """Looks the answer up."""
    return "42"


def overloaded() -> OverloadedError:
    return OverloadedError("overloaded", provider="primary-vendor", status=529)


def primary(turns: list[Turn], window: int | None = 100_000) -> ScriptedProvider:
    return ScriptedProvider(turns, name="primary-vendor", context_window=window)


def backup(turns: list[Turn], window: int | None = 200_000) -> ScriptedProvider:
    return ScriptedProvider(turns, name="backup-vendor", context_window=window)


def config(tmp_path: Path, chain: FallbackProvider, **more: Any) -> SessionConfig:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    base: dict[str, Any] = {
        "provider": chain,
        "model": "big",
        "workspace": workspace,
        "store": SQLiteSessionStore(tmp_path / "state" / "sessions.db"),
        "event_log": EventLog(tmp_path / "state" / "logs"),
        "title": False,
        "default_tools": (lookup,),
        "auto_compact": None,
    }
    base.update(more)
    return SessionConfig(**base)


def answers(messages: tuple[Any, ...]) -> list[tuple[str | None, str | None, str]]:
    return [(m.model, m.provider, m.text) for m in messages if isinstance(m, AssistantMessage)]


async def test_after_a_fallback_the_turn_stays_on_the_backup_and_the_next_starts_on_the_primary(
    tmp_path: Path,
) -> None:
    big = primary([[fail(overloaded())], [text("Primary again."), usage(input_tokens=3)]])
    small = backup(
        [
            [tool_call("c1", "lookup"), usage(input_tokens=10, output_tokens=2)],
            [text("The answer is 42."), usage(input_tokens=20, output_tokens=3)],
        ]
    )
    switches = Recorder()
    chain = FallbackProvider([(big, "big"), (small, "small")], sinks=[switches])
    sink = Recorder()
    cfg = config(tmp_path, chain, sinks=(sink,))
    async with await InteractiveSession.start(cfg) as session:
        async with session.stream("What is the answer?") as events:
            streamed = [e async for e in events]
        # round 1: the primary failed, the backup answered with a tool call; round 2 (the
        # tool result) went straight to the backup — the primary was asked once
        assert [r.model for r in big.requests] == ["big"]
        assert [r.model for r in small.requests] == ["small", "small"]
        assert isinstance(small.requests[1].messages[-1], ToolResultMessage)
        assert [e.model for e in streamed if isinstance(e, ModelResponded)] == ["small", "small"]
        switched = [e for e in switches.events if isinstance(e, FallbackSwitched)]
        assert [(e.from_model, e.to_model) for e in switched] == [("big", "small")]

        second = await session.submit("And now?")
        assert second.text == "Primary again."
        assert [r.model for r in big.requests] == ["big", "big"]
        assert len(small.requests) == 2
        session_id = session.id

    assert cfg.store is not None
    stored = await cfg.store.get(session_id)
    assert answers(stored.messages) == [
        ("small", "backup-vendor", ""),
        ("small", "backup-vendor", "The answer is 42."),
        ("big", "primary-vendor", "Primary again."),
    ]
    assert isinstance(stored.messages[0], UserMessage)


async def test_a_resumed_session_starts_its_next_turn_on_the_primary(tmp_path: Path) -> None:
    big = primary([[fail(overloaded())], [text("Back on the primary.")]])
    small = backup([[text("From the backup."), usage(input_tokens=20, output_tokens=3)]])
    chain = FallbackProvider([(big, "big"), (small, "small")])
    cfg = config(tmp_path, chain)
    async with await InteractiveSession.start(cfg) as session:
        assert (await session.submit("one")).text == "From the backup."
        session_id = session.id

    async with await InteractiveSession.resume(cfg, session_id) as resumed:
        assert (await resumed.submit("two")).text == "Back on the primary."
        assert [r.model for r in big.requests] == ["big", "big"]
        assert len(small.requests) == 1
        # the new request carries the backup's answer unchanged
        assert answers(big.requests[1].messages) == [("small", "backup-vendor", "From the backup.")]
        assert answers(resumed.messages) == [
            ("small", "backup-vendor", "From the backup."),
            ("big", "primary-vendor", "Back on the primary."),
        ]


async def test_usage_is_reported_per_model_and_survives_resume(tmp_path: Path) -> None:
    big = primary(
        [
            [fail(overloaded())],
            [text("p1"), usage(input_tokens=100, output_tokens=7, cache_read_tokens=60)],
        ]
    )
    small = backup(
        [
            [tool_call("c1", "lookup"), usage(input_tokens=10, output_tokens=2)],
            [text("s1"), usage(input_tokens=20, output_tokens=3, cache_read_tokens=5)],
        ]
    )
    chain = FallbackProvider([(big, "big"), (small, "small")])
    cfg = config(tmp_path, chain)
    async with await InteractiveSession.start(cfg) as session:
        await session.submit("one")  # two rounds, both on the backup
        assert session.usage_by_model == {
            "small": Usage(input_tokens=30, output_tokens=5, cache_read_tokens=5, requests=2)
        }
        session_id = session.id

    async with await InteractiveSession.resume(cfg, session_id) as resumed:
        await resumed.submit("two")
        by_model = resumed.usage_by_model
        record_usage = resumed.record.usage

    assert by_model == {
        "small": Usage(input_tokens=30, output_tokens=5, cache_read_tokens=5, requests=2),
        "big": Usage(input_tokens=100, output_tokens=7, cache_read_tokens=60, requests=1),
    }
    assert (record_usage.input_tokens, record_usage.requests) == (130, 3)
    assert cfg.store is not None
    stored = await cfg.store.get(session_id)
    assert stored.metadata["usage_by_model"]["big"]["cache_read_tokens"] == 60
    assert stored.metadata["usage_by_model"]["small"]["requests"] == 2


async def test_the_chain_rule_wins_over_agent_retries_an_exhausted_chain_fails_the_turn(
    tmp_path: Path,
) -> None:
    big = primary([[fail(overloaded())]])
    small = backup([[fail(OverloadedError("busy too", provider="backup-vendor", status=503))]])
    chain = FallbackProvider([(big, "big"), (small, "small")])
    cfg = config(tmp_path, chain)
    async with await InteractiveSession.start(cfg) as session:
        assert session.agent.retry is None
        with pytest.raises(OverloadedError) as failed:
            await session.submit("hi")
        # each model was asked once: no retry of the failing model before moving on, and
        # no replay of the whole chain with backoff afterwards
        assert (len(big.requests), len(small.requests)) == (1, 1)
        assert any("tried big, small" in note for note in failed.value.__notes__)
        assert session.usage_by_model == {}


async def test_without_a_chain_the_agent_keeps_its_default_retries(tmp_path: Path) -> None:
    plain = ScriptedProvider([[fail(overloaded())], [text("retried")]])
    workspace = tmp_path / "ws"
    workspace.mkdir()
    cfg = SessionConfig(provider=plain, model="m", workspace=workspace, title=False)
    async with await InteractiveSession.start(cfg) as session:
        assert session.agent.retry is not None
        assert (await session.submit("hi")).text == "retried"
    assert len(plain.requests) == 2


async def history_of_three_turns(session: InteractiveSession) -> None:
    for prompt in ("q1", "q2", "q3"):
        await session.submit(prompt)


async def test_compaction_moves_only_to_a_model_with_at_least_the_primarys_window(
    tmp_path: Path,
) -> None:
    big = primary([[text("a1")], [text("a2")], [text("a3")], [fail(overloaded())]])
    small = backup(
        [[text("Summary: three questions."), usage(input_tokens=50, output_tokens=9)]],
        window=200_000,
    )
    chain = FallbackProvider([(big, "big"), (small, "small")])
    cfg = config(tmp_path, chain)
    async with await InteractiveSession.start(cfg) as session:
        await history_of_three_turns(session)
        record = await session.compact(keep_last_turns=1)
        by_model = session.usage_by_model
        session_id = session.id

    assert record.summary == "Summary: three questions."
    assert [r.model for r in small.requests] == ["small"]
    assert small.requests[0].settings.tool_choice == "none"
    # sized for the primary's window, which the backup's is known to cover
    assert record.summary_request is not None
    assert record.summary_request.context_window == 100_000
    assert by_model["small"] == Usage(input_tokens=50, output_tokens=9, requests=1)
    assert cfg.store is not None
    stored = await cfg.store.get(session_id)
    assert stored.metadata["compactions"][0]["answered_by"] == "small"


@pytest.mark.parametrize("backup_window", [50_000, None], ids=["smaller", "unknown"])
async def test_compaction_does_not_move_to_a_smaller_or_unknown_window(
    tmp_path: Path, backup_window: int | None
) -> None:
    big = primary([[text("a1")], [text("a2")], [text("a3")], [fail(overloaded())]])
    small = backup([[text("never sent")]], window=backup_window)
    chain = FallbackProvider([(big, "big"), (small, "small")])
    cfg = config(tmp_path, chain)
    async with await InteractiveSession.start(cfg) as session:
        await history_of_three_turns(session)
        with pytest.raises(OverloadedError):
            await session.compact(keep_last_turns=1)
        assert len(session.messages) == 6  # nothing was replaced
    assert small.requests == []
    assert len(big.requests) == 4


class OverflowingOnce(ScriptedProvider):
    """Refuses its first request with a provider-reported context overflow."""

    refused = False

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        if not self.refused:
            self.refused = True
            self.requests.append(request)
            vendor = ProviderError("prompt is too long", provider=self.name, status=400)
            raise ContextWindowExceededError("too long", provider_error=vendor)
        inner = super().stream(request)
        async for event in inner:
            yield event


async def test_an_overflow_during_compaction_is_reported_as_recovered(tmp_path: Path) -> None:
    big = OverflowingOnce(
        [[text("Summary of the long log.")]], name="primary-vendor", context_window=100_000
    )
    small = backup([], window=200_000)
    chain = FallbackProvider([(big, "big"), (small, "small")])
    sink = Recorder()
    scripted_history = primary([[text("a1")], [text("a2")], [text("a3")]])
    workspace = tmp_path / "ws"
    workspace.mkdir()
    # the history comes from a plain session; the chain compacts it on resume
    store = SQLiteSessionStore(tmp_path / "state" / "sessions.db")
    first = SessionConfig(
        provider=scripted_history,
        model="big",
        workspace=workspace,
        store=store,
        title=False,
        default_tools=(),
        auto_compact=None,
    )
    async with await InteractiveSession.start(first) as session:
        await session.submit("log: " + "x" * 40_000)
        await session.submit("q2")
        await session.submit("q3")
        session_id = session.id

    cfg = config(tmp_path, chain, store=store, event_log=None, sinks=(sink,))
    async with await InteractiveSession.resume(cfg, session_id) as resumed:
        record = await resumed.compact(keep_last_turns=1)

    recovered = [e for e in sink.events if isinstance(e, ContextOverflowRecovered)]
    assert len(recovered) == 1
    assert recovered[0].elided_results >= 1
    assert record.summary_request is not None
    assert record.summary_request.overflow_retries == 1
    assert len(big.requests) == 2
    assert small.requests == []


async def test_a_session_model_other_than_the_chains_primary_is_refused(tmp_path: Path) -> None:
    chain = FallbackProvider([(primary([]), "big"), (backup([]), "small")])
    with pytest.raises(ConfigurationError, match="primary 'big'"):
        config(tmp_path, chain, model="small")


async def test_fallback_switches_reach_the_chains_sinks_not_the_turn_result(
    tmp_path: Path,
) -> None:
    big = primary([[fail(overloaded())]])
    small = backup([[text("ok")]])
    switches = Recorder()
    chain = FallbackProvider([(big, "big"), (small, "small")], sinks=[switches])
    cfg = config(tmp_path, chain)
    async with await InteractiveSession.start(cfg) as session:
        result = await session.submit("hi")
    assert result.text == "ok"
    assert [type(e) for e in switches.events] == [FallbackSwitched]


README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_fallback_examples_run() -> None:
    text_ = README.read_text()
    section = text_[text_.index("## Model fallback") : text_.index("## Errors")]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 2
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {"__name__": "readme"})


@pytest.mark.parametrize(
    "module",
    [
        "robota.framework.interactive.usage",
        "robota.framework.interactive.session",
    ],
)
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0


class Anonymous(ScriptedProvider):
    """Leaves the answering provider's name off its messages (as some adapters do)."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        async for event in super().stream(request):
            if isinstance(event, ResponseCompleted):
                message = dataclasses.replace(event.response.message, provider=None)
                event = ResponseCompleted(
                    response=dataclasses.replace(event.response, message=message)
                )
            yield event


async def test_a_stored_backup_answer_names_the_backups_provider_not_the_chains(
    tmp_path: Path,
) -> None:
    big = primary([[fail(overloaded())]])
    small = Anonymous([[text("ok")]], name="backup-vendor")
    chain = FallbackProvider([(big, "big"), (small, "small")])
    assert chain.name == "primary-vendor"
    cfg = config(tmp_path, chain)
    async with await InteractiveSession.start(cfg) as session:
        await session.submit("hi")
        assert answers(session.messages) == [("small", "backup-vendor", "ok")]


def test_a_merged_save_adds_this_sessions_usage_to_the_newer_records_per_model_totals() -> None:
    newer = {USAGE_BY_MODEL_KEY: {"big": {"input_tokens": 5, "requests": 1}}, "theirs": 1}
    ours = {USAGE_BY_MODEL_KEY: {"big": {"input_tokens": 2, "requests": 1}}, "mine": 2}
    merged = merged_metadata(newer, ours, {"big": Usage(input_tokens=3, requests=1)})
    assert stored_usage_by_model(merged) == {"big": Usage(input_tokens=8, requests=2)}
    assert (merged["theirs"], merged["mine"]) == (1, 2)
    assert stored_usage_by_model({USAGE_BY_MODEL_KEY: "not a mapping"}) == {}
