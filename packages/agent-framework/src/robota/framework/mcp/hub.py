"""The MCP servers of one session: which may start, the approval question for a project's
servers, the connections and their tools (issue #18; seed 004, MCP bootstrap and ``warmup()``).

:class:`McpHub` turns the merged settings' ``mcp_servers`` into an
:class:`~robota.tools.mcp.McpToolset` (``robota-agent-tools[mcp]``):

1. At construction each server gets its first state: ``disabled`` (``"enabled": false``),
   ``untrusted`` (a project's server while the workspace is not trusted), ``denied`` /
   ``awaiting-approval`` (a project's server the user refused / has not answered about for
   this definition) or ``pending``.
2. :meth:`McpHub.open` asks the approver about each ``awaiting-approval`` server (remembering
   the answer in the approvals store), expands ``${VAR}`` references (an unset variable fails
   that server only) and enters the toolset in a task of its own (:mod:`._owner`: on asyncio
   any task may open, use and close the hub). Nothing is started yet.
3. :meth:`McpHub.connect` (idempotent, concurrency-safe) starts every pending server at once;
   a server that fails is reported (``mcp.server_failed`` event, ``failed`` status) and the
   others carry on. Both say why in the same words: for a failure of the operating system
   ``cannot connect to URL: connection refused`` or ``cannot start COMMAND: no such file or
   directory`` (:mod:`robota.framework.failure_reason`), else the innermost error. The
   host's tool filter then shapes each server's offered tools.

Stdio servers run in the session's workspace unless their ``cwd`` says otherwise (a relative
``cwd`` is relative to the workspace).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from robota.core.events import Event, EventSink, emit_all
from robota.core.host import CredentialStore, CredentialStoreError
from robota.core.tools.base import Tool
from robota.framework.failure_reason import failure_reason, innermost_error, os_failure
from robota.framework.mcp._owner import DetachedOwner
from robota.framework.mcp.approvals import McpApprovalStore, server_digest
from robota.framework.mcp.context import McpHubContext
from robota.framework.mcp.gate import McpToolGate
from robota.framework.mcp.status import (
    McpApprover,
    McpServerSkipped,
    McpServerStatus,
    McpState,
    McpToolFilter,
    approval_request,
    describe_target,
)
from robota.framework.mcp.variables import McpVariableError, expand_server
from robota.framework.settings.mcp import HttpMcpServer, StdioMcpServer
from robota.framework.settings.model import McpScope, Settings

if TYPE_CHECKING:
    from robota.tools.mcp import McpToolset

__all__ = ["McpHub"]

_LIVE: dict[str, McpState] = {
    "idle": "pending",
    "connecting": "pending",
    "ready": "connected",
    "failed": "failed",
    "closed": "failed",
}


class McpHub(McpHubContext):
    """The configured MCP servers of one session (see the module docstring); their resources
    and prompts through :class:`~robota.framework.mcp.context.McpHubContext`.

    Args:
        settings: Merged settings (their ``mcp_servers`` and each server's
            :meth:`~robota.framework.settings.Settings.mcp_scope`).
        trusted: Whether the workspace is trusted (a project's servers never start otherwise).
        workspace: The session's workspace: stdio servers' default working directory.
        workspace_id: The workspace identity approvals are keyed by
            (:func:`~robota.framework.trust.workspace_identity`), or None (answers are then
            not remembered).
        env: Where ``${VAR}`` references are read (None: ``os.environ``).
        approvals: Remembered answers about project servers, or None.
        approver: Asks about a project server not answered yet; None leaves it
            ``awaiting-approval``.
        sinks: Receive ``mcp.server_connected``, ``mcp.server_failed``,
            ``mcp.server_needs_login`` and ``mcp.server_skipped``.
        tool_filter: The runtime filter seam (:data:`~robota.framework.mcp.McpToolFilter`).
        tool_gate: Called before each MCP tool call (:data:`~robota.framework.mcp.McpToolGate`).
        credentials: Where OAuth tokens of HTTP servers are kept
            (:mod:`robota.framework.mcp.oauth`): an HTTP server with stored tokens connects
            with them (refreshed when expired); None: no OAuth.

    Raises:
        McpApprovalError: (constructor) the approvals file is unsafe or malformed.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        trusted: bool,
        workspace: Path,
        workspace_id: str | None = None,
        env: Mapping[str, str] | None = None,
        approvals: McpApprovalStore | None = None,
        approver: McpApprover | None = None,
        sinks: Sequence[EventSink] = (),
        tool_filter: McpToolFilter | None = None,
        tool_gate: McpToolGate | None = None,
        credentials: CredentialStore | None = None,
    ) -> None:
        self._tool_gate = tool_gate
        self._credentials = credentials
        self._servers = dict(settings.mcp_servers)
        self._scopes: dict[str, McpScope] = {n: settings.mcp_scope(n) for n in self._servers}
        self._workspace = workspace
        self._workspace_id = workspace_id
        self._env = env
        self._approvals = approvals if workspace_id is not None else None
        self._approver = approver
        self._sinks = tuple(sinks)
        self._filter = tool_filter
        self._state: dict[str, McpState] = {}
        self._why: dict[str, str] = {}
        for name, server in self._servers.items():
            self._state[name] = self._first_state(name, server, trusted=trusted)
        self._toolset: McpToolset | None = None
        self._owner: DetachedOwner | None = None
        self._tools: dict[str, list[Tool]] = {}
        self._opened = False
        self._connected = False
        self._lock = anyio.Lock()
        self._final: dict[str, McpServerStatus] = {}

    def _first_state(
        self, name: str, server: StdioMcpServer | HttpMcpServer, *, trusted: bool
    ) -> McpState:
        if not server.enabled:
            self._why[name] = "disabled in settings"
            return "disabled"
        if self._scopes[name] != "project":
            return "pending"
        if not trusted:
            self._why[name] = "the workspace is not trusted"
            return "untrusted"
        decision = (
            self._approvals.get(self._workspace_id, name, server_digest(server))
            if self._approvals is not None and self._workspace_id is not None
            else None
        )
        if decision == "approved":
            return "pending"
        if decision == "denied":
            self._why[name] = "denied by the user"
            return "denied"
        self._why[name] = "a project server the user has not approved"
        return "awaiting-approval"

    # -- state -----------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """True once :meth:`connect` finished (every pending server connected or failed)."""
        return self._connected

    @property
    def servers(self) -> tuple[McpServerStatus, ...]:
        """Every configured server's status, in settings order."""
        return tuple(self._status(name) for name in self._servers)

    def _status(self, name: str) -> McpServerStatus:
        if name in self._final:
            return self._final[name]
        server = self._servers[name]
        state = self._state[name]
        error = self._why.get(name)
        catalog: tuple[str, ...] = ()
        toolset = self._toolset
        if state == "pending" and toolset is not None and name in toolset.servers:
            state = _LIVE.get(toolset.servers[name], "failed")
            catalog = tuple(toolset.catalog(name))
            failure = toolset.error(name)
            error = (
                _describe(failure, server) if failure is not None and state == "failed" else None
            )
            if state == "failed" and _needs_login(failure):
                state = "needs-login"
        return McpServerStatus(
            name=name,
            scope=self._scopes[name],
            transport=server.type,
            target=describe_target(server),
            state=state,
            tools=tuple(t.name for t in self._tools.get(name, [])) if state == "connected" else (),
            catalog=catalog,
            error=error,
        )

    def tools(self) -> list[Tool]:
        """The offered tools of every connected server (empty before :meth:`connect`)."""
        return [tool for name in self._servers for tool in self._tools.get(name, [])]

    # -- lifecycle -------------------------------------------------------------------------

    async def open(self) -> None:
        """Ask about unanswered project servers, expand references and enter the toolset
        (nothing starts yet); idempotent.

        Raises:
            McpApprovalError: the approvals file is unsafe or malformed.
        """
        if self._opened:
            return
        self._opened = True
        for name, server in self._servers.items():
            if self._state[name] == "awaiting-approval" and self._approver is not None:
                await self._ask(name, server)
        configs: list[Any] = []
        for name, server in self._servers.items():
            if self._state[name] != "pending":
                self._skip(name, self._state[name], self._why.get(name, ""))
                continue
            try:
                configs.append(await self._with_auth(self._library_config(name, server)))
            except McpVariableError as exc:
                self._skip(name, "failed", str(exc))
            except ImportError as exc:
                self._skip(name, "failed", f"{exc}")
        if configs:
            from robota.tools.mcp import McpToolset

            sinks = (_Described(self._sinks, self._described),)  # failures said as in status
            toolset = McpToolset(configs, sinks=sinks, tool_gate=self._tool_gate)
            owner = DetachedOwner(toolset)
            await owner.start()
            self._toolset, self._owner = toolset, owner

    def _described(self, event: Event) -> Event:
        """``event``, a ``mcp.server_failed`` one with its error said as :func:`_describe`
        says it."""
        toolset = self._toolset
        name = str(getattr(event, "server", ""))
        if event.type != "mcp.server_failed" or toolset is None or name not in self._servers:
            return event
        failure = toolset.error(name)
        if failure is None:
            return event
        return dataclasses.replace(event, error=_describe(failure, self._servers[name]))

    async def _ask(self, name: str, server: StdioMcpServer | HttpMcpServer) -> None:
        assert self._approver is not None
        approved = await self._approver(approval_request(name, server))
        if self._approvals is not None and self._workspace_id is not None:
            decision = "approved" if approved else "denied"
            self._approvals.set(self._workspace_id, name, server_digest(server), decision)
        if approved:
            self._state[name] = "pending"
            self._why.pop(name, None)
        else:
            self._state[name] = "denied"
            self._why[name] = "denied by the user"

    def _skip(self, name: str, state: McpState, reason: str) -> None:
        self._state[name] = state
        self._why[name] = reason
        emit_all(self._sinks, McpServerSkipped(server=name, state=state, reason=reason))

    def _library_config(self, name: str, server: StdioMcpServer | HttpMcpServer) -> Any:
        from robota.tools.mcp import HttpServerConfig, StdioServerConfig

        expanded = expand_server(server, os.environ if self._env is None else self._env)
        common: dict[str, Any] = {
            "name": name,
            "enabled_tools": expanded.enabled_tools,
            "disabled_tools": expanded.disabled_tools,
            "tool_risk": expanded.tool_risk,
            "connect_timeout": expanded.connect_timeout,
            "call_timeout": expanded.call_timeout,
        }
        if isinstance(expanded, StdioMcpServer):
            cwd = self._workspace / expanded.cwd if expanded.cwd else self._workspace
            return StdioServerConfig(
                **common,
                command=expanded.command,
                args=expanded.args,
                env=dict(expanded.env) or None,
                cwd=str(cwd),
            )
        return HttpServerConfig(**common, url=expanded.url, headers=dict(expanded.headers))

    async def _with_auth(self, config: Any) -> Any:
        """``config`` with the OAuth provider of its stored tokens (HTTP servers, when the
        hub has a credential store and tokens are stored for the URL)."""
        if self._credentials is None or getattr(config, "transport", "") != "http":
            return config
        from robota.framework.mcp.oauth import stored_auth

        try:
            auth = await stored_auth(self._credentials, config.url)
        except CredentialStoreError:  # connect without them: a 401 then shows needs-login,
            return config  # and `login` reports the store's failure
        return config if auth is None else config.model_copy(update={"auth": auth})

    async def connect(self) -> None:
        """Start every pending server now, concurrently; idempotent and safe to call from
        several tasks. Failures are reported (events, statuses), never raised.

        Raises:
            RuntimeError: before :meth:`open` or after :meth:`aclose`.
        """
        if self._connected:
            return
        if not self._opened:
            raise RuntimeError("open the MCP servers first (McpHub.open)")
        async with self._lock:
            if self._connected:
                return
            toolset = self._toolset
            if toolset is not None:
                offered: dict[str, list[Tool]] = {}
                for tool in await toolset.tools():
                    offered.setdefault(str(getattr(tool, "server", "")), []).append(tool)
                for name, tools in offered.items():
                    self._tools[name] = list(self._filter(name, tools)) if self._filter else tools
            self._connected = True

    async def aclose(self) -> None:
        """Stop every server (stdio children are reaped); idempotent."""
        if self._toolset is not None:
            self._final = {name: self._status(name) for name in self._servers}  # as it was
        owner, self._toolset, self._owner = self._owner, None, None
        if owner is not None:
            await owner.close()


def _needs_login(error: BaseException | None) -> bool:
    from robota.tools.mcp import McpAuthorizationRequired

    return isinstance(error, McpAuthorizationRequired)


def _describe(error: BaseException, server: StdioMcpServer | HttpMcpServer) -> str:
    """``error`` in one line: for a failure of the operating system (a refused connection, an
    unknown host, a missing command) ``cannot connect to URL: connection refused`` /
    ``cannot start COMMAND: no such file or directory`` (the target as written, ``${VAR}``
    unexpanded); else the innermost error (exception groups unwrapped) as ``Type: message``."""
    if os_failure(error) is not None:
        verb = "cannot start" if isinstance(server, StdioMcpServer) else "cannot connect to"
        return f"{verb} {describe_target(server)}: {failure_reason(error)}"
    inner = innermost_error(error)
    text = str(getattr(inner, "message", "") or inner) or "no message"
    return f"{type(inner).__name__}: {text}"


class _Described:
    """The hub's event sink for its toolset: forwards every event to the hub's sinks, a
    ``mcp.server_failed`` one with the hub's description of the failure."""

    def __init__(self, sinks: Sequence[EventSink], describe: Callable[[Event], Event]) -> None:
        self._sinks = sinks
        self._describe = describe

    def emit(self, event: Event) -> None:
        emit_all(self._sinks, self._describe(event))
