"""The workspace a tool works in: one root directory, canonicalized once, reached only through
a rooted directory handle (seed 000, "Path Containment"; seed 002, "Execution environments").

Every file tool acts through :attr:`Workspace.handle`, a :class:`~robota.tools.rooted.RootedDir`
holding the root open as a directory descriptor: paths are walked beneath it component by
component, so no containment check is separated from the ``open`` it guards (see
:mod:`robota.tools.rooted`). :meth:`Workspace.resolve` names the canonical path a tool would
use (the shell tool takes its working directory from it); it raises the same
:class:`~robota.core.host.errors.PathOutsideRootError` as the tools.

Example:
    >>> import tempfile
    >>> ws = Workspace.at(tempfile.mkdtemp())
    >>> ws.resolve("src/app.py") == ws.root / "src" / "app.py"
    True
    >>> ws.display(ws.root / "src" / "app.py")
    'src/app.py'
    >>> ws.resolve("../elsewhere")
    Traceback (most recent call last):
    ...
    robota.core.host.errors.PathOutsideRootError: '../elsewhere' leads outside the workspace ...
    >>> ws.close()
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from robota.core.errors import ConfigurationError
from robota.core.host.paths import canonical_path
from robota.tools.rooted import RootedDir

__all__ = ["Workspace"]


@dataclass(frozen=True, kw_only=True, slots=True)
class Workspace:
    """A canonical root directory that tool paths must stay inside.

    Build it with :meth:`at`, which canonicalizes the root once and opens it; the constructor
    takes an already-canonical root as is and opens it on first use. The root is opened by
    walking its canonical path from ``/`` without following a symlink (see
    :class:`~robota.tools.rooted.RootedDir`), so a root swapped for a link after it was
    canonicalized is refused (:class:`~robota.tools.errors.PathChangedError`), not followed;
    a copy or unpickled workspace opens its root the same way and refuses a directory other
    than the one the original had opened. The descriptor is
    ``O_CLOEXEC`` (a forked child shares it, an ``exec``-ed program does not get it) and is
    closed by :meth:`close` or when the workspace is garbage-collected.

    Attributes:
        root: The canonical absolute root (no symlinks among its components).
    """

    root: Path
    _handle: RootedDir = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_handle", RootedDir(self.root))

    @classmethod
    def at(cls, root: str | os.PathLike[str]) -> Workspace:
        """Canonicalize ``root``, open it, and return the workspace.

        Args:
            root: An existing directory (it may be reached through a symlink).

        Raises:
            ConfigurationError: ``root`` does not exist or is not a directory.
            InvalidPathError: ``root`` holds a NUL byte or runs into a symlink loop;
                :class:`~robota.tools.errors.PathChangedError` when a component of the
                canonical root became a symlink before it was opened (a concurrent swap).
        """
        canonical = canonical_path(root)
        if not canonical.is_dir():
            raise ConfigurationError(f"workspace root {os.fspath(root)!r} is not a directory")
        workspace = cls(root=canonical)
        try:
            workspace.handle.fileno()
        except OSError as error:
            raise ConfigurationError(
                f"workspace root {os.fspath(root)!r} cannot be opened: {error.strerror}"
            ) from error
        return workspace

    @property
    def handle(self) -> RootedDir:
        """The rooted directory handle every file operation goes through."""
        return self._handle

    def resolve(self, path: str | os.PathLike[str]) -> Path:
        """Return the canonical path of ``path`` inside the root, resolved through the handle.

        Args:
            path: Relative to the root, or absolute. Need not exist.

        Returns:
            The canonical path (symlinks resolved), the root itself or below it. It describes
            the moment of the call: act through :attr:`handle`, not on this path, when a
            concurrent change must not let the action escape.

        Raises:
            PathOutsideRootError: The path leaves the root (``..``, an absolute path
                elsewhere, or a symlink inside the root pointing outside).
            InvalidPathError: NUL byte, symlink loop, path too long.
        """
        return self._handle.canonical(path)

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

    def close(self) -> None:
        """Close the root descriptor; the file tools of this workspace stop working."""
        self._handle.close()
