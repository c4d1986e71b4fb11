"""One MCP server connection, owned by one long-lived task.

The SDK's transports (``stdio_client``, ``streamable_http_client``) and ``ClientSession`` are
anyio context managers holding task groups, which must be entered and exited in the same task.
So each connection runs :meth:`ServerConnection.serve` in its own task (started in the toolset's
task group): it enters the transport and session, initializes, lists tools, signals readiness,
and then waits for the shutdown event before leaving the contexts in that same task. Other tasks
only use the session object to send requests, which the SDK allows.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, Literal, TextIO, TypeVar

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import (
    CallToolResult,
    GetPromptResult,
    PaginatedRequestParams,
    Prompt,
    ReadResourceResult,
    Resource,
    ServerCapabilities,
)
from mcp.types import Tool as McpToolInfo
from mcp.types.jsonrpc import CONNECTION_CLOSED
from robota.tools.mcp._context import list_pages
from robota.tools.mcp.config import HttpServerConfig, StdioServerConfig
from robota.tools.mcp.errors import McpAuthorizationRequired

__all__ = ["MAX_LIST_PAGES", "ServerConnection"]

_log = logging.getLogger(__name__)

MAX_LIST_PAGES = 1000
"""Bound on ``tools/list`` pages followed for one server (guards a cursor loop)."""

State = Literal["idle", "connecting", "ready", "failed", "closed"]

T = TypeVar("T")


async def list_all_tools(session: Any) -> list[McpToolInfo]:
    """Every tool of ``session``, following ``nextCursor`` page by page.

    Args:
        session: A ``ClientSession`` (or anything with its ``list_tools(params=...)``).

    Raises:
        RuntimeError: when the server repeats a cursor or exceeds :data:`MAX_LIST_PAGES`.
    """
    tools: list[McpToolInfo] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_LIST_PAGES):
        params = None if cursor is None else PaginatedRequestParams(cursor=cursor)
        page = await session.list_tools(params=params)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return tools
        if cursor in seen:
            raise RuntimeError(f"server repeated the tools/list cursor {cursor!r}")
        seen.add(cursor)
    raise RuntimeError(f"tools/list did not finish within {MAX_LIST_PAGES} pages")


class ServerConnection:
    """The live connection to one configured server.

    Attributes:
        config: The server's configuration.
        state: ``idle``, ``connecting``, ``ready``, ``failed`` or ``closed``.
        tools: The server's tools as listed (unfiltered), once ready.
        error: Why the connection failed or ended, once it did.
    """

    def __init__(self, config: StdioServerConfig | HttpServerConfig) -> None:
        self.config = config
        self.state: State = "idle"
        self.tools: list[McpToolInfo] = []
        self.error: BaseException | None = None
        self._session: ClientSession | None = None
        self._ready = anyio.Event()
        self._shutdown = anyio.Event()
        self._finished = anyio.Event()
        self._scope: anyio.CancelScope | None = None
        self._unauthorized: str | None = None  # WWW-Authenticate of a 401 while connecting

    @property
    def name(self) -> str:
        """The configured server name."""
        return self.config.name

    @asynccontextmanager
    async def _transport(self, stack: AsyncExitStack) -> AsyncGenerator[tuple[Any, Any]]:
        config = self.config
        if isinstance(config, StdioServerConfig):
            errlog: TextIO
            if config.stderr == "inherit":
                errlog = sys.__stderr__ or sys.stderr
            else:
                errlog = stack.enter_context(open(os.devnull, "w"))  # noqa: SIM115, ASYNC230 (devnull: no I/O wait)
            params = StdioServerParameters(
                command=config.command, args=list(config.args), env=config.env, cwd=config.cwd
            )
            async with stdio_client(params, errlog=errlog) as streams:
                yield streams
        else:
            client = create_mcp_http_client(headers=dict(config.headers), auth=config.auth)
            client.event_hooks["response"].append(self._observe)
            async with client, streamable_http_client(config.url, http_client=client) as streams:
                yield streams

    async def _observe(self, response: Any) -> None:
        """Remember a 401 seen before the connection is ready (the SDK reports it only as a
        generic JSON-RPC error)."""
        if response.status_code == 401 and self.state == "connecting":
            self._unauthorized = str(response.headers.get("www-authenticate", ""))

    async def serve(self) -> None:
        """Run the connection until :meth:`close` (call from the owning task group).

        Never raises: a failure is recorded in :attr:`error` and :attr:`state`.
        """
        self.state = "connecting"
        try:
            with anyio.CancelScope() as scope:
                self._scope = scope
                async with AsyncExitStack() as stack:
                    read, write = await stack.enter_async_context(self._transport(stack))
                    session = await stack.enter_async_context(ClientSession(read, write))
                    await session.initialize()
                    self.tools = await list_all_tools(session)
                    self._session = session
                    self.state = "ready"
                    self._ready.set()
                    await self._shutdown.wait()
            if scope.cancelled_caught and self.state == "connecting":
                self.error = TimeoutError(
                    f"server {self.name!r} did not become ready within "
                    f"{self.config.connect_timeout:g} s"
                )
        except Exception as error:  # a failing server must not stop the run
            if self._unauthorized is not None:
                auth = McpAuthorizationRequired(
                    server=self.name,
                    url=getattr(self.config, "url", ""),
                    www_authenticate=self._unauthorized,
                )
                auth.__cause__ = error
                error = auth
            self.error = error
            _log.warning("MCP server %r failed: %s: %s", self.name, type(error).__name__, error)
        finally:
            self._session = None
            self.state = "closed" if self.state == "ready" and self.error is None else "failed"
            self._ready.set()
            self._finished.set()

    async def wait_ready(self) -> bool:
        """Wait until the connection is ready or failed, bounded by ``connect_timeout``.

        Returns:
            True when ready.
        """
        with anyio.move_on_after(self.config.connect_timeout):
            await self._ready.wait()
        if not self._ready.is_set() and self._scope is not None:
            self._scope.cancel()
            await self._finished.wait()
        return self.state == "ready"

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> CallToolResult:
        """Call the server tool ``name`` (its own, un-namespaced name).

        Raises:
            TimeoutError: after ``call_timeout`` seconds.
            MCPError: for a protocol error, including ``Connection closed`` when the server
                went away (the connection is then marked failed).
            RuntimeError: when the connection is not ready.
        """
        session = self._session
        if session is None or self.state != "ready":
            raise RuntimeError(f"MCP server {self.name!r} is not connected ({self.state})")
        try:
            with anyio.fail_after(self.config.call_timeout):
                return await session.call_tool(name, arguments)
        except MCPError as error:
            if error.code == CONNECTION_CLOSED or not self._alive():
                self.state = "failed"
                self.error = error
            raise

    # --- resources and prompts (issue #18: attachable context) ------------------------------

    @property
    def capabilities(self) -> ServerCapabilities | None:
        """What the server said it offers when it initialized (None until ready)."""
        session = self._session
        return None if session is None else session.server_capabilities

    async def request(self, send: Callable[[ClientSession], Awaitable[T]]) -> T:
        """Send one request on the ready session (``await send(session)``), bounded by
        ``call_timeout`` seconds.

        Raises:
            TimeoutError: after ``call_timeout`` seconds.
            MCPError: for a protocol error (``Connection closed`` marks the connection failed).
            RuntimeError: when the connection is not ready.
        """
        session = self._session
        if session is None or self.state != "ready":
            raise RuntimeError(f"MCP server {self.name!r} is not connected ({self.state})")
        try:
            with anyio.fail_after(self.config.call_timeout):
                return await send(session)
        except MCPError as error:
            if error.code == CONNECTION_CLOSED or not self._alive():
                self.state = "failed"
                self.error = error
            raise

    async def list_resources(self) -> list[Resource]:
        """Every resource the server lists (``[]`` when it offers no resources), following
        cursors up to :data:`MAX_LIST_PAGES` pages. Raises as :meth:`request`, and
        RuntimeError for a cursor loop."""
        capabilities = self.capabilities
        if self.state == "ready" and (capabilities is None or capabilities.resources is None):
            return []

        async def page(params: PaginatedRequestParams | None) -> tuple[list[Resource], str | None]:
            result = await self.request(lambda s: s.list_resources(params=params))
            return result.resources, result.next_cursor

        return await list_pages(page, what="resources/list", max_pages=MAX_LIST_PAGES)

    async def read_resource(self, uri: str) -> ReadResourceResult:
        """The server's ``resources/read`` result for ``uri``. Raises as :meth:`request`."""
        return await self.request(lambda s: s.read_resource(uri))

    async def list_prompts(self) -> list[Prompt]:
        """Every prompt the server lists (``[]`` when it offers no prompts), following
        cursors up to :data:`MAX_LIST_PAGES` pages. Raises as :meth:`request`, and
        RuntimeError for a cursor loop."""
        capabilities = self.capabilities
        if self.state == "ready" and (capabilities is None or capabilities.prompts is None):
            return []

        async def page(params: PaginatedRequestParams | None) -> tuple[list[Prompt], str | None]:
            result = await self.request(lambda s: s.list_prompts(params=params))
            return result.prompts, result.next_cursor

        return await list_pages(page, what="prompts/list", max_pages=MAX_LIST_PAGES)

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> GetPromptResult:
        """The server's ``prompts/get`` result for ``name``. Raises as :meth:`request`."""
        return await self.request(lambda s: s.get_prompt(name, arguments or None))

    def _alive(self) -> bool:
        return not self._finished.is_set()

    def request_close(self) -> None:
        """Ask the owning task to leave the contexts, without waiting (see :meth:`close`)."""
        self._shutdown.set()

    async def close(self) -> None:
        """Ask the owning task to leave the contexts, and wait until it has (idempotent)."""
        self._shutdown.set()
        if self.state == "idle":
            self.state = "closed"
            return
        with contextlib.suppress(Exception):
            await self._finished.wait()
