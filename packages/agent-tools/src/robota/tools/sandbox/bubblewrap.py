"""The Linux sandbox backend on bubblewrap (``bwrap``), issue 11.

A command runs as ``bwrap <options> -- argv`` with, in this order:

* ``--die-with-parent``: the command gets ``SIGKILL`` when ``bwrap`` (or its parent, the
  agent) dies; with ``--unshare-pid`` the kernel then kills everything left in the namespace,
  so a timeout or cancel that kills ``bwrap`` leaves nothing running.
* ``--unshare-pid --unshare-ipc --unshare-uts``: own pid, System V IPC and hostname
  namespaces; ``--unshare-net`` unless the call allows the network (then the host's network is
  shared as is: bubblewrap cannot filter per host, it is all or nothing).
* ``--cap-drop ALL`` when running as root (unprivileged bubblewrap keeps no capabilities anyway).
* ``--ro-bind / /``: the whole host filesystem, read-only (submounts included).
* ``--dev /dev`` (a minimal private ``/dev`` with its own ``devpts``), ``--proc /proc`` (of the
  new pid namespace), ``--tmpfs /tmp`` (private, empty, gone with the command; ``TMPDIR`` is set
  to ``/tmp``).
* Hidden paths (the Robota home with its credentials — what the host passes — and the container
  engines' control sockets, :data:`MASKED_SOCKETS`): an
  existing directory is covered by an empty read-only tmpfs, a file by ``/dev/null`` (on a
  ``nodev`` mount, so reading it fails with "Permission denied").
* The workspace: ``--bind`` for ``workspace_write``, ``--ro-bind`` for ``read_only`` (bound
  again so that a workspace under ``/tmp`` or under a hidden path stays visible); a hidden path
  inside the workspace is masked after it.
* ``--chdir CWD``.

``--new-session`` is not used: the shell tool already starts ``bwrap`` in a new session
(``setsid``) with stdin from ``/dev/null``, so the command has no controlling terminal to
inject keystrokes into (``TIOCSTI``), and the private ``/dev`` exposes no host terminal; a second
session inside would take the command out of the process group the tool signals on timeout.

Example:
    >>> from pathlib import Path
    >>> from robota.core.host.sandbox import SandboxProfile
    >>> args = bwrap_arguments(
    ...     "/usr/bin/bwrap", ["/bin/bash", "-c", "ls"], profile=SandboxProfile.READ_ONLY,
    ...     workspace=Path("/src/app"), cwd=Path("/src/app"), network=False,
    ...     drop_capabilities=False)
    >>> " ".join(args)  # doctest: +NORMALIZE_WHITESPACE
    '/usr/bin/bwrap --die-with-parent --unshare-pid --unshare-ipc --unshare-uts --unshare-net
     --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --ro-bind /src/app /src/app
     --chdir /src/app -- /bin/bash -c ls'
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Self

from robota.core.host.sandbox import (
    SandboxConfinementError,
    SandboxedCommand,
    SandboxGuarantees,
    SandboxProfile,
)

__all__ = ["BACKEND", "MASKED_SOCKETS", "BubblewrapSandbox", "HiddenPath", "bwrap_arguments"]

BACKEND = "bubblewrap"
"""The backend name in :attr:`SandboxGuarantees.backend`."""

MASKED_SOCKETS: tuple[str, ...] = (
    "/run/docker.sock",
    "/var/run/docker.sock",
    "/run/podman/podman.sock",
    "/run/containerd/containerd.sock",
    "/run/libvirt/libvirt-sock",
)
"""Host control sockets masked by default. A read-only bind does not stop ``connect()`` to a
Unix socket on the host filesystem (and ``--unshare-net`` only covers abstract sockets), so a
sandboxed command could drive the container engine, i.e. act as root on the host; each of
these that exists is covered by ``/dev/null``. Other filesystem sockets stay reachable."""


@dataclass(frozen=True, slots=True)
class HiddenPath:
    """A host path to mask inside the sandbox, as found when a command is wrapped.

    Attributes:
        path: The canonical path.
        is_dir: True for a directory (masked by an empty read-only tmpfs), False for anything
            else (masked by ``/dev/null``, which cannot be opened there: the mount is
            ``nodev``).
    """

    path: Path
    is_dir: bool

    @classmethod
    def find(cls, path: str | os.PathLike[str]) -> HiddenPath | None:
        """The canonical form of ``path`` (symlinks resolved), or None when nothing is there
        (nothing to hide)."""
        canonical = Path(os.path.realpath(path))
        try:
            mode = os.lstat(canonical).st_mode
        except OSError:
            return None
        return cls(canonical, stat.S_ISDIR(mode))

    def arguments(self) -> list[str]:
        """The bwrap options that mask it."""
        target = str(self.path)
        if self.is_dir:
            return ["--tmpfs", target, "--remount-ro", target]
        return ["--ro-bind", "/dev/null", target]


def bwrap_arguments(
    executable: str,
    argv: Sequence[str],
    *,
    profile: SandboxProfile,
    workspace: Path,
    cwd: Path,
    network: bool,
    hidden: Sequence[HiddenPath] = (),
    drop_capabilities: bool,
) -> list[str]:
    """The full ``bwrap`` command line for ``argv`` (see the module docstring for each option).

    Args:
        executable: Path of ``bwrap``.
        argv: The command to confine.
        profile: :class:`SandboxProfile`.
        workspace: Absolute workspace root.
        cwd: Absolute working directory (inside the workspace).
        network: False adds ``--unshare-net``.
        hidden: Paths to mask (see :class:`HiddenPath`).
        drop_capabilities: True adds ``--cap-drop ALL`` (when running as root).

    Returns:
        ``[executable, *options, "--", *argv]``.
    """
    args = [executable, "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
    if not network:
        args.append("--unshare-net")
    if drop_capabilities:
        args += ["--cap-drop", "ALL"]
    args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    inside = [h for h in hidden if h.path != workspace and h.path.is_relative_to(workspace)]
    for entry in hidden:
        if entry not in inside:
            args += entry.arguments()
    bind = "--bind" if profile is SandboxProfile.WORKSPACE_WRITE else "--ro-bind"
    args += [bind, str(workspace), str(workspace)]
    for entry in inside:
        args += entry.arguments()
    args += ["--chdir", str(cwd), "--", *argv]
    return args


def _unverified() -> SandboxGuarantees:
    return SandboxGuarantees(
        backend=BACKEND,
        detail="bubblewrap sandbox not verified by a probe; use detect_sandbox()",
    )


class BubblewrapSandbox:
    """Commands confined by bubblewrap (Linux).

    Build it with :func:`~robota.tools.sandbox.probe.detect_sandbox`, which verifies the
    effects and fills :attr:`guarantees`; constructed directly, it still confines commands but
    reports nothing verified (so nothing is auto-approved because of it).

    Args:
        executable: Path of ``bwrap``.
        hidden_paths: Host paths to mask inside (e.g. the Robota home; ``~`` is expanded);
            each is looked up when a command is wrapped, so one created later is hidden too; a
            missing one is skipped.
        guarantees: What a probe verified (default: nothing).
        masked_sockets: Unix sockets to mask as well (default :data:`MASKED_SOCKETS`).
    """

    def __init__(
        self,
        executable: str | os.PathLike[str],
        *,
        hidden_paths: Sequence[str | os.PathLike[str]] = (),
        guarantees: SandboxGuarantees | None = None,
        masked_sockets: Sequence[str | os.PathLike[str]] = MASKED_SOCKETS,
    ) -> None:
        self.executable = os.fspath(executable)
        self.masked_sockets = tuple(os.fspath(p) for p in masked_sockets)
        self.hidden_paths = tuple(os.path.expanduser(os.fspath(p)) for p in hidden_paths)
        self._guarantees = guarantees if guarantees is not None else _unverified()
        self._closed = False

    def __repr__(self) -> str:
        return f"BubblewrapSandbox({self.executable!r}, hidden_paths={self.hidden_paths!r})"

    @property
    def guarantees(self) -> SandboxGuarantees:
        """What the probe verified (see :class:`SandboxGuarantees`)."""
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
        """Return ``bwrap <options> -- argv`` (see :func:`bwrap_arguments`) with ``env`` and
        ``TMPDIR=/tmp`` (the only writable place besides a writable workspace).

        Raises:
            SandboxConfinementError: The sandbox is closed, a path is not absolute, or ``cwd``
                is not the workspace or inside it.
        """
        if self._closed:
            raise SandboxConfinementError("the sandbox is closed")
        if not workspace.is_absolute() or not cwd.is_absolute():
            raise SandboxConfinementError(
                f"workspace {workspace} and cwd {cwd} must be absolute paths"
            )
        if not cwd.is_relative_to(workspace):
            raise SandboxConfinementError(f"cwd {cwd} is outside the workspace {workspace}")
        found = map(HiddenPath.find, (*self.hidden_paths, *self.masked_sockets))
        hidden = list({h.path: h for h in found if h is not None}.values())
        args = bwrap_arguments(
            self.executable,
            argv,
            profile=profile,
            workspace=workspace,
            cwd=cwd,
            network=network,
            hidden=hidden,
            drop_capabilities=os.geteuid() == 0,
        )
        environment = dict(env)
        environment["TMPDIR"] = "/tmp"  # the sandbox's private tmpfs
        return SandboxedCommand(argv=tuple(args), env=environment, cwd=cwd)

    async def aclose(self) -> None:
        """Refuse further :meth:`wrap` calls (nothing else is held); idempotent."""
        self._closed = True

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
