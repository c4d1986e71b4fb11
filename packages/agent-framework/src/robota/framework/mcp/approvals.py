"""Remembered answers about a project's MCP servers (issue #18: "each new project server asks
the user once").

A server a project-tier settings file declares runs a command or reaches a URL the repository
chose, so it starts only after the user approved it. :class:`McpApprovalStore` remembers each
answer in an owner-only JSON file at a host-named path, keyed by the workspace's identity
(:func:`~robota.framework.trust.workspace_identity`), the server name and the
:func:`server_digest` of its definition: a changed command, argument, URL, header, environment
entry or working directory is a new definition and is asked about again; a denied one stays off
until then. Tool filters, timeouts and ``enabled`` are not part of the digest (they change
neither what runs nor where data goes).

Several processes may answer at once (two chats, a chat and ``robota mcp approve``): each write
reads, changes and replaces the file while holding an exclusive ``flock`` on the owner-only
sibling ``<file>.lock``, so no answer written meanwhile is lost (POSIX; on Windows the write is
unlocked).

File shape: ``{"<workspace identity>": {"<server>": {"digest": "<sha256>", "decision":
"approved" | "denied"}}}``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from robota.core.errors import ConfigurationError
from robota.core.host.errors import OwnerOnlyError
from robota.core.host.owner_only import (
    ensure_private_dir,
    private_dir,
    read_private_file,
    write_private_file,
)
from robota.framework.mcp._filelock import locked as _locked
from robota.framework.settings.mcp import HttpMcpServer, StdioMcpServer

__all__ = ["McpApprovalError", "McpApprovalStore", "McpDecision", "server_digest"]

McpDecision = Literal["approved", "denied"]
"""The user's answer about one project server definition."""

_DIGEST_FIELDS = frozenset({"type", "command", "args", "env", "cwd", "url", "headers"})


def server_digest(server: StdioMcpServer | HttpMcpServer) -> str:
    """SHA-256 (hex) of what the definition runs or reaches, as written (references
    unexpanded): ``type``, ``command``, ``args``, ``env``, ``cwd``, ``url``, ``headers``.

    >>> a = StdioMcpServer(command="srv", args=("--x",))
    >>> server_digest(a) == server_digest(a.model_copy(update={"disabled_tools": ("t",)}))
    True
    >>> server_digest(a) == server_digest(a.model_copy(update={"args": ("--y",)}))
    False
    """
    data = server.model_dump(mode="json", include=set(_DIGEST_FIELDS))
    encoded = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(encoded).hexdigest()


class McpApprovalError(ConfigurationError):
    """The approvals file exists but is unsafe (a link, readable by others, another
    account's), unreadable or not an approvals map; never treated as empty.

    Attributes:
        path: The file.
    """

    code = "mcp_approvals"

    def __init__(self, path: Path, detail: str) -> None:
        super().__init__(f"MCP approvals file {path}: {detail}")
        self.path = path


@dataclass(kw_only=True, slots=True)
class McpApprovalStore:
    """Answers about project MCP servers, in an owner-only JSON file.

    Every read verifies an existing file (owner-only, not a link, one hard link) and every
    write goes through :func:`~robota.core.host.owner_only.write_private_file` (atomic,
    0600; the folder 0700), like the trust store.

    Attributes:
        path: The file (host-named; the CLI's is ``$ROBOTA_HOME/mcp-approvals.json``).
    """

    path: Path

    def _read(self) -> dict[str, dict[str, dict[str, str]]]:
        try:
            with private_dir(self.path.parent) as folder:
                data = read_private_file(self.path, dir_fd=folder)
        except FileNotFoundError:
            return {}
        except OwnerOnlyError as exc:
            raise McpApprovalError(self.path, exc.message) from exc
        except OSError as exc:
            raise McpApprovalError(self.path, f"cannot read: {exc}") from exc
        try:
            raw = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise McpApprovalError(self.path, f"invalid JSON: {exc}") from exc
        if not _is_map(raw):
            raise McpApprovalError(self.path, "not an approvals map")
        return raw

    def get(self, workspace: str, server: str, digest: str) -> McpDecision | None:
        """The answer for ``server`` of ``workspace`` (an identity string) when it was given
        for this ``digest``; None when never asked or asked about another definition.

        Raises:
            McpApprovalError: the file is unsafe, unreadable or malformed.
        """
        entry = self._read().get(workspace, {}).get(server)
        if entry is None or entry.get("digest") != digest:
            return None
        decision = entry.get("decision")
        return decision if decision in ("approved", "denied") else None  # type: ignore[return-value]

    def set(self, workspace: str, server: str, digest: str, decision: McpDecision) -> None:
        """Remember ``decision`` for this definition (replacing any earlier answer), reading
        and rewriting the file under the lock (see the module docstring).

        Raises:
            McpApprovalError: the file, its lock file or its folder is unsafe, or the file is
                malformed.
            OSError: the file cannot be written.
        """
        try:
            ensure_private_dir(self.path.parent)
            with private_dir(self.path.parent) as folder, _locked(self.path, folder):
                data = self._read()
                data.setdefault(workspace, {})[server] = {"digest": digest, "decision": decision}
                encoded = json.dumps(data, indent=2, sort_keys=True).encode()
                write_private_file(self.path, encoded, dir_fd=folder)
        except OwnerOnlyError as exc:
            raise McpApprovalError(self.path, exc.message) from exc


def _is_map(raw: object) -> bool:
    if not isinstance(raw, dict):
        return False
    for servers in raw.values():  # pyright: ignore[reportUnknownVariableType]
        if not isinstance(servers, dict):
            return False
        for entry in servers.values():  # pyright: ignore[reportUnknownVariableType]
            if not isinstance(entry, dict) or not all(
                isinstance(v, str)
                for v in entry.values()  # pyright: ignore[reportUnknownVariableType]
            ):
                return False
    return True
