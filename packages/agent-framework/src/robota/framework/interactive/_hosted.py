"""Hosted tools of an interactive session: the vendor-run tools (web search, web fetch, code
execution; ``docs/guides/hosted-tools.md``) every turn's requests carry, switchable between
turns.

:class:`SessionHostedTools` is a base of
:class:`~robota.framework.interactive.session.InteractiveSession`; it holds no state of its own
(the session sets the attributes declared here).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from robota.core.agent import Agent
from robota.core.capabilities import HostedTool, check_hosted_tools
from robota.framework.interactive.config import SessionConfig

__all__ = ["SessionHostedTools"]


class SessionHostedTools:
    """Reading and switching the session's hosted tools (see the module docstring)."""

    config: SessionConfig
    agent: Agent

    if TYPE_CHECKING:

        @property
        def running(self) -> bool: ...

    @property
    def hosted_tools(self) -> frozenset[HostedTool]:
        """The vendor-run tools (e.g. web search) every turn's normal requests carry (empty:
        none)."""
        return self.agent.hosted_tools

    def set_hosted_tools(self, tools: Iterable[HostedTool]) -> None:
        """Put ``tools`` on every request from the next turn on, replacing the current set
        (empty: none). ``config.hosted_tools`` follows, so a session resumed or forked with
        this session's ``config`` keeps them.

        Example:
            >>> import anyio, tempfile
            >>> from pathlib import Path
            >>> from robota.core import ModelCapabilities
            >>> from robota.core.testing.scripted import ScriptedProvider
            >>> from robota.framework.interactive import InteractiveSession, SessionConfig
            >>> async def demo() -> list[str]:
            ...     provider = ScriptedProvider(["Found it."], capabilities=ModelCapabilities(
            ...         hosted_tools=frozenset({HostedTool.WEB_SEARCH})))
            ...     config = SessionConfig(provider=provider, model="m", title=False,
            ...                            workspace=Path(tempfile.mkdtemp()), default_tools=())
            ...     async with await InteractiveSession.start(config) as session:
            ...         session.set_hosted_tools({HostedTool.WEB_SEARCH})
            ...         await session.submit("Search the web")
            ...     return sorted(provider.requests[0].hosted_tools)
            >>> anyio.run(demo)
            [<HostedTool.WEB_SEARCH: 'web_search'>]

        Raises:
            UnsupportedCapabilityError: the model's stated capabilities do not offer one of
                ``tools`` (:func:`~robota.core.capabilities.check_hosted_tools`); nothing
                changes. A model whose hosted tools are unknown is not refused here: its
                provider adapter still refuses, before sending, a tool it cannot encode.
            RuntimeError: while a turn runs.
        """
        wanted = frozenset(tools)
        if self.running:
            raise RuntimeError("the hosted tools cannot change while a turn runs")
        provider = self.config.provider
        check_hosted_tools(
            provider.capabilities(self.config.model),
            wanted,
            provider=provider.name,
            model=self.config.model,
        )
        self.config = replace(self.config, hosted_tools=wanted)
        self.agent.hosted_tools = wanted
