"""MCP toolsets: several MCP servers' tools as Robota tools (seed 002, "MCP toolsets"; seed
004, MCP bootstrap and ``warmup()``).

:class:`McpToolset` owns one anyio task group; each server connection runs in its own task there
(see :mod:`robota.tools.mcp._connection`), so several servers can be connected at once without
cancel-scope errors. Nothing starts until first use: :meth:`McpToolset.tools`,
:meth:`McpToolset.warmup` or a tool call connects. A server that fails to start, initialize or
list is reported (an :class:`~robota.tools.mcp.events.McpServerFailed` event, a log warning and
an entry in :attr:`McpToolset.failures`) and the others carry on.

Example:
    .. code-block:: python

        servers = parse_server_configs(settings["mcp_servers"])
        async with McpToolset(servers) as toolset:
            agent = Agent(provider, tools=[*builtin_tools, *await toolset.tools()])
            result = await agent.run("...")
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self, TypeVar

import anyio
import anyio.abc
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, METHOD_NOT_FOUND, CallToolResult, Prompt, Resource
from robota.core.events import EventSink, emit_all
from robota.core.messages import MediaPart, TextPart
from robota.core.tools.base import Tool
from robota.tools.mcp._connection import ServerConnection
from robota.tools.mcp._context import render_prompt, render_resource
from robota.tools.mcp._render import MAX_RESULT_CHARS
from robota.tools.mcp.config import HttpServerConfig, StdioServerConfig
from robota.tools.mcp.errors import (
    McpAuthorizationRequired,
    McpPromptArgumentsError,
    McpPromptNotFound,
    McpResourceNotFound,
    McpServerError,
    McpUnknownServer,
)
from robota.tools.mcp.events import McpServerConnected, McpServerFailed, McpServerNeedsLogin
from robota.tools.mcp.tool import McpTool, McpToolGate

__all__ = ["RESOURCE_NOT_FOUND", "McpServerFailure", "McpToolset"]

T = TypeVar("T")

RESOURCE_NOT_FOUND = -32002
"""The JSON-RPC error code of "resource not found" (MCP spec 2025-11-25, "Resources")."""


@dataclass(frozen=True, kw_only=True, slots=True)
class McpServerFailure:
    """A server that could not be used.

    Attributes:
        server: The configured server name.
        error: Exception type and message.
    """

    server: str
    error: str


class McpToolset:
    """The tools of several MCP servers, connected lazily and closed together.

    Args:
        servers: Server configurations (names must be unique).
        sinks: Event sinks receiving ``mcp.server_connected``, ``mcp.server_failed`` and
            ``mcp.server_needs_login`` (an HTTP server answered 401 while connecting).
        tool_gate: Called before each tool call (seed 004, ``mcp:tool:gate``; see
            :data:`~robota.tools.mcp.tool.McpToolGate`), or None.

    Use as ``async with McpToolset(servers) as toolset:`` (or ``await toolset.__aenter__()``
    and ``await toolset.aclose()`` from the same task): the task group holding the connections
    lives between the two.

    Raises:
        McpServerError: (constructor) for duplicate server names.
    """

    def __init__(
        self,
        servers: Sequence[StdioServerConfig | HttpServerConfig],
        *,
        sinks: Sequence[EventSink] = (),
        tool_gate: McpToolGate | None = None,
    ) -> None:
        self._tool_gate = tool_gate
        self._connections: dict[str, ServerConnection] = {}
        for config in servers:
            if config.name in self._connections:
                raise McpServerError(
                    f"two MCP servers are named {config.name!r}", server=config.name
                )
            self._connections[config.name] = ServerConnection(config)
        self.sinks = tuple(sinks)
        self.failures: list[McpServerFailure] = []
        """Servers that could not be used, in the order they failed."""
        self._tools: dict[str, list[McpTool]] = {}
        self._task_group: anyio.abc.TaskGroup | None = None
        self._closed = False

    # --- lifecycle -------------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        if self._task_group is not None or self._closed:
            raise RuntimeError("an McpToolset can be entered once")
        task_group = anyio.create_task_group()
        await task_group.__aenter__()
        self._task_group = task_group
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close every connection (stdio children are stopped and reaped) and the task group.

        Best-effort and idempotent; call from the task that entered the toolset.
        """
        if self._closed:
            return
        self._closed = True
        with anyio.CancelScope(shield=True):
            for connection in self._connections.values():
                connection.request_close()
            for connection in self._connections.values():
                await connection.close()
        # The task group's own scope must be the innermost one when it exits (same task as
        # __aenter__), so it is left outside the shield above.
        task_group, self._task_group = self._task_group, None
        if task_group is not None:
            task_group.cancel_scope.cancel()
            await task_group.__aexit__(None, None, None)

    # --- connecting ------------------------------------------------------------------------

    def _group(self) -> anyio.abc.TaskGroup:
        if self._closed:
            raise RuntimeError("the McpToolset is closed")
        if self._task_group is None:
            raise RuntimeError("enter the McpToolset first: `async with McpToolset(...)`")
        return self._task_group

    async def _connect(self, connection: ServerConnection) -> bool:
        if connection.state == "idle":
            connection.state = "connecting"
            self._group().start_soon(connection.serve, name=f"mcp:{connection.name}")
            ready = await connection.wait_ready()
            self._settle(connection, ready)
            return ready
        if connection.state == "connecting":
            return await connection.wait_ready()
        return connection.state == "ready"

    def _settle(self, connection: ServerConnection, ready: bool) -> None:
        config = connection.config
        if not ready:
            error = connection.error
            text = "unknown error" if error is None else f"{type(error).__name__}: {error}"
            self.failures.append(McpServerFailure(server=config.name, error=text))
            if isinstance(error, McpAuthorizationRequired) and isinstance(config, HttpServerConfig):
                login = McpServerNeedsLogin(
                    server=config.name, url=config.url, www_authenticate=error.www_authenticate
                )
                emit_all(self.sinks, login)
            emit_all(self.sinks, McpServerFailed(server=config.name, error=text))
            return
        tools: list[McpTool] = []
        names: set[str] = set()
        for info in connection.tools:
            if not config.offers(info.name):
                continue
            tool = McpTool(
                server=config.name,
                info=info,
                call_server=self._call,
                risk=config.tool_risk.get(info.name),
                timeout=config.call_timeout,
                gate=self._tool_gate,
            )
            if not tool.name.startswith(f"mcp__{config.name}__"):
                continue  # does not split back to this server: another's rules could match it
            if tool.name not in names:
                names.add(tool.name)
                tools.append(tool)
        self._tools[config.name] = tools
        emit_all(self.sinks, McpServerConnected(server=config.name, tool_names=tuple(names)))

    async def warmup(self) -> None:
        """Connect every configured server now, concurrently (idempotent and safe to call
        from several tasks). Failures are reported, never raised.

        Raises:
            RuntimeError: when the toolset was not entered or is closed.
        """
        self._group()
        async with anyio.create_task_group() as group:
            for connection in self._connections.values():
                group.start_soon(self._connect, connection)

    async def tools(self) -> list[Tool]:
        """The tools of every server that connected (connecting first, see :meth:`warmup`),
        filtered by each server's enabled/disabled lists, in configuration then listing
        order."""
        await self.warmup()
        return [tool for name in self._connections for tool in self._tools.get(name, [])]

    def catalog(self, server: str) -> list[str]:
        """Every tool ``server`` listed (its own names, before the enabled/disabled filters;
        seed 004, ``mcp:tools:catalog``), or ``[]`` before it connected.

        Raises:
            KeyError: for a server that is not configured.
        """
        return [info.name for info in self._connections[server].tools]

    def error(self, server: str) -> BaseException | None:
        """Why ``server`` failed or ended, once it did (None otherwise).

        Raises:
            KeyError: for a server that is not configured.
        """
        return self._connections[server].error

    @property
    def servers(self) -> dict[str, str]:
        """Each configured server's state: ``idle``, ``connecting``, ``ready``, ``failed`` or
        ``closed``."""
        return {name: c.state for name, c in self._connections.items()}

    async def _call(self, server: str, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        connection = self._connections[server]
        if not await self._connect(connection):
            raise RuntimeError(f"MCP server {server!r} is not available ({connection.state})")
        return await connection.call_tool(tool, arguments)

    # --- resources and prompts (issue #18: attachable context) ------------------------------

    async def _ready(self, server: str) -> ServerConnection:
        connection = self._connections.get(server)
        if connection is None:
            raise McpUnknownServer(server=server)
        if not await self._connect(connection):
            error = connection.error
            why = f": {type(error).__name__}: {error}" if error is not None else ""
            raise McpServerError(
                f"MCP server {server!r} is not available ({connection.state}){why}", server=server
            )
        return connection

    async def _ask(self, server: str, method: str, send: Callable[[], Awaitable[T]]) -> T:
        """``await send()``, with a timeout, a protocol error or a cursor loop raised as
        :class:`McpServerError`."""
        try:
            return await send()
        except McpServerError:
            raise
        except TimeoutError as error:
            raise McpServerError(
                f"MCP server {server!r} did not answer {method} in time", server=server
            ) from error
        except MCPError as error:
            raise McpServerError(
                f"MCP server {server!r} failed {method}: {error.message} (code {error.code})",
                server=server,
            ) from error
        except RuntimeError as error:
            raise McpServerError(f"MCP server {server!r}: {error}", server=server) from error

    async def list_resources(self, server: str) -> list[Resource]:
        """Every resource ``server`` lists (connecting first), ``[]`` when it does not offer
        resources (no ``resources`` capability, or ``resources/list`` is not found). Pages are
        followed up to :data:`~robota.tools.mcp._connection.MAX_LIST_PAGES`.

        Raises:
            McpUnknownServer: no configured server has this name.
            McpServerError: the server is not available, failed the request, timed out
                (``call_timeout``) or repeated a cursor.
        """
        connection = await self._ready(server)
        try:
            return await self._ask(server, "resources/list", connection.list_resources)
        except McpServerError as error:
            if isinstance(error.__cause__, MCPError) and error.__cause__.code == METHOD_NOT_FOUND:
                return []
            raise

    async def read_resource(
        self, server: str, uri: str, *, max_chars: int = MAX_RESULT_CHARS
    ) -> list[TextPart | MediaPart]:
        """The contents of resource ``uri`` of ``server`` as message parts: text headed
        ``[resource <uri>]``, PNG/JPEG/GIF/WebP images as media parts, other blobs described
        (see :mod:`robota.tools.mcp._context`); at most ``max_chars`` characters of text,
        then a note saying how many were omitted.

        Raises:
            McpUnknownServer: no configured server has this name.
            McpResourceNotFound: the server offers no resources, or answered "resource not
                found" (-32002) or "invalid params" (-32602) for ``uri``.
            McpServerError: the server is not available, failed otherwise or timed out.
        """
        connection = await self._ready(server)
        capabilities = connection.capabilities
        if capabilities is not None and capabilities.resources is None:
            raise McpResourceNotFound(server=server, uri=uri, reason="it offers no resources")
        try:
            result = await self._ask(
                server, "resources/read", lambda: connection.read_resource(uri)
            )
        except McpServerError as error:
            cause = error.__cause__
            if isinstance(cause, MCPError) and cause.code in (RESOURCE_NOT_FOUND, INVALID_PARAMS):
                raise McpResourceNotFound(server=server, uri=uri) from cause
            raise
        return render_resource(result, max_chars=max_chars)

    async def list_prompts(self, server: str) -> list[Prompt]:
        """Every prompt ``server`` lists (connecting first), ``[]`` when it does not offer
        prompts. Raises as :meth:`list_resources`."""
        connection = await self._ready(server)
        try:
            return await self._ask(server, "prompts/list", connection.list_prompts)
        except McpServerError as error:
            if isinstance(error.__cause__, MCPError) and error.__cause__.code == METHOD_NOT_FOUND:
                return []
            raise

    async def get_prompt(
        self,
        server: str,
        name: str,
        arguments: Mapping[str, str] | None = None,
        *,
        max_chars: int = MAX_RESULT_CHARS,
    ) -> list[TextPart | MediaPart]:
        """Prompt ``name`` of ``server`` filled with ``arguments``, as message parts (see
        :mod:`robota.tools.mcp._context`; at most ``max_chars`` characters of text). The
        arguments are checked against the prompt's listed ones before ``prompts/get``.

        Raises:
            McpUnknownServer: no configured server has this name.
            McpPromptNotFound: the server lists no prompt ``name``.
            McpPromptArgumentsError: a required argument is missing or an undeclared one given.
            McpServerError: the server is not available, failed the request or timed out.
        """
        given = dict(arguments or {})
        prompts = {prompt.name: prompt for prompt in await self.list_prompts(server)}
        prompt = prompts.get(name)
        if prompt is None:
            raise McpPromptNotFound(server=server, prompt=name)
        declared = prompt.arguments or []
        missing = tuple(a.name for a in declared if a.required and a.name not in given)
        unknown = tuple(sorted(set(given) - {a.name for a in declared}))
        if missing or unknown:
            raise McpPromptArgumentsError(
                server=server, prompt=name, missing=missing, unknown=unknown
            )
        connection = await self._ready(server)
        result = await self._ask(server, "prompts/get", lambda: connection.get_prompt(name, given))
        return render_prompt(result, max_chars=max_chars)
