"""``shell``, ``shell_output`` and ``shell_kill``: run commands in the workspace (seed 004,
built-in tools and background tasks; seed 000, "Cancellation Contract").

``shell`` runs ``/bin/bash -c <command>`` as the leader of a new session, with a fresh copy of
the environment (``os.environ`` plus host overrides; ``os.environ`` is never changed) and a
working directory inside the workspace. Stdout and stderr are captured together, keeping the
head and tail of long output. On timeout or cancellation the whole process group is stopped
(``SIGTERM``, grace, ``SIGKILL``), grandchildren included; once the command ends, whatever it
left running in its group is stopped the same way (use ``run_in_background`` for servers).

Every command goes through the tool's sandbox (issue 11; :mod:`robota.core.host.sandbox`,
bubblewrap in :mod:`robota.tools.sandbox`). A call the permission gate decided ``inspect`` (a
read-only command line, ``ToolContext.effective_risk``) runs ``read_only`` and never with the
network; any other call runs ``workspace_write``, with the network only when the tool was built
with ``allow_network=True`` (all or nothing: bubblewrap cannot apply the egress policy per host).
The tool's permission argument says ``sandboxed_inspect=True`` only when the sandbox's probed
guarantees include a read-only filesystem and no network; otherwise a read-only line is not
auto-approved and asks like any other command.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import anyio
from anyio.abc import Process
from pydantic import BaseModel, ConfigDict, Field
from robota.core.host.sandbox import (
    NoSandbox,
    Sandbox,
    SandboxError,
    SandboxGuarantees,
    SandboxProfile,
)
from robota.core.tools.base import (
    ArgumentKind,
    PermissionArgument,
    RiskClass,
    ToolContext,
    ToolOutput,
    ToolReturn,
)
from robota.tools.bounds import (
    DEFAULT_BOUNDS,
    HeadTailBuffer,
    OutputBounds,
    bound_text,
    head_tail_lines,
)
from robota.tools.builtin._base import BuiltinTool
from robota.tools.builtin._process import (
    DEFAULT_KILL_GRACE,
    profile_for,
    sandboxed_command,
    terminate_group,
)
from robota.tools.builtin.background import BackgroundShells, BackgroundStatus
from robota.tools.errors import ToolUsageError
from robota.tools.workspace import Workspace

__all__ = [
    "ShellArgs",
    "ShellKillArgs",
    "ShellKillTool",
    "ShellOutputArgs",
    "ShellOutputTool",
    "ShellTool",
]

_DRAIN_AFTER_EXIT = 0.5
"""Seconds the output pipe may stay open after the shell exits (a left-behind child holding it)."""

_DESCRIPTION = (
    "Run a bash command in the workspace and return its combined stdout/stderr and exit "
    "code. Long-running commands (servers, watchers) should use run_in_background=true."
)


def _sandbox_note(guarantees: SandboxGuarantees, allow_network: bool) -> str:
    """What the model should know about the sandbox its commands run in."""
    notes: list[str] = []
    if guarantees.workspace_only_writes:
        notes.append("only the workspace and a private /tmp are writable")
    if guarantees.network_isolated:
        notes.append("network access is allowed" if allow_network else "there is no network access")
    if not notes:
        return ""
    return f"Commands run in a sandbox: {'; '.join(notes)}."


class ShellArgs(BaseModel):
    """Arguments of ``shell``."""

    model_config = ConfigDict(extra="forbid")

    command: str = Field(description="The command line, run with /bin/bash -c.")
    timeout: float | None = Field(
        default=None, gt=0, description="Seconds before the command is killed (foreground only)."
    )
    cwd: str | None = Field(
        default=None, description="Working directory inside the workspace; the root by default."
    )
    run_in_background: bool = Field(
        default=False,
        description=(
            "Start the command and return a task id at once; read its output with "
            "shell_output and stop it with shell_kill."
        ),
    )


class ShellTool(BuiltinTool[ShellArgs]):
    """Run a shell command in the workspace.

    Foreground result: the combined output (cut to ``bounds``, head and tail kept), then
    ``[exit code: N]``; a non-zero exit or a timeout makes it an error result. Background
    result: the task id and output file.

    Args:
        workspace: The working directory must be inside it.
        sandbox: Where commands run (see the module docstring); None: :class:`NoSandbox`,
            nothing enforced, so read-only lines are never auto-approved.
        allow_network: Let ``workspace_write`` commands reach the network (``read_only`` ones
            never do).
        background: Manager for ``run_in_background``; without one such calls are refused.
        env: Variables laid over a copy of ``os.environ``.
        default_timeout: Seconds, when the call gives none (120).
        max_timeout: Upper bound on a call's timeout, seconds (600).
        kill_grace: Seconds between ``SIGTERM`` and ``SIGKILL``.
        bounds: Output limits.

    Attributes:
        permission_argument: ``command`` (a ``COMMAND``, working directory from ``cwd``), with
            ``sandboxed_inspect`` from the sandbox's guarantees.
    """

    name = "shell"
    description = _DESCRIPTION
    risk = RiskClass.EXECUTE
    args_model: ClassVar[type[BaseModel]] = ShellArgs

    def __init__(
        self,
        workspace: Workspace,
        *,
        sandbox: Sandbox | None = None,
        allow_network: bool = False,
        background: BackgroundShells | None = None,
        env: Mapping[str, str] | None = None,
        default_timeout: float = 120.0,
        max_timeout: float = 600.0,
        kill_grace: float = DEFAULT_KILL_GRACE,
        bounds: OutputBounds = DEFAULT_BOUNDS,
    ) -> None:
        self.workspace = workspace
        self.sandbox: Sandbox = (
            sandbox if sandbox is not None else NoSandbox("no sandbox was given to the shell tool")
        )
        self.allow_network = allow_network
        guarantees = self.sandbox.guarantees
        self.permission_argument = PermissionArgument(
            key="command",
            kind=ArgumentKind.COMMAND,
            cwd_key="cwd",
            sandboxed_inspect=guarantees.confines_inspect,
            environment=tuple(sorted((env or {}).items())),
        )
        note = _sandbox_note(guarantees, allow_network)
        if note:
            self.description = f"{_DESCRIPTION} {note}"
        self.background = background
        self.env = dict(env or {})
        self.default_timeout = default_timeout
        self.max_timeout = max_timeout
        self.kill_grace = kill_grace
        self.bounds = bounds

    def _cwd(self, cwd: str | None) -> Path:
        path = self.workspace.resolve(cwd) if cwd is not None else self.workspace.root
        if not path.is_dir():
            raise ToolUsageError(f"cwd {self.workspace.display(path)} is not a directory")
        return path

    async def run(self, args: ShellArgs, ctx: ToolContext[Any]) -> ToolOutput:
        cwd = self._cwd(args.cwd)
        profile = profile_for(ctx.effective_risk)
        try:
            if args.run_in_background:
                return self._start_background(args.command, cwd, profile)
            launch = sandboxed_command(
                args.command,
                sandbox=self.sandbox,
                profile=profile,
                workspace=self.workspace.root,
                cwd=cwd,
                allow_network=self.allow_network,
                env=self.env,
            )
        except SandboxError as error:
            raise ToolUsageError(f"the sandbox refused the command: {error.message}") from error
        timeout = min(args.timeout or self.default_timeout, self.max_timeout)
        buffer = HeadTailBuffer(self.bounds.max_bytes)
        # Shielded: a cancellation while the process is being set up (the pipes are connected
        # after it has started) would leave it to the event loop, which kills only the leader
        # (``bwrap``) and not the group it started; once launched, the ``finally`` below stops
        # the whole group before the call returns.
        launched: Process | None = None
        with anyio.CancelScope(shield=True):
            launched = await anyio.open_process(
                launch.argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                cwd=launch.cwd,
                env=launch.env,
                start_new_session=True,
            )
        process = launched
        assert process is not None  # a shielded scope is never cancelled
        stdout = process.stdout
        assert stdout is not None
        finished = anyio.Event()

        async def pump() -> None:
            try:
                async for chunk in stdout:
                    buffer.write(chunk)
            except anyio.ClosedResourceError:
                pass
            finally:
                finished.set()

        try:
            with anyio.move_on_after(timeout) as deadline:
                async with anyio.create_task_group() as group:
                    group.start_soon(pump)
                    await process.wait()
                    with anyio.move_on_after(_DRAIN_AFTER_EXIT):
                        await finished.wait()
                    group.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await terminate_group(process.pid, grace=self.kill_grace)
                await process.wait()
                await process.aclose()
        shown = self._render(buffer)
        if deadline.cancelled_caught:
            return ToolReturn.text(
                f"{shown}\n[timed out after {timeout:g} s; the command's process group was killed]",
                is_error=True,
            )
        code = process.returncode
        return ToolReturn.text(f"{shown}\n[exit code: {code}]", is_error=code != 0)

    def _start_background(self, command: str, cwd: Path, profile: SandboxProfile) -> str:
        if self.background is None:
            raise ToolUsageError("background commands are not available in this session")
        status = self.background.start(
            command,
            cwd=cwd,
            sandbox=self.sandbox,
            workspace=self.workspace.root,
            profile=profile,
            allow_network=self.allow_network,
        )
        return (
            f"Started background task {status.task_id} (pid {status.pid}); output streams "
            f"to {status.output_path}. Use shell_output with task_id={status.task_id!r} "
            "to read it and shell_kill to stop it."
        )

    def _render(self, buffer: HeadTailBuffer) -> str:
        output = buffer.text().rstrip("\n")
        if not output:
            return "(no output)"
        output = head_tail_lines(output, self.bounds.max_lines)
        # Bytes are already bounded by the buffer (head and tail kept); cut long lines only.
        relaxed = OutputBounds(
            max_bytes=self.bounds.max_bytes + 1024,
            max_lines=self.bounds.max_lines + 1,
            max_line_chars=self.bounds.max_line_chars,
        )
        return bound_text(output, relaxed).text


class ShellOutputArgs(BaseModel):
    """Arguments of ``shell_output``."""

    model_config = ConfigDict(extra="forbid")

    task_id: str = Field(description="The id shell returned for a background command.")
    all: bool = Field(
        default=False, description="Return the output from the start instead of only new output."
    )


def _state_line(status: BackgroundStatus) -> str:
    if status.state == "running":
        return f"status: running (pid {status.pid})"
    return f"status: {status.state} (exit code {status.exit_code})"


class ShellOutputTool(BuiltinTool[ShellOutputArgs]):
    """Read a background command's state and its output since the last read (or all of it).

    Result: ``status: running`` or ``status: exited (exit code N)`` / ``status: killed
    (exit code -15)``, then the output (at most ``bounds.max_bytes`` bytes per read; a note
    says how many bytes remain for the next call).

    Args:
        background: The manager the ``shell`` tool starts tasks in.
        bounds: Output limits.
    """

    name = "shell_output"
    description = (
        "Read a background shell task's status (running/exited, exit code) and the output "
        "it wrote since the last read (all=true for everything)."
    )
    risk = RiskClass.INSPECT
    permission_argument = PermissionArgument(key="task_id", kind=ArgumentKind.TEXT)
    args_model: ClassVar[type[BaseModel]] = ShellOutputArgs

    def __init__(
        self, background: BackgroundShells, *, bounds: OutputBounds = DEFAULT_BOUNDS
    ) -> None:
        self.background = background
        self.bounds = bounds

    async def run(self, args: ShellOutputArgs, ctx: ToolContext[Any]) -> ToolOutput:
        read = self.background.read(
            args.task_id, from_start=args.all, max_bytes=self.bounds.max_bytes
        )
        body = read.text.rstrip("\n")
        lines = [_state_line(read.status)]
        if body:
            lines.append(bound_text(body, self.bounds).text)
        else:
            lines.append("(no new output)")
        if read.unread_bytes:
            lines.append(f"[{read.unread_bytes} more bytes of output; call shell_output again]")
        return "\n".join(lines)


class ShellKillArgs(BaseModel):
    """Arguments of ``shell_kill``."""

    model_config = ConfigDict(extra="forbid")

    task_id: str = Field(description="The id of the background command to stop.")


class ShellKillTool(BuiltinTool[ShellKillArgs]):
    """Stop a background command and its whole process group.

    Args:
        background: The manager the ``shell`` tool starts tasks in.
    """

    name = "shell_kill"
    description = "Stop a background shell task (and every process it started)."
    risk = RiskClass.EXECUTE
    permission_argument = PermissionArgument(key="task_id", kind=ArgumentKind.TEXT)
    args_model: ClassVar[type[BaseModel]] = ShellKillArgs

    def __init__(self, background: BackgroundShells) -> None:
        self.background = background

    async def run(self, args: ShellKillArgs, ctx: ToolContext[Any]) -> ToolOutput:
        before = self.background.status(args.task_id)
        status = await self.background.kill(args.task_id, acknowledge=True)
        if before.state != "running":
            return f"Task {args.task_id} had already ended ({_state_line(status)})"
        return f"Killed task {args.task_id} ({_state_line(status)})"
