"""shell, shell_output, shell_kill and BackgroundShells: real processes, process-group kill."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from _tools_helpers import call, text_of  # pyright: ignore[reportImplicitRelativeImport]
from robota.core.tools.base import ArgumentKind, RiskClass, ToolContext
from robota.tools import (
    BackgroundShells,
    OutputBounds,
    ShellKillTool,
    ShellOutputTool,
    ShellTool,
    Workspace,
)

pytestmark = pytest.mark.anyio


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie left to a non-reaping init counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat[stat.rfind(")") + 2] != "Z"


def read_int(path: Path | str) -> int:
    return int(Path(path).read_text())


def has_content(path: Path) -> bool:
    return path.exists() and path.read_text().strip() != ""


async def wait_until(condition: Callable[[], bool]) -> None:
    """Poll a condition on an outside process (nothing to await on), bounded to 10 s."""
    with anyio.fail_after(10):
        while not condition():  # noqa: ASYNC110
            await anyio.sleep(0.02)


async def wait_for_file(path: Path) -> None:
    await wait_until(lambda: has_content(path))


def test_shell_tools_declare_risk_and_permission_argument(workspace: Workspace) -> None:
    shells = BackgroundShells()
    shell = ShellTool(workspace, background=shells)
    assert shell.risk is RiskClass.EXECUTE
    assert shell.permission_argument is not None
    assert (shell.permission_argument.key, shell.permission_argument.kind) == (
        "command",
        ArgumentKind.COMMAND,
    )
    assert ShellKillTool(shells).risk is RiskClass.EXECUTE
    assert ShellOutputTool(shells).risk is RiskClass.INSPECT


async def test_shell_runs_in_workspace_with_env_overrides(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    (workspace.root / "sub").mkdir()
    before = dict(os.environ)
    tool = ShellTool(workspace, env={"ROBOTA_TEST_VAR": "from-host"})
    result = await call(tool, ctx, command='pwd; echo "$ROBOTA_TEST_VAR"; echo err >&2', cwd="sub")
    assert not result.is_error
    assert text_of(result) == f"{workspace.root / 'sub'}\nfrom-host\nerr\n[exit code: 0]"
    assert dict(os.environ) == before
    assert "ROBOTA_TEST_VAR" not in os.environ


async def test_shell_nonzero_exit_is_an_error_result(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    result = await call(ShellTool(workspace), ctx, command="echo oops; exit 3")
    assert result.is_error
    assert text_of(result) == "oops\n[exit code: 3]"


async def test_shell_cwd_outside_workspace_is_refused(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    result = await call(ShellTool(workspace), ctx, command="pwd", cwd="..")
    assert result.is_error
    assert "outside" in text_of(result)


async def test_shell_output_is_bounded_head_and_tail(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    tool = ShellTool(workspace, bounds=OutputBounds(max_bytes=200, max_lines=50))
    result = await call(tool, ctx, command="seq 1 100000")
    text = text_of(result)
    assert text.startswith("1\n2\n3\n")
    assert "bytes of output omitted" in text
    assert "100000" in text
    assert text.endswith("[exit code: 0]")
    assert len(text.encode()) < 600


async def test_shell_timeout_kills_the_process_group(
    workspace: Workspace, ctx: ToolContext[Any], tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    tool = ShellTool(workspace, kill_grace=0.5)
    command = f"sleep 30 & echo $$ $! > {pids}; wait"
    result = await call(tool, ctx, command=command, timeout=0.5)
    assert result.is_error
    assert "[timed out after 0.5 s; the command's process group was killed]" in text_of(result)
    shell_pid, child_pid = (int(p) for p in pids.read_text().split())
    with pytest.raises(ProcessLookupError):
        os.kill(shell_pid, 0)
    assert not alive(child_pid)


async def test_cancelling_a_shell_kills_the_group_with_grandchildren(
    workspace: Workspace, ctx: ToolContext[Any], tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    tool = ShellTool(workspace, kill_grace=0.5)
    # bash -> (bash -> sleep 30) : the sleep is a grandchild of the shell tool's process.
    command = f"bash -c 'sleep 30 & echo $! > {pids}.grand; wait' & echo $$ > {pids}; wait"
    with anyio.CancelScope() as scope:
        async with anyio.create_task_group() as group:
            group.start_soon(tool.call, {"command": command}, ctx)
            await wait_for_file(Path(f"{pids}.grand"))
            await wait_for_file(pids)
            scope.cancel()
    shell_pid = read_int(pids)
    grandchild = read_int(f"{pids}.grand")
    with pytest.raises(ProcessLookupError):
        os.kill(shell_pid, 0)
    assert not alive(grandchild)


async def test_cancelling_while_the_shell_is_being_launched_kills_the_group(
    workspace: Workspace, ctx: ToolContext[Any], tmp_path: Path
) -> None:
    # The process has started but its pipes are not connected yet (a loaded machine): a
    # cancellation there must still stop the whole group, not leave it to the event loop (which
    # kills the leader only) -- the grandchild would run on.
    import asyncio

    pids = tmp_path / "pids"
    tool = ShellTool(workspace, kill_grace=0.5)
    command = f"bash -c 'sleep 30 & echo $! > {pids}.grand; wait' & wait"
    loop = asyncio.get_running_loop()
    connect = loop.connect_read_pipe

    with anyio.CancelScope() as scope:

        async def slow_connect(*args: Any, **kwargs: Any) -> Any:
            await wait_for_file(Path(f"{pids}.grand"))
            scope.cancel()  # while open_process is still setting the process up
            await asyncio.sleep(0.05)
            return await connect(*args, **kwargs)

        loop.connect_read_pipe = slow_connect  # type: ignore[method-assign]
        try:
            await tool.call({"command": command}, ctx)
        finally:
            loop.connect_read_pipe = connect  # type: ignore[method-assign]
    assert scope.cancelled_caught
    assert not alive(read_int(f"{pids}.grand"))


async def test_finished_command_leaves_no_stray_children(
    workspace: Workspace, ctx: ToolContext[Any], tmp_path: Path
) -> None:
    pids = tmp_path / "stray"
    tool = ShellTool(workspace, kill_grace=0.5)
    result = await call(
        tool, ctx, command=f"sleep 30 >/dev/null 2>&1 & echo $! > {pids}; echo done"
    )
    assert text_of(result) == "done\n[exit code: 0]"
    assert not alive(int(pids.read_text()))


async def test_background_lifecycle_incremental_reads_and_exit_notification(
    workspace: Workspace, ctx: ToolContext[Any], tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    async with BackgroundShells(tmp_path / "out", kill_grace=0.5) as shells:
        shell = ShellTool(workspace, background=shells)
        output = ShellOutputTool(shells)
        started = await call(
            shell,
            ctx,
            command=f"echo first; while [ ! -e {gate} ]; do sleep 0.02; done; echo second; exit 4",
            run_in_background=True,
        )
        assert text_of(started).startswith("Started background task shell_1 (pid ")
        status = shells.status("shell_1")
        assert status.output_path == tmp_path / "out" / "shell_1.log"
        assert (status.output_path.stat().st_mode & 0o777) == 0o600
        await wait_for_file(status.output_path)
        first = text_of(await call(output, ctx, task_id="shell_1"))
        assert first == f"status: running (pid {status.pid})\nfirst"
        again = text_of(await call(output, ctx, task_id="shell_1"))
        assert again == f"status: running (pid {status.pid})\n(no new output)"
        assert shells.drain_exit_notifications() == []
        gate.touch()
        await wait_until(lambda: shells.status("shell_1").state != "running")
        assert shells.has_pending_exits
        [note] = shells.drain_exit_notifications()
        assert note.startswith("<task-notification>\ntask_id: shell_1\n")
        assert "status: exited\nexit_code: 4\n" in note
        assert shells.drain_exit_notifications() == []
        rest = text_of(await call(output, ctx, task_id="shell_1"))
        assert rest == "status: exited (exit code 4)\nsecond"
        everything = text_of(await call(output, ctx, task_id="shell_1", all=True))
        assert everything == "status: exited (exit code 4)\nfirst\nsecond"


async def test_exit_read_by_the_model_is_not_notified_again(
    workspace: Workspace, ctx: ToolContext[Any], tmp_path: Path
) -> None:
    async with BackgroundShells(tmp_path / "out") as shells:
        status = shells.start("echo hi", cwd=workspace.root)
        await wait_until(lambda: shells.status(status.task_id).state != "running")
        text = text_of(await call(ShellOutputTool(shells), ctx, task_id=status.task_id))
        assert text == "status: exited (exit code 0)\nhi"
        assert shells.drain_exit_notifications() == []


async def test_shell_kill_stops_group_and_is_acknowledged(
    workspace: Workspace, ctx: ToolContext[Any], tmp_path: Path
) -> None:
    pids = tmp_path / "bg"
    async with BackgroundShells(tmp_path / "out", kill_grace=0.5) as shells:
        status = shells.start(f"sleep 30 & echo $! > {pids}; wait", cwd=workspace.root)
        await wait_for_file(pids)
        child = int(pids.read_text())
        killed = text_of(await call(ShellKillTool(shells), ctx, task_id=status.task_id))
        assert killed == "Killed task shell_1 (status: killed (exit code -15))"
        with pytest.raises(ProcessLookupError):
            os.kill(status.pid, 0)
        assert not alive(child)
        assert shells.drain_exit_notifications() == []
        unknown = await call(ShellKillTool(shells), ctx, task_id="shell_9")
        assert unknown.is_error
        assert text_of(unknown) == "Error: no background task 'shell_9' (known: shell_1)"


async def test_host_kill_is_delivered_and_aclose_kills_everything(
    workspace: Workspace, tmp_path: Path
) -> None:
    shells = BackgroundShells(tmp_path / "out", kill_grace=0.5)
    first = shells.start("sleep 30", cwd=workspace.root)
    second = shells.start("sleep 30", cwd=workspace.root)
    await shells.kill(first.task_id)
    [note] = shells.drain_exit_notifications()
    assert "task_id: shell_1\n" in note
    assert "status: killed\n" in note
    await shells.aclose()
    with pytest.raises(ProcessLookupError):
        os.kill(second.pid, 0)
    assert shells.status(second.task_id).state == "killed"
    assert shells.drain_exit_notifications() == []


async def test_background_refused_without_a_manager(
    workspace: Workspace, ctx: ToolContext[Any]
) -> None:
    result = await call(ShellTool(workspace), ctx, command="true", run_in_background=True)
    assert result.is_error
    assert text_of(result) == "Error: background commands are not available in this session"
