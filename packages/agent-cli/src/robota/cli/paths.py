"""Where the ``robota`` command keeps its state: the CLI is the host, so it names every
location (the framework infers none).

``$ROBOTA_HOME`` (default ``~/.robota``) holds ``settings.json`` (user layer), ``sessions.db``,
``logs/`` (JSONL event logs), ``trust.json``, ``mcp-approvals.json`` (answers about projects'
MCP servers), ``history`` (the chat prompt's input history), ``agents/`` (subagent
definitions) and ``background/``; all created owner-only. A trusted workspace contributes
``<workspace>/.robota/settings.json`` and its ``AGENTS.md`` / ``CLAUDE.md``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CliPaths"]


@dataclass(frozen=True, kw_only=True, slots=True)
class CliPaths:
    """The CLI's state locations."""

    home: Path

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> CliPaths:
        """``$ROBOTA_HOME`` or ``~/.robota``."""
        source = os.environ if env is None else env
        home = source.get("ROBOTA_HOME") or str(Path.home() / ".robota")
        return cls(home=Path(home).expanduser())

    @property
    def user_settings(self) -> Path:
        return self.home / "settings.json"

    @property
    def sessions_db(self) -> Path:
        return self.home / "sessions.db"

    @property
    def logs(self) -> Path:
        return self.home / "logs"

    @property
    def trust_file(self) -> Path:
        return self.home / "trust.json"

    @property
    def credentials(self) -> Path:
        """Secrets the CLI keeps (owner-only JSON; OAuth tokens of MCP servers)."""
        return self.home / "credentials.json"

    @property
    def mcp_approvals(self) -> Path:
        """The user's answers about projects' MCP servers (owner-only)."""
        return self.home / "mcp-approvals.json"

    @property
    def history(self) -> Path:
        """The lines typed at the ``robota chat`` prompt (owner-only; answers to permission
        questions and pickers are not kept)."""
        return self.home / "history"

    @property
    def background(self) -> Path:
        return self.home / "background"

    @staticmethod
    def project_settings(workspace: Path) -> Path:
        return workspace / ".robota" / "settings.json"

    @staticmethod
    def project_local_settings(workspace: Path) -> Path:
        """The project-local layer (inside the repository, so project tier)."""
        return workspace / ".robota" / "settings.local.json"
