"""A real :class:`~robota.framework.interactive.InteractiveSession` over scripted or recorded
model traffic, for users' tests (CONVENTIONS.md, "Tests": the same objects Robota's own tests
use).

:func:`scripted_session` drives the session with a
:class:`~robota.core.testing.scripted.ScriptedProvider` (one scripted turn per model call);
:func:`cassette_session` drives it with a provider the caller built over a recorded cassette
(the framework never imports a provider package, so the caller passes e.g.
``robota.providers.anthropic.replay.replay_provider`` or an instance). Everything else is real:
the built-in tools contained in a workspace folder, permissions, hooks, the in-memory SQLite
session store, and saving after every turn.

Defaults chosen for tests: a temporary workspace (deleted afterwards) when none is given,
persistence to an in-memory SQLite store (``persist=False`` turns it off), and no session title
(naming makes one extra model call that a script or recording would have to answer; pass
``title=True`` to test it).

Example:
    >>> import anyio
    >>> from robota.core.testing.scripted import text, tool_call
    >>> async def demo() -> tuple[str, str]:
    ...     turns = [[tool_call("c1", "list_dir", {"path": "."})], [text("Nothing here.")]]
    ...     async with scripted_session(turns) as session:
    ...         result = await session.submit("What is in the folder?")
    ...         stored = await session.config.store.get(session.id)
    ...         return result.text, stored.messages[2].results[0].name
    >>> anyio.run(demo)
    ('Nothing here.', 'list_dir')
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import AsyncGenerator, Callable, Iterable
from pathlib import Path
from typing import Any

from robota.core.provider import Provider
from robota.core.testing.cassette import Cassette, load_cassette
from robota.core.testing.scripted import ScriptedProvider, Turn
from robota.framework.interactive import InteractiveSession, SessionConfig
from robota.session import SessionStore, SQLiteSessionStore

__all__ = ["cassette_session", "scripted_session"]


@contextlib.asynccontextmanager
async def _workspace(workspace: str | Path | None) -> AsyncGenerator[Path]:
    if workspace is not None:
        yield Path(workspace)
        return
    with tempfile.TemporaryDirectory(prefix="robota-test-") as folder:
        yield Path(folder)


@contextlib.asynccontextmanager
async def _store(store: SessionStore | None, persist: bool) -> AsyncGenerator[SessionStore | None]:
    if store is not None or not persist:
        yield store
        return
    async with SQLiteSessionStore(":memory:") as memory:
        yield memory


@contextlib.asynccontextmanager
async def _session(
    provider: Provider,
    *,
    model: str,
    workspace: str | Path | None,
    store: SessionStore | None,
    persist: bool,
    resume: str | None,
    config: dict[str, Any],
) -> AsyncGenerator[InteractiveSession]:
    config.setdefault("title", False)
    async with _workspace(workspace) as root, _store(store, persist) as chosen:
        session_config = SessionConfig(
            provider=provider, model=model, workspace=root, store=chosen, **config
        )
        if resume is not None:
            session = await InteractiveSession.resume(session_config, resume)
        else:
            session = await InteractiveSession.start(session_config)
        async with session:
            yield session


def scripted_session(
    turns: Iterable[Turn] | ScriptedProvider,
    *,
    model: str | None = None,
    workspace: str | Path | None = None,
    store: SessionStore | None = None,
    persist: bool = True,
    resume: str | None = None,
    **config: Any,
) -> contextlib.AbstractAsyncContextManager[InteractiveSession]:
    """A started (or resumed) session whose model is a scripted provider::

        async with scripted_session([[tool_call("c1", "read_file", {"path": "a.txt"})],
                                     "It says hello."], workspace=tmp_path) as session:
            result = await session.submit("What does a.txt say?")
        provider = session.config.provider  # the ScriptedProvider; .requests holds every call

    Args:
        turns: The scripted turns (one per model call; see
            :mod:`robota.core.testing.scripted`), or a ``ScriptedProvider`` you built (to keep
            a handle on its ``requests``).
        model: Model id (default: the provider's ``default_model``).
        workspace: Root of the built-in tools (default: a temporary folder, deleted on exit).
        store: A session store you own (opened and closed by you); wins over ``persist``.
        persist: Without ``store``: True keeps records in an in-memory SQLite store for the
            life of the block, False disables persistence.
        resume: Resume this stored session id instead of starting one (needs ``store``).
        **config: Any other :class:`~robota.framework.interactive.SessionConfig` field
            (``system_prompt``, ``permission_mode``, ``approver``, ``settings``,
            ``additional_tools``, ``title``, ...).

    Raises:
        TypeError: for a ``config`` key that is not a ``SessionConfig`` field.
        SessionNotFoundError: when ``resume`` names no stored session.
        ConfigurationError: when ``resume`` is given with no store.
    """
    provider = turns if isinstance(turns, ScriptedProvider) else ScriptedProvider(turns)
    return _session(
        provider,
        model=model or provider.default_model or "scripted-model",
        workspace=workspace,
        store=store,
        persist=persist,
        resume=resume,
        config=dict(config),
    )


@contextlib.asynccontextmanager
async def cassette_session(
    cassette: Cassette | str | Path,
    provider: Provider | Callable[[Cassette], Provider],
    *,
    model: str,
    workspace: str | Path | None = None,
    store: SessionStore | None = None,
    persist: bool = True,
    resume: str | None = None,
    **config: Any,
) -> AsyncGenerator[InteractiveSession]:
    """A started (or resumed) session whose model calls are answered by a recording::

        from robota.providers.anthropic.replay import replay_provider

        cassette = load_cassette("conversation.yaml")
        async with cassette_session(cassette, replay_provider, model="claude-sonnet-4-6",
                                    workspace=tmp_path) as session:
            result = await session.submit("...")
        assert cassette.served == len(cassette.interactions)

    Args:
        cassette: A loaded :class:`~robota.core.testing.cassette.Cassette` (keep it to check
            ``served``) or the path of a vcrpy cassette file.
        provider: A factory called with the cassette (e.g. a provider package's
            ``replay_provider``; the provider it returns is closed on exit), or a provider
            you built and own.
        model: Model id (vendors that put the model in the URL, like Gemini, must match the
            recording).
        workspace: Root of the built-in tools (default: a temporary folder, deleted on exit).
        store: A session store you own; wins over ``persist``.
        persist: Without ``store``: an in-memory SQLite store (True) or no persistence.
        resume: Resume this stored session id instead of starting one (needs ``store``).
        **config: Any other ``SessionConfig`` field.

    Raises:
        ValueError: when ``cassette`` is a path to a file that is not a cassette.
        CassetteMissError: (from a model call) when a request has no recorded answer left.
        TypeError: for a ``config`` key that is not a ``SessionConfig`` field.
    """
    loaded = cassette if isinstance(cassette, Cassette) else load_cassette(cassette)
    owned = not isinstance(provider, Provider)
    built = provider(loaded) if not isinstance(provider, Provider) else provider
    try:
        async with _session(
            built,
            model=model,
            workspace=workspace,
            store=store,
            persist=persist,
            resume=resume,
            config=dict(config),
        ) as session:
            yield session
    finally:
        if owned:
            await built.aclose()
