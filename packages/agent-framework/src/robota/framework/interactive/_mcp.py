"""MCP servers of an interactive session (issue #18; seed 004, MCP bootstrap and ``warmup()``).

The servers come from the merged settings' ``mcp_servers`` (:mod:`robota.framework.mcp`). When
the session opens, each project server not answered about yet is asked about
(``SessionConfig.mcp_approver``) and nothing starts; the servers connect at the first turn, or
earlier through :meth:`SessionMcp.warmup`. Their tools (``mcp__<server>__<tool>``) join the
additional tier and go through the same gates as the built-ins (permission rules, hooks, host
gates, checkpoints) and the same residency (deferral, ``tool_search``); a server that fails is
reported (``mcp.server_failed`` event, :attr:`SessionMcp.mcp_servers`) and the session works
without it. :meth:`~robota.framework.interactive.InteractiveSession.shutdown` stops them.

:class:`SessionMcp` is a base of
:class:`~robota.framework.interactive.session.InteractiveSession`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from robota.core.agent import Agent
from robota.core.messages import MediaPart, Message, TextPart
from robota.core.tools.base import Tool
from robota.framework.interactive._wiring import Forwarder
from robota.framework.interactive.config import SessionConfig
from robota.framework.mcp import (
    McpHub,
    McpPrompt,
    McpResource,
    McpServerStatus,
    McpServerUnavailable,
)
from robota.framework.trust import TrustedWorkspace, workspace_identity

__all__ = ["SessionMcp"]


class SessionMcp:
    """The session's MCP hub: building it, connecting lazily or on :meth:`warmup`, and the
    statuses (see the module docstring)."""

    config: SessionConfig
    agent: Agent
    _forwarder: Forwarder
    _mcp: McpHub | None
    _mcp_in_agent: bool

    if TYPE_CHECKING:

        @property
        def running(self) -> bool: ...

        @property
        def messages(self) -> tuple[Message, ...]: ...

        def _build_agent(self, history: Sequence[Message]) -> Agent: ...

    def _mcp_hub(self) -> McpHub | None:
        config = self.config
        if not config.settings.mcp_servers:
            return None
        trusted = config.trusted
        if isinstance(trusted, TrustedWorkspace):
            workspace_id: str | None = trusted.identity
        else:
            workspace_id = workspace_identity(config.workspace) if trusted else None
        return McpHub(
            config.settings,
            trusted=bool(trusted),
            workspace=config.workspace,
            workspace_id=workspace_id,
            env=config.mcp_env,
            approvals=config.mcp_approvals,
            approver=config.mcp_approver,
            sinks=[self._forwarder],
            tool_filter=config.mcp_tool_filter,
            tool_gate=config.mcp_tool_gate,
            credentials=config.mcp_credentials,
        )

    def _mcp_tools(self) -> list[Tool]:
        """The connected servers' tools, for the agent being built (none before connecting)."""
        hub = self._mcp
        self._mcp_in_agent = hub is None or hub.connected
        return hub.tools() if hub is not None else []

    @property
    def mcp_servers(self) -> tuple[McpServerStatus, ...]:
        """Every configured MCP server's status (see
        :class:`~robota.framework.mcp.McpServerStatus`), in settings order; empty when none is
        configured."""
        return self._mcp.servers if self._mcp is not None else ()

    async def warmup(self) -> None:
        """Connect the configured MCP servers now instead of at the first turn (seed 004,
        ``warmup()``): idempotent and safe to call from several tasks; returns at once when
        none is configured or they are connected. Failures are reported (events,
        :attr:`mcp_servers`), never raised. The tools are offered from now on when the session
        is idle, else from the next turn."""
        await self._mcp_connect()
        if not self.running:
            self._mcp_refresh()

    # -- resources and prompts (attachable context) -------------------------------------------

    async def mcp_resources(self) -> list[McpResource]:
        """Every resource of the connected MCP servers, in settings then listing order;
        connects them first (as :meth:`warmup`). Empty when none is configured; a server
        without resources contributes none."""
        if self._mcp is None:
            return []
        await self.warmup()
        return await self._mcp.resources()

    async def read_mcp_resource(self, server: str, uri: str) -> list[TextPart | MediaPart]:
        """Resource ``uri`` of MCP server ``server`` as message parts to attach to a turn:
        text headed ``[resource <uri>]`` (at most 100 000 characters over all text parts,
        then a note saying how many were omitted), PNG/JPEG/GIF/WebP images up to 5 MB as
        media parts, other blobs described in one line. Connects the servers first.

        Raises:
            McpServerUnavailable: no MCP server has that name, or it is not connected.
            McpResourceNotFound: the server has no such resource (``robota.tools.mcp``).
            McpServerError: the server failed the request or timed out (``robota.tools.mcp``).
        """
        if self._mcp is None:
            raise McpServerUnavailable(server=server, state=None)
        await self.warmup()
        return await self._mcp.read_resource(server, uri)

    async def mcp_prompts(self) -> list[McpPrompt]:
        """Every prompt of the connected MCP servers, in settings then listing order;
        connects them first. Empty when none is configured."""
        if self._mcp is None:
            return []
        await self.warmup()
        return await self._mcp.prompts()

    async def get_mcp_prompt(
        self, server: str, name: str, arguments: Mapping[str, str]
    ) -> list[TextPart | MediaPart]:
        """Prompt ``name`` of MCP server ``server`` filled with ``arguments`` (argument name
        to value), as message parts for the user's turn (bounded and rendered as
        :meth:`read_mcp_resource`; a prompt mixing user and assistant messages labels each
        ``[user]`` / ``[assistant]``). Connects the servers first.

        Raises:
            McpServerUnavailable: no MCP server has that name, or it is not connected.
            McpPromptNotFound: the server lists no such prompt (``robota.tools.mcp``).
            McpPromptArgumentsError: a required argument is missing or an unknown one given.
            McpServerError: the server failed the request or timed out.
        """
        if self._mcp is None:
            raise McpServerUnavailable(server=server, state=None)
        await self.warmup()
        return await self._mcp.get_prompt(server, name, arguments)

    async def _mcp_open(self) -> None:
        if self._mcp is not None:
            await self._mcp.open()

    async def _mcp_connect(self) -> None:
        if self._mcp is not None:
            await self._mcp.open()
            await self._mcp.connect()

    def _mcp_refresh(self) -> None:
        if not self._mcp_in_agent:
            self.agent = self._build_agent(self.messages)

    async def _mcp_before_turn(self) -> None:
        """Connect (first turn) and give the agent the servers' tools."""
        await self._mcp_connect()
        self._mcp_refresh()

    async def _mcp_close(self) -> None:
        if self._mcp is not None:
            await self._mcp.aclose()
