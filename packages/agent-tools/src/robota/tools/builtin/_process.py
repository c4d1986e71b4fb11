"""Process launch and process-group handling shared by ``shell`` and the background shells.

A command line becomes ``/bin/bash -c <command>`` wrapped by the session's sandbox
(:func:`sandboxed_command`; the profile comes from the permission decision, :func:`profile_for`).
It runs as the leader of a new session (``start_new_session=True``), so its process group id
is its pid (under bubblewrap: ``bwrap``'s) and every descendant that does not start its own
session shares it. Stopping a command signals the whole group: ``SIGTERM``, a grace period for
the group to empty, then ``SIGKILL`` (the same sequence as ``timeout --kill-after``). Under
bubblewrap, whatever escaped the group still dies with ``bwrap`` (its pid namespace goes).
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable, Mapping
from pathlib import Path

import anyio
from robota.core.host.sandbox import Sandbox, SandboxedCommand, SandboxProfile
from robota.core.tools.base import RiskClass

__all__ = [
    "DEFAULT_KILL_GRACE",
    "KILLED_WAIT",
    "SHELL",
    "fresh_environment",
    "group_alive",
    "profile_for",
    "sandboxed_command",
    "terminate_group",
]

SHELL = "/bin/bash"
"""The shell a command line runs in (``SHELL -c <command>``)."""

DEFAULT_KILL_GRACE = 2.0
"""Seconds a process group gets between ``SIGTERM`` and ``SIGKILL``."""

KILLED_WAIT = 5.0
"""Seconds :func:`terminate_group` waits for the group to empty after ``SIGKILL`` (a process in
an uninterruptible kernel call exits only when the call returns)."""


def fresh_environment(overrides: Mapping[str, str] | None) -> dict[str, str]:
    """Return a new dict: a copy of ``os.environ`` updated with ``overrides``.

    ``os.environ`` itself is never changed.
    """
    environment = dict(os.environ)
    if overrides:
        environment.update(overrides)
    return environment


def profile_for(risk: RiskClass | None) -> SandboxProfile:
    """The sandbox profile of a call the permission gate decided as ``risk``
    (:attr:`~robota.core.tools.base.ToolContext.effective_risk`): ``INSPECT`` runs
    ``read_only``; anything else, or no decision, runs ``workspace_write``."""
    return SandboxProfile.READ_ONLY if risk is RiskClass.INSPECT else SandboxProfile.WORKSPACE_WRITE


def sandboxed_command(
    command: str,
    *,
    sandbox: Sandbox,
    profile: SandboxProfile,
    workspace: Path,
    cwd: Path,
    allow_network: bool,
    env: Mapping[str, str] | None,
) -> SandboxedCommand:
    """``/bin/bash -c command`` as ``sandbox`` confines it.

    A ``read_only`` command never gets the network, whatever ``allow_network`` says: that
    profile is what a call auto-approved as ``inspect`` runs under.

    Args:
        command: The command line.
        sandbox: The sandbox (``NoSandbox`` runs it as is).
        profile: From :func:`profile_for`.
        workspace: Canonical workspace root.
        cwd: Working directory inside it.
        allow_network: Let ``workspace_write`` commands reach the network.
        env: Overrides laid over a copy of ``os.environ``.

    Raises:
        SandboxConfinementError: The sandbox cannot confine it (see ``Sandbox.wrap``).
    """
    network = allow_network and profile is SandboxProfile.WORKSPACE_WRITE
    return sandbox.wrap(
        [SHELL, "-c", command],
        profile=profile,
        workspace=workspace,
        cwd=cwd,
        network=network,
        env=fresh_environment(env),
    )


def group_alive(pgid: int) -> bool:
    """True while process group ``pgid`` has a member that is not a zombie.

    On Linux the members are read from ``/proc`` so zombies left to a non-reaping init do not
    count; elsewhere any member counts.
    """
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    proc = Path("/proc")
    if not proc.is_dir():
        return True
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
            return True
    return False


async def terminate_group(
    pgid: int, *, grace: float = DEFAULT_KILL_GRACE, reap: Callable[[], object] = lambda: None
) -> None:
    """Stop every process of group ``pgid``: ``SIGTERM``, wait up to ``grace`` seconds for the
    group to empty, then ``SIGKILL`` and wait (up to :data:`KILLED_WAIT` seconds) until no
    member is left running.

    Args:
        pgid: The process group (the session leader's pid).
        grace: Seconds between the two signals.
        reap: Called while waiting, to collect the leader's exit status (e.g. ``Popen.poll``).
    """
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        reap()
        return
    if await _emptied(pgid, grace, reap):
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)
    # A killed process is still listed until the kernel has run its exit (on a loaded machine
    # that takes a while): wait for that too, so nothing of the group runs once this returns.
    await _emptied(pgid, KILLED_WAIT, reap)
    reap()


async def _emptied(pgid: int, within: float, reap: Callable[[], object]) -> bool:
    """Wait up to ``within`` seconds for group ``pgid`` to empty; True when it did."""
    with anyio.move_on_after(within):
        while True:
            reap()
            if not group_alive(pgid):
                return True
            await anyio.sleep(0.02)
    return False
