"""Which workspace a session trusts, fixed for the session (seed 003, "No public project-path
helper": trusted access is accepted only when the real working directory is the trusted root or
a descendant of it; "Workspace identity"; issue #13).

:func:`workspace_root` is the root a working directory's trust is recorded against: the Git
worktree it is inside (the nearest folder holding a ``.git`` directory, or the ``.git`` file of
a linked worktree), so every nested folder of one worktree has the same identity while linked
worktrees stay distinct; outside Git, the folder itself. :class:`TrustedWorkspace` pairs that
root with the working directory once, after checking the canonical (symlinks followed)
directory is the root or below it, and the host hands the one value to the session.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from robota.core.errors import ConfigurationError
from robota.framework.trust.store import TrustStore, workspace_identity

__all__ = [
    "TrustedWorkspace",
    "WorkspaceAuthorityError",
    "repository_root",
    "trusted_workspace",
    "workspace_root",
]


class WorkspaceAuthorityError(ConfigurationError):
    """A trust decision does not cover the working directory it was paired with.

    Attributes:
        root: The trusted root (canonical).
        cwd: The working directory (canonical).
    """

    code = "workspace_authority"

    def __init__(self, root: Path, cwd: Path) -> None:
        super().__init__(
            f"the working directory {cwd} is not the trusted workspace root {root} or inside it"
        )
        self.root = root
        self.cwd = cwd


def repository_root(path: str | Path) -> Path | None:
    """The Git worktree root ``path`` is in (canonical), or None outside Git.

    Raises:
        FileNotFoundError: ``path`` does not exist.
    """
    real = Path(path).resolve(strict=True)
    for folder in (real, *real.parents):
        if (folder / ".git").exists():
            return folder
    return None


def workspace_root(cwd: str | Path) -> Path:
    """The root a working directory's trust is recorded against: its Git worktree root, or
    the (canonical) folder itself outside Git.

    Raises:
        FileNotFoundError: ``cwd`` does not exist.
    """
    return repository_root(cwd) or Path(cwd).resolve(strict=True)


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


@dataclass(frozen=True, kw_only=True, slots=True)
class TrustedWorkspace:
    """An accepted trust decision: the root it covers and the working directory it was
    accepted for, both canonical, fixed for the session's life (a move is a new session).

    Attributes:
        root: The trusted root.
        cwd: The working directory (the root or below it).
        identity: :func:`~robota.framework.trust.store.workspace_identity` of the root.
    """

    root: Path
    cwd: Path
    identity: str

    @classmethod
    def accept(cls, *, root: str | Path, cwd: str | Path) -> TrustedWorkspace:
        """Pair a trusted root with a working directory.

        Raises:
            WorkspaceAuthorityError: the canonical ``cwd`` is not ``root`` or below it.
            FileNotFoundError: either does not exist.
        """
        real_root = Path(root).resolve(strict=True)
        real_cwd = Path(cwd).resolve(strict=True)
        if not _within(real_cwd, real_root):
            raise WorkspaceAuthorityError(real_root, real_cwd)
        return cls(root=real_root, cwd=real_cwd, identity=workspace_identity(real_root))

    def covers(self, path: str | Path) -> bool:
        """True when ``path`` (canonical) is the root or below it."""
        return _within(Path(path).resolve(), self.root)


def trusted_workspace(store: TrustStore, cwd: str | Path) -> TrustedWorkspace | None:
    """The remembered trust for ``cwd``'s workspace root, or None when it is not trusted.

    Raises:
        TrustStoreError: the trust file is unsafe or unreadable.
        FileNotFoundError: ``cwd`` does not exist.
    """
    root = workspace_root(cwd)
    if store.get(root) != "trusted":
        return None
    return TrustedWorkspace.accept(root=root, cwd=cwd)
