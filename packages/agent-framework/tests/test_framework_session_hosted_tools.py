"""Hosted tools on an interactive session (issue #18, ``--web-search`` and ``/web-search``):
``SessionConfig.hosted_tools`` reaches every turn's request, ``set_hosted_tools`` switches them
between turns and is refused for a model stated not to offer them, and a resume with the
session's config keeps them."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest
from robota.core import ModelCapabilities
from robota.core.capabilities import HostedTool
from robota.core.errors import UnsupportedCapabilityError
from robota.core.testing.scripted import ScriptedProvider, text
from robota.framework.interactive import InteractiveSession, SessionConfig, _hosted
from robota.session import EventLog, SQLiteSessionStore

pytestmark = pytest.mark.anyio

SEARCH = frozenset({HostedTool.WEB_SEARCH})


def _config(
    tmp_path: Path, provider: ScriptedProvider, hosted: frozenset[HostedTool] = frozenset()
) -> SessionConfig:
    workspace = tmp_path / "ws"
    workspace.mkdir(parents=True, exist_ok=True)
    return SessionConfig(
        provider=provider,
        model="m",
        workspace=workspace,
        store=SQLiteSessionStore(tmp_path / "state" / "sessions.db"),
        event_log=EventLog(tmp_path / "state" / "logs"),
        title=False,
        default_tools=(),
        hosted_tools=hosted,
    )


async def test_config_hosted_tools_are_on_every_turn_and_switch_off(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [[text("one")], [text("two")], [text("three")]],
        capabilities=ModelCapabilities(hosted_tools=SEARCH),
    )
    async with await InteractiveSession.start(_config(tmp_path, provider, SEARCH)) as session:
        assert session.hosted_tools == SEARCH
        await session.submit("first")
        await session.submit("second")
        session.set_hosted_tools(())
        assert session.config.hosted_tools == frozenset()
        await session.submit("third")
    assert [r.hosted_tools for r in provider.requests] == [SEARCH, SEARCH, frozenset()]


async def test_a_model_stated_without_web_search_is_refused_and_nothing_changes(
    tmp_path: Path,
) -> None:
    provider = ScriptedProvider(
        [[text("plain")]], capabilities=ModelCapabilities(hosted_tools=frozenset())
    )
    async with await InteractiveSession.start(_config(tmp_path, provider)) as session:
        with pytest.raises(UnsupportedCapabilityError, match=r"web_search .*model 'm'"):
            session.set_hosted_tools(SEARCH)
        assert session.hosted_tools == frozenset()
        await session.submit("hi")
    assert provider.requests[0].hosted_tools == frozenset()


async def test_a_resume_with_the_sessions_config_keeps_web_search(tmp_path: Path) -> None:
    provider = ScriptedProvider([[text("one")], [text("two")]])  # capabilities unknown
    async with await InteractiveSession.start(_config(tmp_path, provider)) as session:
        session.set_hosted_tools(SEARCH)
        await session.submit("first")
        config, session_id = session.config, session.id
    async with await InteractiveSession.resume(config, session_id) as resumed:
        assert resumed.hosted_tools == SEARCH
        await resumed.submit("second")
    assert [r.hosted_tools for r in provider.requests] == [SEARCH, SEARCH]


def test_the_docstring_example_runs() -> None:
    assert doctest.testmod(_hosted).failed == 0
