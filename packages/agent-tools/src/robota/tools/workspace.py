"""The workspace a tool works in: one root directory, canonicalized once (seed 000, "Path
Containment").

Every file tool resolves the model's paths through :meth:`Workspace.resolve`, which delegates to
:func:`robota.core.host.paths.resolve_inside` so the containment rule (symlinks resolved
component by component, ``..`` applied after resolution) is the one core defines and tests.

Example:
    >>> import tempfile
    >>> ws = Workspace.at(tempfile.mkdtemp())
    >>> ws.resolve("src/app.py") == ws.root / "src" / "app.py"
    True
    >>> ws.display(ws.root / "src" / "app.py")
    'src/app.py'
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from robota.core.errors import ConfigurationError
from robota.core.host.paths import canonical_path, resolve_inside

__all__ = ["Workspace"]


@dataclass(frozen=True, kw_only=True, slots=True)
class Workspace:
    """A canonical root directory that tool paths must stay inside.

    Build it with :meth:`at`, which canonicalizes the root once; the constructor takes an
    already-canonical root as is.

    Attributes:
        root: The canonical absolute root (no symlinks among its components).
    """

    root: Path

    @classmethod
    def at(cls, root: str | os.PathLike[str]) -> Workspace:
        """Canonicalize ``root`` and return the workspace.

        Args:
            root: An existing directory (it may be reached through a symlink).

        Raises:
            ConfigurationError: ``root`` does not exist or is not a directory.
            InvalidPathError: ``root`` holds a NUL byte or runs into a symlink loop.
        """
        canonical = canonical_path(root)
        if not canonical.is_dir():
            raise ConfigurationError(f"workspace root {os.fspath(root)!r} is not a directory")
        return cls(root=canonical)

    def resolve(self, path: str | os.PathLike[str]) -> Path:
        """Return the canonical path of ``path`` inside the root.

        Args:
            path: Relative to the root, or absolute. Need not exist.

        Returns:
            The canonical path (symlinks resolved), the root itself or below it.

        Raises:
            PathOutsideRootError: The canonical path is outside the root (``..``, an absolute
                path elsewhere, or a symlink inside the root pointing outside).
            InvalidPathError: NUL byte, symlink loop, or an uninspectable component.
        """
        return resolve_inside(self.root, path)

    def display(self, path: Path) -> str:
        """Return ``path`` relative to the root for messages (``.`` for the root itself).

        A path not under the root is returned absolute.
        """
        try:
            relative = path.relative_to(self.root)
        except ValueError:
            return str(path)
        text = relative.as_posix()
        return text if text else "."
