"""Workspace trust (seed 003, "No public project-path helper", "Workspace identity").

Project settings, hooks, skills and instruction files are read only when the host marks the
workspace trusted; restricted is the default. :class:`TrustStore` remembers the operator's answer
per workspace in an owner-only JSON file at a host-named path, keyed by the workspace's canonical
path plus its device and inode, so a directory recreated at the same path does not inherit a
grant.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from robota.core.errors import ConfigurationError
from robota.core.host.owner_only import ensure_private_dir, write_private_file

__all__ = ["TrustDecision", "TrustStore", "TrustStoreError", "workspace_identity"]

TrustDecision = Literal["trusted", "restricted"]


class TrustStoreError(ConfigurationError):
    """The trust file exists but cannot be read or parsed (never treated as empty)."""

    code = "trust_store"


def workspace_identity(root: str | Path) -> str:
    """``<canonical path>#<device>:<inode>`` of a workspace root.

    Raises:
        FileNotFoundError: if the root does not exist.
    """
    real = Path(root).resolve(strict=True)
    info = real.stat()
    return f"{real}#{info.st_dev}:{info.st_ino}"


@dataclass(kw_only=True, slots=True)
class TrustStore:
    """Remembered trust answers in an owner-only JSON file.

    Attributes:
        path: The file (host-named). Created 0600 (folder 0700) on first write.
    """

    path: Path

    def _read(self) -> dict[str, TrustDecision]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise TrustStoreError(f"trust file {self.path}: cannot read: {exc}") from exc
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as exc:
            raise TrustStoreError(f"trust file {self.path}: invalid JSON: {exc}") from exc
        if not isinstance(raw, dict) or not all(
            v in ("trusted", "restricted") for v in raw.values()
        ):
            raise TrustStoreError(f"trust file {self.path}: not a trust map")
        return {str(k): v for k, v in raw.items()}

    def get(self, root: str | Path) -> TrustDecision | None:
        """The remembered answer for ``root``, or None when never asked."""
        return self._read().get(workspace_identity(root))

    def set(self, root: str | Path, decision: TrustDecision) -> None:
        """Remember ``decision`` for ``root`` (atomic owner-only write)."""
        data = self._read()
        data[workspace_identity(root)] = decision
        if not self.path.parent.exists():
            ensure_private_dir(self.path.parent)
        write_private_file(self.path, json.dumps(data, indent=2, sort_keys=True).encode())
