"""The MCP status table and stderr notices of the ``robota`` command (issue #18)."""

from __future__ import annotations

import io

from robota.cli.mcp_view import McpNotices, status_lines
from robota.framework.mcp import McpServerStatus
from robota.tools.mcp import McpServerFailed, McpServerNeedsLogin


def test_the_table_says_why_a_server_is_not_connected_and_what_to_do() -> None:
    lines = status_lines(
        [
            McpServerStatus(
                name="files",
                scope="user",
                transport="stdio",
                target="mcp-files .",
                state="connected",
                tools=("mcp__files__read", "mcp__files__list"),
            ),
            McpServerStatus(
                name="lint",
                scope="project",
                transport="stdio",
                target="node lint.js",
                state="awaiting-approval",
                error="a project server the user has not approved",
            ),
            McpServerStatus(
                name="issues",
                scope="user",
                transport="http",
                target="https://mcp.example.com/mcp",
                state="needs-login",
                error="McpAuthorizationRequired: ... answered 401 Unauthorized",
            ),
        ]
    )
    assert lines == [
        "NAME    SCOPE    TRANSPORT  STATUS             TOOLS  TARGET",
        "files   user     stdio      connected          2      mcp-files .",
        "lint    project  stdio      awaiting-approval  -      node lint.js",
        "    a project server the user has not approved",
        "    (answer in `robota chat`, or run `robota mcp approve lint`)",
        "issues  user     http       needs-login        -      https://mcp.example.com/mcp",
        "    McpAuthorizationRequired: ... answered 401 Unauthorized",
        "    (it answered 401: run `robota mcp login issues` (OAuth), or give it a header with "
        "${VAR})",
    ]
    assert status_lines([]) == [
        "no MCP servers configured (add one: robota mcp add NAME -- COMMAND ARGS...)"
    ]


def test_a_401_is_said_once_as_needs_login_and_other_failures_as_failed() -> None:
    err = io.StringIO()
    notices = McpNotices(err)
    notices.emit(McpServerNeedsLogin(server="issues", url="https://h/mcp", www_authenticate=""))
    notices.emit(McpServerFailed(server="issues", error="McpAuthorizationRequired: 401"))
    notices.emit(
        McpServerFailed(server="files", error="cannot start mcp-files: no such file or directory")
    )
    assert err.getvalue().splitlines() == [
        "robota: MCP server 'issues' needs login (it answered 401 Unauthorized; run "
        "`robota mcp login issues`); going on without it",
        "robota: MCP server 'files' failed: cannot start mcp-files: no such file or directory; "
        "going on without it",
    ]
