"""MCP resources and prompts of a session's servers, usable as attachable context (issue #18;
MCP spec 2025-11-25, "Resources" and "Prompts").

:class:`McpResource` and :class:`McpPrompt` describe what the connected servers list;
:class:`McpHubContext` (a base of :class:`~robota.framework.mcp.McpHub`) lists them and reads
a resource / fills a prompt into message parts through the hub's
:class:`~robota.tools.mcp.McpToolset` (rendering and size bounds:
:mod:`robota.tools.mcp._context`). A host attaches the parts to the user's turn: ``robota chat``
reads ``@server:uri`` and runs a prompt as ``/mcp__<server>__<prompt>``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from robota.core.errors import ErrorCategory, RobotaError
from robota.core.messages import MediaPart, TextPart
from robota.framework.mcp.status import McpServerStatus, McpState

if TYPE_CHECKING:
    from robota.tools.mcp import McpToolset

__all__ = [
    "McpHubContext",
    "McpPrompt",
    "McpPromptArgument",
    "McpResource",
    "McpServerUnavailable",
]

_log = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True, slots=True)
class McpResource:
    """One resource a connected server lists (``resources/list``).

    Attributes:
        server: The configured server name.
        uri: The resource's URI (what ``read`` takes).
        name: The server's name for it.
        title: A display title, when given.
        description: What it is, when given.
        mime_type: Its MIME type, when given.
        size: Its size in bytes, when the server says.
    """

    server: str
    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None

    @property
    def reference(self) -> str:
        """``@server:uri``, as typed in ``robota chat`` to attach it."""
        return f"@{self.server}:{self.uri}"


@dataclass(frozen=True, kw_only=True, slots=True)
class McpPromptArgument:
    """One declared argument of a prompt.

    Attributes:
        name: The argument's name.
        description: What it is, when given.
        required: Whether the prompt needs it.
    """

    name: str
    description: str | None = None
    required: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class McpPrompt:
    """One prompt a connected server lists (``prompts/list``).

    Attributes:
        server: The configured server name.
        name: The prompt's name (what ``get`` takes).
        title: A display title, when given.
        description: What it does, when given.
        arguments: Its declared arguments, in the server's order.
    """

    server: str
    name: str
    title: str | None = None
    description: str | None = None
    arguments: tuple[McpPromptArgument, ...] = ()

    @property
    def command(self) -> str:
        """``/mcp__<server>__<name>``: the slash command running it in ``robota chat``."""
        return f"/mcp__{self.server}__{self.name}"


class McpServerUnavailable(RobotaError):
    """A resource or prompt was asked of a server the session cannot use: none is configured
    under that name, or it is not connected (disabled, denied, failed, needs login...).

    Attributes:
        server: The name asked for.
        state: The server's state, or None when no server has that name.
    """

    code = "mcp_server_unavailable"
    default_category = ErrorCategory.USER
    default_recoverable = False

    def __init__(self, *, server: str, state: McpState | None, why: str | None = None) -> None:
        if state is None:
            message = f"no MCP server is named {server!r}"
        else:
            message = f"MCP server {server!r} is {state}" + (f": {why}" if why else "")
        super().__init__(message)
        self.server = server
        self.state = state


def _resource(server: str, info: Any) -> McpResource:
    return McpResource(
        server=server,
        uri=str(info.uri),
        name=str(info.name),
        title=info.title,
        description=info.description,
        mime_type=info.mime_type,
        size=info.size,
    )


def _prompt(server: str, info: Any) -> McpPrompt:
    arguments = tuple(
        McpPromptArgument(name=a.name, description=a.description, required=bool(a.required))
        for a in info.arguments or ()
    )
    return McpPrompt(
        server=server,
        name=str(info.name),
        title=info.title,
        description=info.description,
        arguments=arguments,
    )


class McpHubContext:
    """Resources and prompts of the hub's connected servers (a base of
    :class:`~robota.framework.mcp.McpHub`). Each method connects the servers first (as the
    first turn does)."""

    _toolset: McpToolset | None

    if TYPE_CHECKING:

        @property
        def servers(self) -> tuple[McpServerStatus, ...]: ...

        async def open(self) -> None: ...

        async def connect(self) -> None: ...

    async def _connected_servers(self) -> list[str]:
        await self.open()
        await self.connect()
        return [s.name for s in self.servers if s.state == "connected"]

    async def _usable(self, server: str) -> McpToolset:
        await self.open()
        await self.connect()
        status = next((s for s in self.servers if s.name == server), None)
        toolset = self._toolset
        if status is None:
            raise McpServerUnavailable(server=server, state=None)
        if status.state != "connected" or toolset is None:
            raise McpServerUnavailable(server=server, state=status.state, why=status.error)
        return toolset

    async def resources(self) -> list[McpResource]:
        """Every resource of every connected server, in settings then listing order. A
        server without resources contributes none; one whose listing fails is skipped (a log
        warning says why)."""
        from robota.tools.mcp import McpServerError

        found: list[McpResource] = []
        for name in await self._connected_servers():
            try:
                listed = await self._toolset_or_fail().list_resources(name)
            except McpServerError as exc:
                _log.warning("MCP server %r: resources/list failed: %s", name, exc)
                continue
            found.extend(_resource(name, info) for info in listed)
        return found

    async def prompts(self) -> list[McpPrompt]:
        """Every prompt of every connected server, in settings then listing order (a failed
        listing is skipped, as in :meth:`resources`)."""
        from robota.tools.mcp import McpServerError

        found: list[McpPrompt] = []
        for name in await self._connected_servers():
            try:
                listed = await self._toolset_or_fail().list_prompts(name)
            except McpServerError as exc:
                _log.warning("MCP server %r: prompts/list failed: %s", name, exc)
                continue
            found.extend(_prompt(name, info) for info in listed)
        return found

    def _toolset_or_fail(self) -> McpToolset:
        if self._toolset is None:
            raise RuntimeError("the MCP servers are closed")
        return self._toolset

    async def read_resource(self, server: str, uri: str) -> list[TextPart | MediaPart]:
        """Resource ``uri`` of ``server`` as message parts (text headed ``[resource <uri>]``,
        images as media parts, at most 100 000 characters of text; see
        :meth:`robota.tools.mcp.McpToolset.read_resource`).

        Raises:
            McpServerUnavailable: no server has that name, or it is not connected.
            McpResourceNotFound: the server has no such resource.
            McpServerError: the server failed the request or timed out.
        """
        toolset = await self._usable(server)
        return await toolset.read_resource(server, uri)

    async def get_prompt(
        self, server: str, name: str, arguments: Mapping[str, str]
    ) -> list[TextPart | MediaPart]:
        """Prompt ``name`` of ``server`` filled with ``arguments``, as message parts (see
        :meth:`robota.tools.mcp.McpToolset.get_prompt`).

        Raises:
            McpServerUnavailable: no server has that name, or it is not connected.
            McpPromptNotFound: the server lists no such prompt.
            McpPromptArgumentsError: a required argument is missing or an unknown one given.
            McpServerError: the server failed the request or timed out.
        """
        toolset = await self._usable(server)
        return await toolset.get_prompt(server, name, arguments)
