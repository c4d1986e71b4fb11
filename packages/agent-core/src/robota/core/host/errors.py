"""Errors raised by the host guards (seed 000, "Path Containment", "Egress Policy",
"Owner-Only Store", "Credential Store Port").

Policy answers are not errors: an egress refusal is an :class:`~robota.core.host.egress.
EgressDecision` value. These classes cover the cases where an operation cannot go on: a path
outside its root, a store whose owner-only guarantee does not hold, a credential backend that
cannot be read, a fetch that broke its size or time bound.
"""

from __future__ import annotations

from typing import Literal

from robota.core.errors import ErrorCategory, RobotaError

__all__ = [
    "CredentialStoreError",
    "EgressBodyTooLargeError",
    "EgressError",
    "EgressTimeoutError",
    "InsecurePermissionsError",
    "InvalidCredentialKeyError",
    "InvalidPathError",
    "ModeNotEnforcedError",
    "OwnerOnlyError",
    "PathContainmentError",
    "PathOutsideRootError",
    "UnsafeEntryProblem",
    "UnsafeStoreEntryError",
]


class PathContainmentError(RobotaError):
    """Base of the path-containment failures: the candidate cannot be shown to stay in its root.

    Attributes:
        root: The root the candidate was checked against, as given.
        candidate: The candidate path, as given.
    """

    code = "path_containment"
    default_category = ErrorCategory.USER

    def __init__(self, message: str, *, root: str, candidate: str) -> None:
        super().__init__(message)
        self.root = root
        self.candidate = candidate


class PathOutsideRootError(PathContainmentError):
    """The candidate's canonical path (symlinks resolved) is not inside the root's."""

    code = "path_outside_root"


class InvalidPathError(PathContainmentError):
    """The candidate cannot name a file: it holds a NUL byte, it runs into a symlink loop, or a
    component cannot be inspected (permission denied on ``lstat``)."""

    code = "invalid_path"


class OwnerOnlyError(RobotaError):
    """Base of the owner-only store failures.

    Attributes:
        path: The file or directory concerned.
        fix: What the operator can do about it, as a short instruction naming the path (for
            example ``"chmod 600 /home/me/.robota/trust.json"``); empty when there is no
            operator fix (a filesystem that ignores modes).
    """

    code = "owner_only"

    def __init__(self, message: str, *, path: str, fix: str = "") -> None:
        super().__init__(message)
        self.path = path
        self.fix = fix


class InsecurePermissionsError(OwnerOnlyError):
    """An existing file or directory is readable or writable by others (group/other mode bits
    set) or is owned by another account. It is reported, never silently tightened, unless the
    caller asked for tightening.

    Attributes:
        mode: The permission bits found (``st_mode & 0o777``).
        uid: The owner found.
    """

    code = "insecure_permissions"
    default_category = ErrorCategory.USER

    def __init__(self, message: str, *, path: str, mode: int, uid: int, fix: str = "") -> None:
        super().__init__(message, path=path, fix=fix)
        self.mode = mode
        self.uid = uid


UnsafeEntryProblem = Literal["symlink", "wrong_type", "hard_link"]
"""Why a store entry was refused: it is a symbolic link, it is not the kind of entry the
store keeps there (a directory or FIFO where a file belongs, a file where a directory belongs),
or it is a file with more than one hard link (another name shares its content, so using it
would read or change that other file)."""


class UnsafeStoreEntryError(OwnerOnlyError, OSError):
    """An existing store entry is a symbolic link, a file with more than one hard link, or not
    the kind of entry expected there.

    A store never follows a link it finds at one of its own paths (a planted link would make it
    read, truncate or create the link's target) and never opens a FIFO, socket or device as a
    record. Also an :class:`OSError` whose ``errno`` is what the refused system call would have
    reported (``ELOOP`` for a link, ``EISDIR``/``ENOTDIR``/``EINVAL`` for a wrong type,
    ``EMLINK`` for a hard-linked file), so code
    written against the raw ``O_NOFOLLOW`` failure keeps catching it.

    Attributes:
        problem: ``"symlink"``, ``"wrong_type"`` or ``"hard_link"``.
        found: What is there, in words (``"symbolic link"``, ``"directory"``, ``"FIFO"``...).
    """

    code = "unsafe_store_entry"
    default_category = ErrorCategory.USER

    def __init__(
        self,
        message: str,
        *,
        path: str,
        fix: str,
        problem: UnsafeEntryProblem,
        found: str,
        errno: int,
    ) -> None:
        super().__init__(message, path=path, fix=fix)
        self.problem: UnsafeEntryProblem = problem
        self.found = found
        self.errno = errno
        self.strerror = message
        self.filename = path

    def __str__(self) -> str:
        return self.message


class ModeNotEnforcedError(OwnerOnlyError):
    """The filesystem accepted the owner-only mode but does not report it back: chmod is
    silently ignored there, so owner-only cannot be guaranteed."""

    code = "mode_not_enforced"


class CredentialStoreError(RobotaError):
    """The credential backend could not be read or written. Never means "no such secret": an
    absent secret is ``None`` from ``get``."""

    code = "credential_store"


class InvalidCredentialKeyError(CredentialStoreError):
    """The service or account is empty or holds a NUL byte."""

    code = "invalid_credential_key"
    default_category = ErrorCategory.USER


class EgressError(RobotaError):
    """Base of the guarded-fetch transport failures (policy refusals are values, not these)."""

    code = "egress"
    default_recoverable = True


class EgressBodyTooLargeError(EgressError):
    """The response body exceeded the fetch's ``max_bytes`` bound.

    Attributes:
        limit: The bound, in bytes.
    """

    code = "egress_body_too_large"
    default_recoverable = False

    def __init__(self, message: str, *, limit: int) -> None:
        super().__init__(message)
        self.limit = limit


class EgressTimeoutError(EgressError):
    """The whole fetch (every hop, headers and body) exceeded its ``timeout`` bound.

    Attributes:
        timeout: The bound, in seconds.
    """

    code = "egress_timeout"

    def __init__(self, message: str, *, timeout: float) -> None:
        super().__init__(message)
        self.timeout = timeout
