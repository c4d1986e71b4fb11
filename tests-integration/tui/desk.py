"""A person's desk for the terminal tests: a private robota home, a workspace on disk, settings
pointing at a scripted model server, and ``robota chat`` started in a tmux pane of its own.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from .tmux import TmuxPane

__all__ = ["ROBOTA", "Desk"]

ROBOTA = Path(sys.executable).with_name("robota")
"""The ``robota`` console script of the interpreter running the tests."""


class Desk:
    """A robota home (``$ROBOTA_HOME``, owner-only), a workspace and a ``$HOME`` under ``root``.

    Args:
        root: An empty folder; everything goes under it.

    Attributes:
        home: ``$ROBOTA_HOME``.
        workspace: The chat's working directory.
        env: The chat's environment: the caller's, less proxies and provider keys and base
            URLs, with ``HOME``/``ROBOTA_HOME`` here and ``NO_PROXY=*``.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "robota-home"
        self.home.mkdir(mode=0o700)
        self.workspace = root / "workspace"
        self.workspace.mkdir()
        self.env = {
            key: value
            for key, value in os.environ.items()
            if "proxy" not in key.lower() and not key.endswith(("_API_KEY", "_BASE_URL"))
        }
        self.env.update(ROBOTA_HOME=str(self.home), HOME=str(root), NO_PROXY="*")
        self._panes: list[TmuxPane] = []

    def settings(self, model_url: str, **extra: Any) -> None:
        """Write ``$ROBOTA_HOME/settings.json``: a Chat Completions profile at ``model_url``
        (model ``gpt-4o-mini``), plus ``extra`` top-level keys (``mcp_servers``,
        ``permissions``...)."""
        profile = {
            "type": "openai-chat",
            "base_url": model_url,
            "api_key": "test",
            "model": "gpt-4o-mini",
        }
        settings = {"providers": {"rec": profile}, "provider": "rec", **extra}
        (self.home / "settings.json").write_text(json.dumps(settings), encoding="utf-8")

    def chat(self, *args: str, width: int = 120, height: int = 40) -> TmuxPane:
        """Start ``robota chat --no-title --trust ARGS`` in a new tmux pane (closed by
        :meth:`close`).

        Raises:
            TmuxMissingError: when tmux is not installed.
        """
        pane = TmuxPane(
            [str(ROBOTA), "chat", "--no-title", "--trust", *args],
            env=self.env,
            cwd=self.workspace,
            config_dir=self.root,
            width=width,
            height=height,
        )
        self._panes.append(pane)
        return pane

    def close(self) -> None:
        """Kill every pane's tmux server."""
        for pane in self._panes:
            pane.close()
        self._panes.clear()
