"""Checking a host's user storage root (seed 003, "Every user- and project-scoped location is
host-supplied": a user-local storage root that resolves inside the active repository —
including through a symbolic link — is rejected; issue #13).

User storage (settings, sessions, the trust file, credentials) must not live where a project
can write it or check it in: a repository could ship its own "user" settings or trust file.
"""

from __future__ import annotations

from pathlib import Path

from robota.core.errors import ConfigurationError
from robota.framework.trust.access import repository_root

__all__ = ["StorageRootInsideWorkspaceError", "check_storage_root"]


class StorageRootInsideWorkspaceError(ConfigurationError):
    """The user storage root resolves inside the active repository or workspace.

    Attributes:
        root: The storage root as resolved (symbolic links followed).
        workspace: The repository (or workspace) root it is inside.
    """

    code = "storage_root_inside_workspace"

    def __init__(self, root: Path, workspace: Path) -> None:
        super().__init__(
            f"the user storage root {root} is inside the workspace {workspace}; user storage "
            "must live outside any repository a session works in"
        )
        self.root = root
        self.workspace = workspace


def check_storage_root(root: str | Path, *, workspace: str | Path) -> Path:
    """The canonical storage root, after checking it is outside the workspace's repository.
    Call it before anything is written there.

    Outside Git there is no repository to ship user storage, so nothing is rejected: running
    in the home folder with the default ``~/.robota`` works (the shell sandbox hides the
    storage root, and writes there by the file tools always ask as trust-widening).

    Args:
        root: The storage root the host chose (it may not exist yet).
        workspace: The active working directory.

    Raises:
        StorageRootInsideWorkspaceError: ``root`` (symbolic links followed) is the root of the
            Git repository the workspace is in, or below it.
        FileNotFoundError: ``workspace`` does not exist.
    """
    real_root = Path(root).expanduser().resolve()
    real_workspace = Path(workspace).resolve(strict=True)
    boundary = repository_root(real_workspace)
    if boundary is not None and (real_root == boundary or boundary in real_root.parents):
        raise StorageRootInsideWorkspaceError(real_root, boundary)
    return real_root
