"""``InteractiveSession.set_model``: the next turns (and the stored record, and a resume) use
the new model; a fallback chain and an empty id are refused (issue #18, ``/model NAME``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from robota.core.errors import ConfigurationError
from robota.core.testing.scripted import ScriptedProvider, text
from robota.framework.fallback import FallbackProvider
from robota.framework.interactive import InteractiveSession, SessionConfig
from robota.session import EventLog, SQLiteSessionStore

pytestmark = pytest.mark.anyio


def _config(tmp_path: Path, provider: ScriptedProvider | FallbackProvider) -> SessionConfig:
    workspace = tmp_path / "ws"
    workspace.mkdir(parents=True, exist_ok=True)
    return SessionConfig(
        provider=provider,
        model="small-model",
        workspace=workspace,
        store=SQLiteSessionStore(tmp_path / "state" / "sessions.db"),
        event_log=EventLog(tmp_path / "state" / "logs"),
        title=False,
        background_dir=tmp_path / "bg",
    )


async def test_the_next_turn_asks_the_new_model_and_the_record_keeps_it(tmp_path: Path) -> None:
    provider = ScriptedProvider([[text("one")], [text("two")]])
    cfg = _config(tmp_path, provider)
    async with await InteractiveSession.start(cfg) as session:
        await session.submit("first")
        session.set_model("big-model")
        await session.submit("second")
        session_id = session.id
        assert session.config.model == "big-model"
    assert [request.model for request in provider.requests] == ["small-model", "big-model"]
    assert cfg.store is not None
    assert (await cfg.store.get(session_id)).model == "big-model"


async def test_an_empty_id_and_a_fallback_chain_are_refused(tmp_path: Path) -> None:
    async with await InteractiveSession.start(
        _config(tmp_path, ScriptedProvider([[text("x")]]))
    ) as session:
        with pytest.raises(ConfigurationError, match="empty"):
            session.set_model("  ")
        assert session.config.model == "small-model"

    chain = FallbackProvider(
        [(ScriptedProvider([[text("a")]]), "small-model"), (ScriptedProvider([]), "other")]
    )
    async with await InteractiveSession.start(_config(tmp_path / "chain", chain)) as session:
        with pytest.raises(ConfigurationError, match="fallback chain"):
            session.set_model("big-model")
        assert session.agent.model == "small-model"
