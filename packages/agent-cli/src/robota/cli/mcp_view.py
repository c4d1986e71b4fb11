"""MCP servers in the ``robota`` command's sessions (issue #18): the status table shown by
``robota mcp list`` and ``/mcp``, the question asked about a project's server, and the stderr
lines about servers that did not start.

Everything a project file or a server chose (names, command lines, URLs, working directories,
environment names, error texts) is shown through :func:`~robota.cli.terminal_text.shown`
(re-exported here): a character a terminal would act on (an escape sequence, a carriage return,
a newline, a bidirectional override) appears as its ``\\xNN`` / ``\\uNNNN`` escape, so the text
cannot rewrite what the terminal shows."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol, TextIO

from robota.cli.line_input import InputInterrupted, LineSource
from robota.cli.terminal_text import shown
from robota.core.events import Event
from robota.framework.interactive import InteractiveSession
from robota.framework.mcp import McpApprovalRequest, McpServerStatus

__all__ = [
    "HINTS",
    "McpNotices",
    "TerminalMcpApprover",
    "describe_request",
    "mcp_command",
    "quiet_library_logs",
    "report_mcp",
    "shown",
    "status_lines",
]

HINTS = {
    "awaiting-approval": "answer in `robota chat`, or run `robota mcp approve {name}`",
    "denied": "run `robota mcp approve {name}` to allow it",
    "untrusted": "trust the workspace (robota chat asks; --trust) to use it",
    "needs-login": "it answered 401: run `robota mcp login {name}` (OAuth), or give it a "
    "header with ${{VAR}}",
    "disabled": 'set "enabled": true in settings to use it',
}
"""What the user can do about a server in each state (``{name}``: the server)."""


def status_lines(
    statuses: Sequence[McpServerStatus], counts: Mapping[str, tuple[int, int]] | None = None
) -> list[str]:
    """The status table: one row per server (name, scope, transport, state, tool count,
    target), and under a row that did not connect, why and what to do.

    Args:
        statuses: The servers' statuses.
        counts: When given, server name → (resources, prompts) it lists, shown as RESOURCES
            and PROMPTS columns after TOOLS (``-`` for a server not connected).
    """
    if not statuses:
        return ["no MCP servers configured (add one: robota mcp add NAME -- COMMAND ARGS...)"]
    extra = ("RESOURCES", "PROMPTS") if counts is not None else ()
    header = ("NAME", "SCOPE", "TRANSPORT", "STATUS", "TOOLS", *extra, "TARGET")
    rows = [
        (
            shown(s.name),
            s.scope,
            s.transport,
            s.state,
            str(len(s.tools)) if s.state == "connected" else "-",
            *_counts(s, counts),
            shown(s.target),
        )
        for s in statuses
    ]
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header) - 1)]
    lines: list[str] = []
    for row, status in zip((header, *rows), (None, *statuses), strict=True):
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
        if status is None or status.state in ("connected", "pending"):
            continue
        if status.error:
            lines.append(f"    {shown(status.error)}")
        hint = HINTS.get(status.state)
        if hint:
            lines.append(f"    ({hint.format(name=shown(status.name))})")
    return lines


def _counts(
    status: McpServerStatus, counts: Mapping[str, tuple[int, int]] | None
) -> tuple[str, ...]:
    if counts is None:
        return ()
    if status.state != "connected":
        return ("-", "-")
    resources, prompts = counts.get(status.name, (0, 0))
    return (str(resources), str(prompts))


class _Chat(Protocol):
    @property
    def session(self) -> InteractiveSession: ...


async def mcp_command(chat: _Chat, args: Sequence[str]) -> None:
    """``/mcp`` in ``robota chat``: the session's MCP servers as ``robota mcp list`` shows
    them (on stderr)."""
    sys.stderr.write("".join(f"{line}\n" for line in status_lines(chat.session.mcp_servers)))
    sys.stderr.flush()


def quiet_library_logs() -> None:
    """Keep the MCP library's log warnings off the terminal (the CLI says it itself, once,
    prefixed ``robota:``)."""
    logging.getLogger("robota.tools.mcp").addHandler(logging.NullHandler())
    logging.getLogger("robota.tools.mcp").propagate = False


class McpNotices:
    """An event sink writing one stderr line when a server fails while the session connects
    (``robota: MCP server 'x' failed: cannot connect to URL: connection refused; going on
    without it``: the error as the session's hub describes it), or answers 401
    (``... needs login``)."""

    def __init__(self, err: TextIO | None = None) -> None:
        self._err = err
        self._login: set[str] = set()

    def emit(self, event: Event) -> None:
        server = str(getattr(event, "server", "?"))
        if event.type == "mcp.server_needs_login":
            self._login.add(server)
            line = (
                f"robota: MCP server {server!r} needs login (it answered 401 Unauthorized; "
                f"run `robota mcp login {shown(server)}`); going on without it"
            )
        elif event.type == "mcp.server_failed" and server not in self._login:
            error = shown(str(getattr(event, "error", "")))
            line = f"robota: MCP server {server!r} failed: {error}; going on without it"
        else:
            return
        err = self._err or sys.stderr
        err.write(line + "\n")
        err.flush()


def report_mcp(session: InteractiveSession, err: TextIO | None = None) -> None:
    """Subscribe :class:`McpNotices` and say once on stderr which configured servers will not
    start (waiting for approval, denied, untrusted, or an unusable definition)."""
    if not session.mcp_servers:
        return
    quiet_library_logs()
    session.subscribe(McpNotices(err))
    out = err or sys.stderr
    for status in session.mcp_servers:
        if status.state in ("pending", "connected", "disabled"):
            continue
        hint = HINTS.get(status.state, "")
        why = f": {shown(status.error)}" if status.error and status.state == "failed" else ""
        out.write(
            f"robota: MCP server {status.name!r} ({status.scope}) is {status.state}{why}"
            + (f"; {hint.format(name=shown(status.name))}" if hint else "")
            + "\n"
        )
    out.flush()


def describe_request(request: McpApprovalRequest) -> list[str]:
    """What a project's server would run or reach, as lines: the command line or URL, its
    working directory, the variables it sets and the ``${VAR}``s it is passed (every
    project-chosen text through :func:`shown`). The terminal question and ``robota mcp
    approve`` both show it."""
    verb = "run" if request.transport == "stdio" else "connect to"
    lines = [
        f"? The project's settings want to {verb} MCP server {request.server!r}:",
        f"    {shown(request.target)}",
    ]
    if request.cwd:
        lines.append(f"    in {shown(request.cwd)}")
    if request.env:
        lines.append(f"    setting {', '.join(shown(n) for n in request.env)} in its environment")
    if request.variables:
        passed = ", ".join(f"${shown(v)}" for v in request.variables)
        lines.append(f"    and passing it your {passed}")
    if request.transport == "stdio":
        lines.append("  It runs with your account's rights.")
    return lines


def _describe(request: McpApprovalRequest) -> Iterable[str]:
    yield ""
    yield from describe_request(request)
    yield "  Allow it for this workspace? (asked again if its definition changes) [y/N] "


class TerminalMcpApprover:
    """Asks at the terminal whether a project's MCP server may start; only ``y``/``yes``
    approves (end of input and Ctrl-C deny).

    Args:
        lines: Standard input as lines (shared with the chat prompt).
        err: Where the question is written.
    """

    def __init__(self, *, lines: LineSource, err: TextIO | None = None) -> None:
        self._lines = lines
        self._err = err

    async def __call__(self, request: McpApprovalRequest) -> bool:
        err = self._err or sys.stderr
        *described, question = _describe(request)
        err.write("".join(f"{line}\n" for line in described))
        err.flush()
        try:
            answer = await self._lines.read_line(question)  # the line editor draws it
        except InputInterrupted:
            answer = None
        approved = answer is not None and answer.strip().lower() in ("y", "yes")
        err.write(f"  ({'approved' if approved else 'denied'}: {request.server})\n")
        err.flush()
        return approved
