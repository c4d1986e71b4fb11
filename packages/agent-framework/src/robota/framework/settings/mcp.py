"""MCP server entries of a settings layer (issue #18; seed 004, MCP server config).

A layer's ``mcp_servers`` maps a server name to its definition. ``type`` may be omitted: an
entry with a ``url`` is ``"http"`` (MCP streamable HTTP), anything else ``"stdio"`` (a child
process speaking MCP over stdin/stdout). Unknown keys are refused, like every settings key.

Example ``settings.json``::

    {
      "mcp_servers": {
        "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
                  "disabled_tools": ["write_file"]},
        "issues": {"url": "https://mcp.example.com/mcp",
                   "headers": {"Authorization": "Bearer ${ISSUES_TOKEN}"}},
        "old": {"command": "old-server", "enabled": false}
      }
    }

``${VAR}`` and ``${VAR:-default}`` in ``command``, ``args``, ``env`` values, ``cwd``, ``url``
and ``headers`` values are replaced from the environment when the server is started
(:mod:`robota.framework.mcp.variables`); a definition never needs to hold the secret itself.

>>> from pydantic import TypeAdapter
>>> server = TypeAdapter(McpServerSettings).validate_python({"url": "http://127.0.0.1:8000/mcp"})
>>> server.type, server.enabled
('http', True)
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Discriminator, Field, Tag
from robota.core.tools.base import RiskClass

__all__ = [
    "HttpMcpServer",
    "McpServerName",
    "McpServerSettings",
    "StdioMcpServer",
    "check_server_name",
]

_SERVER_NAME = re.compile(r"[a-zA-Z0-9-]+(?:_[a-zA-Z0-9-]+)*")


def check_server_name(name: str) -> str:
    """``name`` when it is a valid server name: letters, digits, ``-`` and single ``_`` (no
    ``__``, so ``mcp__<server>__<tool>`` splits back), at most 40 characters.

    Raises:
        ValueError: otherwise.
    """
    if len(name) > 40 or not _SERVER_NAME.fullmatch(name):
        raise ValueError(
            "an MCP server name is letters, digits, '-' and single '_' (no '__'), at most 40 "
            f"characters; got {name!r}"
        )
    return name


McpServerName = Annotated[str, AfterValidator(check_server_name)]
"""A server name (see :func:`check_server_name`)."""


class _McpServerBase(BaseModel):
    """Fields every transport has.

    Attributes:
        enabled: False keeps the server defined but never started (status ``disabled``).
        enabled_tools: When set, only these tools (the server's own names) are offered.
        disabled_tools: Tools never offered (applied after ``enabled_tools``).
        tool_risk: Declared risk per server tool name (``inspect``, ``modify``, ``execute``);
            an undeclared tool's calls ask in the default mode. Only the user's layer or the
            host may declare it (a project layer that does is refused: the declaration decides
            whether calls ask).
        connect_timeout: Seconds allowed to start, initialize and list tools (> 0).
        call_timeout: Seconds one tool call may take before it is an error result (> 0).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True
    enabled_tools: tuple[str, ...] | None = None
    disabled_tools: tuple[str, ...] = ()
    tool_risk: dict[str, RiskClass] = Field(default_factory=dict[str, RiskClass])
    connect_timeout: float = Field(default=30.0, gt=0)
    call_timeout: float = Field(default=60.0, gt=0)


class StdioMcpServer(_McpServerBase):
    """A server started as a child process (MCP over stdin/stdout).

    Attributes:
        type: ``"stdio"``.
        command: Executable (looked up on ``PATH``).
        args: Its arguments.
        env: Variables added to the child's environment. The child does not inherit this
            process's environment, only the MCP SDK's short safe list (``HOME``, ``PATH``,
            ``USER``...) plus these.
        cwd: Working directory (None: this process's).
    """

    type: Literal["stdio"] = "stdio"
    command: str = Field(min_length=1)
    args: tuple[str, ...] = ()
    env: dict[str, str] = Field(default_factory=dict[str, str])
    cwd: str | None = None


class HttpMcpServer(_McpServerBase):
    """A server reached over MCP streamable HTTP.

    Attributes:
        type: ``"http"``.
        url: The MCP endpoint (``http://`` or ``https://``).
        headers: Headers sent with every request (e.g. ``Authorization``; use ``${VAR}``).
    """

    type: Literal["http"] = "http"
    url: str = Field(pattern=r"^https?://")
    headers: dict[str, str] = Field(default_factory=dict[str, str])


def _kind(value: Any) -> str | None:
    if isinstance(value, dict):
        kind: object = value.get("type")  # pyright: ignore[reportUnknownMemberType]
        if kind is None:
            return "http" if "url" in value else "stdio"
        return kind if isinstance(kind, str) else None
    return getattr(value, "type", None)


McpServerSettings = Annotated[
    Annotated[StdioMcpServer, Tag("stdio")] | Annotated[HttpMcpServer, Tag("http")],
    Discriminator(_kind),
]
"""One server's definition: :class:`StdioMcpServer` or :class:`HttpMcpServer` (by ``type``,
inferred from ``url`` when omitted)."""
