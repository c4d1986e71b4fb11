"""``${VAR}`` references in MCP server definitions (issue #18).

A definition names the environment variables its secrets come from instead of holding them:
``"headers": {"Authorization": "Bearer ${ISSUES_TOKEN}"}``. ``${VAR}`` is replaced by the
variable's value and ``${VAR:-default}`` by the default when the variable is unset or empty;
an unset variable without a default is an error naming it (never an empty string). ``$`` not
followed by ``{`` is left alone. References are expanded in ``command``, ``args``, ``env``
values, ``cwd``, ``url`` and ``headers`` values, when the server is started.

A project's server runs only after the user approved it, and the approval question lists every
variable its definition references (:func:`referenced_variables`), so a checked-in file cannot
read one of the user's variables unseen; a changed list is a changed definition and asks again.

>>> expand("Bearer ${TOKEN}", {"TOKEN": "t0k"})
'Bearer t0k'
>>> expand("${PORT:-8000}", {})
'8000'
>>> referenced_variables(["${A}", "x ${B:-1} ${A}"])
('A', 'B')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from robota.core.errors import ConfigurationError
from robota.framework.settings.mcp import HttpMcpServer, StdioMcpServer

__all__ = [
    "McpVariableError",
    "expand",
    "expand_server",
    "referenced_variables",
    "server_texts",
]

_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class McpVariableError(ConfigurationError):
    """A server definition references an environment variable that is not set (and has no
    ``:-default``).

    Attributes:
        variable: The variable's name.
    """

    code = "mcp_variable"

    def __init__(self, variable: str) -> None:
        super().__init__(f"the environment variable {variable} is not set")
        self.variable = variable


def expand(text: str, env: Mapping[str, str]) -> str:
    """``text`` with every ``${VAR}`` / ``${VAR:-default}`` replaced from ``env``.

    Raises:
        McpVariableError: a referenced variable is unset (or empty) and has no default.
    """

    def value(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        found = env.get(name)
        if found:
            return found
        if default is not None:
            return default
        raise McpVariableError(name)

    return _REFERENCE.sub(value, text)


def server_texts(server: StdioMcpServer | HttpMcpServer) -> list[str]:
    """Every string of ``server`` in which references are expanded."""
    if isinstance(server, StdioMcpServer):
        return [server.command, *server.args, *server.env.values(), server.cwd or ""]
    return [server.url, *server.headers.values()]


def referenced_variables(texts: Iterable[str]) -> tuple[str, ...]:
    """The variable names referenced in ``texts``, first occurrence first, no duplicates."""
    names: dict[str, None] = {}
    for text in texts:
        for match in _REFERENCE.finditer(text):
            names.setdefault(match.group(1), None)
    return tuple(names)


def expand_server(
    server: StdioMcpServer | HttpMcpServer, env: Mapping[str, str]
) -> StdioMcpServer | HttpMcpServer:
    """A copy of ``server`` with its references expanded (see the module docstring).

    Raises:
        McpVariableError: a referenced variable is unset and has no default.
    """
    if isinstance(server, StdioMcpServer):
        return server.model_copy(
            update={
                "command": expand(server.command, env),
                "args": tuple(expand(a, env) for a in server.args),
                "env": {k: expand(v, env) for k, v in server.env.items()},
                "cwd": expand(server.cwd, env) if server.cwd is not None else None,
            }
        )
    return server.model_copy(
        update={
            "url": expand(server.url, env),
            "headers": {k: expand(v, env) for k, v in server.headers.items()},
        }
    )
