"""Sandbox port: the OS sandbox a built-in tool runs a command in (seed 003, "Extension points",
``ISandboxClient``; seed 002, "Execution environments": sandboxes *advertise* what they enforce;
issue 11).

This module is the contract only; the backends live in ``robota.tools.sandbox`` (bubblewrap on
Linux). A :class:`Sandbox` does not own processes: it turns a command (``argv``, environment,
working directory) and a :class:`SandboxProfile` into the command to exec, and the caller (the
shell tool) keeps owning the process — its process group, its kill, its output pipe.

What a sandbox enforces is reported, never assumed: :attr:`Sandbox.guarantees` says which of the
effects a start-up probe verified by running commands under it (a write refused, a connection
refused, a separate pid namespace). The permission evaluator lets a read-only shell line run
without asking only when the guarantees include a read-only filesystem *and* no network
(:attr:`SandboxGuarantees.confines_inspect`); with :class:`NoSandbox` nothing is enforced, so such
calls ask.

Unlike seed 002's local backend, :class:`NoSandbox` does not refuse a request for no network: it
cannot enforce it, it says so in its guarantees, and the permission layer asks instead.

Importing does no I/O; neither does anything in this module.

Example:
    >>> from pathlib import Path
    >>> sandbox = NoSandbox(reason="bubblewrap (bwrap) is not installed")
    >>> sandbox.guarantees.enforced, sandbox.guarantees.confines_inspect
    (False, False)
    >>> command = sandbox.wrap(["/bin/bash", "-c", "ls"], profile=SandboxProfile.READ_ONLY,
    ...                        workspace=Path("/ws"), cwd=Path("/ws"), network=False, env={})
    >>> command.argv
    ('/bin/bash', '-c', 'ls')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Protocol, Self, runtime_checkable

from robota.core.errors import ErrorCategory, RobotaError

__all__ = [
    "NoSandbox",
    "Sandbox",
    "SandboxConfinementError",
    "SandboxError",
    "SandboxGuarantees",
    "SandboxProfile",
    "SandboxUnavailableError",
    "SandboxedCommand",
]


class SandboxProfile(StrEnum):
    """How much a sandboxed command may change (issue 11).

    ``read_only``: the whole filesystem is read-only, the workspace included; ``/tmp`` is a
    private, empty, writable tmpfs that disappears with the command; no network unless the call
    allows it. The shell tool runs a call the permission gate decided ``inspect`` this way.

    ``workspace_write``: the same, except that the workspace (and only it) is writable.
    """

    READ_ONLY = "read_only"
    WORKSPACE_WRITE = "workspace_write"


@dataclass(frozen=True, kw_only=True, slots=True)
class SandboxGuarantees:
    """What a sandbox was *verified* to enforce (by a probe that ran commands under it).

    A flag is True only when the effect was observed, not when the backend merely asked the
    kernel for it.

    Attributes:
        backend: Backend name, e.g. ``"bubblewrap"``; ``"none"`` for :class:`NoSandbox`.
        filesystem_read_only: Under ``read_only`` a write to the workspace and to a directory
            outside it failed and left nothing behind.
        workspace_only_writes: Under ``workspace_write`` a write to the workspace landed and a
            write outside it failed and left nothing behind.
        network_isolated: With ``network=False`` a connection to a loopback listener of the
            host failed (it succeeded with ``network=True``).
        process_isolated: The command ran in its own pid namespace and nothing of it survived
            the sandbox's outer process being killed (it dies with its parent).
        hidden_paths: Host paths masked inside the sandbox (an empty directory or file is seen
            there), e.g. the Robota home with its credentials.
        detail: What the probe did and saw (or why nothing is enforced), for people.
    """

    backend: str
    filesystem_read_only: bool = False
    workspace_only_writes: bool = False
    network_isolated: bool = False
    process_isolated: bool = False
    hidden_paths: tuple[str, ...] = ()
    detail: str = ""

    @property
    def enforced(self) -> bool:
        """True when at least one effect is enforced."""
        return (
            self.filesystem_read_only
            or self.workspace_only_writes
            or self.network_isolated
            or self.process_isolated
        )

    @property
    def confines_inspect(self) -> bool:
        """True when a ``read_only`` command can neither write nor reach the network: the
        condition for deciding a read-only command line ``inspect`` (auto-approved)."""
        return self.filesystem_read_only and self.network_isolated


@dataclass(frozen=True, kw_only=True, slots=True)
class SandboxedCommand:
    """The command to exec, as a sandbox prepared it.

    Attributes:
        argv: Program and arguments (for bubblewrap: ``bwrap <options> -- <argv>``).
        env: The complete environment to exec with.
        cwd: Working directory to start the process in (outside the sandbox).
    """

    argv: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict[str, str])
    cwd: Path = field(default_factory=Path)


@runtime_checkable
class Sandbox(Protocol):
    """Port of an OS sandbox for commands (seed 003 ``ISandboxClient``).

    Lifecycle: ``async with sandbox:`` or ``await sandbox.aclose()``; :meth:`wrap` may refuse
    after closing. Implementations do no I/O at construction.
    """

    @property
    def guarantees(self) -> SandboxGuarantees:
        """What this sandbox was verified to enforce (see :class:`SandboxGuarantees`)."""
        ...

    def wrap(
        self,
        argv: Sequence[str],
        *,
        profile: SandboxProfile,
        workspace: Path,
        cwd: Path,
        network: bool,
        env: Mapping[str, str],
    ) -> SandboxedCommand:
        """Return the command that runs ``argv`` confined by ``profile``.

        Args:
            argv: The command, e.g. ``["/bin/bash", "-c", "ls"]``.
            profile: :class:`SandboxProfile` to confine it to.
            workspace: Canonical workspace root (writable only under ``workspace_write``).
            cwd: Working directory, the workspace or a directory inside it.
            network: True to let the command reach the network (all or nothing: a sandbox at
                this level cannot filter per host).
            env: The environment the command should see.

        Raises:
            SandboxConfinementError: The command cannot be confined as asked (``cwd`` outside
                the workspace, the sandbox closed).
        """
        ...

    async def aclose(self) -> None:
        """Release what the sandbox holds; idempotent."""
        ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(self, *exc: object) -> None: ...


class NoSandbox:
    """The null sandbox: runs commands as given and reports that nothing is enforced.

    Args:
        reason: Why there is no sandbox (``bwrap`` missing, the probe failed, not Linux); it
            is the guarantees' ``detail``.
    """

    def __init__(self, reason: str = "no sandbox is configured") -> None:
        self.reason = reason
        self._guarantees = SandboxGuarantees(backend="none", detail=reason)

    def __repr__(self) -> str:
        return f"NoSandbox(reason={self.reason!r})"

    @property
    def guarantees(self) -> SandboxGuarantees:
        """Nothing enforced; ``detail`` is the reason."""
        return self._guarantees

    def wrap(
        self,
        argv: Sequence[str],
        *,
        profile: SandboxProfile,
        workspace: Path,
        cwd: Path,
        network: bool,
        env: Mapping[str, str],
    ) -> SandboxedCommand:
        """Return ``argv``, ``env`` and ``cwd`` unchanged (the profile is not enforced)."""
        del profile, workspace, network
        return SandboxedCommand(argv=tuple(argv), env=dict(env), cwd=cwd)

    async def aclose(self) -> None:
        """Nothing to release."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class SandboxError(RobotaError):
    """Base of the sandbox failures (a probe that finds no working sandbox is not one: it
    returns :class:`NoSandbox` with the reason)."""

    code = "sandbox"


class SandboxUnavailableError(SandboxError):
    """The backend cannot run at all (its executable is missing or not executable).

    Attributes:
        backend: The backend name, e.g. ``"bubblewrap"``.
    """

    code = "sandbox_unavailable"

    def __init__(self, message: str, *, backend: str) -> None:
        super().__init__(message)
        self.backend = backend


class SandboxConfinementError(SandboxError):
    """A command cannot be confined as asked: its working directory is outside the workspace,
    a path is not absolute, or the sandbox is closed."""

    code = "sandbox_confinement"
    default_category = ErrorCategory.USER
