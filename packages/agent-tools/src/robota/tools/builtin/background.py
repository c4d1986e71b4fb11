"""Background shell commands: started by ``shell(run_in_background=true)``, read by
``shell_output``, stopped by ``shell_kill`` (seed 004, "killBackgroundTask", background exits
delivered as ``<task-notification>`` on the next run).

:class:`BackgroundShells` owns the processes. Each command's stdout and stderr stream to one
new file in a host-given folder (``<task_id>.log``, created owner-only with ``O_EXCL |
O_NOFOLLOW``: an existing file or link is never opened or truncated; a name already taken gets
a random suffix). The folder is checked (not a link, ours, owner-only, safe ancestors) and
opened ``O_NOFOLLOW`` before every create and read, and the file is reached through that
descriptor: a folder swapped for a link, or an output file replaced by a link or a hard link,
is refused. Commands run in the sandbox the caller passes (the ``shell`` tool passes its
own, with the profile of the call). There is no watcher task: state is
read on demand (``Popen.poll``), and :meth:`BackgroundShells.drain_exit_notifications` reconciles
it, the pull-based delivery seed 004 describes for contexts that cannot push exits.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import anyio
from robota.core.host.owner_only import (
    create_private_file,
    ensure_private_dir,
    open_private_file,
    private_dir,
)
from robota.core.host.sandbox import NoSandbox, Sandbox, SandboxProfile
from robota.tools.bounds import cut_utf8
from robota.tools.builtin._process import (
    DEFAULT_KILL_GRACE,
    sandboxed_command,
    terminate_group,
)
from robota.tools.errors import ToolUsageError

__all__ = ["BackgroundRead", "BackgroundShells", "BackgroundStatus", "TaskState"]

TaskState = Literal["running", "exited", "killed"]
"""``running``; ``exited`` on its own (any exit code); ``killed`` by :meth:`BackgroundShells.kill`."""


@dataclass(frozen=True, kw_only=True, slots=True)
class BackgroundStatus:
    """A background command's state.

    Attributes:
        task_id: The id ``shell`` returned, e.g. ``"shell_1"``.
        command: The command line.
        pid: The shell's pid (also the process group id).
        state: See :data:`TaskState`.
        exit_code: The exit status once not running (negative: killed by that signal number).
        output_path: The file stdout and stderr stream to.
        started_at: Wall-clock start time, seconds since the epoch.
    """

    task_id: str
    command: str
    pid: int
    state: TaskState
    exit_code: int | None
    output_path: Path
    started_at: float


@dataclass(frozen=True, kw_only=True, slots=True)
class BackgroundRead:
    """Output read by :meth:`BackgroundShells.read`.

    Attributes:
        status: The task's state at the time of the read.
        text: The output read (UTF-8, invalid bytes replaced).
        unread_bytes: Bytes of output still after what was read.
    """

    status: BackgroundStatus
    text: str
    unread_bytes: int


@dataclass(kw_only=True, slots=True)
class _Task:
    task_id: str
    command: str
    process: subprocess.Popen[bytes]
    output_path: Path
    started_at: float
    read_offset: int = 0
    killed: bool = False
    acknowledged: bool = False
    delivered: bool = False


class BackgroundShells:
    """The background shell commands of one agent (or one session).

    Args:
        directory: Folder for the output files; created (mode 0700) when missing. When None, a
            private temporary folder is made on the first start.
        env: Variables laid over a copy of ``os.environ`` for every command.
        kill_grace: Seconds between ``SIGTERM`` and ``SIGKILL`` when stopping a command.

    Use ``async with`` or :meth:`aclose` to kill whatever still runs.
    """

    def __init__(
        self,
        directory: str | os.PathLike[str] | None = None,
        *,
        env: Mapping[str, str] | None = None,
        kill_grace: float = DEFAULT_KILL_GRACE,
    ) -> None:
        self._directory = Path(directory) if directory is not None else None
        self._env = dict(env or {})
        self._kill_grace = kill_grace
        self._tasks: dict[str, _Task] = {}
        self._counter = 0

    async def __aenter__(self) -> BackgroundShells:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()

    def _folder(self) -> Path:
        if self._directory is None:
            self._directory = Path(tempfile.mkdtemp(prefix="robota-shells-"))
        ensure_private_dir(self._directory)  # refuses a symlink, a wide or foreign folder
        return self._directory

    def start(
        self,
        command: str,
        *,
        cwd: Path,
        sandbox: Sandbox | None = None,
        workspace: Path | None = None,
        profile: SandboxProfile = SandboxProfile.WORKSPACE_WRITE,
        allow_network: bool = False,
    ) -> BackgroundStatus:
        """Start ``command`` under ``/bin/bash -c`` in its own session and return its status.

        Args:
            command: The command line.
            cwd: Working directory (the caller checks it is inside the workspace).
            sandbox: Sandbox to run it in (None: none, the command runs as is).
            workspace: The workspace root the sandbox lets it write (default: ``cwd``).
            profile: Sandbox profile (``workspace_write`` by default).
            allow_network: Let a ``workspace_write`` command reach the network.

        Raises:
            OSError: The output file or the process could not be created.
            SandboxConfinementError: The sandbox cannot confine the command.
        """
        self._counter += 1
        task_id = f"shell_{self._counter}"
        launch = sandboxed_command(
            command,
            sandbox=sandbox if sandbox is not None else NoSandbox(),
            profile=profile,
            workspace=workspace if workspace is not None else cwd,
            cwd=cwd,
            allow_network=allow_network,
            env=self._env,
        )
        output_path, fd = self._create_output(task_id)
        try:
            process = subprocess.Popen(
                launch.argv,
                stdin=subprocess.DEVNULL,
                stdout=fd,
                stderr=subprocess.STDOUT,
                cwd=launch.cwd,
                env=dict(launch.env),
                start_new_session=True,
            )
        finally:
            os.close(fd)
        task = _Task(
            task_id=task_id,
            command=command,
            process=process,
            output_path=output_path,
            started_at=time.time(),
        )
        self._tasks[task_id] = task
        return self._status(task)

    def _create_output(self, task_id: str) -> tuple[Path, int]:
        """A new owner-only output file (never an existing one) and its write descriptor."""
        folder = self._folder()
        names = [f"{task_id}.log"] + [f"{task_id}.{secrets.token_hex(4)}.log" for _ in range(8)]
        with private_dir(folder) as handle:
            for name in names[:-1]:
                path = folder / name
                try:
                    return path, create_private_file(path, dir_fd=handle)
                except FileExistsError:
                    continue
            path = folder / names[-1]
            return path, create_private_file(path, dir_fd=handle)

    def _task(self, task_id: str) -> _Task:
        task = self._tasks.get(task_id)
        if task is None:
            known = ", ".join(self._tasks) or "none"
            raise ToolUsageError(f"no background task {task_id!r} (known: {known})")
        return task

    @staticmethod
    def _status(task: _Task) -> BackgroundStatus:
        code = task.process.poll()
        state: TaskState = "running" if code is None else "killed" if task.killed else "exited"
        return BackgroundStatus(
            task_id=task.task_id,
            command=task.command,
            pid=task.process.pid,
            state=state,
            exit_code=code,
            output_path=task.output_path,
            started_at=task.started_at,
        )

    def status(self, task_id: str) -> BackgroundStatus:
        """The state of ``task_id``.

        Raises:
            ToolUsageError: No such task.
        """
        return self._status(self._task(task_id))

    def list(self) -> list[BackgroundStatus]:
        """Every task started, in start order."""
        return [self._status(task) for task in self._tasks.values()]

    def read(
        self, task_id: str, *, from_start: bool = False, max_bytes: int = 30_000
    ) -> BackgroundRead:
        """Read output of ``task_id`` written since the last read (or from the start).

        At most ``max_bytes`` bytes are returned (never splitting a UTF-8 character); the next
        read continues after them. Reading a task that is no longer running acknowledges its
        exit, so it is not also delivered as a notification.

        Raises:
            ToolUsageError: No such task.
            UnsafeStoreEntryError: The output folder or file is now a link, the wrong kind of
                entry, or (the file) has more than one hard link.
            InsecurePermissionsError: The output folder or file is no longer owner-only.
        """
        task = self._task(task_id)
        status = self._status(task)  # poll first: output read after exit is complete
        start = 0 if from_start else task.read_offset
        with private_dir(task.output_path.parent) as folder:
            descriptor = open_private_file(task.output_path, dir_fd=folder)
        with os.fdopen(descriptor, "rb") as handle:
            handle.seek(start)
            chunk = handle.read(max_bytes + 3)
            end = handle.seek(0, os.SEEK_END)
        data = cut_utf8(chunk, max_bytes)
        task.read_offset = start + len(data)
        if status.state != "running" and task.read_offset >= end:
            task.acknowledged = True
        return BackgroundRead(
            status=status,
            text=data.decode(errors="replace"),
            unread_bytes=end - task.read_offset,
        )

    async def kill(self, task_id: str, *, acknowledge: bool = False) -> BackgroundStatus:
        """Stop ``task_id``'s whole process group (``SIGTERM``, grace, ``SIGKILL``).

        Args:
            task_id: The task.
            acknowledge: True when the model itself asked (``shell_kill``): the exit is then
                not delivered again as a notification. A host kill (False) is delivered.

        Returns:
            The status after the kill (``killed``, or ``exited`` if it had already ended).

        Raises:
            ToolUsageError: No such task.
        """
        task = self._task(task_id)
        if task.process.poll() is None:
            task.killed = True
            await terminate_group(task.process.pid, grace=self._kill_grace, reap=task.process.poll)
            if task.process.poll() is None:
                task.process.wait()
        if acknowledge:
            task.acknowledged = True
        return self._status(task)

    @property
    def has_pending_exits(self) -> bool:
        """True while at least one finished task's exit has not been delivered or acknowledged."""
        return any(self._undelivered(task) for task in self._tasks.values())

    def _undelivered(self, task: _Task) -> bool:
        return not task.delivered and not task.acknowledged and task.process.poll() is not None

    def drain_exit_notifications(self) -> list[str]:
        """Return one ``<task-notification>`` block per task that ended since the last drain,
        and mark them delivered.

        Exits the model already saw (``shell_kill``, or ``shell_output`` read to the end after
        the exit) are not included. The agent or framework prepends these to the next prompt.
        """
        notes: list[str] = []
        for task in self._tasks.values():
            if not self._undelivered(task):
                continue
            task.delivered = True
            status = self._status(task)
            notes.append(
                "<task-notification>\n"
                f"task_id: {status.task_id}\n"
                f"command: {status.command}\n"
                f"status: {status.state}\n"
                f"exit_code: {status.exit_code}\n"
                f"output_file: {status.output_path}\n"
                "Read the rest of its output with shell_output.\n"
                "</task-notification>"
            )
        return notes

    async def aclose(self) -> None:
        """Kill every task still running (their exits are not delivered afterwards)."""
        with anyio.CancelScope(shield=True):
            for task in self._tasks.values():
                if task.process.poll() is None:
                    await self.kill(task.task_id, acknowledge=True)
