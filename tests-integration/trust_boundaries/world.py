"""One hostile project and one user, on disk, and the real ``robota`` command run between them.

A :class:`World` is a temp folder holding the user's private ``$ROBOTA_HOME`` (0700, with the
user's own ``settings.json``), a fake ``$HOME``, and the project (a Git worktree: a ``.git``
folder) the hostile author wrote. :meth:`World.robota` runs the installed console script as a
subprocess with no TTY (so a permission ask is a denial and trust is never asked), the user's
secrets in its environment, and every HTTP(S) proxy variable pointing at the loopback vendor,
so a request meant for a real vendor host is recorded there instead of leaving the machine.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trust_boundaries.zygote import Zygote

__all__ = ["ROBOTA", "SECRET_NAMES", "Attempt", "Ledger", "World", "make_world"]

ROBOTA = Path(sys.executable).with_name("robota")

SECRET_NAMES = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "MY_GATEWAY_KEY",
)
"""The user's credential variables; each holds a random value per world."""

_DROPPED_PREFIXES = ("ANTHROPIC_", "OPENAI_", "GEMINI_", "GOOGLE_", "ROBOTA_")


@dataclass(frozen=True, kw_only=True, slots=True)
class Attempt:
    """One thing the hostile author tried and what happened.

    Attributes:
        row: Brief row (``1 credentials``, ...).
        name: What was tried.
        crossed: True when the boundary did not hold.
        detail: The evidence (exit status, stderr tail, what the server saw).
    """

    row: str
    name: str
    crossed: bool
    detail: str


@dataclass(kw_only=True)
class Ledger:
    """Every attempt of the session, for the summary line."""

    attempts: list[Attempt] = field(default_factory=list[Attempt])

    def add(self, attempt: Attempt) -> Attempt:
        self.attempts.append(attempt)
        return attempt


@dataclass(kw_only=True)
class World:
    """The user, the project and their environment.

    Attributes:
        root: The temp folder everything lives in.
        home: ``$ROBOTA_HOME`` (0700).
        project: The project root (a Git worktree).
        env: The environment the command runs with.
        secrets: The user's credential values by variable name.
    """

    root: Path
    home: Path
    project: Path
    env: dict[str, str]
    secrets: dict[str, str]
    zygote: Zygote | None = None

    def user_settings(self, data: Mapping[str, Any]) -> None:
        """Write ``$ROBOTA_HOME/settings.json``."""
        (self.home / "settings.json").write_text(json.dumps(data), encoding="utf-8")

    def project_file(self, relative: str, content: str | Mapping[str, Any]) -> Path:
        """Write a file into the project (a mapping is written as JSON)."""
        path = self.project / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        text = content if isinstance(content, str) else json.dumps(content)
        path.write_text(text, encoding="utf-8")
        return path

    def project_settings(self, data: Mapping[str, Any], *, local: bool = False) -> None:
        """Write ``.robota/settings.json`` (or ``settings.local.json``)."""
        name = "settings.local.json" if local else "settings.json"
        self.project_file(f".robota/{name}", data)

    def robota(
        self, *args: str, cwd: Path | None = None, timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        """Run ``robota ARGS`` in ``cwd`` (default: the project): through the fork server
        when the world has one, else the installed console script."""
        if self.zygote is not None:
            return self.zygote.run(
                args, env=self.env, cwd=cwd or self.project, scratch=self.root, timeout=timeout
            )
        return subprocess.run(
            [str(ROBOTA), *args],
            env=self.env,
            cwd=cwd or self.project,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def leaked(self, blob: bytes | str) -> list[str]:
        """The names of the user's secrets found in ``blob``."""
        data = blob.encode() if isinstance(blob, str) else blob
        return [name for name, value in self.secrets.items() if value.encode() in data]


def make_world(base: Path, *, proxy: str, git: bool = True, zygote: Zygote | None = None) -> World:
    """A fresh world under ``base`` (which must not exist yet).

    Args:
        base: Folder to create.
        proxy: ``http://127.0.0.1:PORT`` of the vendor, used as every proxy variable.
        git: Make the project a Git worktree (a ``.git`` folder).
        zygote: The fork server runs go through (None: a subprocess per run).
    """
    base.mkdir(parents=True)
    home = base / "robota-home"
    home.mkdir(mode=0o700)
    user_home = base / "user"
    user_home.mkdir()
    project = base / "project"
    project.mkdir()
    if git:
        (project / ".git").mkdir()
    values = {name: f"SECRET-{name}-{secrets.token_hex(8)}" for name in SECRET_NAMES}
    env = {
        key: value
        for key, value in os.environ.items()
        if "proxy" not in key.lower()
        and not key.upper().startswith(_DROPPED_PREFIXES)
        and not key.endswith(("_API_KEY", "_BASE_URL"))
    }
    env.update(values)
    env.update(
        ROBOTA_HOME=str(home),
        HOME=str(user_home),
        ROBOTA_POLICY=str(base / "no-policy.json"),
        HTTP_PROXY=proxy,
        HTTPS_PROXY=proxy,
        ALL_PROXY=proxy,
        http_proxy=proxy,
        https_proxy=proxy,
        NO_PROXY="127.0.0.1,localhost",
        no_proxy="127.0.0.1,localhost",
    )
    return World(root=base, home=home, project=project, env=env, secrets=values, zygote=zygote)
