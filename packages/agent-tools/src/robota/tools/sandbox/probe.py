"""Finding a working sandbox at start-up: a probe, not an assumption (issue 11).

:func:`detect_sandbox` runs ``bwrap`` a few times with the real options
(:class:`~robota.tools.sandbox.bubblewrap.BubblewrapSandbox` builds them) in a scratch folder of
its own and checks each effect from outside:

1. ``read_only``: writing a file into the workspace and into a directory outside it fails and
   neither file exists afterwards; ``/tmp`` is writable inside but nothing appears in the host's
   ``/tmp``; a TCP connection to a loopback listener the probe opened is refused; a hidden
   directory (and each hidden path the host named) looks empty; ``/proc/self/ns/pid`` differs
   from the probe's own.
2. ``workspace_write``: the workspace file is written (its content is read back from outside),
   the write outside fails and leaves nothing, the connection is refused.
3. The same connection with ``network=True`` succeeds, which shows the check itself can see a
   connection (without it, ``network_isolated`` stays False).
4. A command that started a background child is run and ``bwrap`` is killed with ``SIGKILL``:
   no process of the command's pid namespace may be left (``process_isolated``).

Steps 1 and 2 must pass (a connection that succeeds with the network unshared fails them too),
or the answer is :class:`~robota.core.host.sandbox.NoSandbox` with the reason (``bwrap``
missing, not executable, refused to start — e.g. a container without user namespaces — or an
effect not seen); steps 3 and 4 only decide their own flag. The scratch folder goes in ``/var/tmp`` when writable (on
the real root filesystem, so the outside write tests the read-only root bind; ``/tmp`` is a
private tmpfs in the sandbox) and is removed afterwards.

Example:
    >>> import anyio
    >>> sandbox = anyio.run(lambda: detect_sandbox(executable="/nonexistent/bwrap"))
    >>> sandbox.guarantees.backend, sandbox.guarantees.enforced
    ('none', False)
    >>> print(sandbox.guarantees.detail)
    /nonexistent/bwrap does not exist or is not executable
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import anyio
from robota.core.host.sandbox import (
    NoSandbox,
    Sandbox,
    SandboxConfinementError,
    SandboxGuarantees,
    SandboxProfile,
)
from robota.tools.sandbox.bubblewrap import BACKEND, MASKED_SOCKETS, BubblewrapSandbox

__all__ = ["detect_sandbox"]

_log = logging.getLogger(__name__)

_PROBE_SCRIPT = r"""
ws=$1; out=$2; port=$3; tmpmark=$4; shift 4
w=fail; (echo probe > "$ws/marker") 2>/dev/null && w=ok
o=fail; (echo probe > "$out/marker") 2>/dev/null && o=ok
t=fail; (echo probe > "/tmp/$tmpmark") 2>/dev/null && t=ok
n=fail; (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && n=ok
leaks=
for h in "$@"; do
    if [ -d "$h" ]; then
        [ -z "$(ls -A "$h" 2>/dev/null)" ] || leaks="$leaks $h"
    elif [ -n "$(head -c 1 "$h" 2>/dev/null)" ]; then
        leaks="$leaks $h"
    fi
done
echo "workspace=$w outside=$o tmp=$t net=$n pidns=$(readlink /proc/self/ns/pid) leaks=${leaks# }"
"""

_LINGER_SCRIPT = "readlink /proc/self/ns/pid; sleep 60 & sleep 60 & wait"


class _ProbeFailed(Exception):
    """An effect the sandbox must have was not seen; the message is the reason."""


@dataclass(frozen=True, kw_only=True, slots=True)
class _Observed:
    workspace: bool
    outside: bool
    tmp: bool
    network: bool
    pid_namespace: str
    leaks: str


def _parse(output: str) -> _Observed:
    line = output.strip().splitlines()[-1] if output.strip() else ""
    fields = dict(item.split("=", 1) for item in line.split(" ") if "=" in item)
    if "pidns" not in fields:
        raise _ProbeFailed(f"the probe command printed no report (output: {output.strip()!r})")
    return _Observed(
        workspace=fields.get("workspace") == "ok",
        outside=fields.get("outside") == "ok",
        tmp=fields.get("tmp") == "ok",
        network=fields.get("net") == "ok",
        pid_namespace=fields["pidns"],
        leaks=line.split("leaks=", 1)[1].strip() if "leaks=" in line else "",
    )


def _default_scratch_parent() -> Path:
    var_tmp = Path("/var/tmp")  # on the root filesystem, unlike the sandbox's /tmp
    if var_tmp.is_dir() and os.access(var_tmp, os.W_OK | os.X_OK):
        return var_tmp
    return Path(tempfile.gettempdir())


class _Probe:
    def __init__(
        self, executable: str, hidden: Sequence[str], scratch: Path, timeout: float
    ) -> None:
        self.executable = executable
        self.hidden = [p for p in hidden if os.path.lexists(p)]
        self.scratch = scratch
        self.timeout = timeout
        self.workspace = scratch / "workspace"
        self.outside = scratch / "outside"
        self.secret = scratch / "secret"
        for folder in (self.workspace, self.outside, self.secret):
            folder.mkdir(mode=0o700)
        (self.secret / "token").write_text("probe-secret")
        self.tmpmark = f"robota-sandbox-probe-{secrets.token_hex(6)}"
        self.candidate = BubblewrapSandbox(executable, hidden_paths=[*self.hidden, self.secret])
        self.own_pid_namespace = os.readlink("/proc/self/ns/pid")

    def clear(self) -> None:
        for path in (self.workspace / "marker", self.outside / "marker"):
            path.unlink(missing_ok=True)
        leaked = Path("/tmp") / self.tmpmark  # the host's /tmp
        leaked.unlink(missing_ok=True)

    async def run(self, profile: SandboxProfile, *, port: int, network: bool) -> _Observed:
        self.clear()
        argv = [
            "/bin/bash",
            "-c",
            _PROBE_SCRIPT,
            "robota-probe",
            str(self.workspace),
            str(self.outside),
            str(port),
            self.tmpmark,
            str(self.secret),
            *self.hidden,
        ]
        command = self.candidate.wrap(
            argv,
            profile=profile,
            workspace=self.workspace,
            cwd=self.workspace,
            network=network,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"},
        )
        try:
            with anyio.fail_after(self.timeout):
                done = await anyio.run_process(
                    command.argv,
                    env=command.env,
                    cwd=command.cwd,
                    check=False,
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,
                )
        except TimeoutError as error:
            raise _ProbeFailed(f"bwrap did not finish within {self.timeout:g} s") from error
        except OSError as error:
            raise _ProbeFailed(f"bwrap could not be started: {error}") from error
        if done.returncode != 0:
            message = done.stderr.decode(errors="replace").strip() or "no message"
            raise _ProbeFailed(f"bwrap failed (exit code {done.returncode}): {message}")
        observed = _parse(done.stdout.decode(errors="replace"))
        if (Path("/tmp") / self.tmpmark).exists():
            raise _ProbeFailed("a file written to /tmp inside the sandbox appeared on the host")
        if not observed.tmp:
            raise _ProbeFailed("/tmp is not writable inside the sandbox")
        if (self.outside / "marker").exists() or observed.outside:
            raise _ProbeFailed(f"a write to {self.outside} (outside the workspace) succeeded")
        if observed.leaks:
            raise _ProbeFailed(f"hidden paths are visible inside the sandbox: {observed.leaks}")
        marker = self.workspace / "marker"
        if profile is SandboxProfile.READ_ONLY and (observed.workspace or marker.exists()):
            raise _ProbeFailed("a write to the workspace succeeded under read_only")
        if profile is SandboxProfile.WORKSPACE_WRITE and not (
            observed.workspace and marker.is_file() and marker.read_text() == "probe\n"
        ):
            raise _ProbeFailed("a write to the workspace did not land under workspace_write")
        return observed

    async def dies_with_bwrap(self) -> bool:
        """Kill ``bwrap`` while its command has children; True when none of them survive."""
        command = self.candidate.wrap(
            ["/bin/bash", "-c", _LINGER_SCRIPT],
            profile=SandboxProfile.READ_ONLY,
            workspace=self.workspace,
            cwd=self.workspace,
            network=False,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        )
        process = await anyio.open_process(
            command.argv,
            env=command.env,
            cwd=command.cwd,
            stdin=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            assert process.stdout is not None
            with anyio.fail_after(self.timeout):
                first = (await process.stdout.receive()).decode(errors="replace")
            namespace = first.strip().splitlines()[0] if first.strip() else ""
            if not namespace or namespace == self.own_pid_namespace:
                return False
            await anyio.sleep(0.05)  # let the children start
            process.kill()  # SIGKILL to bwrap only: the rest must die with it
            await process.wait()
            with anyio.move_on_after(min(self.timeout, 3.0)):
                while _namespace_members(namespace):  # noqa: ASYNC110 - polls /proc
                    await anyio.sleep(0.02)
                return True
            return False
        finally:
            with anyio.CancelScope(shield=True):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)
                await process.wait()
                await process.aclose()


def _namespace_members(namespace: str) -> list[int]:
    """Pids (not zombies) whose pid namespace is ``namespace`` (``pid:[inode]``)."""
    members: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.readlink(entry / "ns" / "pid") != namespace:
                continue
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if stat[stat.rfind(")") + 2 :].split()[:1] != ["Z"]:
            members.append(int(entry.name))
    return members


async def _version(executable: str, limit: float) -> str:
    with contextlib.suppress(OSError, TimeoutError):
        with anyio.fail_after(limit):
            done = await anyio.run_process([executable, "--version"], check=False)
        if done.returncode == 0:
            return done.stdout.decode(errors="replace").strip()
    return "bubblewrap"


def _existing_sockets() -> list[str]:
    """The :data:`MASKED_SOCKETS` present on this host, one entry per real path."""
    found: dict[str, str] = {}
    for path in MASKED_SOCKETS:
        if os.path.exists(path):
            found.setdefault(os.path.realpath(path), path)
    return list(found.values())


def _expanded(paths: Sequence[str | os.PathLike[str]]) -> list[str]:
    return [os.path.expanduser(os.fspath(p)) for p in paths]


def _resolve_executable(executable: str | os.PathLike[str] | None) -> str | NoSandbox:
    if executable is None:
        found = shutil.which("bwrap")
        if found is None:
            return NoSandbox(
                "bubblewrap (bwrap) is not installed (e.g. `apt-get install bubblewrap`)"
            )
        return found
    path = os.fspath(executable)
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        return NoSandbox(f"{path} does not exist or is not executable")
    return path


async def detect_sandbox(
    *,
    executable: str | os.PathLike[str] | None = None,
    hidden_paths: Sequence[str | os.PathLike[str]] = (),
    scratch_dir: str | os.PathLike[str] | None = None,
    run_timeout: float = 10.0,
) -> Sandbox:
    """Probe bubblewrap and return a sandbox whose guarantees say what was verified.

    Args:
        executable: Path of ``bwrap`` (default: found on ``PATH``).
        hidden_paths: Host paths to mask inside every command (e.g. the Robota home, which
            holds credentials; ``~`` is expanded); each one that exists is checked to look
            empty inside.
        scratch_dir: Parent of the probe's temporary folder (default: ``/var/tmp`` when
            writable, else the system temp folder). The folder is removed afterwards.
        run_timeout: Seconds each probe run may take.

    Returns:
        A :class:`~robota.tools.sandbox.bubblewrap.BubblewrapSandbox` with verified
        :attr:`guarantees`, or :class:`~robota.core.host.sandbox.NoSandbox` whose guarantees'
        ``detail`` is the reason (not Linux, ``bwrap`` missing or broken, an effect not seen).
        Never raises for a sandbox that does not work.
    """
    if sys.platform != "linux":
        return NoSandbox(f"no sandbox backend for {sys.platform} (bubblewrap needs Linux)")
    resolved = _resolve_executable(executable)
    if isinstance(resolved, NoSandbox):
        return resolved
    hidden = _expanded(hidden_paths)
    parent = Path(scratch_dir) if scratch_dir is not None else _default_scratch_parent()
    try:
        scratch = Path(tempfile.mkdtemp(prefix="robota-sandbox-probe-", dir=parent))
    except OSError as error:
        return NoSandbox(
            f"the sandbox probe could not make its scratch folder in {parent}: {error}"
        )
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    probe: _Probe | None = None
    try:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        probe = _Probe(resolved, hidden, scratch, run_timeout)
        read_only = await probe.run(SandboxProfile.READ_ONLY, port=port, network=False)
        writable = await probe.run(SandboxProfile.WORKSPACE_WRITE, port=port, network=False)
        networked = await probe.run(SandboxProfile.WORKSPACE_WRITE, port=port, network=True)
        isolated_pids = (
            read_only.pid_namespace != probe.own_pid_namespace
            and writable.pid_namespace != probe.own_pid_namespace
        )
        dies = await probe.dies_with_bwrap() if isolated_pids else False
        version = await _version(resolved, run_timeout)
    except (_ProbeFailed, SandboxConfinementError) as error:
        _log.info("no sandbox: %s", error)
        return NoSandbox(f"bubblewrap at {resolved} does not work here: {error}")
    except OSError as error:
        _log.info("no sandbox: %s", error)
        return NoSandbox(f"the sandbox probe failed: {error}")
    finally:
        listener.close()
        if probe is not None:
            probe.clear()  # a broken sandbox may have written to the host's /tmp
        shutil.rmtree(scratch, ignore_errors=True)
    network_isolated = networked.network and not read_only.network and not writable.network
    if read_only.network or writable.network:
        return NoSandbox(
            f"bubblewrap at {resolved} does not work here: a loopback connection succeeded "
            "with the network unshared"
        )
    notes = [
        f"{version} at {resolved}",
        f"read_only refused writes to the workspace and to a folder in {parent} (outside it)",
        "workspace_write wrote the workspace and refused the write outside",
        "/tmp is private",
    ]
    if network_isolated:
        notes.append("a loopback connection was refused without network (it succeeded with)")
    else:
        notes.append(
            "network isolation not verified: the loopback connection failed even with the "
            "network allowed"
        )
    if dies:
        notes.append("own pid namespace; nothing survived killing bwrap")
    else:
        notes.append("process isolation not verified")
    sockets = _existing_sockets()
    if hidden or sockets:
        notes.append(f"hidden: {', '.join([*hidden, *sockets])}")
    notes.append("other Unix sockets on the host filesystem stay reachable")
    guarantees = SandboxGuarantees(
        backend=BACKEND,
        filesystem_read_only=True,
        workspace_only_writes=True,
        network_isolated=network_isolated,
        process_isolated=dies,
        hidden_paths=(*hidden, *sockets),
        detail="; ".join(notes),
    )
    return BubblewrapSandbox(resolved, hidden_paths=hidden, guarantees=guarantees)
