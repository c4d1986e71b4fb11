"""A headless multi-session host (seed 003, ``createAgentRuntime()``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from robota.core.errors import ConfigurationError
from robota.framework.interactive.config import SessionConfig
from robota.framework.interactive.session import InteractiveSession

__all__ = ["AgentRuntime", "create_agent_runtime"]


class AgentRuntime:
    """Holds many sessions that share one configuration (store, provider, settings).

    Sessions are opened by id (new, resumed or forked), listed, and shut down together.
    """

    def __init__(self, base: SessionConfig) -> None:
        self._base = base
        self._sessions: dict[str, InteractiveSession] = {}

    @property
    def sessions(self) -> dict[str, InteractiveSession]:
        """Open sessions by id."""
        return dict(self._sessions)

    async def open(
        self, *, configure: Callable[[SessionConfig], SessionConfig] | None = None
    ) -> InteractiveSession:
        """Start a new session (``configure`` may adjust this session's config: an explicit
        store replaces the runtime's; ``store=None`` disables persistence for it)."""
        config = configure(self._base) if configure else self._base
        session = await InteractiveSession.start(config)
        self._sessions[session.id] = session
        return session

    async def resume(self, session_id: str) -> InteractiveSession:
        """Open a stored session (or return it if already open)."""
        if session_id in self._sessions:
            return self._sessions[session_id]
        session = await InteractiveSession.resume(self._base, session_id)
        self._sessions[session_id] = session
        return session

    async def fork(self, session_id: str) -> InteractiveSession:
        """Fork a stored session."""
        session = await InteractiveSession.fork_of(self._base, session_id)
        self._sessions[session.id] = session
        return session

    async def close(self, session_id: str) -> None:
        """Shut one session down."""
        session = self._sessions.pop(session_id, None)
        if session is not None:
            await session.shutdown()

    async def aclose(self) -> list[BaseException]:
        """Shut every session down; failures are collected, not raised."""
        failures: list[BaseException] = []
        for session_id in list(self._sessions):
            try:
                await self.close(session_id)
            except Exception as exc:
                failures.append(exc)
        return failures

    async def __aenter__(self) -> AgentRuntime:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def create_agent_runtime(base: SessionConfig) -> AgentRuntime:
    """A runtime for many sessions over ``base`` (which must name a store for resume/fork).

    Raises:
        ConfigurationError: never for a missing store (persistence stays explicit); resume and
            fork raise it later if there is none.
    """
    if not isinstance(base, SessionConfig):
        raise ConfigurationError("create_agent_runtime needs a SessionConfig")
    return AgentRuntime(replace(base))
