"""Errors of the built-in tools.

The built-in tools turn these into error tool results (``ToolReturn(is_error=True)``) rather
than letting them escape, so a model sees the message and can correct itself.

The file tools reach the filesystem only through :class:`robota.tools.rooted.RootedDir`, which
raises the typed errors below (and :class:`~robota.core.host.errors.PathOutsideRootError` for
any path, symlink or ``..`` that leaves the workspace, the same error everywhere). Path errors
derive from :class:`~robota.core.host.errors.InvalidPathError`; "what is there is the wrong
kind of thing" errors derive from :class:`ToolUsageError`.
"""

from __future__ import annotations

from robota.core.errors import ErrorCategory, RobotaError
from robota.core.host.errors import InvalidPathError

__all__ = [
    "NotADirectoryPathError",
    "NotARegularFileError",
    "PathChangedError",
    "PathNotFoundError",
    "PathTooLongError",
    "SymlinkLoopError",
    "ToolUsageError",
]


class ToolUsageError(RobotaError):
    """A built-in tool cannot do what the call asked (missing file, ambiguous edit, binary
    file, unknown task id, refused URL). The message says what to change."""

    code = "tool_usage"
    default_category = ErrorCategory.USER
    default_recoverable = True


class PathNotFoundError(ToolUsageError):
    """Nothing exists at the path (or one of its parent directories is missing).

    Attributes:
        path: The path as shown to the model (relative to the workspace root).
    """

    code = "path_not_found"

    def __init__(self, message: str, *, path: str) -> None:
        super().__init__(message)
        self.path = path


class NotARegularFileError(ToolUsageError):
    """The path names something other than a regular file where one is needed: a directory, a
    FIFO, a socket or a device. Special files are refused before any byte is read or written
    (opening a FIFO for reading would block until a writer appears).

    Attributes:
        path: The path as shown to the model.
        kind: What is there: ``"directory"``, ``"FIFO"``, ``"socket"``, ``"character device"``,
            ``"block device"`` or ``"special file"``.
    """

    code = "not_a_regular_file"

    def __init__(self, message: str, *, path: str, kind: str) -> None:
        super().__init__(message)
        self.path = path
        self.kind = kind


class NotADirectoryPathError(ToolUsageError):
    """The path (or a component in its middle) names something other than a directory where
    one is needed.

    Attributes:
        path: The path as shown to the model.
        kind: What is there (``"regular file"``, ``"FIFO"`` ...).
    """

    code = "not_a_directory"

    def __init__(self, message: str, *, path: str, kind: str) -> None:
        super().__init__(message)
        self.path = path
        self.kind = kind


class SymlinkLoopError(InvalidPathError):
    """Resolving the path met more than 40 symlinks (Linux ``MAXSYMLINKS``; ``ELOOP``)."""

    code = "symlink_loop"


class PathTooLongError(InvalidPathError):
    """The path is longer than 4096 bytes (Linux ``PATH_MAX``) or one of its names is longer
    than the filesystem allows (``ENAMETOOLONG``, 255 bytes on most filesystems)."""

    code = "path_too_long"


class PathChangedError(InvalidPathError):
    """The path kept changing under the tool (an entry swapped between a directory, a symlink
    and a file faster than it could be opened) and the tool gave up rather than guess."""

    code = "path_changed"
    default_recoverable = True
