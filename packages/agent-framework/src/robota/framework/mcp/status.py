"""What a host sees of the configured MCP servers: each one's status, the approval question for
a project's server, and the events a session emits about them (issue #18; seed 004,
``mcp:bootstrap:end``)."""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

from robota.core.events import Event
from robota.core.tools.base import Tool
from robota.framework.mcp.variables import referenced_variables, server_texts
from robota.framework.settings.mcp import HttpMcpServer, StdioMcpServer
from robota.framework.settings.model import McpScope

__all__ = [
    "McpApprovalRequest",
    "McpApprover",
    "McpServerSkipped",
    "McpServerStatus",
    "McpState",
    "McpToolFilter",
    "approval_request",
    "describe_target",
]

McpState = Literal[
    "pending",
    "connected",
    "failed",
    "needs-login",
    "disabled",
    "awaiting-approval",
    "denied",
    "untrusted",
]
"""A server's state:

- ``pending``: will connect at the first turn or :meth:`warmup` (nothing started yet);
- ``connected``: started (or reached), initialized and its tools listed;
- ``failed``: could not start, initialize or list (``error`` says why), or died since;
- ``needs-login``: an HTTP server answered 401 (it wants credentials the definition lacks);
- ``disabled``: ``"enabled": false`` in settings;
- ``awaiting-approval``: a project's server the user has not answered about (or no one could
  be asked);
- ``denied``: a project's server the user refused (asked again when its definition changes);
- ``untrusted``: a project's server in a session whose workspace is not trusted.
"""


def describe_target(server: StdioMcpServer | HttpMcpServer) -> str:
    """The command line (shell-quoted, as written) or the URL of ``server``."""
    if isinstance(server, StdioMcpServer):
        return shlex.join([server.command, *server.args])
    return server.url


@dataclass(frozen=True, kw_only=True, slots=True)
class McpServerStatus:
    """One configured server, as the session knows it now.

    Attributes:
        name: The server name (tools are ``mcp__<name>__<tool>``).
        scope: Which layer declared it (``user``, ``project``, ``host``).
        transport: ``stdio`` or ``http``.
        target: The command line or URL, as written (``${VAR}`` unexpanded).
        state: See :data:`McpState`.
        tools: The offered tools' namespaced names (after ``enabled_tools`` /
            ``disabled_tools`` and the host's tool filter), once connected.
        catalog: Every tool the server listed (its own names, before any filter), once
            connected: what a settings UI offers to enable or disable.
        error: Why it failed, or what it is waiting for.
    """

    name: str
    scope: McpScope
    transport: Literal["stdio", "http"]
    target: str
    state: McpState
    tools: tuple[str, ...] = ()
    catalog: tuple[str, ...] = ()
    error: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class McpApprovalRequest:
    """The question about a project's server, asked once per definition before it starts.

    Attributes:
        server: The server name.
        transport: ``stdio`` (``target`` is the command that will run with the user's rights)
            or ``http`` (``target`` is where requests go).
        target: The command line or URL, as written.
        variables: Environment variables the definition reads (``${VAR}``): their values are
            passed to the server (in its environment, arguments, URL or headers).
        env: Names of the variables the definition sets in the server's environment.
        cwd: The working directory it asks for, or None.
        source: Where the definition comes from, for the question (e.g. ``project settings``).
    """

    server: str
    transport: Literal["stdio", "http"]
    target: str
    variables: tuple[str, ...]
    env: tuple[str, ...] = ()
    cwd: str | None = None
    source: str = "project settings"


def approval_request(name: str, server: StdioMcpServer | HttpMcpServer) -> McpApprovalRequest:
    """The question about project server ``name``: what :class:`McpHub` asks the approver and
    what ``robota mcp approve`` shows before approving.

    >>> request = approval_request("s", StdioMcpServer(command="srv", args=("-t", "${TOKEN}")))
    >>> request.variables, request.env
    (('TOKEN',), ())
    """
    stdio = isinstance(server, StdioMcpServer)
    return McpApprovalRequest(
        server=name,
        transport=server.type,
        target=describe_target(server),
        variables=referenced_variables(server_texts(server)),
        env=tuple(server.env) if stdio else (),
        cwd=server.cwd if stdio else None,
    )


McpApprover = Callable[[McpApprovalRequest], Awaitable[bool]]
"""Asks the user whether a project's server may start; True approves (remembered per
definition when the session has an approvals store)."""

McpToolFilter = Callable[[str, Sequence[Tool]], Sequence[Tool]]
"""The runtime filter seam (seed 004, ``mcp:tools:filter``): called once per connected server
with the server name and its offered tools (after the settings' ``enabled_tools`` /
``disabled_tools``), returns the tools the model gets (a subset, reordered, or replacements)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class McpServerSkipped(Event):
    """A configured server was not started: disabled, waiting for or denied approval,
    untrusted, or its definition could not be used (an unset ``${VAR}``, the ``mcp`` extra
    missing). The session goes on without it.

    Attributes:
        server: The server name.
        state: Its state (:data:`McpState`).
        reason: Why, in one line.
    """

    type: ClassVar[str] = "mcp.server_skipped"
    server: str
    state: McpState
    reason: str
